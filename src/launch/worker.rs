//! A launch's worker thread: what it keeps for the whole launch (wave states, shared and private memory, the
//! engine's runner, counts not yet added to the launch's totals) and how it runs one workgroup's waves.

use super::schedule::{run_workgroup as schedule_workgroup, WaveStatus, WaveStop};
use super::{check_limits, preempted, reset_wave, LaunchCtx, CHUNK, SHARED_RED_ZONE};
use crate::engine::Runner;
use crate::wavemem::WaveMemory;
use lanejit_interp::{Stop, Tracer, Trap, WaveEnv, WaveState, LANES};
use lanejit_jit::WindowCache;
use std::sync::atomic::Ordering::Relaxed;

/// What one worker thread keeps for the whole launch, so that starting a workgroup or a wave allocates
/// nothing and clears only what the kernel can read: wave states (only the registers some instruction of the
/// kernel names can be non-zero after a wave, so only those are re-zeroed), shared and private memory (one
/// host buffer each, at a fixed address, so that the compiled code's memory windows stay valid for the
/// launch), the engine's runner, and instruction counts not yet added to the launch's totals.
pub(super) struct Worker<'c, 'a> {
    pub(super) cx: &'c LaunchCtx<'a>,
    pub(super) waves: Vec<WaveState>,
    pub(super) status: Vec<WaveStatus>,
    pub(super) shared: Vec<u8>,
    pub(super) private: Vec<u8>,
    pub(super) runner: Runner<'a>,
    pub(super) windows: WindowCache,
    pub(super) retired: u64,
    pub(super) lane_ops: u64,
    /// Workgroups and waves this worker started (added to the launch's count when it is dropped).
    pub(super) started: [u64; 2],
    /// The wave that ran last (workgroup, wave, pc), named by a budget or deadline trap.
    pub(super) last: ([u32; 3], u32, u32),
    /// A workgroup has been set up (the wave states hold the ABI's launch-wide values).
    pub(super) set_up: bool,
    /// This worker's part of the timeline, when the launch records one.
    pub(super) timeline: Option<crate::timeline::WorkerTimeline<'c>>,
}

/// Instructions a worker retires before it adds them to the launch's count and checks the budget and the
/// deadline (besides after every chunk that a wave did not finish in).
pub(super) const FLUSH_EVERY: u64 = CHUNK;

impl<'c, 'a> Worker<'c, 'a> {
    pub(super) fn new(cx: &'c LaunchCtx<'a>) -> Self {
        let n = cx.starts.len();
        Worker {
            cx,
            waves: vec![WaveState::default(); if cx.one_state { 1 } else { n }],
            status: vec![WaveStatus::Running; n],
            shared: vec![0; cx.shared_bytes as usize + SHARED_RED_ZONE],
            private: vec![0; cx.private_bytes as usize * LANES * n],
            runner: match cx.obs.profile {
                Some(_) => Runner::new(cx.kernel, cx.engine).chunked().profiling(),
                None => Runner::new(cx.kernel, cx.engine).chunked(),
            },
            windows: WindowCache::marking(cx.obs.block_time.as_ref().map(|s| s.mark())),
            retired: 0,
            lane_ops: 0,
            started: [0, 0],
            last: ([0; 3], 0, 0),
            set_up: false,
            timeline: cx.obs.timeline.as_ref().map(crate::timeline::WorkerTimeline::new),
        }
    }

    /// Sets every wave to the ABI's initial state for workgroup `wg_id`, and clears shared and private memory.
    /// Registers the kernel never writes keep what the previous workgroup left: zero, or the ABI's value when
    /// that is the same in every workgroup (thread ids, the argument address). With one wave state for all
    /// waves (`LaunchCtx::one_state`), each wave is set up just before it starts instead.
    pub(super) fn start_workgroup(&mut self, wg_id: [u32; 3]) {
        let cx = self.cx;
        if !cx.one_state {
            let whole_abi = cx.facts.writes_launch_abi || !self.set_up;
            for wi in 0..self.waves.len() {
                self.reset_wave(wi, wi, wg_id, whole_abi);
            }
            self.set_up = true;
        }
        self.status.fill(WaveStatus::Running);
        // (Most kernels have neither: skip the calls.)
        if cx.shared_bytes > 0 {
            self.shared[..cx.shared_bytes as usize].fill(0);
        }
        if !self.private.is_empty() {
            self.private.fill(0);
        }
    }

    pub(super) fn reset_wave(&mut self, slot: usize, wi: usize, wg_id: [u32; 3], whole_abi: bool) {
        reset_wave(self.cx, &mut self.waves[slot], wi, wg_id, whole_abi);
    }

    /// Sets up wave `wi` in the one shared wave state before it starts (see `LaunchCtx::one_state`); the ids
    /// are rewritten unless every wave of every workgroup has the same (one wave per workgroup).
    pub(super) fn start_shared_wave(&mut self, wi: usize, wg_id: [u32; 3]) {
        let whole_abi = self.cx.facts.writes_launch_abi || !self.set_up || self.cx.starts.len() > 1;
        self.reset_wave(0, wi, wg_id, whole_abi);
        self.set_up = true;
    }

    pub(super) fn run_workgroup(
        &mut self,
        wg_id: [u32; 3],
        wg_index: u64,
        mut tracer: Option<&mut dyn Tracer>,
    ) -> Result<(), Trap> {
        self.start_workgroup(wg_id);
        if let Some(tl) = &mut self.timeline {
            tl.workgroup_begin(wg_index);
        }
        let cx = self.cx;
        let pstride = cx.private_bytes as usize * LANES;
        let with_ids = |mut t: Trap, wave: u32| {
            t.wave = wave;
            t.workgroup = wg_id;
            t
        };
        // The scheduler owns the statuses while it runs (the waves' closure borrows the rest of the worker).
        let mut status = std::mem::take(&mut self.status);
        // The scheduler starts the waves in index order: those started are the first `waves`.
        let mut waves = 0;
        let result = schedule_workgroup(&mut status, |wi| {
            waves = waves.max(wi + 1);
            let slot = if cx.one_state {
                self.start_shared_wave(wi, wg_id);
                0
            } else {
                wi
            };
            if let Some(tl) = &mut self.timeline {
                tl.stretch_begin(wi);
            }
            loop {
                let env = WaveEnv { wave_id: wi as u32, wg_id, ..cx.env };
                let mut mem = WaveMemory::new(
                    &cx.device.arena,
                    &cx.allocs,
                    &mut self.shared[..cx.shared_bytes as usize],
                    &mut self.private[wi * pstride..(wi + 1) * pstride],
                    cx.private_bytes as u64,
                );
                let w = &mut self.waves[slot];
                let (r0, l0, i0) = (w.retired, w.lane_ops, self.windows.interpreted);
                let res = self.runner.run(
                    w,
                    &mut mem,
                    &mut env.clone(),
                    CHUNK,
                    tracer.as_deref_mut(),
                    &mut self.windows,
                    None,
                );
                self.retired += w.retired - r0;
                self.lane_ops += w.lane_ops - l0;
                let pc = w.pc;
                self.last = (wg_id, wi as u32, pc);
                if let Some(tl) = &mut self.timeline {
                    tl.ran(w.retired - r0, self.windows.interpreted - i0);
                }
                let res = res.map_err(|t| with_ids(t, wi as u32));
                if let (Some(tl), Err(t)) = (&mut self.timeline, &res) {
                    tl.stretch_cut(t, pc);
                }
                let stop = match res? {
                    Stop::End => Some(WaveStop::Ended),
                    Stop::Barrier => Some(WaveStop::AtBarrier(pc.wrapping_sub(4))),
                    Stop::Steps => None,
                };
                if let (Some(tl), Some(stop)) = (&mut self.timeline, stop) {
                    let how = if stop == WaveStop::Ended { "end" } else { "barrier" };
                    tl.stretch_end(how, pc, cx.retired.load(Relaxed) + self.retired);
                }
                if stop.is_none() || self.retired >= FLUSH_EVERY {
                    let limits = self.flush();
                    if let (Some(tl), Err(t)) = (&mut self.timeline, &limits) {
                        tl.stretch_cut(t, pc);
                    }
                    limits?;
                    if preempted(cx, wg_index) {
                        if let Some(tl) = &mut self.timeline {
                            tl.stretch_cut_preempted(pc);
                        }
                        return Ok(WaveStop::Preempted);
                    }
                }
                if let Some(stop) = stop {
                    return Ok(stop);
                }
            }
        });
        self.status = status;
        self.started[0] += 1;
        self.started[1] += waves as u64;
        if let Some(tl) = &mut self.timeline {
            tl.workgroup_end(wg_id, if result.is_ok() { "done" } else { "stopped" });
        }
        // A deadlock names the wave that waits at a different barrier (`schedule` sets it).
        result.map_err(|mut t| {
            t.workgroup = wg_id;
            t
        })
    }

    /// Adds the instructions retired since the last flush to the launch's count, then checks the budget and
    /// the deadline (a trap names the wave that ran last).
    pub(super) fn flush(&mut self) -> Result<(), Trap> {
        let total = self.cx.retired.fetch_add(self.retired, Relaxed) + self.retired;
        self.cx.interpreted.fetch_add(std::mem::take(&mut self.windows.interpreted), Relaxed);
        self.cx.lane_ops.fetch_add(self.lane_ops, Relaxed);
        (self.retired, self.lane_ops) = (0, 0);
        let (workgroup, wave, pc) = self.last;
        check_limits(self.cx, total, pc).map_err(|mut t| {
            (t.workgroup, t.wave) = (workgroup, wave);
            t
        })
    }
}

impl Drop for Worker<'_, '_> {
    fn drop(&mut self) {
        self.cx.retired.fetch_add(self.retired, Relaxed);
        self.cx.interpreted.fetch_add(self.windows.interpreted, Relaxed);
        self.cx.lane_ops.fetch_add(self.lane_ops, Relaxed);
        self.cx.started[0].fetch_add(self.started[0], Relaxed);
        self.cx.started[1].fetch_add(self.started[1], Relaxed);
        if let Some(tl) = &mut self.timeline {
            tl.finish();
        }
        if let (Some(counts), Some(profile)) = (self.runner.take_profile(), &self.cx.obs.profile) {
            profile.lock().expect("profile").add(&counts);
        }
    }
}
