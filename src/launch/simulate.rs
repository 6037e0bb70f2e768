//! The non-fixed schedules (`policy::Schedule`), run on the calling thread whatever `LaunchConfig::threads`
//! says: a few workgroups are in flight at once (each in a slot with its waves' states and its own shared and
//! private memory), and a chooser picks which wave runs next and for how many instructions. The engine runs
//! exactly that many (`Runner` without `chunked`), so every engine makes the same interleaving, and the
//! results follow from the policy and its seed alone.

use super::policy::{Rng, Schedule, MAX_OVERLAP, MAX_PCT_DEPTH, ORDER_WINDOW};
use super::schedule::{release_barrier, WaveStatus};
use super::{check_limits, note_trap, reset_wave, workgroup_count, workgroup_id, LaunchCtx, CHUNK};
use crate::engine::Runner;
use crate::wavemem::WaveMemory;
use lanejit_interp::{Stop, Tracer, Trap, WaveEnv, WaveState, LANES};
use lanejit_jit::WindowCache;
use std::sync::atomic::Ordering::Relaxed;

/// A wave of a workgroup in flight: its slot and its index in the workgroup.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct WaveRef {
    slot: usize,
    wave: usize,
}

/// One workgroup in flight. Its buffers are made once per launch and reused by the workgroups that follow,
/// so shared memory stays at one host address (the compiled code's memory windows rely on it: one
/// `WindowCache` per slot).
struct Slot {
    live: bool,
    wg_index: u64,
    wg_id: [u32; 3],
    waves: Vec<WaveState>,
    status: Vec<WaveStatus>,
    shared: Vec<u8>,
    private: Vec<u8>,
    windows: WindowCache,
}

/// A simulated launch: the slots, the unstarted workgroups the next one is chosen among, and the counts.
struct Sim<'c, 'a> {
    cx: &'c LaunchCtx<'a>,
    runner: Runner<'a>,
    chooser: Chooser,
    slots: Vec<Slot>,
    /// Unstarted workgroups the next one is chosen from (the lowest `ORDER_WINDOW` unstarted ones).
    window: Vec<u64>,
    /// The lowest workgroup index not yet in `window`.
    next_wg: u64,
    count: u64,
    runnable: Vec<WaveRef>,
    retired: u64,
    lane_ops: u64,
    started: [u64; 2],
}

/// Runs the launch of `cx` under `schedule` (not `Fixed`) and notes its first trap (the first in simulated
/// time: a deterministic choice, as the lowest workgroup's is for the fixed order).
pub(super) fn launch_simulated(cx: &LaunchCtx, schedule: Schedule, tracer: Option<&mut dyn Tracer>) {
    let mut sim = Sim::new(cx, schedule);
    let result = sim.run(tracer);
    sim.publish();
    if let Err((wg, t)) = result {
        note_trap(cx, wg, t);
    }
}

impl<'c, 'a> Sim<'c, 'a> {
    fn new(cx: &'c LaunchCtx<'a>, schedule: Schedule) -> Self {
        let count = workgroup_count(cx.env.grid);
        let per_wg = cx.starts.len();
        let horizon = cx.kernel.code.words.len() as u64 * count.saturating_mul(per_wg as u64);
        let mut chooser = Chooser::new(schedule, per_wg, horizon.clamp(1, cx.budget.max(1)));
        let overlap = (chooser.overlap() as u64).min(count) as usize;
        let slot = || Slot {
            live: false,
            wg_index: 0,
            wg_id: [0; 3],
            waves: vec![WaveState::default(); per_wg],
            status: vec![WaveStatus::Ended; per_wg],
            shared: vec![0; cx.shared_bytes as usize],
            private: vec![0; cx.private_bytes as usize * LANES * per_wg],
            windows: WindowCache::default(),
        };
        Sim {
            cx,
            runner: Runner::new(cx.kernel, cx.engine),
            chooser,
            slots: (0..overlap).map(|_| slot()).collect(),
            window: Vec::with_capacity(ORDER_WINDOW),
            next_wg: 0,
            count,
            runnable: Vec::new(),
            retired: 0,
            lane_ops: 0,
            started: [0, 0],
        }
    }

    /// Runs until every workgroup has ended, or the first trap: Err holds it with its workgroup's index.
    fn run(&mut self, mut tracer: Option<&mut (dyn Tracer + '_)>) -> Result<(), (u64, Trap)> {
        let mut current = None;
        loop {
            self.fill_slots();
            self.collect_runnable();
            if self.runnable.is_empty() {
                return Ok(());
            }
            let (pick, slice) = self.chooser.choose(&self.runnable, current, self.retired);
            current = Some(pick);
            self.run_slice(pick, slice, tracer.as_deref_mut())?;
        }
    }

    /// Starts workgroups in the free slots while some are unstarted, each chosen by the chooser among the
    /// lowest unstarted ones.
    fn fill_slots(&mut self) {
        for s in 0..self.slots.len() {
            if self.slots[s].live {
                continue;
            }
            while self.window.len() < ORDER_WINDOW && self.next_wg < self.count {
                self.window.push(self.next_wg);
                self.next_wg += 1;
            }
            if self.window.is_empty() {
                return;
            }
            let wg = self.window.remove(self.chooser.next_workgroup(self.window.len()));
            self.start_slot(s, wg);
        }
    }

    /// Puts workgroup `wg` in slot `s`: every wave at the ABI's start, shared and private memory zero.
    fn start_slot(&mut self, s: usize, wg: u64) {
        let cx = self.cx;
        let slot = &mut self.slots[s];
        let wg_id = workgroup_id(cx.env.grid, wg);
        (slot.live, slot.wg_index, slot.wg_id) = (true, wg, wg_id);
        for (wi, w) in slot.waves.iter_mut().enumerate() {
            reset_wave(cx, w, wi, wg_id, true);
        }
        slot.status.fill(WaveStatus::Running);
        slot.shared.fill(0);
        slot.private.fill(0);
        self.chooser.on_start(s);
        self.started[0] += 1;
        self.started[1] += slot.waves.len() as u64;
    }

    /// The waves that may run now, in slot then wave order.
    fn collect_runnable(&mut self) {
        self.runnable.clear();
        for (s, slot) in self.slots.iter().enumerate().filter(|(_, slot)| slot.live) {
            let running = slot.status.iter().enumerate().filter(|(_, st)| **st == WaveStatus::Running);
            self.runnable.extend(running.map(|(wave, _)| WaveRef { slot: s, wave }));
        }
    }

    /// Runs `slice` instructions of wave `r` (fewer if it ends or reaches a barrier), then checks the limits
    /// and, when none of its workgroup's waves can run, releases their barrier or ends the workgroup.
    fn run_slice(&mut self, r: WaveRef, slice: u64, tracer: Option<&mut (dyn Tracer + '_)>) -> Result<(), (u64, Trap)> {
        let cx = self.cx;
        let slot = &mut self.slots[r.slot];
        let (wg, wg_id) = (slot.wg_index, slot.wg_id);
        let name = |mut t: Trap| {
            (t.wave, t.workgroup) = (r.wave as u32, wg_id);
            (wg, t)
        };
        let pstride = cx.private_bytes as usize * LANES;
        let mut mem = WaveMemory::new(
            &cx.device.arena,
            &cx.allocs,
            &mut slot.shared[..],
            &mut slot.private[r.wave * pstride..(r.wave + 1) * pstride],
            cx.private_bytes as u64,
        );
        let w = &mut slot.waves[r.wave];
        let (r0, l0) = (w.retired, w.lane_ops);
        let mut env = WaveEnv { wave_id: r.wave as u32, wg_id, ..cx.env };
        let res = self.runner.run(w, &mut mem, &mut env, slice, tracer, &mut slot.windows, None);
        self.retired += w.retired - r0;
        self.lane_ops += w.lane_ops - l0;
        let pc = w.pc;
        match res.map_err(name)? {
            Stop::End => slot.status[r.wave] = WaveStatus::Ended,
            Stop::Barrier => slot.status[r.wave] = WaveStatus::AtBarrier(pc.wrapping_sub(4)),
            Stop::Steps => {}
        }
        check_limits(cx, self.retired, pc).map_err(name)?;
        if !slot.status.contains(&WaveStatus::Running) {
            // A deadlock names the wave at a different barrier (`release_barrier` sets it).
            let more = release_barrier(&mut slot.status).map_err(|mut t| {
                t.workgroup = wg_id;
                (wg, t)
            })?;
            slot.live = more;
        }
        Ok(())
    }

    /// Adds the counts to the launch's.
    fn publish(&self) {
        let cx = self.cx;
        cx.retired.fetch_add(self.retired, Relaxed);
        cx.lane_ops.fetch_add(self.lane_ops, Relaxed);
        cx.interpreted.fetch_add(self.slots.iter().map(|s| s.windows.interpreted).sum(), Relaxed);
        cx.started[0].fetch_add(self.started[0], Relaxed);
        cx.started[1].fetch_add(self.started[1], Relaxed);
    }
}

/// Which wave runs next and for how many instructions, as the schedule says.
struct Chooser {
    policy: Policy,
    rng: Rng,
    /// Preemptions allowed (`Schedule::switches`) and made so far.
    cap: Option<u32>,
    switches: u32,
    waves_per_wg: usize,
    /// `pct`: per slot and wave, its priority (the highest runnable runs).
    priorities: Vec<u64>,
    /// `pct`: the instruction counts at which the running wave drops below every other, ascending; and how
    /// many have been passed.
    change_points: Vec<u64>,
    changed: usize,
}

#[derive(Clone, Copy, Debug)]
enum Policy {
    RoundRobin(u64),
    Random,
    Pct,
}

/// Workgroups `rr:K` keeps in flight (two, so that workgroups interleave too).
const RR_OVERLAP: usize = 2;
/// Longest `random` slice is 2^(this - 1) instructions; most are short (log-uniform lengths).
const RANDOM_SLICE_BITS: u64 = 9;

impl Chooser {
    fn new(schedule: Schedule, waves_per_wg: usize, default_horizon: u64) -> Self {
        let (policy, seed, depth, horizon) = match schedule {
            Schedule::Fixed | Schedule::RoundRobin { .. } => {
                let every = if let Schedule::RoundRobin { every } = schedule { every } else { CHUNK };
                (Policy::RoundRobin(every), 0, 1, 1)
            }
            Schedule::Random { seed, .. } => (Policy::Random, seed, 1, 1),
            Schedule::Pct { seed, depth, horizon, .. } => {
                (Policy::Pct, seed, depth, horizon.unwrap_or(default_horizon))
            }
        };
        let mut rng = Rng::new(seed);
        let mut change_points: Vec<u64> = (1..depth).map(|_| 1 + rng.below(horizon.max(1))).collect();
        change_points.sort_unstable();
        let cap = schedule.switches();
        let priorities = vec![0; waves_per_wg * MAX_OVERLAP];
        Chooser { policy, rng, cap, switches: 0, waves_per_wg, priorities, change_points, changed: 0 }
    }

    /// Workgroups in flight at once.
    fn overlap(&mut self) -> usize {
        match self.policy {
            Policy::RoundRobin(_) => RR_OVERLAP,
            Policy::Random | Policy::Pct => 1 + self.rng.below(MAX_OVERLAP as u64) as usize,
        }
    }

    /// Which of the `n` lowest unstarted workgroups starts next.
    fn next_workgroup(&mut self, n: usize) -> usize {
        match self.policy {
            Policy::RoundRobin(_) => 0,
            Policy::Random | Policy::Pct => self.rng.below(n as u64) as usize,
        }
    }

    /// A workgroup starts in `slot`: `pct` gives its waves random priorities above every demoted one.
    fn on_start(&mut self, slot: usize) {
        if let Policy::Pct = self.policy {
            for wi in 0..self.waves_per_wg {
                self.priorities[slot * self.waves_per_wg + wi] = MAX_PCT_DEPTH as u64 + 1 + (self.rng.next() >> 1);
            }
        }
    }

    /// The wave to run among `runnable` (not empty) and its slice, `current` having run last and `retired`
    /// instructions retired so far. A switch away from `current` while it could go on is a preemption, refused
    /// once `cap` of them have been made (the draws are the same either way).
    fn choose(&mut self, runnable: &[WaveRef], current: Option<WaveRef>, retired: u64) -> (WaveRef, u64) {
        let (pick, slice) = match self.policy {
            Policy::RoundRobin(every) => (round_robin(runnable, current), every),
            Policy::Random => {
                let pick = runnable[self.rng.below(runnable.len() as u64) as usize];
                let bits = self.rng.below(RANDOM_SLICE_BITS);
                (pick, 1 + self.rng.below(1 << bits))
            }
            Policy::Pct => self.pct(runnable, current, retired),
        };
        match current.filter(|c| *c != pick && runnable.contains(c)) {
            Some(c) if self.cap.is_some_and(|cap| self.switches >= cap) => (c, slice),
            Some(_) => {
                self.switches += 1;
                (pick, slice)
            }
            None => (pick, slice),
        }
    }

    /// PCT: at a change point the wave that ran last drops below every other; the highest runnable runs until
    /// the next change point (or a chunk, so that limits are checked).
    fn pct(&mut self, runnable: &[WaveRef], current: Option<WaveRef>, retired: u64) -> (WaveRef, u64) {
        while self.changed < self.change_points.len() && self.change_points[self.changed] <= retired {
            self.changed += 1;
            if let Some(c) = current {
                // Later change points demote further: the i-th gives depth - i, below every start priority.
                self.priorities[c.slot * self.waves_per_wg + c.wave] = (self.change_points.len() - self.changed) as u64;
            }
        }
        let priority = |r: &&WaveRef| self.priorities[r.slot * self.waves_per_wg + r.wave];
        let pick = *runnable.iter().max_by_key(priority).unwrap_or(&runnable[0]);
        let slice = match self.change_points.get(self.changed) {
            Some(&cp) => (cp - retired).clamp(1, CHUNK),
            None => CHUNK,
        };
        (pick, slice)
    }
}

/// The runnable wave after `current` in slot-then-wave order, wrapping around.
fn round_robin(runnable: &[WaveRef], current: Option<WaveRef>) -> WaveRef {
    let key = |r: &WaveRef| (r.slot, r.wave);
    let after = current.and_then(|c| runnable.iter().find(|r| key(r) > key(&c)));
    *after.unwrap_or(&runnable[0])
}
