//! Kernels without barriers run their waves back to back: a worker's waves take turns in one wave state, and
//! the engine goes from one wave's end to the next wave itself (`Batch`, a `lanejit_jit::NextWave`), so a run
//! of workgroups enters compiled code once per chunk of instructions instead of once per wave. Compiled code
//! starts the next waves without calling back (`Batch::plan`, a `lanejit_jit::WavePlan`): it asks
//! `Batch::next` only when the plan allows no more waves.

use super::{note_trap, preempted, reset_wave, workgroup_id, LaunchCtx, Worker, CHUNK, FLUSH_EVERY};
use crate::wavemem::WaveMemory;
use lanejit_interp::{Stop, Trap, WaveEnv, WaveState};
use lanejit_jit::{NextWave, WavePlan};
use std::sync::atomic::Ordering::Relaxed;

/// The waves one worker runs back to back when a launch allows it (`LaunchCtx::batched`): wave
/// `env.wave_id` of workgroup `wg` (in launch order) is the one running; `next` sets up the following one,
/// which compiled code then starts without returning to the run loop, as compiled code does itself by `plan`.
/// It crosses into the next workgroup of the worker's run only when no shared memory needs clearing, and
/// stops when any workgroup has trapped.
struct Batch<'c, 'a> {
    cx: &'c LaunchCtx<'a>,
    wg: u64,
    end: u64,
    /// Instructions and lane-ops of the waves ended by `next` since the worker last took them.
    ended: (u64, u64),
    /// The environment of the running wave.
    env: WaveEnv,
    /// The waves compiled code may start itself, and what it did (taken by `sync`).
    plan: WavePlan,
}

impl<'c, 'a> Batch<'c, 'a> {
    /// Wave 0 of the first workgroup of `range`.
    fn new(cx: &'c LaunchCtx<'a>, range: std::ops::Range<u64>) -> Self {
        let env = WaveEnv { wg_id: workgroup_id(cx.env.grid, range.start), wave_id: 0, ..cx.env };
        let plan = WavePlan {
            starts: cx.starts.as_ptr(),
            stop: cx.trapped.as_ptr() as *const u8,
            args_addr: cx.args_addr,
            whole_abi: (cx.facts.writes_launch_abi || cx.starts.len() > 1) as u8,
            ..WavePlan::idle()
        };
        Batch { cx, wg: range.start, end: range.end, ended: (0, 0), env, plan }
    }

    /// The running wave's index in its workgroup.
    fn wave(&self) -> usize {
        self.env.wave_id as usize
    }

    /// Moves on to the wave after the running one (`WavePlan::advance`, as compiled code does).
    fn step(&mut self) {
        self.plan.advance(&mut self.env);
        self.wg += std::mem::take(&mut self.plan.crossed);
    }

    /// Takes up what compiled code did by the plan: the waves it started (`env` describes the running one)
    /// and the counts of those it ended.
    fn sync(&mut self, env: &WaveEnv) {
        self.wg += std::mem::take(&mut self.plan.crossed);
        self.env = *env;
        let [r, l] = std::mem::take(&mut self.plan.ended);
        self.ended.0 += r;
        self.ended.1 += l;
    }

    /// Lets the plan start every wave left in the worker's run after the running one (only those of the
    /// running workgroup when its shared memory must be cleared between workgroups).
    fn allow(&mut self) {
        let per = self.cx.starts.len() as u64;
        let in_workgroup = per - 1 - self.wave() as u64;
        let later_workgroups = if self.cx.shared_bytes > 0 { 0 } else { (self.end - self.wg - 1) * per };
        self.plan.waves_left = in_workgroup + later_workgroups;
    }
}

impl NextWave for Batch<'_, '_> {
    /// The Rust twin of compiled code's next wave: what the plan allows, unless a workgroup has trapped.
    fn next(&mut self, w: &mut WaveState, env: &mut WaveEnv) -> bool {
        self.sync(env);
        let cx = self.cx;
        if self.plan.waves_left == 0 || cx.trapped.load(Relaxed) {
            return false;
        }
        // Two 8-byte reads: compiled code has just stored each counter on its own, and one 16-byte read of both
        // (what the compiler makes of adding the pair) cannot take its bytes from two pending stores, so it waits
        // for them to reach the cache (a store-forwarding stall, measured on every wave of atomic_reduce).
        // SAFETY: plain reads of two fields of a live `&mut WaveState`.
        let (retired, lane_ops) =
            unsafe { (std::ptr::read_volatile(&w.retired), std::ptr::read_volatile(&w.lane_ops)) };
        self.ended.0 += retired;
        self.ended.1 += lane_ops;
        self.step();
        *env = self.env;
        // The ids differ between the waves of a workgroup; with one wave per workgroup they are still there
        // (the plan's rule, which compiled code follows too).
        reset_wave(cx, w, self.wave(), env.wg_id, self.plan.whole_abi != 0);
        self.allow();
        true
    }

    /// A launch never reads a wave's registers after its end, and `reset_wave` re-zeroes every register the
    /// kernel writes before the next wave starts.
    fn discards_registers(&self) -> bool {
        true
    }

    fn plan(&mut self) -> Option<&mut WavePlan> {
        Some(&mut self.plan)
    }
}

impl Worker<'_, '_> {
    /// Runs the workgroups of `range` wave after wave (`LaunchCtx::batched`), many waves per call of the engine.
    /// A trap is noted with the workgroup and wave it happened in.
    pub(super) fn run_batched(&mut self, range: std::ops::Range<u64>) {
        let cx = self.cx;
        let mut b = Batch::new(cx, range.clone());
        while b.wg < b.end {
            if preempted(cx, b.wg) {
                return self.count_started(range.start, &b, false);
            }
            // A workgroup starts here when `Batch::next` did not cross into it: clear its shared memory.
            if b.wave() == 0 && cx.shared_bytes > 0 {
                self.shared[..cx.shared_bytes as usize].fill(0);
            }
            let mut env = b.env;
            reset_wave(
                cx,
                &mut self.waves[0],
                b.wave(),
                env.wg_id,
                cx.facts.writes_launch_abi || !self.set_up || cx.starts.len() > 1,
            );
            self.set_up = true;
            match self.run_batch(&mut b, &mut env) {
                Ok(true) => {}
                Ok(false) => return self.count_started(range.start, &b, true),
                Err(t) => {
                    note_trap(cx, b.wg, t);
                    return self.count_started(range.start, &b, true);
                }
            }
            b.step();
        }
        self.count_started(range.start, &b, false);
        if let Err(t) = self.flush() {
            note_trap(cx, range.end - 1, t);
        }
    }

    /// Counts the waves and workgroups started from `first` (the worker's first workgroup) up to where `b`
    /// stands: every wave before it, and the one there when it has run (`running`).
    fn count_started(&mut self, first: u64, b: &Batch, running: bool) {
        let before = (b.wg - first) * self.cx.starts.len() as u64 + b.wave() as u64;
        self.started[1] += before + running as u64;
        let workgroups = b.wg - first + (running || b.wave() > 0) as u64;
        self.started[0] += workgroups;
        if let Some(p) = &self.cx.obs.progress {
            p.add(workgroups);
        }
    }

    /// Runs from the wave `b` names (set up in the wave state) until a wave ends and `b` gives no next one
    /// (true), or a lower workgroup's trap stops this one (false).
    fn run_batch(&mut self, b: &mut Batch, env: &mut WaveEnv) -> Result<bool, Trap> {
        let cx = self.cx;
        loop {
            let mut mem =
                WaveMemory::new(&cx.device.arena, &cx.allocs, &mut self.shared[..cx.shared_bytes as usize], &mut [], 0);
            let w = &mut self.waves[0];
            let (r0, l0) = (w.retired, w.lane_ops);
            b.allow();
            let res = self.runner.run(w, &mut mem, env, CHUNK, None, &mut self.windows, Some(&mut *b));
            b.sync(env);
            // Waves that ended in the call count whole (`Batch::ended` holds their totals, the first one's
            // `r0` included); the running one from zero.
            let ended = std::mem::take(&mut b.ended);
            let since = |done: u64, now: u64, before: u64| if done > 0 { done - before + now } else { now - before };
            self.retired += since(ended.0, w.retired, r0);
            self.lane_ops += since(ended.1, w.lane_ops, l0);
            self.last = (env.wg_id, env.wave_id, w.pc);
            let stop = res.map_err(|mut t| {
                (t.wave, t.workgroup) = (env.wave_id, env.wg_id);
                t
            })?;
            // (`Barrier` cannot happen: a batched kernel has no barrier at any word offset.)
            let ended_run = stop == Stop::End;
            if !ended_run || self.retired >= FLUSH_EVERY {
                self.flush()?;
                if !ended_run && preempted(cx, b.wg) {
                    return Ok(false);
                }
            }
            if ended_run {
                return Ok(true);
            }
        }
    }
}
