//! The fuzzer's program model: a tree of plain instructions and control structures (forward skips, if/else on a
//! lane mask, bounded loops, calls), rendered to code with labels resolved. Structures are kept as a tree, not as
//! code, so that the shrinker can delete or inline any node and still get a valid, terminating program.

use lanejit_isa::asm::{KernelMeta, Program};
use lanejit_isa::{by_mnemonic, encode_values, InsnId, InsnInfo, KindClass, LANES};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// Register plan. Random instructions only name pool registers (`v0..VPOOL`, `u0..UPOOL`); register groups
/// (b128 loads, u.ld.b256) may spill a few registers past the pool, never into the reserved ranges below.
pub const VPOOL: u8 = 16;
/// Uniform registers random instructions name (`u0..UPOOL`).
pub const UPOOL: u8 = 16;
/// Vector address temporaries: `V_OFF` holds lane offsets, `V_PTR:V_PTR+1` per-lane 64-bit pointers.
pub const V_OFF: u8 = 24;
/// Per-lane 64-bit pointer pair.
pub const V_PTR: u8 = 26;
/// Loop counters, one per nesting depth (main code uses depths `0..MAX_DEPTH`, functions the next ones, so that
/// a call inside a structure never clobbers its caller's counter or saved EXEC).
pub const U_LOOP: u8 = 32;
/// EXEC saved by an if/else or a divergent loop, one per nesting depth.
pub const U_SAVE: u8 = 38;
/// Scratch for the else branch's `exec.andn.save` and for fcsr values.
pub const U_TMP: u8 = 46;
/// Return address of calls.
pub const U_LINK: u8 = 48;
/// Function pointer of indirect calls.
pub const U_FPTR: u8 = 49;
/// The moving part of sliding accesses (`gen::Gen::offsets`): each such access adds it to its lane offsets and
/// then advances it, so that an access repeated by a loop or by another wave walks through memory.
pub const U_SLIDE: u8 = 50;
/// Address pair of a sliding uniform access: a base pair plus `U_SLIDE` (see `gen::Gen::mem`).
pub const U_UPTR: u8 = 52;
/// Even uniform pairs holding device base addresses (see `gen::MEM_*`).
pub const U_BASES: [u8; 4] = [56, 58, 60, 62];
/// Nesting depths of structures in main code; function bodies use `MAX_DEPTH..2 * MAX_DEPTH`.
pub const MAX_DEPTH: u8 = 3;

/// One instruction that is not control flow: its table entry and operand values in syntax order.
#[derive(Clone, Debug, PartialEq)]
pub struct Op {
    /// The instruction's table entry.
    pub id: InsnId,
    /// Operand values, in syntax order.
    pub vals: Vec<i64>,
}

impl Op {
    /// The instruction's table entry.
    pub fn info(&self) -> &'static InsnInfo {
        self.id.info()
    }
}

/// How a loop counts and ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopKind {
    /// `u.li c, n; top: body; u.add.i c, c, -1; b.nz c, top`
    Nz,
    /// `u.li c, n-1; top: body; u.add.i c, c, -1; b.ge c, top`
    Ge,
    /// Lanes leave the loop: `exec.get s; top: body; exec.and.save t, mask; u.add.i c, c, -1; b.z c, out;
    /// j.execnz top; out: exec.set s`.
    Divergent,
}

/// A piece of a generated program.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// One plain instruction.
    Op(Op),
    /// `br out; body; out:` with br one of j, j.execz, j.execnz, b.z/nz/lt/ge (on pool register `reg`).
    Skip {
        /// The branch.
        br: InsnId,
        /// The pool register a conditional branch tests.
        reg: u8,
        /// What the branch skips.
        body: Vec<Node>,
    },
    /// `exec.and.save s, mask; [j.execz else]; then; else: [exec.set s; exec.andn.save t, mask; [j.execz join];
    /// els]; join: exec.set s`.
    If {
        /// Pool register holding the lane mask.
        mask: u8,
        /// Nesting depth (selects the saved-EXEC register).
        depth: u8,
        /// Jump over a branch whose lanes are all off.
        skip_empty: bool,
        /// The then branch.
        then: Vec<Node>,
        /// The else branch, if any.
        els: Option<Vec<Node>>,
    },
    /// A counted loop (see [`LoopKind`]).
    Loop {
        /// How it counts and ends.
        kind: LoopKind,
        /// Nesting depth (selects the counter register).
        depth: u8,
        /// Iterations.
        count: u8,
        /// Pool register holding the mask of lanes that stay (divergent loops).
        mask: u8,
        /// The loop body.
        body: Vec<Node>,
    },
    /// `jal link, f` or `u.pcrel p, f - bias; jalr link, p, bias`; the function returns with `jr link, 0`.
    Call {
        /// Index into `GenProgram::funcs`.
        func: usize,
        /// Call through a register (`jalr`) rather than `jal`.
        indirect: bool,
        /// Offset folded into the indirect call.
        bias: i16,
    },
    /// `barrier`: only at the top level of main code in a multi-wave program, where every wave passes (no
    /// structure around it: every wave meets the same barriers in the same order).
    Barrier,
}

/// A generated kernel: main code, what ends it (`None`: fall off the end), then the functions.
#[derive(Clone, Debug, PartialEq)]
pub struct GenProgram {
    /// Main code.
    pub main: Vec<Node>,
    /// What ends main code (`None`: fall off the end).
    pub tail: Option<Op>,
    /// Function bodies, each ending with `jr link, 0`.
    pub funcs: Vec<Vec<Node>>,
    /// Shared memory bytes (`.shared`).
    pub shared: u32,
    /// Private memory bytes per lane (`.private`).
    pub private: u32,
    /// Waves of the workgroup the program runs as (1: a lone wave); rendered as `.workgroup`, so that the
    /// reproducer alone says how to run it (see `group`).
    pub waves: u8,
    /// The program runs as a launch runs its waves, in workgroups of `waves` rows of 24 threads (rendered
    /// `.workgroup 24, WAVES`; see `launch_like`).
    pub launch: bool,
}

/// Table entries the structures are built from.
pub struct Ids {
    /// `j`.
    pub j: InsnId,
    /// `j.execz`.
    pub j_execz: InsnId,
    /// `j.execnz`.
    pub j_execnz: InsnId,
    /// `jal`.
    pub jal: InsnId,
    /// `jr`.
    pub jr: InsnId,
    /// `jalr`.
    pub jalr: InsnId,
    /// `b.z`.
    pub b_z: InsnId,
    /// `b.nz`.
    pub b_nz: InsnId,
    /// `b.lt`.
    pub b_lt: InsnId,
    /// `b.ge`.
    pub b_ge: InsnId,
    /// `exec.and.save`.
    pub exec_and_save: InsnId,
    /// `exec.andn.save`.
    pub exec_andn_save: InsnId,
    /// `exec.set`.
    pub exec_set: InsnId,
    /// `exec.get`.
    pub exec_get: InsnId,
    /// `u.li`.
    pub u_li: InsnId,
    /// `u.add.i`.
    pub u_add_i: InsnId,
    /// `u.pcrel`.
    pub u_pcrel: InsnId,
    /// `end`.
    pub end: InsnId,
    /// `barrier`.
    pub barrier: InsnId,
}

fn id(m: &str) -> InsnId {
    by_mnemonic(m).unwrap_or_else(|| panic!("the fuzzer's structures need `{m}` in the ISA tables")).id
}

/// The entries, looked up on first use.
pub fn ids() -> &'static Ids {
    static IDS: OnceLock<Ids> = OnceLock::new();
    IDS.get_or_init(|| Ids {
        j: id("j"),
        j_execz: id("j.execz"),
        j_execnz: id("j.execnz"),
        jal: id("jal"),
        jr: id("jr"),
        jalr: id("jalr"),
        b_z: id("b.z"),
        b_nz: id("b.nz"),
        b_lt: id("b.lt"),
        b_ge: id("b.ge"),
        exec_and_save: id("exec.and.save"),
        exec_andn_save: id("exec.andn.save"),
        exec_set: id("exec.set"),
        exec_get: id("exec.get"),
        u_li: id("u.li"),
        u_add_i: id("u.add.i"),
        u_pcrel: id("u.pcrel"),
        end: id("end"),
        barrier: id("barrier"),
    })
}

/// Operand values by operand name; omitted keyword operands take their default, other omissions are zero.
pub fn op(id: InsnId, named: &[(&str, i64)]) -> Op {
    let info = id.info();
    let vals = info
        .operands
        .iter()
        .map(|o| {
            named
                .iter()
                .find(|(n, _)| *n == o.name)
                .map(|&(_, v)| v)
                .unwrap_or_else(|| o.kind().default.map_or(0, |d| o.kind().decode_value(d)))
        })
        .collect();
    Op { id, vals }
}

/// A label operand to patch once addresses are known.
struct Fixup {
    at: usize,
    operand: usize,
    label: usize,
    /// Byte offset added to the label's address.
    bias: i64,
}

struct Emitter {
    ops: Vec<Op>,
    pcs: Vec<u32>,
    pc: u32,
    labels: Vec<Option<u32>>,
    names: BTreeMap<String, usize>,
    fixups: Vec<Fixup>,
}

impl Emitter {
    fn label(&mut self) -> usize {
        self.labels.push(None);
        self.labels.len() - 1
    }
    fn named(&mut self, name: String) -> usize {
        let l = self.label();
        self.names.insert(name, l);
        l
    }
    fn bind(&mut self, l: usize) {
        self.labels[l] = Some(self.pc);
    }
    fn emit(&mut self, o: Op) {
        self.pcs.push(self.pc);
        self.pc += o.info().words * 4;
        self.ops.push(o);
    }
    /// Emits `o` whose pc-relative operand `operand` points at `label` (+ bias bytes).
    fn emit_to(&mut self, o: Op, operand: &str, label: usize, bias: i64) {
        let operand = o.info().operands.iter().position(|x| x.name == operand).expect("structure operand exists");
        self.fixups.push(Fixup { at: self.ops.len(), operand, label, bias });
        self.emit(o);
    }

    fn nodes(&mut self, nodes: &[Node], funcs: &[usize]) {
        for n in nodes {
            self.node(n, funcs);
        }
    }

    fn node(&mut self, n: &Node, funcs: &[usize]) {
        let d = ids();
        match n {
            Node::Op(o) => self.emit(o.clone()),
            Node::Skip { br, reg, body } => {
                let out = self.label();
                self.emit_to(op(*br, &[("rs1", *reg as i64)]), "imm", out, 0);
                self.nodes(body, funcs);
                self.bind(out);
            }
            Node::If { mask, depth, skip_empty, then, els } => {
                let (s, m) = ((U_SAVE + depth) as i64, *mask as i64);
                let (else_l, join) = (self.label(), self.label());
                self.emit(op(d.exec_and_save, &[("rd", s), ("rs1", m)]));
                if *skip_empty {
                    self.emit_to(op(d.j_execz, &[]), "imm", else_l, 0);
                }
                self.nodes(then, funcs);
                self.bind(else_l);
                if let Some(els) = els {
                    self.emit(op(d.exec_set, &[("rs1", s)]));
                    self.emit(op(d.exec_andn_save, &[("rd", U_TMP as i64), ("rs1", m)]));
                    if *skip_empty {
                        self.emit_to(op(d.j_execz, &[]), "imm", join, 0);
                    }
                    self.nodes(els, funcs);
                }
                self.bind(join);
                self.emit(op(d.exec_set, &[("rs1", s)]));
            }
            Node::Loop { kind, depth, count, mask, body } => self.lp(*kind, *depth, *count, *mask, body, funcs),
            Node::Barrier => self.emit(op(d.barrier, &[])),
            Node::Call { func, indirect, bias } => {
                let target = funcs[*func];
                if *indirect {
                    let b = *bias as i64;
                    self.emit_to(op(d.u_pcrel, &[("rd", U_FPTR as i64)]), "imm", target, -b);
                    self.emit(op(d.jalr, &[("rd", U_LINK as i64), ("rs1", U_FPTR as i64), ("imm", b)]));
                } else {
                    self.emit_to(op(d.jal, &[("rd", U_LINK as i64)]), "imm", target, 0);
                }
            }
        }
    }

    fn lp(&mut self, kind: LoopKind, depth: u8, count: u8, mask: u8, body: &[Node], funcs: &[usize]) {
        let d = ids();
        let c = (U_LOOP + depth) as i64;
        let (top, out) = (self.label(), self.label());
        let count = count.max(1) as i64;
        match kind {
            LoopKind::Nz | LoopKind::Divergent => self.emit(op(d.u_li, &[("rd", c), ("imm", count)])),
            LoopKind::Ge => self.emit(op(d.u_li, &[("rd", c), ("imm", count - 1)])),
        }
        let s = (U_SAVE + depth) as i64;
        if kind == LoopKind::Divergent {
            self.emit(op(d.exec_get, &[("rd", s)]));
        }
        self.bind(top);
        self.nodes(body, funcs);
        if kind == LoopKind::Divergent {
            self.emit(op(d.exec_and_save, &[("rd", U_TMP as i64), ("rs1", mask as i64)]));
        }
        self.emit(op(d.u_add_i, &[("rd", c), ("rs1", c), ("imm", -1)]));
        match kind {
            LoopKind::Nz => self.emit_to(op(d.b_nz, &[("rs1", c)]), "imm", top, 0),
            LoopKind::Ge => self.emit_to(op(d.b_ge, &[("rs1", c)]), "imm", top, 0),
            LoopKind::Divergent => {
                self.emit_to(op(d.b_z, &[("rs1", c)]), "imm", out, 0);
                self.emit_to(op(d.j_execnz, &[]), "imm", top, 0);
            }
        }
        self.bind(out);
        if kind == LoopKind::Divergent {
            self.emit(op(d.exec_set, &[("rs1", s)]));
        }
    }
}

impl GenProgram {
    /// The kernel: main, tail, functions (each ending in `jr link, 0`). Fails only if an operand does not fit
    /// its field, which the generator and shrinker never produce (kept as an error rather than a panic).
    pub fn render(&self) -> Result<Program, String> {
        let e = self.layout();
        let mut words = Vec::with_capacity(e.pc as usize / 4);
        for o in &e.ops {
            encode_values(o.info(), &o.vals)?.push_to(&mut words);
        }
        let labels = e.names.iter().filter_map(|(n, &l)| e.labels[l].map(|pc| (n.clone(), pc))).collect();
        let mut meta = KernelMeta {
            name: "fuzz".into(),
            shared_bytes: self.shared,
            private_bytes: self.private,
            ..KernelMeta::default()
        };
        if self.launch {
            meta.workgroup = [crate::fuzz::launch_like::ROW, self.waves as u32, 1];
        } else if self.waves > 1 {
            meta.workgroup = [LANES as u32 * self.waves as u32, 1, 1];
        }
        Ok(Program { words, labels, meta })
    }

    /// Instructions in the rendered kernel: the plain ones plus everything the structures, calls, the tail and
    /// the function returns emit (what a reproducer's reader sees).
    pub fn insn_count(&self) -> usize {
        self.layout().ops.len()
    }

    /// Every instruction of the kernel in order, with labels resolved.
    fn layout(&self) -> Emitter {
        let mut e = Emitter {
            ops: Vec::new(),
            pcs: Vec::new(),
            pc: 0,
            labels: Vec::new(),
            names: BTreeMap::new(),
            fixups: Vec::new(),
        };
        let funcs: Vec<usize> = (0..self.funcs.len()).map(|i| e.named(format!("func{i}"))).collect();
        e.nodes(&self.main, &funcs);
        if let Some(t) = &self.tail {
            e.emit(t.clone());
        }
        for (i, body) in self.funcs.iter().enumerate() {
            e.bind(funcs[i]);
            e.nodes(body, &[]);
            e.emit(op(ids().jr, &[("rs1", U_LINK as i64), ("imm", 0)]));
        }
        for f in &e.fixups {
            let target = e.labels[f.label].unwrap_or(e.pc) as i64 + f.bias;
            e.ops[f.at].vals[f.operand] = target - e.pcs[f.at] as i64;
        }
        e
    }

    /// Number of plain instructions (the shrinker's measure of size).
    pub fn op_count(&self) -> usize {
        fn count(ns: &[Node]) -> usize {
            ns.iter()
                .map(|n| match n {
                    Node::Op(_) | Node::Call { .. } | Node::Barrier => 1,
                    Node::Skip { body, .. } | Node::Loop { body, .. } => 1 + count(body),
                    Node::If { then, els, .. } => 1 + count(then) + els.as_deref().map_or(0, count),
                })
                .sum()
        }
        count(&self.main) + self.funcs.iter().map(|f| count(f)).sum::<usize>() + self.tail.is_some() as usize
    }
}

/// Is this kind a register (the classes the shrinker may renumber)?
pub fn is_reg(class: KindClass) -> bool {
    matches!(class, KindClass::VReg | KindClass::UReg | KindClass::VHalf)
}
