//! A wave's `end` starting the next wave in compiled code (`plan.rs` says what a start is; `StartFacts::start`
//! is the Rust original this mirrors). Without it every wave of a launch cost a call into the run loop's Rust:
//! a fifth of a kernel whose waves each run a dozen instructions (`atomic_reduce`, `saxpy`).

use super::{flags, u_offset, v_offset, Fx};
use crate::abi::{CTX_ENDED_OFFSET, CTX_ENV_OFFSET, CTX_PLAN_OFFSET};
use crate::plan::{
    StartFacts, PLAN_ARGS, PLAN_CROSSED, PLAN_ENDED, PLAN_STARTS, PLAN_STOP, PLAN_WAVES_LEFT, PLAN_WHOLE_ABI,
    START_EXEC, START_IDS, START_SIZE,
};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I32X4, I64, I8};
use cranelift_codegen::ir::{self, InstBuilder, Value};
use lanejit_interp::{WaveEnv, WaveState, LANES};
use std::mem::offset_of;

const ENV_WAVE_ID: i32 = CTX_ENV_OFFSET + offset_of!(WaveEnv, wave_id) as i32;
const ENV_WAVE_COUNT: i32 = CTX_ENV_OFFSET + offset_of!(WaveEnv, wave_count) as i32;
const ENV_GRID: i32 = CTX_ENV_OFFSET + offset_of!(WaveEnv, grid) as i32;
const ENV_WG_ID: i32 = CTX_ENV_OFFSET + offset_of!(WaveEnv, wg_id) as i32;
const FCSR_OFFSET: i32 = offset_of!(WaveState, fcsr) as i32;
/// 16-byte slices per vector register.
const SLICES: usize = LANES / 4;

impl Fx<'_> {
    /// At a wave's `end` (its changed registers stored): when the run's plan allows another wave and no
    /// workgroup has trapped, counts the ended wave for the launch, sets the next one up in the state and
    /// jumps to `first`, the kernel's first block, with EXEC and the counters in variables (what `restart`
    /// would load; every way out of compiled code and every runtime call stores them). Otherwise falls through
    /// (the caller then asks `NextWave::next`).
    pub(super) fn start_next_wave_inline(&mut self, facts: &StartFacts, first: ir::Block) {
        let plan = self.b.ins().load(I64, flags(), self.ctx, CTX_PLAN_OFFSET);
        let left = self.b.ins().load(I64, flags(), plan, PLAN_WAVES_LEFT);
        let (check_stop, fast, slow) = (self.b.create_block(), self.b.create_block(), self.b.create_block());
        self.b.ins().brif(left, check_stop, &[], slow, &[]);
        self.b.switch_to_block(check_stop);
        let stop_at = self.b.ins().load(I64, flags(), plan, PLAN_STOP);
        let stop = self.b.ins().load(I8, flags(), stop_at, 0);
        self.b.ins().brif(stop, slow, &[], fast, &[]);
        self.b.switch_to_block(fast);
        let left = self.b.ins().iadd_imm_s(left, -1);
        self.b.ins().store(flags(), left, plan, PLAN_WAVES_LEFT);
        self.count_ended_wave(plan);
        let wave = self.advance_wave(plan);
        let starts = self.b.ins().load(I64, flags(), plan, PLAN_STARTS);
        let offset = self.b.ins().imul_imm_s(wave, START_SIZE);
        let start = self.b.ins().iadd(starts, offset);
        self.zero_clear_set(facts);
        self.write_launch_abi(facts, plan, start);
        let exec = self.write_wave_abi(start, starts);
        self.b.def_var(self.exec, exec);
        let zero = self.b.ins().iconst(I64, 0);
        self.b.def_var(self.retired, zero);
        self.b.def_var(self.lane_ops, zero);
        self.b.ins().jump(first, &[]);
        self.b.switch_to_block(slow);
    }

    /// Adds the ended wave's counters to the plan's totals and to `JitCtx::ended_retired`.
    fn count_ended_wave(&mut self, plan: Value) {
        let (r, l) = self.counted(0);
        for (x, at) in [(r, PLAN_ENDED), (l, PLAN_ENDED + 8)] {
            let old = self.b.ins().load(I64, flags(), plan, at);
            let sum = self.b.ins().iadd(old, x);
            self.b.ins().store(flags(), sum, plan, at);
        }
        let old = self.b.ins().load(I64, flags(), self.ctx, CTX_ENDED_OFFSET);
        let sum = self.b.ins().iadd(old, r);
        self.b.ins().store(flags(), sum, self.ctx, CTX_ENDED_OFFSET);
    }

    /// `WavePlan::advance` on `JitCtx::env`: the next wave index (I64), crossing into the following
    /// workgroup after the last one.
    fn advance_wave(&mut self, plan: Value) -> Value {
        let id = self.b.ins().load(I32, flags(), self.ctx, ENV_WAVE_ID);
        let count = self.b.ins().load(I32, flags(), self.ctx, ENV_WAVE_COUNT);
        let next = self.b.ins().iadd_imm_s(id, 1);
        let (cross, join) = (self.b.create_block(), self.b.create_block());
        self.b.append_block_param(join, I32);
        let crossing = self.b.ins().icmp(IntCC::Equal, next, count);
        self.b.ins().brif(crossing, cross, &[], join, &[next.into()]);
        self.b.switch_to_block(cross);
        self.move_to_following_workgroup();
        let crossed = self.b.ins().load(I64, flags(), plan, PLAN_CROSSED);
        let crossed = self.b.ins().iadd_imm_s(crossed, 1);
        self.b.ins().store(flags(), crossed, plan, PLAN_CROSSED);
        let zero = self.b.ins().iconst(I32, 0);
        self.b.ins().jump(join, &[zero.into()]);
        self.b.switch_to_block(join);
        let wave = self.b.block_params(join)[0];
        // Mutant 168: the new wave's id is not written (`csr.r wave_id` reads the last wave's).
        if !crate::mutants::active(168) {
            self.b.ins().store(flags(), wave, self.ctx, ENV_WAVE_ID);
        }
        self.b.ins().uextend(I64, wave)
    }

    /// `plan::following_id` on `JitCtx::env.wg_id`.
    fn move_to_following_workgroup(&mut self) {
        let load = |fx: &mut Self, at: i32| fx.b.ins().load(I32, flags(), fx.ctx, at);
        let (x, y, z) = (load(self, ENV_WG_ID), load(self, ENV_WG_ID + 4), load(self, ENV_WG_ID + 8));
        let (gx, gy) = (load(self, ENV_GRID), load(self, ENV_GRID + 4));
        let (x1, y1, z1) =
            (self.b.ins().iadd_imm_s(x, 1), self.b.ins().iadd_imm_s(y, 1), self.b.ins().iadd_imm_s(z, 1));
        let x_on = self.b.ins().icmp(IntCC::UnsignedLessThan, x1, gx);
        let y_on = self.b.ins().icmp(IntCC::UnsignedLessThan, y1, gy);
        let zero = self.b.ins().iconst(I32, 0);
        let nx = self.b.ins().select(x_on, x1, zero);
        // Mutant 164: the carry out of x leaves y as it was (the row after the last one repeats it).
        let y_carry = if crate::mutants::active(164) { y } else { self.b.ins().select(y_on, y1, zero) };
        let ny = self.b.ins().select(x_on, y, y_carry);
        let z_carry = self.b.ins().select(y_on, z, z1);
        let nz = self.b.ins().select(x_on, z, z_carry);
        for (v, at) in [(nx, ENV_WG_ID), (ny, ENV_WG_ID + 4), (nz, ENV_WG_ID + 8)] {
            self.b.ins().store(flags(), v, self.ctx, at);
        }
    }

    /// Zeroes the kernel's clear set in the state (`StartFacts::clear`).
    fn zero_clear_set(&mut self, facts: &StartFacts) {
        let zero_v = self.b.ins().iconst(I32, 0);
        let zero_x = self.b.ins().splat(I32X4, zero_v);
        // Mutant 165: the vector registers of the clear set keep the last wave's values.
        if !crate::mutants::active(165) {
            for r in facts.clear.0.iter().flat_map(|r| r.clone()) {
                for k in 0..SLICES {
                    self.b.ins().store(flags(), zero_x, self.state, v_offset(r, k));
                }
            }
        }
        for r in facts.clear.1.iter().flat_map(|r| r.clone()) {
            self.b.ins().store(flags(), zero_v, self.state, u_offset(r));
        }
    }

    /// With the plan's `whole_abi`: the thread ids the kernel names from `start`, and the argument address
    /// when the kernel may write u0:u1 (else they hold it still).
    fn write_launch_abi(&mut self, facts: &StartFacts, plan: Value, start: Value) {
        if !facts.ids_named.contains(&true) && !facts.writes_args {
            return;
        }
        let (write, done) = (self.b.create_block(), self.b.create_block());
        let whole = self.b.ins().load(I8, flags(), plan, PLAN_WHOLE_ABI);
        self.b.ins().brif(whole, write, &[], done, &[]);
        self.b.switch_to_block(write);
        for r in (0..3).filter(|&r| facts.ids_named[r]) {
            for k in 0..SLICES {
                let at = START_IDS + (r * LANES * 4 + k * 16) as i32;
                let x = self.b.ins().load(I32X4, flags(), start, at);
                self.b.ins().store(flags(), x, self.state, v_offset(r, k));
            }
        }
        if facts.writes_args {
            let args = self.b.ins().load(I64, flags(), plan, PLAN_ARGS);
            self.b.ins().store(flags(), args, self.state, u_offset(0));
        }
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
    }

    /// The workgroup id (u2..u4) and fcsr zero in the state; returns EXEC from `start` (an entry of `starts`).
    fn write_wave_abi(&mut self, start: Value, starts: Value) -> Value {
        for k in 0..3 {
            let id = self.b.ins().load(I32, flags(), self.ctx, ENV_WG_ID + 4 * k as i32);
            self.b.ins().store(flags(), id, self.state, u_offset(2 + k));
        }
        // Mutant 166: every wave starts with the EXEC of its workgroup's first wave.
        let from = if crate::mutants::active(166) { starts } else { start };
        let exec = self.b.ins().load(I32, flags(), from, START_EXEC);
        let zero = self.b.ins().iconst(I32, 0);
        self.b.ins().store(flags(), zero, self.state, FCSR_OFFSET);
        exec
    }
}
