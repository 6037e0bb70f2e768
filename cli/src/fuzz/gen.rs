//! The program generator, driven by the ISA tables: every instruction of `INSNS` that is not control flow or
//! memory is a "plain" candidate with operands drawn by kind class, so a new YAML entry is fuzzed without a
//! change here. Control flow comes from structures (see `prog`), memory accesses from a generator that sets up
//! addresses inside and outside the allocations of the initial state.

use super::prog::*;
use super::rng::Rng;
use super::values;
use lanejit::state_json::{to_hex, MemJson, StateJson};
use lanejit::DEVICE_BASE;
use lanejit_isa::{by_mnemonic, flag, InsnId, InsnInfo, KindClass, OperandInfo, INSNS, LANES};
use std::sync::OnceLock;

#[path = "gen_image.rs"]
mod image;
#[path = "gen_runs.rs"]
mod runs;
pub use image::{U_IMG, V_IMG};

/// Read-write global buffer at the device base.
pub const MEM_A: u64 = DEVICE_BASE;
/// Bytes of buffer A.
pub const MEM_A_SIZE: u64 = 1024;
/// Read-only buffer (writes fault).
pub const MEM_B: u64 = DEVICE_BASE + 0x1000;
/// Bytes of buffer B.
pub const MEM_B_SIZE: u64 = 256;
/// Addresses held by the reserved base pairs `U_BASES`: A, B, near A's end (most offsets fall off it), and a
/// gap between the allocations.
pub const BASES: [u64; 4] = [MEM_A, MEM_B, MEM_A + MEM_A_SIZE - 64, DEVICE_BASE + 0x800];
/// Shared memory of a generated kernel, bytes.
pub const SHARED_BYTES: u32 = 512;
/// Private memory per lane of a generated kernel, bytes.
pub const PRIVATE_BYTES: u32 = 64;

/// A generated test: the program and the wave state it starts from.
#[derive(Clone, Debug)]
pub struct Case {
    /// The program's seed.
    pub seed: u64,
    /// The program.
    pub prog: GenProgram,
    /// The initial state.
    pub init: StateJson,
}

/// The ISA tables sorted by what the generator does with each entry.
pub struct Tables {
    /// Drawn at random with random operands.
    pub plain: Vec<InsnId>,
    /// Plain instructions that write a uniform register while reading EXEC (compares, ballots): lane masks.
    pub masks: Vec<InsnId>,
    /// Vector and uniform memory accesses (formats other than images).
    pub mem: Vec<InsnId>,
    /// Image ops, also drawn rarely as plain instructions with random operands (`gen_image.rs` makes the
    /// well-formed ones).
    pub image: Vec<InsnId>,
    /// Control instructions that stop the wave without branching (trap, brk, barrier in a lone wave).
    pub terminal: Vec<InsnId>,
    /// `v.and.k`.
    pub v_and_k: InsnId,
    /// `v.laneid`.
    pub v_laneid: InsnId,
    /// `v.shl.i`.
    pub v_shl_i: InsnId,
    /// `v.mov.u.b64`.
    pub v_mov_u_b64: InsnId,
    /// `v.add.u64.u32`.
    pub v_add_u64_u32: InsnId,
    /// `v.add.vu`.
    pub v_add_vu: InsnId,
    /// `ld.b32`.
    pub ld_b32: InsnId,
    /// `st.b32`.
    pub st_b32: InsnId,
    /// `u.add.i`.
    pub u_add_i: InsnId,
    /// `u.add.u64.u32`.
    pub u_add_u64_u32: InsnId,
    /// `csr.r`.
    pub csr_r: InsnId,
    /// `wait`.
    pub wait: InsnId,
    /// Uniform loads and stores (`UM`).
    pub uniform_mem: Vec<InsnId>,
}

fn find(m: &str) -> InsnId {
    by_mnemonic(m).unwrap_or_else(|| panic!("the fuzzer's address setup needs `{m}`")).id
}

/// The tables, built on first use.
pub fn tables() -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(|| {
        let is = |i: &InsnInfo, f| i.has(f);
        let mut t = Tables {
            plain: vec![],
            masks: vec![],
            mem: vec![],
            image: vec![],
            terminal: vec![],
            v_and_k: find("v.and.k"),
            v_laneid: find("v.laneid"),
            v_shl_i: find("v.shl.i"),
            v_mov_u_b64: find("v.mov.u.b64"),
            v_add_u64_u32: find("v.add.u64.u32"),
            wait: find("wait"),
            v_add_vu: find("v.add.vu"),
            u_add_i: find("u.add.i"),
            ld_b32: find("ld.b32"),
            st_b32: find("st.b32"),
            u_add_u64_u32: find("u.add.u64.u32"),
            csr_r: find("csr.r"),
            uniform_mem: vec![],
        };
        for i in INSNS.iter() {
            if i.format().name == "T" {
                t.image.push(i.id);
            } else if is(i, flag::LD) || is(i, flag::ST) {
                t.mem.push(i.id);
                if i.format().name == "UM" {
                    t.uniform_mem.push(i.id);
                }
            } else if is(i, flag::BR) {
                // Branches only come from structures (termination is by construction).
            } else if is(i, flag::SY) || i.flow != lanejit_isa::Flow::None {
                t.terminal.push(i.id);
            } else {
                t.plain.push(i.id);
                let first_is_u =
                    i.operands.first().is_some_and(|o| o.kind().class == KindClass::UReg && !o.kind().pair);
                if is(i, flag::RE) && is(i, flag::UR) && first_is_u && !is(i, flag::WE) {
                    t.masks.push(i.id);
                }
            }
        }
        t
    })
}

/// Alignment of an access, from the ISA tables (YAML `access`): natural for 1, 2, 4, 8, 16 and 32 bytes, 4 for
/// b96 (three dwords); 16 for instructions without one (image ops).
pub fn access_align(info: &InsnInfo) -> u64 {
    match info.access {
        Some(a) if a.bytes.is_power_of_two() => a.bytes as u64,
        Some(_) => 4,
        None => 16,
    }
}

/// A valid fcsr value: a static rounding mode (0..=4) and the two flush bits.
fn fcsr_value(r: &mut Rng) -> i64 {
    r.range(0, 4) | r.range(0, 3) << 3
}

struct Gen {
    r: Rng,
    /// A second stream for the offset pattern added later (a dropped stride bit): drawing it from `r` would
    /// shift every later draw, and with it every program the kill table of planted bugs (`tests/mutants.rs`)
    /// was measured on. (Lane groups sharing one offset, tried too, add an instruction, which shifts the
    /// program's shape all the same; they hid planted bug 106 from the 2,000-program table, so
    /// tests/cases/jit/slices.yaml covers broadcast accesses instead.)
    side: Rng,
    /// Vector and uniform pool sizes (even).
    pv: u8,
    pu: u8,
    nfuncs: usize,
    /// Percent chance that a memory access is deliberately misaligned or out of bounds.
    fault_pct: u32,
    /// A multi-wave program: most accesses go to shared memory, where the waves meet.
    group: bool,
    /// The program has private memory (a multi-wave program without barriers has none, so that its waves run
    /// back to back as a launch runs them: `fuzz::group::BackToBack`).
    private: bool,
    /// The image accesses' own stream (`gen_image.rs`): drawing them leaves `r` as it was.
    img: Rng,
    /// The runs of accesses' own stream (`gen_runs.rs`).
    runs: Rng,
}

impl Gen {
    fn vreg(&mut self, pair: bool) -> i64 {
        let x = self.r.below(self.pv as u64) as i64;
        if pair {
            x & !1
        } else {
            x
        }
    }
    fn ureg(&mut self, pair: bool) -> i64 {
        let x = self.r.below(self.pu as u64) as i64;
        if pair {
            x & !1
        } else {
            x
        }
    }

    /// A random operand value by kind class.
    fn operand(&mut self, info: &InsnInfo, o: &OperandInfo) -> i64 {
        let k = o.kind();
        let r = &mut self.r;
        match k.class {
            KindClass::VReg => self.vreg(k.pair),
            KindClass::UReg => self.ureg(k.pair),
            KindClass::VHalf => {
                let hi = r.chance(50) as i64;
                self.vreg(false) | hi << 7
            }
            KindClass::SImm | KindClass::UImm
                if info.has(flag::TR) && info.operands.iter().any(|x| x.kind().name == "csr10") =>
            {
                if r.chance(90) {
                    fcsr_value(r)
                } else {
                    values::imm(r, k)
                }
            }
            KindClass::SImm | KindClass::UImm => values::imm(r, k),
            KindClass::Bits => values::literal(r),
            KindClass::PcRel => r.range(-64, 64) * 4,
            KindClass::Enum if k.name == "csr10" && info.has(flag::TR) && r.chance(90) => {
                k.values.iter().find(|(n, _)| *n == "fcsr").map_or(0, |v| v.1 as i64)
            }
            KindClass::Enum => r.pick(k.values).1 as i64,
            KindClass::Flag => r.chance(50) as i64,
            KindClass::SrcMod => r.below(1 << k.bits) as i64,
            KindClass::DMask => r.range(1, 15),
        }
    }

    fn random_op(&mut self, id: InsnId) -> Op {
        let info = id.info();
        let vals = info.operands.iter().map(|o| self.operand(info, o)).collect();
        Op { id, vals }
    }

    /// A plain instruction; CSR writes of a register get a valid fcsr value set up first (mostly).
    fn plain(&mut self, out: &mut Vec<Node>) {
        let t = tables();
        let id = if self.r.chance(1) && !t.image.is_empty() {
            *self.r.pick(&t.image)
        } else if self.r.chance(3) {
            // Kernel prologues read the launch environment: compiled code reads it natively.
            t.csr_r
        } else {
            *self.r.pick(&t.plain)
        };
        let mut o = self.random_op(id);
        if id == t.csr_r && self.r.chance(80) {
            // Mostly the environment (ids and sizes), not fcsr or the counters.
            let env = [
                "wave_id",
                "wave_count",
                "wg_size_x",
                "wg_size_y",
                "wg_size_z",
                "grid_x",
                "grid_y",
                "grid_z",
                "lane_count",
            ];
            let k = id.info().operands[1].kind();
            // In a workgroup the wave id is what tells the waves apart: half the reads.
            let name = if self.group && self.r.chance(50) { "wave_id" } else { *self.r.pick(&env) };
            o.vals[1] = k.values.iter().find(|(n, _)| *n == name).map_or(0, |v| v.1 as i64);
        }
        let info = id.info();
        // An instruction that may write fcsr (for some value of its operands; YAML `fcsr`) usually gets a
        // value the ISA lets fcsr hold.
        let writes_csr = info.fcsr_terms.iter().any(|t| t.use_.writes);
        if writes_csr && self.r.chance(85) {
            if let Some(i) = info.operands.iter().position(|x| x.name == "rs1" && x.kind().class == KindClass::UReg) {
                let v = fcsr_value(&mut self.r);
                out.push(Node::Op(op(ids().u_li, &[("rd", o.vals[i]), ("imm", v)])));
            }
        }
        out.push(Node::Op(o));
    }

    /// A memory access with its address setup: in bounds and aligned, or (rarely) misaligned or out of bounds.
    /// `sweep`: the access will be repeated by a loop (see `block`).
    fn mem(&mut self, out: &mut Vec<Node>, sweep: bool) {
        let t = tables();
        // 32-bit loads and stores dominate real kernels (and have the JIT's inline path): drawn more often,
        // most of all in sweeps.
        // Uniform ones (kernel arguments) have an inline path too: drawn more often in sweeps.
        let id = if self.r.chance(if sweep { 70 } else { 15 }) {
            *self.r.pick(&[t.ld_b32, t.st_b32])
        } else if sweep && self.r.chance(40) {
            *self.r.pick(&t.uniform_mem)
        } else {
            *self.r.pick(&t.mem)
        };
        let info = id.info();
        let mut o = self.random_op(id);
        let align = access_align(info);
        let pos = |n: &str| info.operands.iter().position(|x| x.name == n);
        let a64 = pos("rs1")
            .is_some_and(|i| info.operands[i].kind().pair && info.operands[i].kind().class == KindClass::VReg);
        let writes = info.has(flag::ST);
        // Space: global mostly; constant for loads; shared/private (illegal with .a64, so rarely there).
        let sp_names = ["global", "constant", "shared", "private"];
        let sp = match pos("sp") {
            None => "global",
            Some(_) if a64 && !self.r.chance(3) && !writes && self.r.chance(15) => "constant",
            Some(_) if a64 && !self.r.chance(3) => "global",
            Some(_) if self.group => {
                sp_names[self.r.weighted(&[25, if writes { 2 } else { 6 }, 60, if self.private { 9 } else { 0 }])]
            }
            Some(_) => sp_names[self.r.weighted(&[60, if writes { 2 } else { 12 }, 14, 14])],
        };
        if let Some(i) = pos("sp") {
            o.vals[i] = info.operands[i].kind().values.iter().find(|(n, _)| *n == sp).map_or(0, |v| v.1 as i64);
        }
        let fault = self.r.chance(self.fault_pct);
        let misalign = fault && align > 1 && self.r.chance(50);
        let oob = fault && !misalign;
        // Base pair: A, or read-only B for some loads; shared/private offsets add the base's low word, so they
        // use A (low word 0). Out of bounds: near A's end or in the gap.
        let local = sp == "shared" || sp == "private";
        let base = if oob {
            2 + self.r.below(2) as usize
        } else if !local && (sp == "constant" || !writes && self.r.chance(15)) {
            1
        } else {
            0
        };
        // Offsets stay in the lower half of the space, leaving room for the immediate and the access size.
        let room = match sp {
            "shared" => SHARED_BYTES as u64,
            "private" => PRIVATE_BYTES as u64,
            _ if base == 1 => MEM_B_SIZE,
            _ => MEM_A_SIZE,
        } / 2;
        let align_mask = if misalign { 0 } else { align - 1 };
        let mask = (room - 1) & !align_mask;
        let skew = if misalign { self.r.range(1, align as i64 - 1) } else { 0 };
        let ubase = U_BASES[base] as i64;
        if info.format().name == "UM" {
            // Sliding (like `offsets`): the address pair is the base plus `U_SLIDE`, advanced after the access,
            // so a repeated access walks past the end of its buffer, or off its alignment with an odd step.
            let slide = self.r.chance(if sweep { 60 } else { 20 });
            if let Some(i) = pos("rs1") {
                o.vals[i] = if slide { U_UPTR as i64 } else { ubase };
            }
            if slide {
                out.push(Node::Op(op(
                    t.u_add_u64_u32,
                    &[("rd", U_UPTR as i64), ("rs1", ubase), ("rs2", U_SLIDE as i64)],
                )));
            }
            if let Some(i) = pos("imm") {
                // A misaligned sliding access starts aligned: its odd step misaligns the next execution.
                o.vals[i] = (self.r.below(room / align) * align) as i64 + if slide { 0 } else { skew };
            }
            let first = o.clone();
            out.push(Node::Op(o));
            if slide {
                // Odd steps also without a planned fault: the inline path's alignment check must see them.
                let odd = misalign || self.r.chance(15);
                let step =
                    if odd { *self.r.pick(&[1, 2, 6]) } else { (align * *self.r.pick(&[1, 4, 16])).min(256) as i64 };
                if let (true, Some(i)) = (sweep, pos("imm")) {
                    self.run_of_copies(out, &first, (i, align), step);
                }
                out.push(Node::Op(op(t.u_add_i, &[("rd", U_SLIDE as i64), ("rs1", U_SLIDE as i64), ("imm", step)])));
            }
            return;
        }
        if let Some(i) = pos("imm") {
            let small = (self.r.below(2) * align.max(4)).min(room / 2) as i64;
            o.vals[i] = if oob && self.r.chance(30) { -(align as i64) * self.r.range(1, 4) } else { small + skew };
        }
        let slide = self.offsets(out, align, mask, misalign, sweep);
        // A misaligned sliding access starts aligned: its odd step misaligns it on the next execution.
        if let (Some(_), true, Some(i)) = (slide, misalign, pos("imm")) {
            o.vals[i] -= skew;
        }
        if a64 {
            let i = pos("rs1").expect("a64 access has rs1");
            out.push(Node::Op(op(t.v_mov_u_b64, &[("rd", V_PTR as i64), ("rs1", ubase)])));
            out.push(Node::Op(op(
                t.v_add_u64_u32,
                &[("rd", V_PTR as i64), ("rs1", V_PTR as i64), ("rs2", V_OFF as i64)],
            )));
            o.vals[i] = V_PTR as i64;
        } else {
            if let Some(i) = pos("rs1") {
                o.vals[i] = V_OFF as i64;
            }
            if let Some(i) = pos("rs2") {
                o.vals[i] = ubase;
            }
        }
        if let (Some(step), true, Some(i)) = (slide, sweep && !a64, pos("imm")) {
            let first = o.clone();
            out.push(Node::Op(o));
            self.run_of_copies(out, &first, (i, align), step);
        } else {
            out.push(Node::Op(o));
        }
        if let Some(step) = slide {
            out.push(Node::Op(op(t.u_add_i, &[("rd", U_SLIDE as i64), ("rs1", U_SLIDE as i64), ("imm", step)])));
        }
    }

    /// Lane offsets in `V_OFF`: random data masked (lanes may collide: atomics and overlapping stores), strided
    /// lane ids, or strided lane ids plus `U_SLIDE` (a sliding access: returns the step the caller adds to
    /// `U_SLIDE` after the access). A sliding access repeated by a loop or by other waves moves through memory,
    /// so compiled code meets the same instruction at new addresses: past the end of its buffer in time, and
    /// misaligned when `misalign` picks an odd step; that is what exercises the JIT's cached memory windows.
    fn offsets(&mut self, out: &mut Vec<Node>, align: u64, mask: u64, misalign: bool, sweep: bool) -> Option<i64> {
        let t = tables();
        if self.r.chance(if sweep { 60 } else { 20 }) {
            let sh = align.trailing_zeros() as i64;
            out.push(Node::Op(op(t.v_laneid, &[("rd", V_OFF as i64)])));
            out.push(Node::Op(op(t.v_shl_i, &[("rd", V_OFF as i64), ("rs1", V_OFF as i64), ("imm", sh)])));
            out.push(Node::Op(op(t.v_add_vu, &[("rd", V_OFF as i64), ("rs1", V_OFF as i64), ("rs2", U_SLIDE as i64)])));
            // Steps stay inside u.add.i's immediate range.
            let step = if misalign {
                *self.r.pick(&[1, 2, 6])
            } else {
                (align.max(4) * *self.r.pick(&[1, 4, 16, 32])).min(256) as i64
            };
            return Some(step);
        }
        if self.r.chance(25) {
            out.push(Node::Op(op(t.v_laneid, &[("rd", V_OFF as i64)])));
            let sh = align.trailing_zeros() as i64;
            out.push(Node::Op(op(t.v_shl_i, &[("rd", V_OFF as i64), ("rs1", V_OFF as i64), ("imm", sh)])));
            // Strides past the room only when the mask allows wide offsets; keep them inside it. Now and then
            // one bit of the stride dropped: slices whose first lanes are consecutive and the others not.
            let mask = if self.side.chance(30) { mask & !(align.max(1) << self.side.below(5)) } else { mask };
            out.push(Node::Op(op(t.v_and_k, &[("rd", V_OFF as i64), ("rs1", V_OFF as i64), ("imm", mask as i64)])));
        } else {
            let src = self.vreg(false);
            out.push(Node::Op(op(t.v_and_k, &[("rd", V_OFF as i64), ("rs1", src), ("imm", mask as i64)])));
        }
        None
    }

    /// A compare (or ballot/vote) writing a lane mask to `mask`.
    fn mask_op(&mut self, mask: u8) -> Node {
        let id = *self.r.pick(&tables().masks);
        let mut o = self.random_op(id);
        o.vals[0] = mask as i64;
        Node::Op(o)
    }

    /// About `len` items of code at structure depth `depth` (registers) and nesting `nest` (recursion).
    fn block(&mut self, depth: u8, max_depth: u8, nest: u8, len: usize, in_func: bool) -> Vec<Node> {
        let mut out = Vec::new();
        let deeper = depth < max_depth && nest < 4;
        let calls = !in_func && self.nfuncs > 0;
        while out.len() < len {
            let w = [
                70,
                14,
                if deeper { 5 } else { 0 },
                if deeper { 4 } else { 0 },
                if nest < 4 { 4 } else { 0 },
                if calls { 3 } else { 0 },
            ];
            match self.r.weighted(&w) {
                0 => self.plain(&mut out),
                1 => {
                    let mut access = Vec::new();
                    let sweep = deeper && self.r.chance(25);
                    self.mem(&mut access, sweep);
                    if self.img.chance(if sweep { Self::SWEEP_IMAGE_PCT } else { Self::IMAGE_PCT }) {
                        self.image(&mut access, sweep);
                    }
                    if self.r.chance(30) {
                        // Wait for the access's counter (or some of them): the results are then "waited for".
                        let w = self.random_op(tables().wait);
                        access.push(Node::Op(w));
                    }
                    if sweep {
                        // A sweep: the same access again and again (a sliding one moves each time, a divergent
                        // loop drops lanes), so that compiled code meets it with its memory window cached.
                        let kind = *self.r.pick(&[LoopKind::Nz, LoopKind::Divergent]);
                        let mask = self.ureg(false) as u8;
                        if kind == LoopKind::Divergent {
                            access.push(self.mask_op(mask));
                        }
                        out.push(Node::Loop { kind, depth, count: self.r.range(2, 6) as u8, mask, body: access });
                    } else {
                        out.extend(access);
                    }
                }
                2 => {
                    let mask = self.ureg(false) as u8;
                    out.push(self.mask_op(mask));
                    let n = self.r.range(1, 6) as usize;
                    let then = self.block(depth + 1, max_depth, nest + 1, n, in_func);
                    let els = self.r.chance(50).then(|| self.block(depth + 1, max_depth, nest + 1, n, in_func));
                    out.push(Node::If { mask, depth, skip_empty: self.r.chance(75), then, els });
                }
                3 => {
                    let kind = *self.r.pick(&[LoopKind::Nz, LoopKind::Ge, LoopKind::Divergent]);
                    let mask = self.ureg(false) as u8;
                    let n = self.r.range(1, 6) as usize;
                    let mut body = self.block(depth + 1, max_depth, nest + 1, n, in_func);
                    if kind == LoopKind::Divergent {
                        body.push(self.mask_op(mask));
                    }
                    out.push(Node::Loop { kind, depth, count: self.r.range(1, 4) as u8, mask, body });
                }
                4 => {
                    let d = ids();
                    let br = *self.r.pick(&[d.j, d.j_execz, d.j_execnz, d.b_z, d.b_nz, d.b_lt, d.b_ge]);
                    let reg = self.ureg(false) as u8;
                    let n = self.r.range(1, 4) as usize;
                    out.push(Node::Skip { br, reg, body: self.block(depth, max_depth, nest + 1, n, in_func) });
                }
                _ => {
                    let func = self.r.below(self.nfuncs as u64) as usize;
                    let bias = *self.r.pick(&[0i16, 0, 4, -4, 8]);
                    out.push(Node::Call { func, indirect: self.r.chance(40), bias });
                }
            }
        }
        out
    }

    fn exec(&mut self) -> u32 {
        match self.r.weighted(&[40, 15, 45]) {
            0 => u32::MAX,
            1 => 0,
            _ => match self.r.below(4) {
                0 => *self.r.pick(&[1, 0x8000_0000, 0x0000_ffff, 0x5555_5555, 0x0f0f_00ff, 0x7fff_ffff, 0xffff_fffe]),
                _ => self.r.u32().max(1),
            },
        }
    }

    fn init(&mut self) -> StateJson {
        let mut s = StateJson { exec: Some(self.exec()), ..StateJson::default() };
        for reg in 0..self.pv as usize {
            s.v.insert(reg.to_string(), values::lanes(&mut self.r, reg % 2 == 1));
        }
        for reg in 0..self.pu as usize {
            s.u.insert(reg.to_string(), values::scalar(&mut self.r, reg % 2 == 1));
        }
        // Sliding accesses start in the first quarter of A, or anywhere in it (then often near its end, which
        // a repeated access soon passes).
        let quarters = if self.r.chance(50) { 64 } else { 256 };
        let slide = 4 * self.r.below(quarters) as u32;
        s.u.insert(U_SLIDE.to_string(), slide);
        for (k, word) in self.image_descriptor().into_iter().enumerate() {
            s.u.insert((U_IMG as usize + k).to_string(), word);
        }
        for (i, &b) in BASES.iter().enumerate() {
            s.u.insert(U_BASES[i].to_string(), b as u32);
            s.u.insert((U_BASES[i] + 1).to_string(), (b >> 32) as u32);
        }
        if self.r.chance(40) {
            s.fcsr = Some(fcsr_value(&mut self.r) as u32);
        }
        // A cut budget: the run stops (BudgetExceeded) somewhere inside the program, often inside a block, and
        // every engine must stop at the same instruction with the same state.
        if self.r.chance(20) {
            s.budget = Some(self.r.range(1, 400) as u64);
        }
        let mut bytes = |n: u64| {
            let words: Vec<u32> = (0..n / 4)
                .map(|l| {
                    let f = values::flavour(&mut self.r);
                    values::value(&mut self.r, f, l as usize % LANES, l % 2 == 1)
                })
                .collect();
            to_hex(&words.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>())
        };
        s.memory = vec![
            MemJson { addr: MEM_A, hex: bytes(MEM_A_SIZE), readonly: false },
            MemJson { addr: MEM_B, hex: bytes(MEM_B_SIZE), readonly: true },
        ];
        s
    }
}

/// What ends main code: mostly `end`; sometimes a trap, a breakpoint, a lone-wave barrier, or nothing (the
/// wave runs off the end of the code).
fn tail(g: &mut Gen) -> Option<Op> {
    let t = tables();
    match g.r.weighted(&[94, 4, if g.nfuncs == 0 { 2 } else { 0 }]) {
        0 => Some(op(ids().end, &[])),
        1 if !t.terminal.is_empty() => {
            let id = *g.r.pick(&t.terminal);
            // In a workgroup every wave passes a final barrier and runs on into the functions, whose return
            // may jump back into main: a loop. A lone wave stops there (BarrierDeadlock), so only it gets one.
            if g.group && id == ids().barrier {
                return Some(op(ids().end, &[]));
            }
            Some(g.random_op(id))
        }
        1 => Some(op(ids().end, &[])),
        _ => None,
    }
}

/// How big generated programs are and how many initial states each one is run from (a JIT compile costs
/// far more than a run, so reusing a compiled program for several states is cheap extra testing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GenConfig {
    /// Top-level items of main code are drawn from `4..=max_len` (structures add their bodies).
    pub max_len: usize,
    /// Initial states each compiled program runs from.
    pub states: usize,
    /// Percent of programs run as a workgroup of 2-4 waves sharing shared memory, most with barriers, some
    /// without barriers or private memory (their waves run back to back) (`group`).
    pub group_pct: u32,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig { max_len: 24, states: 2, group_pct: 10 }
    }
}

/// Seed offset of the stream that decides multi-wave programs: a stream of its own, so that a seed's
/// single-wave program is the same whatever `group_pct` says.
const GROUP_STREAM: u64 = 0x6772_6f75_7073_0000;
/// Seed of `Gen::side` (xor the program's seed).
const OFFSET_STREAM: u64 = 0x6f66_6673_6574_0000;
/// Seeds the image accesses' stream (`Gen::img`).
const IMAGE_STREAM: u64 = 0x696d_6167_6573_0000;
/// Seed of `Gen::runs` (xor the program's seed).
const RUN_STREAM: u64 = 0x7275_6e73_0000_0000;

/// The program of one seed and its initial states (deterministic for a seed and a config).
pub fn generate_states(seed: u64, cfg: &GenConfig) -> (GenProgram, Vec<StateJson>) {
    let mut gr = Rng::new(seed ^ GROUP_STREAM);
    let waves = if gr.chance(cfg.group_pct) { gr.range(2, 4) as u8 } else { 1 };
    // Some workgroups have no barrier and no private memory: their waves run back to back, started by compiled
    // code (`lanejit_jit::NextWave`), as in a launch of such a kernel.
    let back_to_back = waves > 1 && gr.chance(40);
    // Half of those run as a launch's waves: each starts from the last one's state as a launch sets it up
    // (`group::run_launch_like`), which compiled code does itself (`lanejit_jit::WavePlan`).
    let launch = back_to_back && gr.chance(50);
    let mut r = Rng::new(seed);
    let pv = *r.pick(&[4u8, 8, 8, VPOOL]);
    let pu = *r.pick(&[4u8, 8, 8, UPOOL]);
    let nfuncs = r.weighted(&[70, 20, 10]);
    let fault_pct = if r.chance(15) { 25 } else { 1 };
    let max = cfg.max_len.max(1) as i64;
    let len = r.range(max.min(4), max) as usize;
    let side = Rng::new(seed ^ OFFSET_STREAM);
    let img = Rng::new(seed ^ IMAGE_STREAM);
    let runs = Rng::new(seed ^ RUN_STREAM);
    let mut g = Gen { r, side, pv, pu, nfuncs, fault_pct, group: waves > 1, private: !back_to_back, img, runs };
    let flen = (max / 4).max(2);
    let funcs = (0..nfuncs)
        .map(|_| {
            let n = g.r.range(1, flen) as usize;
            g.block(MAX_DEPTH, 2 * MAX_DEPTH, 0, n, true)
        })
        .collect();
    let mut main = g.block(0, MAX_DEPTH, 0, len, false);
    if waves > 1 && !back_to_back {
        // Barriers between top-level items only: every wave runs main's top level in order (structures and
        // calls come back to it), so every wave meets the same barriers.
        for _ in 0..gr.range(1, 3) {
            let at = gr.below(main.len() as u64 + 1) as usize;
            main.insert(at, Node::Barrier);
        }
    }
    let tail = tail(&mut g);
    let states = (0..cfg.states.max(1)).map(|_| g.init()).collect();
    let private = if back_to_back { 0 } else { PRIVATE_BYTES };
    (GenProgram { main, tail, funcs, shared: SHARED_BYTES, private, waves, launch }, states)
}

/// The case of one seed with the default config and its first state.
pub fn generate(seed: u64) -> Case {
    let (prog, mut states) = generate_states(seed, &GenConfig::default());
    Case { seed, prog, init: states.swap_remove(0) }
}
