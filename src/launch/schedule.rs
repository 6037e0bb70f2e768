//! The one workgroup scheduler: launches (`Worker::run_workgroup`) and the fuzzer's multi-wave cases
//! (`fuzz::group`) run a workgroup's waves with it, so that the fuzzer checks the order a launch uses. Waves run
//! in wave order, each until it ends or waits at a barrier; when none can run, the barrier is released if every
//! waiting wave waits at the same one (else a BarrierDeadlock naming a wave at a different barrier), and the
//! round starts again. (Waves without any barrier run back to back in one state instead: `launch::batch`, and
//! the fuzzer's `BackToBack`, in the same order.)

use lanejit_interp::{Trap, TrapKind};

/// Where a wave of a workgroup stands.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum WaveStatus {
    /// Has a turn to take (at the start, and after its barrier is released).
    Running,
    /// Waiting at the barrier at this pc.
    AtBarrier(u32),
    /// Has run to its end.
    Ended,
}

/// How a wave's turn ended.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum WaveStop {
    /// The wave ran to its end.
    Ended,
    /// Waits at the barrier at this pc.
    AtBarrier(u32),
    /// The caller stops the workgroup (a launch whose lower workgroup trapped): no further turns.
    Preempted,
}

/// Runs the workgroup whose waves stand at `status` (all `Running` at its start): `run_wave(wi)` runs wave `wi`
/// until it ends, reaches a barrier, or the caller preempts it; an error stops the workgroup and is returned.
pub fn run_workgroup(
    status: &mut [WaveStatus],
    mut run_wave: impl FnMut(usize) -> Result<WaveStop, Trap>,
) -> Result<(), Trap> {
    loop {
        for (wi, s) in status.iter_mut().enumerate() {
            if *s != WaveStatus::Running {
                continue;
            }
            match run_wave(wi)? {
                WaveStop::Ended => *s = WaveStatus::Ended,
                WaveStop::AtBarrier(pc) => *s = WaveStatus::AtBarrier(pc),
                WaveStop::Preempted => return Ok(()),
            }
        }
        if !release_barrier(status)? {
            return Ok(());
        }
    }
}

/// Releases the barrier the waiting waves wait at: Ok(true) when some waited (they run again), Ok(false) when
/// none did (every wave has ended), a BarrierDeadlock naming the first wave that waits at a different barrier.
/// (Runs once per barrier per workgroup, so it allocates nothing unless it reports a deadlock.)
pub(super) fn release_barrier(status: &mut [WaveStatus]) -> Result<bool, Trap> {
    let mut waiting = status.iter().enumerate().filter_map(|(i, s)| match s {
        WaveStatus::AtBarrier(pc) => Some((i, *pc)),
        _ => None,
    });
    let Some((_, pc0)) = waiting.next() else { return Ok(false) };
    if let Some((wave, pc)) = waiting.find(|&(_, pc)| pc != pc0) {
        return Err(deadlock(status, wave, pc));
    }
    for s in status.iter_mut() {
        if matches!(s, WaveStatus::AtBarrier(_)) {
            *s = WaveStatus::Running;
        }
    }
    Ok(true)
}

/// The BarrierDeadlock trap for waves waiting at different barriers, `wave` at `pc` the first one not at the
/// first waiting wave's barrier; the message lists every waiting wave.
#[cold]
fn deadlock(status: &[WaveStatus], wave: usize, pc: u32) -> Trap {
    let list: Vec<String> = status
        .iter()
        .enumerate()
        .filter_map(|(w, s)| match s {
            WaveStatus::AtBarrier(pc) => Some(format!("wave {w} at {pc:#x}")),
            _ => None,
        })
        .collect();
    let mut t =
        Trap::new(TrapKind::BarrierDeadlock, pc, format!("waves wait at different barriers: {}", list.join(", ")));
    t.wave = wave as u32;
    t
}
