//! A debugged launch and what stops it: `Session::resume` runs until a breakpoint, a finished step, a watched
//! write, a trap, a pause or the end of the launch.

use super::breakpoints::{self, BreakAt, Breakpoint};
use super::expr;
use super::inspect::Reader;
use super::watch::{Space, Watch, WatchHit, MAX_WATCH_BYTES};
use super::{DebugError, PauseHandle};
use crate::launch::debugged::{GuestWrite, Machine};
use crate::launch::WaveStatus;
use crate::{Device, Kernel, LaunchConfig};
use lanejit_interp::{Trap, WaveState};
use lanejit_isa::{CtrlInsn, Insn};

/// How to resume.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resume {
    /// Until something stops the launch.
    Continue,
    /// One instruction of the focused wave (other waves run first if the fixed order says so).
    StepInstruction,
    /// Until the focused wave reaches another source line.
    StepLine,
    /// Until the focused wave reaches another source line further on: a loop's back edge runs the loop to its
    /// exit.
    Next,
    /// Until the focused wave has executed the instruction that ends its current block (a jump, a branch,
    /// `barrier` or `end`).
    FinishBlock,
}

/// Why `resume` returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// A wave reached these breakpoints (before executing the instruction).
    Breakpoint(Vec<u32>),
    /// The step asked for is done.
    Step,
    /// An instruction wrote to a watched range.
    Watch(WatchHit),
    /// A wave trapped (or the workgroup's barriers deadlocked): the launch cannot go on.
    Trap(Box<Trap>),
    /// `PauseHandle::pause` was called.
    Paused,
    /// The launch is over.
    Exited(ExitStatus),
}

/// How a debugged launch ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExitStatus {
    /// Every workgroup ran to its end.
    Finished,
    /// A trap stopped it.
    Trapped(Box<Trap>),
}

impl ExitStatus {
    /// The exit code the commands use: 0 finished, 1 trapped.
    pub fn code(&self) -> i32 {
        match self {
            ExitStatus::Finished => 0,
            ExitStatus::Trapped(_) => 1,
        }
    }
}

/// Where a wave of the workgroup in flight stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaveRun {
    /// It has instructions to run.
    Running,
    /// It waits at the barrier at this pc.
    AtBarrier(u32),
    /// It has ended.
    Ended,
}

/// One wave of the workgroup in flight.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WaveInfo {
    /// Its index in the workgroup.
    pub wave: usize,
    /// The workgroup's linear index.
    pub workgroup_index: u64,
    /// The workgroup's id, x y z.
    pub workgroup: [u32; 3],
    /// Its pc.
    pub pc: u32,
    /// Its EXEC.
    pub exec: u32,
    /// Where it stands.
    pub run: WaveRun,
    /// The source line of its pc.
    pub line: Option<u32>,
}

/// A launch under debug control (see the module's documentation).
pub struct Session<'a> {
    pub(super) machine: Machine<'a>,
    breakpoints: Vec<Breakpoint>,
    watches: Vec<Watch>,
    next_id: u32,
    pub(super) focus: usize,
    /// The place a breakpoint stopped at (workgroup, wave, pc): resuming executes that instruction first
    /// instead of stopping there again.
    stopped_at: Option<(u64, usize, u32)>,
    writes: Vec<GuestWrite>,
    pause: PauseHandle,
}

/// Most bytes one memory read or write of the debugger moves.
pub const MAX_ACCESS_BYTES: u64 = 1 << 20;

impl<'a> Session<'a> {
    /// A launch of `kernel` on `device` as `cfg` says, stopped before its first instruction (its engine,
    /// threads, deadline and schedule are not looked at: it runs the fixed order on the interpreter, within
    /// `cfg.budget` instructions; checkers are refused).
    pub fn new(device: &'a Device, kernel: &'a Kernel, cfg: &LaunchConfig) -> Result<Session<'a>, DebugError> {
        if !cfg.check.is_empty() {
            return Err(DebugError::new("a debugged launch does not run checkers (drop --check)"));
        }
        let machine = Machine::new(device, kernel, cfg).map_err(|e| DebugError::new(e.to_string()))?;
        Ok(Session {
            machine,
            breakpoints: Vec::new(),
            watches: Vec::new(),
            next_id: 1,
            focus: 0,
            stopped_at: None,
            writes: Vec::new(),
            pause: PauseHandle::default(),
        })
    }

    /// The kernel being debugged.
    pub fn kernel(&self) -> &'a Kernel {
        self.machine.kernel()
    }

    /// The session pausing when `handle` is paused (a handle made before the session, e.g. by a thread
    /// reading a protocol's requests).
    pub fn with_pause_handle(mut self, handle: PauseHandle) -> Self {
        self.pause = handle;
        self
    }

    /// A handle that pauses a running `resume` from another thread.
    pub fn pause_handle(&self) -> PauseHandle {
        self.pause.clone()
    }

    /// Adds a breakpoint at `at`, stopping when `condition` (an expression, `expr`) holds in some active lane,
    /// from hit `from_hit` on (1 or `None`: every hit).
    pub fn add_breakpoint(
        &mut self,
        at: BreakAt,
        condition: Option<&str>,
        from_hit: Option<u64>,
    ) -> Result<&Breakpoint, DebugError> {
        let pcs = breakpoints::resolve(self.kernel(), at)?;
        let condition = condition.map(breakpoints::condition).transpose()?;
        let id = self.take_id();
        let from_hit = from_hit.unwrap_or(1).max(1);
        self.breakpoints.push(Breakpoint { id, at, pcs, condition, from_hit, hits: 0 });
        Ok(self.breakpoints.last().expect("just pushed"))
    }

    /// Removes breakpoint or watchpoint `id`: whether there was one.
    pub fn delete(&mut self, id: u32) -> bool {
        let n = self.breakpoints.len() + self.watches.len();
        self.breakpoints.retain(|b| b.id != id);
        self.watches.retain(|w| w.id != id);
        n != self.breakpoints.len() + self.watches.len()
    }

    /// Removes every breakpoint (not the watchpoints).
    pub fn clear_breakpoints(&mut self) {
        self.breakpoints.clear();
    }

    /// Removes every watchpoint.
    pub fn clear_watches(&mut self) {
        self.watches.clear();
    }

    /// The breakpoints.
    pub fn breakpoints(&self) -> &[Breakpoint] {
        &self.breakpoints
    }

    /// The watchpoints.
    pub fn watches(&self) -> &[Watch] {
        &self.watches
    }

    /// Watches `len` bytes at `addr` of `space` (of workgroup `workgroup` only, if given).
    pub fn add_watch(
        &mut self,
        space: Space,
        addr: u64,
        len: u32,
        workgroup: Option<u64>,
    ) -> Result<&Watch, DebugError> {
        if !(1..=MAX_WATCH_BYTES).contains(&len) {
            return Err(DebugError::new(format!("a watchpoint covers 1 to {MAX_WATCH_BYTES} bytes, not {len}")));
        }
        if let Some(wg) = workgroup.filter(|&w| w >= self.machine.workgroup_count()) {
            return Err(DebugError::new(format!("workgroup {wg}: the grid has {}", self.machine.workgroup_count())));
        }
        // Readable now (also checks a private watch's wave and lane, and a global range's allocation).
        self.read_memory(space, addr, len as u64)?;
        let id = self.take_id();
        self.watches.push(Watch { id, space, addr, len, workgroup, hits: 0 });
        Ok(self.watches.last().expect("just pushed"))
    }

    fn take_id(&mut self) -> u32 {
        self.next_id += 1;
        self.next_id - 1
    }

    /// The wave commands act on (the one that stopped last, or `set_focus`'s).
    pub fn focus(&self) -> usize {
        self.focus
    }

    /// Focuses wave `wave` of the workgroup in flight.
    pub fn set_focus(&mut self, wave: usize) -> Result<(), DebugError> {
        let n = self.machine.waves().0.len();
        if wave >= n {
            return Err(DebugError::new(format!("wave {wave}: the workgroup has waves 0..{}", n - 1)));
        }
        self.focus = wave;
        Ok(())
    }

    /// The waves of the workgroup in flight (none before the first instruction has been prepared: `resume`
    /// starts the first workgroup, `start` too).
    pub fn waves(&self) -> Vec<WaveInfo> {
        let Some((index, id)) = self.machine.workgroup() else { return Vec::new() };
        let (states, status) = self.machine.waves();
        let run = |s: &WaveStatus| match s {
            WaveStatus::Running => WaveRun::Running,
            WaveStatus::AtBarrier(pc) => WaveRun::AtBarrier(*pc),
            WaveStatus::Ended => WaveRun::Ended,
        };
        (states.iter().zip(status).enumerate())
            .map(|(wave, (w, s))| WaveInfo {
                wave,
                workgroup_index: index,
                workgroup: id,
                pc: w.pc,
                exec: w.exec,
                run: run(s),
                line: self.kernel().source_line(w.pc),
            })
            .collect()
    }

    /// Starts the first workgroup (its waves at their first instruction) without running anything, so that
    /// registers can be read and changed before the first instruction.
    pub fn start(&mut self) -> Option<StopReason> {
        match self.machine.next_to_run() {
            Ok(Some((w, _))) => {
                self.focus = w;
                None
            }
            Ok(None) => Some(StopReason::Exited(ExitStatus::Finished)),
            Err(t) => Some(StopReason::Trap(Box::new(t))),
        }
    }

    /// Wave `wave`'s state.
    pub fn wave(&self, wave: usize) -> Option<&WaveState> {
        self.machine.waves().0.get(wave)
    }

    /// Wave `wave`'s state, to change.
    pub fn wave_mut(&mut self, wave: usize) -> Option<&mut WaveState> {
        self.machine.wave_mut(wave)
    }

    /// The workgroup in flight: linear index and id.
    pub fn workgroup(&self) -> Option<(u64, [u32; 3])> {
        self.machine.workgroup()
    }

    /// Instructions retired so far.
    pub fn retired(&self) -> u64 {
        self.machine.retired()
    }

    /// How the launch ended, once it has.
    pub fn exit_status(&self) -> Option<ExitStatus> {
        self.machine.outcome().map(|o| match o {
            Ok(()) => ExitStatus::Finished,
            Err(t) => ExitStatus::Trapped(Box::new(t.clone())),
        })
    }

    /// The address of the launch's argument buffer (the kernel reads it through u0:u1).
    pub fn args_addr(&self) -> u64 {
        self.machine.args_addr()
    }

    /// Runs as `how` says until something stops the launch.
    pub fn resume(&mut self, how: Resume) -> StopReason {
        if let Some(status) = self.exit_status() {
            return StopReason::Exited(status);
        }
        let mut step = StepState::default();
        loop {
            if self.pause.take() {
                return StopReason::Paused;
            }
            let (wave, pc) = match self.machine.next_to_run() {
                Ok(Some(next)) => next,
                Ok(None) => return StopReason::Exited(ExitStatus::Finished),
                Err(t) => {
                    self.focus = t.wave as usize;
                    return StopReason::Trap(Box::new(t));
                }
            };
            let wg = self.machine.workgroup().map_or(0, |(i, _)| i);
            if step.start.is_none() {
                self.refocus_if_done(wave);
                step.start = Some((wg, self.focus, pc, self.line_of_focus()));
            }
            if self.stopped_at != Some((wg, wave, pc)) {
                let hit = self.breakpoints_hit(wave, pc);
                if !hit.is_empty() {
                    (self.stopped_at, self.focus) = (Some((wg, wave, pc)), wave);
                    return StopReason::Breakpoint(hit);
                }
            }
            self.stopped_at = None;
            if let Some(stop) = self.execute(wave, pc, wg, how, &step) {
                return stop;
            }
        }
    }

    /// A step begun on a wave that has ended steps the wave that runs next instead.
    fn refocus_if_done(&mut self, next_wave: usize) {
        if self.machine.waves().1.get(self.focus) != Some(&WaveStatus::Running) {
            self.focus = next_wave;
        }
    }

    fn line_of_focus(&self) -> Option<u32> {
        self.wave(self.focus).and_then(|w| self.kernel().source_line(w.pc))
    }

    /// Executes the next instruction (wave `wave` at `pc`): the stop it causes, if any.
    fn execute(&mut self, wave: usize, pc: u32, wg: u64, how: Resume, step: &StepState) -> Option<StopReason> {
        let block_end = self.kernel().code.fetch(pc).is_ok_and(|(i, _)| ends_block(i));
        let old: Vec<Vec<u8>> = (0..self.watches.len()).map(|i| self.watched_bytes(i)).collect();
        let mut writes = std::mem::take(&mut self.writes);
        writes.clear();
        let result = self.machine.execute(&mut writes);
        self.writes = writes;
        if let Err(t) = result {
            self.focus = wave;
            return Some(StopReason::Trap(Box::new(t)));
        }
        if let Some(hit) = self.watch_hit(wave, pc, wg, old) {
            self.focus = wave;
            return Some(StopReason::Watch(hit));
        }
        let (start_wg, focus, start_pc, start_line) = step.start.expect("set before the first instruction");
        if how == Resume::Continue || wave != focus || wg != start_wg {
            return None;
        }
        let (w, status) = (&self.machine.waves().0[wave], self.machine.waves().1[wave]);
        let line = self.kernel().source_line(w.pc);
        let done = status == WaveStatus::Ended
            || match how {
                Resume::StepInstruction => true,
                Resume::StepLine => line != start_line,
                Resume::Next => w.pc > start_pc && line != start_line,
                Resume::FinishBlock => block_end,
                Resume::Continue => false,
            };
        done.then_some(StopReason::Step)
    }

    /// The breakpoints at `pc` whose condition holds for wave `wave` and whose hit count is reached (each
    /// hit counted).
    fn breakpoints_hit(&mut self, wave: usize, pc: u32) -> Vec<u32> {
        if !self.breakpoints.iter().any(|b| b.pcs.contains(&pc)) {
            return Vec::new();
        }
        let state = self.machine.waves().0[wave].clone();
        let mut hit = Vec::new();
        for i in 0..self.breakpoints.len() {
            if !self.breakpoints[i].pcs.contains(&pc) {
                continue;
            }
            let cond = self.breakpoints[i].condition.clone();
            // A condition that cannot be evaluated (a memory word out of range) stops, so that it is seen.
            let holds = cond.is_none_or(|(_, e)| {
                expr::holds(&e, &state, &mut Reader { machine: &mut self.machine, wave }).unwrap_or(true)
            });
            let b = &mut self.breakpoints[i];
            if holds {
                b.hits += 1;
                if b.hits >= b.from_hit {
                    hit.push(b.id);
                }
            }
        }
        hit
    }

    fn watched_bytes(&mut self, i: usize) -> Vec<u8> {
        let w = &self.watches[i];
        let (space, addr, len) = (w.space, w.addr, w.len as u64);
        self.read_memory(space, addr, len).unwrap_or_default()
    }

    /// The first watchpoint the last instruction (wave `wave`, workgroup `wg`) wrote into.
    fn watch_hit(&mut self, wave: usize, pc: u32, wg: u64, old: Vec<Vec<u8>>) -> Option<WatchHit> {
        if self.writes.is_empty() {
            return None;
        }
        for (i, old) in old.into_iter().enumerate() {
            let w = &self.watches[i];
            let lanes = w.lanes_writing(wave, &self.writes);
            if lanes == 0 || w.workgroup.is_some_and(|x| x != wg) {
                continue;
            }
            let new = self.watched_bytes(i);
            let w = &mut self.watches[i];
            w.hits += 1;
            let workgroup = self.machine.workgroup().map_or([0; 3], |(_, id)| id);
            return Some(WatchHit { id: w.id, wave, workgroup, lanes, pc, old, new });
        }
        None
    }

    /// Breakpoint `id` stops from hit `from_hit` on: whether there is such a breakpoint.
    pub fn set_from_hit(&mut self, id: u32, from_hit: u64) -> bool {
        let b = self.breakpoints.iter_mut().find(|b| b.id == id);
        b.map(|b| b.from_hit = from_hit.max(1)).is_some()
    }
}

/// Where a step began: workgroup, focused wave, pc and line.
#[derive(Default)]
struct StepState {
    start: Option<(u64, usize, u32, Option<u32>)>,
}

/// Does `insn` end a block (a jump, a branch, `barrier` or `end`)?
fn ends_block(insn: &Insn) -> bool {
    matches!(
        insn,
        Insn::Ctrl(
            CtrlInsn::J { .. }
                | CtrlInsn::JExecz { .. }
                | CtrlInsn::JExecnz { .. }
                | CtrlInsn::Jal { .. }
                | CtrlInsn::BZ { .. }
                | CtrlInsn::BNz { .. }
                | CtrlInsn::BLt { .. }
                | CtrlInsn::BGe { .. }
                | CtrlInsn::Jr { .. }
                | CtrlInsn::Jalr { .. }
                | CtrlInsn::End
                | CtrlInsn::Barrier
        )
    )
}

impl std::fmt::Debug for Session<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("workgroup", &self.workgroup())
            .field("focus", &self.focus)
            .field("retired", &self.retired())
            .finish_non_exhaustive()
    }
}
