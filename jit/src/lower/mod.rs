//! Lowering guest blocks into the kernel function: one file per instruction group, each matching its group's
//! enum exhaustively and returning whether it emitted native code, left the instruction to the interpreter
//! (`Interpret`: a call from compiled code), or ended the block itself (`Terminated`: control flow).

use crate::abi::{Exit, Tier};
use crate::blocks::Block;
use crate::fx::{BlockRegs, Fx, SelfLoop};
use cranelift_codegen::ir::{self, condcodes::IntCC, types::*, InstBuilder, JumpTableData};
use lanejit_isa::{Insn, UREGS, VREGS};
use std::collections::HashMap;

mod cmp;
mod ctrl;
pub mod mem;
mod uniform;
mod vfloat;
mod vint;
mod xlane;

/// What lowering one instruction did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lowered {
    Native,
    /// Not compiled: the interpreter executes it, called from compiled code.
    Interpret,
    /// Control flow: the block's counts are added and the block is left.
    Terminated,
}

/// Where an instruction sits, for lowerings that leave the block.
pub struct Site<'h> {
    pub pc: u32,
    pub len: u32,
    /// Position in the block (instructions before it retire first).
    pub index: u32,
    /// Instructions in the block (all retire when the block is left normally).
    pub block_len: u32,
    pub heads: &'h Heads,
    /// The instructions after it in its segment (they run with the same EXEC).
    pub rest: &'h [crate::blocks::Op],
}

/// The Cranelift block heading each guest block of the function, and which of them only end the wave.
pub struct Heads {
    blocks: HashMap<u32, ir::Block>,
    /// Starts of the blocks whose first instruction is `end`.
    ends_wave: Vec<u32>,
}

impl Heads {
    /// Does the function hold the guest block starting at `pc`?
    pub fn contains(&self, pc: u32) -> bool {
        self.blocks.contains_key(&pc)
    }
}

impl Site<'_> {
    pub fn next_pc(&self) -> u32 {
        self.pc + self.len
    }
}

impl Fx<'_> {
    /// Continues at guest address `target`: a direct jump when it is a block of this function (after storing
    /// the changed registers), or a jump back to the loop header, registers kept in variables, when the block
    /// branches to its own start.
    pub fn goto(&mut self, site: &Site, target: u32) {
        if let Some(l) = self.self_loop().filter(|l| l.start == target) {
            if let Some(n) = l.back_edge_steps {
                check_steps(self, n, l.start);
            }
            self.b.ins().jump(l.header, &[]);
            return;
        }
        match site.heads.blocks.get(&target) {
            Some(&h) if site.heads.ends_wave.contains(&target) => self.goto_end(h),
            Some(&h) => {
                self.store_dirty();
                self.b.ins().jump(h, &[]);
            }
            None => self.exit(Exit::Continue, target),
        }
    }

    /// Goes on to block `h`, which only ends the wave: the changed registers are stored unless the run discards
    /// final registers (`JitCtx::discard_final`: a launch, where the next wave's setup re-zeroes them anyway).
    fn goto_end(&mut self, h: ir::Block) {
        if !self.dirty_any() {
            self.b.ins().jump(h, &[]);
            return;
        }
        let ctx = self.ctx();
        let discard = self.b.ins().uload8(I32, crate::fx::flags(), ctx, crate::abi::CTX_DISCARD_OFFSET);
        let store = self.b.create_block();
        // Mutant 143: the changed registers are dropped whatever the run, so a wave's final state misses them.
        if crate::mutants::active(143) {
            self.b.ins().jump(h, &[]);
        } else {
            self.b.ins().brif(discard, h, &[], store, &[]);
        }
        self.b.switch_to_block(store);
        self.store_dirty();
        self.b.ins().jump(h, &[]);
    }

    /// Conditional continuation: `cond != 0` goes to `taken`, else to `fall`. Outside a self-loop the changed
    /// registers are stored once, before the branch, rather than on both sides.
    pub fn branch(&mut self, site: &Site, cond: ir::Value, taken: u32, fall: u32) {
        let looping = self.self_loop().is_some_and(|l| l.start == taken || l.start == fall);
        let saved = self.dirty();
        if !looping {
            self.store_dirty();
            self.clear_dirty();
        }
        let (t, f) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(cond, t, &[], f, &[]);
        self.b.switch_to_block(t);
        self.goto(site, taken);
        self.b.switch_to_block(f);
        self.goto(site, fall);
        self.set_dirty(saved);
    }
}

fn lower_op(fx: &mut Fx, insn: &Insn, site: &Site) -> Lowered {
    match insn {
        Insn::Uniform(i) => uniform::lower(fx, i, site),
        Insn::Vint(i) => vint::lower(fx, i),
        Insn::Vfloat(i) => vfloat::lower(fx, i, site),
        Insn::Cmp(i) => cmp::lower(fx, i),
        Insn::Xlane(i) => xlane::lower(fx, i),
        Insn::Mem(i) => mem::lower(fx, i, site),
        Insn::Ctrl(i) => ctrl::lower(fx, i, site),
    }
}

/// Emits one compiled function: its entry dispatch and its blocks (consecutive in the code), until the
/// function holds `clif_limit` CLIF instructions (at least one block); returns how many blocks it emitted. A
/// jump to a block left out exits to the run loop, which enters the function compiling it. The jump table
/// spans only the words these blocks cover, so the kernel's functions together cost time linear in its size.
pub fn emit_function(fx: &mut Fx, blocks: &[Block], clif_limit: usize) -> usize {
    let heads = Heads {
        blocks: blocks.iter().map(|b| (b.start, fx.b.create_block())).collect(),
        ends_wave: blocks
            .iter()
            .filter(|b| b.ops.first().is_some_and(|o| matches!(o.insn, Insn::Ctrl(lanejit_isa::CtrlInsn::End))))
            .map(|b| b.start)
            .collect(),
    };
    let first_word = blocks.first().map_or(0, |b| b.start / 4);
    let end_word =
        blocks.iter().map(|b| b.end().max(b.interp_at.map_or(0, |pc| pc + 4)).div_ceil(4)).max().unwrap_or(first_word);
    let other = fx.b.create_block();
    let state = fx.state();
    let pc = fx.b.ins().load(I32, crate::fx::flags(), state, crate::fx::PC_OFFSET);
    let word = fx.b.ins().ushr_imm_u(pc, 2);
    // A pc below the first word wraps to a huge index, which the table's default takes.
    let index = fx.b.ins().iadd_imm_s(word, -(first_word as i64));
    let default = ir::BlockCall::new(other, [], &mut fx.b.func.dfg.value_lists);
    let table: Vec<ir::BlockCall> = (first_word..end_word)
        .map(|w| ir::BlockCall::new(*heads.blocks.get(&(w * 4)).unwrap_or(&other), [], &mut fx.b.func.dfg.value_lists))
        .collect();
    let jt = fx.b.create_jump_table(JumpTableData::new(default, &table));
    fx.b.ins().br_table(index, jt);
    fx.b.switch_to_block(other);
    fx.leave_at(Exit::Interpret, pc);
    let mut emitted = 0;
    while emitted < blocks.len() && (emitted == 0 || room_for(fx.b.func.dfg.num_insts(), clif_limit, blocks, emitted)) {
        emit_block(fx, &blocks[emitted], &heads);
        emitted += 1;
    }
    for b in &blocks[emitted..] {
        fx.b.switch_to_block(heads.blocks[&b.start]);
        fx.clear_dirty();
        fx.exit(Exit::Continue, b.start);
    }
    emitted
}

/// May a function holding `clif` CLIF instructions take `blocks[next]` too? Below `limit`, yes; up to twice it,
/// when one of the next `LOOP_TAIL_BLOCKS` blocks branches back to a block already in the function: a loop's
/// back edge to another function leaves the compiled code and enters it again through the run loop on every
/// trip (a tiled matrix multiply's loop tail went to a second function that way, one round trip per step).
fn room_for(clif: usize, limit: usize, blocks: &[Block], next: usize) -> bool {
    let closes_loop = || {
        let inside = |t: u32| blocks[..next].iter().any(|b| b.start == t);
        blocks[next..]
            .iter()
            .take(LOOP_TAIL_BLOCKS)
            .any(|b| b.ops.last().is_some_and(|o| crate::blocks::static_targets(o.pc, &o.insn).into_iter().any(inside)))
    };
    clif < limit || (clif < 2 * limit && closes_loop())
}

/// Blocks after a function's CLIF limit searched for a back edge into it (`room_for`).
const LOOP_TAIL_BLOCKS: usize = 4;

/// The registers a block names (loaded into variables when it begins).
fn block_regs(block: &Block) -> BlockRegs {
    let (mut v, mut u) = (vec![false; VREGS], vec![false; UREGS]);
    for op in &block.ops {
        let (vs, us) = crate::fx::touched(&op.insn);
        vs.into_iter().for_each(|r| v[r] = true);
        us.into_iter().for_each(|r| u[r] = true);
    }
    ((0..VREGS).filter(|&r| v[r]).collect(), (0..UREGS).filter(|&r| u[r]).collect())
}

/// Per vector register: does some instruction of the block write it, and how many read it?
fn vreg_use(block: &Block) -> ([bool; VREGS], [usize; VREGS]) {
    let mut written = [false; VREGS];
    let mut reads = [0usize; VREGS];
    for op in &block.ops {
        op.insn.writes().vregs().for_each(|r| written[r.idx()] = true);
        op.insn.reads().vregs().for_each(|r| reads[r.idx()] += 1);
    }
    (written, reads)
}

/// The vector registers among `vs` (the block's) that no instruction of the block writes and at most
/// `MAX_STATE_READS` instructions read.
fn only_read(vs: &[usize], (written, reads): &([bool; VREGS], [usize; VREGS])) -> Vec<usize> {
    vs.iter().copied().filter(|&r| !written[r] && reads[r] <= MAX_STATE_READS).collect()
}

/// A register read by more instructions of a block is loaded once where the block begins: each use from the
/// state is 8 loads, which Cranelift never merges (matmul's operands, read by 4+ fmas each, were +8% host
/// instructions with no limit; callgrind Ir at 2: wave_scan -5.7%, scan -4.3%, ballot_count -3.8%, saxpy -3%).
const MAX_STATE_READS: usize = 2;

/// Does the block's last instruction branch to the block's own start (a single-block loop)?
fn loops_to_itself(block: &Block) -> bool {
    block.ops.last().is_some_and(|o| crate::blocks::static_targets(o.pc, &o.insn).contains(&block.start))
}

/// A block's head loads the registers it names and checks the step budget, then picks the full-EXEC or the
/// masked variant. A single-block loop loads its registers once, before a loop header that its back edge
/// returns to, so its registers stay in host registers across iterations; one that writes neither EXEC nor
/// fcsr has a loop per variant instead (`emit_segment`), its variant picked once.
fn emit_block(fx: &mut Fx, block: &Block, heads: &Heads) {
    fx.b.switch_to_block(heads.blocks[&block.start]);
    let regs = block_regs(block);
    fx.set_self_loop(None);
    // Nothing is dirty on entry: an exit before `begin_block` (the budget check) must store nothing. (Mutant
    // 125: the previous block's changed registers are stored there, read from variables not defined here.)
    if !crate::mutants::active(125) {
        fx.clear_dirty();
    }
    let segments = segments(block);
    // Optimised code leaves the vector registers a block writes before reading them in the state until a
    // masked variant needs them for its blend (a single-block loop carries every register around its back
    // edge instead): `due[s]` are those first written in segment `s`.
    let looping = loops_to_itself(block);
    let optimised = fx.tier() == Tier::Opt && fx.lazy_loads();
    // A single-block loop loads its registers before the loop header instead: once per entry, not per trip.
    let used = vreg_use(block);
    fx.set_in_state(&if optimised && !looping { only_read(&regs.0, &used) } else { Vec::new() });
    let lazy = optimised && !looping;
    let due = if lazy { written_first(block, &segments) } else { vec![(Vec::new(), Vec::new()); segments.len()] };
    // A loop whose EXEC and fcsr stay as they are picks its EXEC variant once, before a loop per variant
    // (`loop_in_variants`); others have one header, where each trip picks the variant of its first segment.
    let mut loop_in_variants = None;
    if looping {
        fx.begin_block(&regs);
        // After one iteration the variables of the registers it writes differ from the state: every exit stores
        // them. (A vector register it only reads still equals its state copy.)
        let written = (regs.0.iter().copied().filter(|&r| used.0[r]).collect(), regs.1.clone());
        // A loop per variant checks the budget here for the first trip (nothing changed yet: the exit stores
        // nothing), then at each back edge for the next; a single loop checks it at its header.
        if fx.tier() == Tier::Opt && keeps_exec_and_fcsr(block) {
            loop_in_variants = Some(written);
        } else {
            enter_loop(fx, block.start, &written, None);
        }
        budget_check(fx, block);
    } else {
        budget_check(fx, block);
        if lazy {
            let vs = due.iter().flat_map(|d| d.0.iter().copied()).collect();
            let us = due.iter().flat_map(|d| d.1.iter().copied()).collect();
            fx.begin_block_lazy(&regs, &(vs, us));
        } else {
            fx.begin_block(&regs);
        }
    }
    vfloat::guard_block(fx, &block.ops, block.start);
    if fx.tier() == Tier::Quick {
        fx.count_block_start(block.start);
    }
    if loop_in_variants.is_none() {
        fx.mark_block_start(block.start);
    }
    let writes_lanes = block.ops.iter().any(|o| !matches!(o.insn, Insn::Uniform(_) | Insn::Ctrl(_) | Insn::Cmp(_)));
    for (s, range) in segments.iter().enumerate() {
        let next = (s + 1 < segments.len()).then(|| fx.b.create_block());
        emit_segment(fx, block, range.clone(), (next, &due[s]), writes_lanes, heads, loop_in_variants.as_ref());
        if let Some(next) = next {
            fx.b.switch_to_block(next);
        }
    }
}

/// Does a trip of the block leave EXEC and fcsr as they were (no instruction writes either), so that the EXEC
/// variant and fcsr guard chosen before a loop over it hold on every trip?
fn keeps_exec_and_fcsr(block: &Block) -> bool {
    !block.ops.iter().any(|o| o.insn.exec().writes || o.insn.fcsr().writes)
}

/// Starts a single-block loop here: a header that the back edge returns to (`back_edge_steps`: see `SelfLoop`),
/// where the registers the block writes (`written`) count as changed.
fn enter_loop(fx: &mut Fx, start: u32, written: &BlockRegs, back_edge_steps: Option<i64>) {
    let header = fx.b.create_block();
    fx.b.ins().jump(header, &[]);
    fx.b.switch_to_block(header);
    fx.set_self_loop(Some(SelfLoop { start, header, back_edge_steps }));
    fx.mark_dirty(written);
}

/// For each segment, the registers (vector, uniform) whose first use in the block is there and only writes
/// them (the instruction does not also read them): the full-EXEC variant of that segment defines the vector
/// ones before anything reads them, and both variants the uniform ones.
fn written_first(block: &Block, segments: &[std::ops::Range<usize>]) -> Vec<BlockRegs> {
    let (mut seen_v, mut seen_u) = ([false; VREGS], [false; UREGS]);
    segments
        .iter()
        .map(|range| {
            let mut due = (Vec::new(), Vec::new());
            for op in &block.ops[range.clone()] {
                let (reads, writes) = (op.insn.reads(), op.insn.writes());
                // Mutant 163: registers the instruction also reads count as written first. The lowering then
                // reads one its block left unloaded, and the function is built again loading every register:
                // right answers, so a campaign must not catch it (tests/mutants.rs ABSORBED; tests/lazy_loads.rs).
                let absorbed = crate::mutants::active(163);
                let v_read_too = |r: usize| reads.vregs().any(|x| x.idx() == r) && !absorbed;
                for r in writes.vregs().map(|r| r.idx()) {
                    if !seen_v[r] && !v_read_too(r) {
                        due.0.push(r);
                    }
                }
                let u_read_too = |r: usize| reads.uregs().any(|x| x.idx() == r) && !absorbed;
                for r in writes.uregs().map(|r| r.idx()) {
                    if !seen_u[r] && !u_read_too(r) {
                        due.1.push(r);
                    }
                }
                reads.vregs().chain(writes.vregs()).for_each(|r| seen_v[r.idx()] = true);
                reads.uregs().chain(writes.uregs()).for_each(|r| seen_u[r.idx()] = true);
            }
            due
        })
        .collect()
}

/// The block's instructions cut after each instruction that writes EXEC (other than the last): each segment
/// runs with one EXEC, so it picks its own variant, and registers stay in variables from one segment to the
/// next (an EXEC write does not end a block).
fn segments(block: &Block) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, op) in block.ops.iter().enumerate() {
        if op.insn.exec().writes && i + 1 < block.ops.len() {
            out.push(start..i + 1);
            start = i + 1;
        }
    }
    out.push(start..block.ops.len());
    out
}

/// Emits the instructions `range` of the block in its variants (optimising tier: full-EXEC and masked, picked
/// by the EXEC it starts with; quick: masked only, which is right for any EXEC), which meet at `next` (the next
/// segment) or leave the block.
fn emit_segment(
    fx: &mut Fx,
    block: &Block,
    range: std::ops::Range<usize>,
    (next, due): (Option<ir::Block>, &BlockRegs),
    writes_lanes: bool,
    heads: &Heads,
    loop_in_variants: Option<&BlockRegs>,
) {
    let fcsr_plain = fx.fcsr_plain();
    let entry_dirty = fx.dirty();
    let exec = fx.exec_val();
    let bm = fx.b.create_block();
    // Quick code has one variant, the masked one: it runs blocks entered with any EXEC (divergent code included)
    // for about half the code two variants cost to compile; a full EXEC pays a blend per written slice.
    let variants: &[(ir::Block, bool)] = match fx.tier() {
        Tier::Opt => {
            // Mutant 120: the full-EXEC variant taken whenever lane 31 is active.
            let full = if crate::mutants::active(120) {
                fx.b.ins().icmp_imm_s(IntCC::SignedLessThan, exec, 0)
            } else {
                fx.b.ins().icmp_imm_s(IntCC::Equal, exec, 0xffff_ffffi64)
            };
            let bf = fx.b.create_block();
            fx.b.ins().brif(full, bf, &[], bm, &[]);
            &[(bf, true), (bm, false)]
        }
        Tier::Quick => {
            fx.b.ins().jump(bm, &[]);
            // Mutant 159: quick code writes every lane whatever EXEC says.
            if crate::mutants::active(159) {
                &[(bm, true)]
            } else {
                &[(bm, false)]
            }
        }
    };
    // The variants may leave different registers changed (an access inline in one, through the runtime,
    // which stores and reloads, in the other): the next segment stores what either changed.
    let (mut out_dirty, mut out_plain) = (entry_dirty.clone(), true);
    for &(variant, full_exec) in variants {
        fx.b.switch_to_block(variant);
        fx.begin_variant(full_exec, writes_lanes);
        fx.set_dirty(entry_dirty.clone());
        fx.set_fcsr_plain(fcsr_plain);
        if let Some(written) = loop_in_variants {
            // The variant's set-up (its EXEC lane masks) stays before its loop: EXEC is the same on every trip.
            enter_loop(fx, block.start, written, Some(block_steps(block)));
            fx.mark_block_start(block.start);
        }
        if !full_exec {
            fx.load_unloaded(&due.0);
        }
        fx.unload_u(&due.1);
        emit_ops(fx, block, range.clone(), next, heads);
        fx.check_written_u(&due.1);
        if full_exec {
            fx.check_written(&due.0);
        }
        let (v, u) = fx.dirty();
        // Mutant 144: the next segment stores only what the last variant (the masked one) changed.
        if crate::mutants::active(144) {
            out_dirty = (v.clone(), u.clone());
        }
        out_dirty.0.iter_mut().zip(v).for_each(|(d, x)| *d |= x);
        out_dirty.1.iter_mut().zip(u).for_each(|(d, x)| *d |= x);
        out_plain &= fx.fcsr_plain();
    }
    fx.set_dirty(out_dirty);
    fx.set_fcsr_plain(out_plain);
}

/// A block that does not fit the remaining step budget goes to the interpreter instruction by instruction.
fn budget_check(fx: &mut Fx, block: &Block) {
    check_steps(fx, block_steps(block), block.start);
}

/// The steps a trip through `block` takes from the budget.
fn block_steps(block: &Block) -> i64 {
    // Mutant 43: a block that needs one step more than remains still runs compiled.
    block.ops.len() as i64 - crate::mutants::active(43) as i64
}

/// Leaves for the interpreter at `pc` (storing the changed registers) unless `n` steps remain; takes them.
fn check_steps(fx: &mut Fx, n: i64, pc: u32) {
    let steps = fx.steps();
    let short = fx.b.ins().icmp_imm_s(IntCC::SignedLessThan, steps, n.max(1));
    let (out, run) = (fx.b.create_block(), fx.b.create_block());
    fx.b.set_cold_block(out);
    fx.b.ins().brif(short, out, &[], run, &[]);
    fx.b.switch_to_block(out);
    fx.exit(Exit::Budget, pc);
    fx.b.switch_to_block(run);
    let steps = fx.b.ins().iadd_imm_s(steps, -n);
    fx.set_steps(steps);
}

/// The instructions `range` of `block` in the current variant; then on to `next` (the next segment), or, for
/// the last segment, out of the block.
fn emit_ops(fx: &mut Fx, block: &Block, range: std::ops::Range<usize>, next: Option<ir::Block>, heads: &Heads) {
    fx.note_block_exec();
    emit_rest(fx, block, &block.ops[range], 0, next, heads);
}

/// The instructions `ops[from..]` of a segment (`ops`), then the segment's end (`emit_ops`). An instruction
/// that forks (`xlane::forks`) emits the rest once per case, each copy from the same lowering state.
fn emit_rest(
    fx: &mut Fx,
    block: &Block,
    ops: &[crate::blocks::Op],
    from: usize,
    next: Option<ir::Block>,
    heads: &Heads,
) {
    // Sites count within the segment: the instructions of earlier segments are counted already.
    let block_len = ops.len() as u32;
    for (i, op) in ops.iter().enumerate().skip(from) {
        let site = Site { pc: op.pc, len: op.len, index: i as u32, block_len, heads, rest: &ops[i + 1..] };
        // Mutant 156: other instructions read the host's NaN payloads.
        if !vfloat::reads_raw_nans(&op.insn) && !crate::mutants::active(156) {
            fx.settle_nans();
        }
        fx.begin_insn(op.insn);
        if let Insn::Xlane(lanejit_isa::XlaneInsn::ShflXorVu { rd, rs1, rs2 }) = op.insn {
            if xlane::forks(fx, site.rest) {
                fx.note_lowering(op.pc, crate::abi::Lowering::Native);
                let cases = xlane::xor_fork(fx, rs2);
                let point = fx.fork_point();
                for (case_block, case) in cases {
                    fx.b.switch_to_block(case_block);
                    fx.restore_fork(&point);
                    xlane::xor_case(fx, rd, rs1, case);
                    emit_rest(fx, block, ops, i + 1, next, heads);
                }
                return;
            }
        }
        let before = fx.b.func.dfg.num_insts();
        let lowered = lower_op(fx, &op.insn, &site);
        if fx.report_insts() {
            eprintln!("{:>5} CLIF  {:?} {}", fx.b.func.dfg.num_insts() - before, lowered, op.insn.id().info().mnemonic);
        }
        // Lowerings with a runtime call say so, and note their inline path too; others are wholly native.
        if lowered != Lowered::Interpret && !fx.lowering_noted() {
            fx.note_lowering(op.pc, crate::abi::Lowering::Native);
        }
        match lowered {
            Lowered::Native => {}
            Lowered::Interpret => fx.call_interpreter(op.pc, i as u32),
            Lowered::Terminated => return,
        }
    }
    // Every segment ends with canonical NaNs (the next one starts with none pending: `Fx::begin_variant`).
    fx.settle_nans();
    fx.count(block_len);
    if let Some(next) = next {
        fx.b.ins().jump(next, &[]);
        return;
    }
    match block.interp_at {
        Some(pc) => fx.exit(Exit::Interpret, pc),
        None => {
            let site = Site { pc: block.end(), len: 0, index: block_len, block_len, heads, rest: &[] };
            fx.goto(&site, block.end());
        }
    }
}
