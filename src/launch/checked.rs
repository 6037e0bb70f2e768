//! Checking launches (`LaunchConfig::check`, `crate::check`): the interpreter, one workgroup after another on
//! the calling thread, stepping each wave itself so that the checkers see every instruction before and after
//! it runs and every shared-memory access it makes. The workgroup scheduler is the launches' own, so waves
//! interleave at barriers exactly as in an unchecked launch.

use super::{
    check_limits, finish, note_trap, prepare, reset_wave, schedule_workgroup, workgroup_count, workgroup_id, LaunchCtx,
    LaunchError, LaunchStats, WaveStatus, WaveStop, CHUNK,
};
use crate::check::{BarrierKind, BarrierMisuse, Checks, Finding, Findings, RaceShadow, WaveWaits};
use crate::check::{LaneAccess, Site};
use crate::check::{MemoryDefined, WaveDefined};
use crate::wavemem::WaveMemory;
use crate::{ConfigError, Device, Kernel, LaunchConfig};
use lanejit_interp::{step, Ctx, Flow, HostRegion, MemFault, Memory, Trap, TrapKind, WaveEnv, WaveState, LANES};
use lanejit_isa::Sp;
use std::sync::atomic::Ordering::Relaxed;

/// Runs `kernel` over `cfg.grid` with the checkers `cfg.check` names; the findings are in the stats (also
/// those of a launch that trapped).
pub(crate) fn launch_checked(device: &Device, kernel: &Kernel, cfg: &LaunchConfig) -> Result<LaunchStats, LaunchError> {
    if cfg.schedule != super::Schedule::Fixed {
        return Err(LaunchError::Config(ConfigError::ScheduleWithChecks(cfg.schedule.to_string())));
    }
    if cfg.check.buffers && !device.arena.tracks_defined() {
        return Err(LaunchError::Config(ConfigError::UntrackedMemory));
    }
    if !cfg.check.buffers {
        device.arena.define_all_live();
    }
    let cx = prepare(device, kernel, cfg)?;
    let count = workgroup_count(cfg.grid);
    let mut run = CheckedRun::new(&cx, cfg.check);
    for i in 0..count {
        if let Err(t) = run.workgroup(workgroup_id(cfg.grid, i)).and_then(|()| run.flush()) {
            note_trap(&cx, i, t);
            break;
        }
    }
    let findings = std::mem::take(&mut run.findings).into_vec();
    cx.started[0].fetch_add(run.started[0], Relaxed);
    cx.started[1].fetch_add(run.started[1], Relaxed);
    drop(run);
    match finish(cx) {
        Ok(stats) => Ok(LaunchStats { findings, ..stats }),
        Err(LaunchError::Trap { trap, stats }) => {
            Err(LaunchError::Trap { trap, stats: LaunchStats { findings, ..stats } })
        }
        Err(e) => Err(e),
    }
}

/// The state of one checking launch: the current workgroup's waves, memory and checker state.
struct CheckedRun<'c, 'a> {
    cx: &'c LaunchCtx<'a>,
    checks: Checks,
    waves: Vec<WaveState>,
    waits: Vec<WaveWaits>,
    shared: Vec<u8>,
    private: Vec<u8>,
    shadow: RaceShadow,
    /// Per wave: its defined register lanes (the uninit checker).
    defined: Vec<WaveDefined>,
    /// The defined shared and private bytes, and device memory's record when buffers are checked (the uninit
    /// checker).
    memory_defined: MemoryDefined<'a>,
    /// The shared-memory accesses of the instruction being executed.
    log: Vec<LaneAccess>,
    /// Scratch wave state for following a cross-lane move's source lanes (`check::moved_lanes`).
    traced: Box<WaveState>,
    /// Per wave: the barrier it waits at (`None`: running or ended).
    at_barrier: Vec<Option<u32>>,
    /// Waves that ended since the last barrier release, with the pc of their `end`.
    ended: Vec<(u32, u32)>,
    findings: Findings,
    /// Instructions retired since the last flush.
    retired: u64,
    lane_ops: u64,
    /// Workgroups and waves started (`LaunchStats::workgroups`, `waves`).
    started: [u64; 2],
    last: ([u32; 3], u32, u32),
}

impl<'c, 'a> CheckedRun<'c, 'a> {
    fn new(cx: &'c LaunchCtx<'a>, checks: Checks) -> Self {
        let n = cx.starts.len();
        CheckedRun {
            cx,
            checks,
            waves: vec![WaveState::default(); n],
            waits: (0..n).map(|_| WaveWaits::default()).collect(),
            shared: vec![0; cx.shared_bytes as usize],
            private: vec![0; cx.private_bytes as usize * LANES * n],
            shadow: RaceShadow::default(),
            defined: vec![WaveDefined::default(); n],
            memory_defined: MemoryDefined::new(checks.buffers.then_some(&cx.device.arena)),
            log: Vec::new(),
            traced: Box::default(),
            at_barrier: vec![None; n],
            ended: Vec::new(),
            findings: Findings::default(),
            retired: 0,
            lane_ops: 0,
            started: [0, 0],
            last: ([0; 3], 0, 0),
        }
    }

    fn workgroup(&mut self, wg_id: [u32; 3]) -> Result<(), Trap> {
        for wi in 0..self.waves.len() {
            self.waves[wi] = WaveState::default();
            reset_wave(self.cx, &mut self.waves[wi], wi, wg_id, true);
            self.waits[wi].clear();
            self.defined[wi].start();
        }
        let private_bytes = self.cx.private_bytes as usize;
        self.memory_defined.start(self.shared.len(), private_bytes, self.waves.len());
        self.shared.fill(0);
        self.private.fill(0);
        self.shadow.start(self.shared.len());
        self.at_barrier.fill(None);
        self.ended.clear();
        let mut status = vec![WaveStatus::Running; self.waves.len()];
        // The scheduler starts the waves in index order: those started are the first `waves`.
        let mut waves = 0;
        let result = schedule_workgroup(&mut status, |wi| {
            waves = waves.max(wi + 1);
            if self.at_barrier[wi].is_some() {
                self.barrier_released();
            }
            self.turn(wi, wg_id)
        });
        self.started[0] += 1;
        self.started[1] += waves as u64;
        result.map_err(|mut t| {
            t.workgroup = wg_id;
            if t.kind == TrapKind::BarrierDeadlock && self.checks.barriers {
                self.different_barriers(&t, wg_id);
            }
            t
        })
    }

    /// The waves waiting at a barrier were released: a wave that ended meanwhile skipped it, and the accesses
    /// before it are ordered before those after it.
    fn barrier_released(&mut self) {
        let waiting = self.at_barrier.iter().enumerate().find_map(|(w, pc)| pc.map(|pc| (w as u32, pc)));
        if let (true, Some((other_wave, other_pc))) = (self.checks.barriers, waiting) {
            for &(wave, pc) in &self.ended {
                let lanes = self.cx.starts[wave as usize].exec;
                let f = self.misuse(BarrierKind::WaveEndedBeforeBarrier, wave, pc, lanes, Some((other_wave, other_pc)));
                self.findings.add((2, pc, other_pc, 1), || f);
            }
        }
        self.ended.clear();
        self.at_barrier.fill(None);
        self.shadow.barrier();
    }

    fn different_barriers(&mut self, t: &Trap, wg_id: [u32; 3]) {
        let other =
            self.at_barrier.iter().enumerate().find_map(|(w, pc)| pc.filter(|&pc| pc != t.pc).map(|pc| (w as u32, pc)));
        let lanes = self.cx.starts[t.wave as usize].exec;
        let mut f = self.misuse(BarrierKind::DifferentBarriers, t.wave, t.pc, lanes, other);
        if let Finding::Barrier(b) = &mut f {
            b.workgroup = wg_id;
        }
        self.findings.add((2, t.pc, other.map_or(0, |o| o.1), 2), || f);
    }

    fn misuse(&self, kind: BarrierKind, wave: u32, pc: u32, lanes: u32, other: Option<(u32, u32)>) -> Finding {
        let k = self.cx.kernel;
        Finding::Barrier(BarrierMisuse {
            kind,
            pc,
            line: k.source_line(pc),
            wave,
            lanes,
            other_pc: other.map(|o| o.1),
            other_line: other.and_then(|o| k.source_line(o.1)),
            other_wave: other.map(|o| o.0),
            workgroup: self.last.0,
            occurrences: 1,
        })
    }

    /// Runs wave `wi` until it ends, waits at a barrier, or traps.
    fn turn(&mut self, wi: usize, wg_id: [u32; 3]) -> Result<WaveStop, Trap> {
        let with_ids = |mut t: Trap| {
            (t.wave, t.workgroup) = (wi as u32, wg_id);
            t
        };
        loop {
            if self.retired >= CHUNK {
                self.flush()?;
            }
            let pc = self.waves[wi].pc;
            self.last = (wg_id, wi as u32, pc);
            let exec = self.waves[wi].exec;
            match self.step(wi, wg_id).map_err(with_ids)? {
                Flow::End => {
                    self.ended.push((wi as u32, pc));
                    return Ok(WaveStop::Ended);
                }
                Flow::Barrier => {
                    let threads = self.cx.starts[wi].exec;
                    if self.checks.barriers && exec != threads {
                        let f = self.misuse(BarrierKind::PartialExec, wi as u32, pc, exec, None);
                        self.findings.add((2, pc, 0, 0), || f);
                    }
                    self.at_barrier[wi] = Some(pc);
                    return Ok(WaveStop::AtBarrier(pc));
                }
                Flow::Next | Flow::Jump(_) => {}
            }
        }
    }

    /// Executes one instruction of wave `wi` on the interpreter, with the checkers around it.
    fn step(&mut self, wi: usize, wg_id: [u32; 3]) -> Result<Flow, Trap> {
        let cx = self.cx;
        let code = &cx.kernel.code;
        let w = &mut self.waves[wi];
        let (pc, exec) = (w.pc, w.exec);
        let (insn, len) = code.fetch(pc)?;
        let lines = |pc: u32| cx.kernel.source_line(pc);
        let site = Site { workgroup: wg_id, wave: wi as u32, lines: &lines };
        if self.checks.waits {
            self.waits[wi].before(pc, insn, exec, &site, &mut self.findings);
        }
        if self.checks.uninit_on() {
            self.defined[wi].before(pc, insn, exec, &site, &mut self.findings);
        }
        self.log.clear();
        let pstride = cx.private_bytes as usize * LANES;
        let env = WaveEnv { wave_id: wi as u32, wg_id, ..cx.env };
        let moved = if self.checks.uninit_on() {
            crate::check::moved_lanes(insn, w, &mut self.traced, &env, (pc, len, code.len_bytes()))
        } else {
            None
        };
        let mut mem = Recording {
            inner: WaveMemory::new(
                &cx.device.arena,
                &cx.allocs,
                &mut self.shared,
                &mut self.private[wi * pstride..(wi + 1) * pstride],
                cx.private_bytes as u64,
            ),
            log: &mut self.log,
            local: self.checks.races || self.checks.uninit_on(),
            device: self.checks.buffers,
        };
        let flow = step(&mut Ctx { w, mem: &mut mem, env: &env, pc, len, code_len: code.len_bytes() }, insn)?;
        w.retired += 1;
        w.lane_ops += exec.count_ones() as u64;
        w.pc = match flow {
            Flow::Next | Flow::Barrier => pc.wrapping_add(len),
            Flow::Jump(t) => t,
            Flow::End => pc,
        };
        self.retired += 1;
        self.lane_ops += exec.count_ones() as u64;
        if self.checks.waits {
            self.waits[wi].after(pc, insn, exec);
        }
        if self.checks.races && !self.log.is_empty() {
            self.shadow.record(wi as u32, pc, lines(pc), &self.log, wg_id, &mut self.findings);
        }
        if self.checks.uninit_on() {
            self.memory_defined.wave = wi;
            let site = Site { workgroup: wg_id, wave: wi as u32, lines: &lines };
            let now = (pc, insn, exec, moved);
            self.defined[wi].after(now, &self.log, &mut self.memory_defined, (&site, &mut self.findings));
        }
        Ok(flow)
    }

    /// Adds the instructions retired since the last flush to the launch's counts and checks its limits.
    fn flush(&mut self) -> Result<(), Trap> {
        let cx = self.cx;
        let total = cx.retired.fetch_add(self.retired, Relaxed) + self.retired;
        cx.interpreted.fetch_add(self.retired, Relaxed);
        cx.lane_ops.fetch_add(self.lane_ops, Relaxed);
        (self.retired, self.lane_ops) = (0, 0);
        let (workgroup, wave, pc) = self.last;
        check_limits(cx, total, pc).map_err(|mut t| {
            (t.workgroup, t.wave) = (workgroup, wave);
            t
        })
    }
}

impl Drop for CheckedRun<'_, '_> {
    fn drop(&mut self) {
        self.cx.retired.fetch_add(self.retired, Relaxed);
        self.cx.interpreted.fetch_add(self.retired, Relaxed);
        self.cx.lane_ops.fetch_add(self.lane_ops, Relaxed);
    }
}

/// A wave's memory that also logs the shared- and private-memory accesses it performs (for the race and uninit
/// checkers), and the device-memory ones when buffers are checked.
struct Recording<'m, 'l> {
    inner: WaveMemory<'m>,
    log: &'l mut Vec<LaneAccess>,
    /// Log shared and private accesses.
    local: bool,
    /// Log global and constant accesses.
    device: bool,
}

impl Recording<'_, '_> {
    fn note(&mut self, sp: Sp, lane: usize, addr: u64, size: u32, write: bool, atomic: bool) {
        let on = match sp {
            Sp::Shared | Sp::Private => self.local,
            Sp::Global | Sp::Constant => self.device,
        };
        if on {
            self.log.push(LaneAccess { sp, lane: lane as u32, offset: addr, size, write, atomic });
        }
    }
}

impl Memory for Recording<'_, '_> {
    fn check(&self, sp: Sp, lane: usize, addr: u64, size: u32, write: bool) -> Result<(), MemFault> {
        self.inner.check(sp, lane, addr, size, write)
    }
    fn load(&mut self, sp: Sp, lane: usize, addr: u64, size: u32) -> Result<u64, MemFault> {
        let v = self.inner.load(sp, lane, addr, size)?;
        self.note(sp, lane, addr, size, false, false);
        Ok(v)
    }
    fn store(&mut self, sp: Sp, lane: usize, addr: u64, size: u32, value: u64) -> Result<(), MemFault> {
        self.inner.store(sp, lane, addr, size, value)?;
        self.note(sp, lane, addr, size, true, false);
        Ok(())
    }
    fn rmw32(&mut self, sp: Sp, lane: usize, addr: u64, f: &mut dyn FnMut(u32) -> u32) -> Result<u32, MemFault> {
        let v = self.inner.rmw32(sp, lane, addr, f)?;
        self.note(sp, lane, addr, 4, true, true);
        Ok(v)
    }
    fn host_region(&mut self, _sp: Sp, _addr: u64, _write: bool) -> Option<HostRegion> {
        None
    }
}
