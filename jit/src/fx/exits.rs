//! Ways out of compiled code and into the runtime: the exit block (EXEC, counters, pc, budget), a wave's end
//! (starting the next wave in place), counting retired instructions and lane-ops, and calls that hand one
//! instruction to the interpreter or the runtime's memory path.

use super::{flags, touched, written, BlockRegs, Dirty, Fx, LANE_OPS_OFFSET, PC_OFFSET, RETIRED_OFFSET};
use crate::abi::Exit;
use cranelift_codegen::ir::{types::*, Block, InstBuilder, Value};
use lanejit_isa::LANES;

impl Fx<'_> {
    /// The remaining step budget.
    pub fn steps(&mut self) -> Value {
        self.b.use_var(self.steps)
    }

    /// Sets the remaining step budget.
    pub fn set_steps(&mut self, steps: Value) {
        self.b.def_var(self.steps, steps);
    }

    /// Leaves with `status` at a pc known only at run time, storing nothing: for the function's dispatch, before
    /// any guest code has run.
    pub fn leave_at(&mut self, status: Exit, pc: Value) {
        let s = self.b.ins().iconst(I32, status as i64);
        self.b.ins().jump(self.exit_block, &[s.into(), pc.into()]);
    }

    /// Quick code counts each start of a block (`JitCtx::hits[start / 4]`, wrapping), for recompiling hot blocks.
    pub fn count_block_start(&mut self, start: u32) {
        let hits = self.hits.expect("quick code loads the hit counters at entry");
        let n = self.b.ins().load(I32, flags(), hits, start as i32);
        let n = self.b.ins().iadd_imm_s(n, 1);
        self.b.ins().store(flags(), n, hits, start as i32);
    }

    /// Code compiled to mark its blocks stores the block's start where a sampling thread reads it
    /// (`JitCtx::block_mark`); other code emits nothing here.
    pub fn mark_block_start(&mut self, start: u32) {
        if let Some(mark) = self.mark {
            let pc = self.b.ins().iconst(I32, start as i64);
            self.b.ins().store(flags(), pc, mark, 0);
        }
    }

    /// Starts lowering `insn`: what an interpreter call runs, and nothing noted yet about how it runs.
    pub fn begin_insn(&mut self, insn: lanejit_isa::Insn) {
        self.current = Some(insn);
        self.noted = false;
    }

    /// The instruction being lowered.
    pub fn current(&self) -> Option<lanejit_isa::Insn> {
        self.current
    }

    /// Has the lowering of the current instruction noted how it runs (a runtime call, an inline path)?
    pub fn lowering_noted(&self) -> bool {
        self.noted
    }

    /// Every way each instruction (by pc) may run in the code emitted, taken out of the function.
    pub fn take_lowering(&mut self) -> std::collections::BTreeSet<(u32, crate::abi::Lowering)> {
        std::mem::take(&mut self.lowering)
    }

    /// Loads the retired and lane-op counters (at entry only: helpers never change them).
    pub fn load_counters(&mut self) {
        for (var, off) in [(self.retired, RETIRED_OFFSET), (self.lane_ops, LANE_OPS_OFFSET)] {
            let x = self.b.ins().load(I64, flags(), self.state, off);
            self.b.def_var(var, x);
        }
    }

    /// Stores the counters plus `extra` instructions retired under the current EXEC.
    pub(super) fn store_counters(&mut self, extra: u32) {
        let (r, l) = self.counted(extra);
        self.b.ins().store(flags(), r, self.state, RETIRED_OFFSET);
        self.b.ins().store(flags(), l, self.state, LANE_OPS_OFFSET);
    }

    /// Leaves the compiled code with `status` and the guest pc to resume at (storing the changed registers).
    pub fn exit(&mut self, status: Exit, pc: u32) {
        self.store_dirty();
        let s = self.b.ins().iconst(I32, status as i64);
        let p = self.b.ins().iconst(I32, pc as i64);
        self.b.ins().jump(self.exit_block, &[s.into(), p.into()]);
    }

    /// A wave's `end` (the block's counts added): stores everything the exit would, then starts the next wave
    /// itself at `first` (the kernel's first block) when the run's plan allows (`next_wave.rs`), else asks the
    /// runtime for it; with one, starts it at `restart`, else leaves with `End`.
    pub fn end_wave(&mut self, pc: u32, first: Block) {
        self.store_dirty();
        self.clear_dirty();
        if let Some(facts) = self.start_facts.clone() {
            self.start_next_wave_inline(&facts, first);
        }
        self.store_exec();
        self.store_counters(0);
        let steps = self.b.use_var(self.steps);
        self.b.ins().store(flags(), steps, self.ctx, crate::abi::CTX_STEPS_OFFSET);
        let p = self.b.ins().iconst(I32, pc as i64);
        self.b.ins().store(flags(), p, self.state, PC_OFFSET);
        self.call_helper(self.helpers.next_wave, p);
        let started = self.helper_status();
        let done = self.b.create_block();
        self.b.ins().brif(started, self.restart, &[], done, &[]);
        self.b.switch_to_block(done);
        self.exit(Exit::End, pc);
    }

    /// Emits the shared exit block: store EXEC and the counters, write pc and the step budget, return the
    /// status (each exit has stored its block's changed registers already).
    pub fn emit_exit_block(&mut self) {
        self.b.switch_to_block(self.exit_block);
        let (status, pc) = (self.b.block_params(self.exit_block)[0], self.b.block_params(self.exit_block)[1]);
        self.store_exec();
        self.store_counters(0);
        self.b.ins().store(flags(), pc, self.state, PC_OFFSET);
        let steps = self.b.use_var(self.steps);
        self.b.ins().store(flags(), steps, self.ctx, crate::abi::CTX_STEPS_OFFSET);
        self.b.ins().return_(&[status]);
        self.b.switch_to_block(self.trap_exit);
        let pc = self.b.block_params(self.trap_exit)[0];
        self.b.ins().store(flags(), pc, self.state, PC_OFFSET);
        let steps = self.b.use_var(self.steps);
        self.b.ins().store(flags(), steps, self.ctx, crate::abi::CTX_STEPS_OFFSET);
        let status = self.b.ins().iconst(I32, Exit::Trap as i64);
        self.b.ins().return_(&[status]);
    }

    /// Counter values after `n` more instructions under the current EXEC.
    pub(super) fn counted(&mut self, n: u32) -> (Value, Value) {
        let r = self.b.use_var(self.retired);
        let l = self.b.use_var(self.lane_ops);
        if n == 0 {
            return (r, l);
        }
        let r = self.b.ins().iadd_imm_s(r, n as i64);
        let ops = if self.full_exec() {
            self.b.ins().iconst(I64, n as i64 * LANES as i64)
        } else {
            // Lane-ops count the lanes active when each instruction starts: EXEC as the block began (only a
            // block's last instruction may write EXEC).
            let e = self.block_exec();
            // Mutant 123: lane-ops counted with the EXEC current at the block's end, not at its start.
            let e = if crate::mutants::active(123) { self.exec_val() } else { e };
            let pc = self.b.ins().popcnt(e);
            let pc = self.b.ins().uextend(I64, pc);
            self.b.ins().imul_imm_s(pc, n as i64)
        };
        (r, self.b.ins().iadd(l, ops))
    }

    /// Adds `n` retired instructions (and their lane-ops under the current EXEC).
    pub fn count(&mut self, n: u32) {
        let (r, l) = self.counted(n);
        self.b.def_var(self.retired, r);
        self.b.def_var(self.lane_ops, l);
    }

    /// Executes the instruction at `pc` in the interpreter, from compiled code: registers are stored before and
    /// reloaded after; the state's counters include the `done` instructions of the block before this one, so a
    /// trap, or a read of the `retired` CSR, sees the right count. A trap leaves through the exit.
    pub fn call_interpreter(&mut self, pc: u32, done: u32) {
        self.note_lowering(pc, crate::abi::Lowering::Interpreter);
        self.call_runtime(self.helpers.step, pc, done, None);
    }

    /// Records a way the instruction at `pc` may run in the code being emitted.
    pub fn note_lowering(&mut self, pc: u32, how: crate::abi::Lowering) {
        self.noted = true;
        self.lowering.insert((pc, how));
    }

    /// A vector load or store through the runtime (`runtime::helper_mem`), with `call_interpreter`'s contract; only
    /// `writes` (a load's destination group, nothing for a store) are reloaded after it.
    pub fn call_mem(&mut self, pc: u32, done: u32, writes: BlockRegs) {
        self.note_lowering(pc, crate::abi::Lowering::Runtime);
        self.call_runtime(self.helpers.mem, pc, done, Some(writes));
    }

    /// The runtime path of an inline access, emitted in `slow` after the inline path, then on to `join`. It
    /// starts from `entry`, the changes taken before the access branched: a register only the inline path
    /// wrote is unchanged on this path (and, when its block left it unloaded, undefined), so the call must not
    /// store it. At `join` a register changed on either path counts as changed.
    pub fn runtime_arm(
        &mut self,
        (slow, join): (Block, Block),
        entry: Dirty,
        (pc, done): (u32, u32),
        writes: BlockRegs,
    ) {
        self.b.switch_to_block(slow);
        // Mutant 162: the runtime path starts from the inline path's changes, so it stores a destination that
        // on its own path is unchanged (and, when its block left it unloaded, undefined: zeros reach the state).
        let inline = if crate::mutants::active(162) { self.dirty() } else { self.other_arm(entry) };
        self.call_mem(pc, done, writes);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        self.join_arms(inline);
    }

    /// Calls helper `f(state, ctx, pc)`, which executes the instruction at `pc` on the state: the registers it
    /// names are stored first when the block has changed them (the state holds the others already) and all of
    /// them are reloaded after.
    pub(super) fn call_runtime(&mut self, f: usize, pc: u32, done: u32, writes: Option<BlockRegs>) {
        let insn = self.current.expect("a runtime call runs while lowering an instruction");
        if insn.fcsr().writes {
            self.fcsr_plain = false;
        }
        let (vs, us) = touched(&insn);
        let (dv, du) = self.dirty_among(&vs, &us);
        // Mutant 124: registers the block changed are not written back before the runtime call.
        if !crate::mutants::active(124) {
            self.store_regs(&dv, &du);
        }
        self.store_exec();
        self.store_counters(done);
        let pcv = self.b.ins().iconst(I32, pc as i64);
        self.call_helper(f, pcv);
        let can_trap = f != self.helpers.step || interpreter_may_trap(&insn);
        let status = can_trap.then(|| self.helper_status());
        let (wv, wu) = writes.unwrap_or_else(|| written(&insn));
        self.load_regs(&wv, &wu);
        if insn.id().info().has(lanejit_isa::flag::WE) {
            self.load_exec();
        }
        let Some(status) = status else { return };
        let ok = self.b.create_block();
        let trap = self.b.create_block();
        self.b.set_cold_block(trap);
        self.b.ins().brif(status, trap, &[], ok, &[]);
        // A trap: the state has EXEC and the counters (stored for the call); the block's other changed
        // registers are stored here.
        self.b.switch_to_block(trap);
        self.store_dirty();
        self.b.ins().jump(self.trap_exit, &[pcv.into()]);
        self.b.switch_to_block(ok);
    }

    /// Calls the helper whose trampoline is at `f` with (state, ctx, pc).
    fn call_helper(&mut self, f: usize, pc: Value) {
        let f = self.b.ins().iconst(I64, f as i64);
        self.b.ins().call_indirect(self.helpers.sig, f, &[self.state, self.ctx, pc]);
    }

    /// The status the last helper called stored.
    fn helper_status(&mut self) -> Value {
        self.b.ins().load(I32, flags(), self.ctx, crate::abi::CTX_STATUS_OFFSET)
    }
}

/// Can the interpreter's step trap on `insn`? Not for the integer, float and compare groups: their handlers
/// return a `Flow`, not a `Result` (lanejit_interp `exec::step`), so their interpreted instructions get no
/// trap path (most of the interpreted instructions of generated programs: ~20 CLIF each, mostly the stores
/// of every changed register).
fn interpreter_may_trap(insn: &lanejit_isa::Insn) -> bool {
    use lanejit_isa::Insn;
    !matches!(insn, Insn::Vint(_) | Insn::Vfloat(_) | Insn::Cmp(_))
}
