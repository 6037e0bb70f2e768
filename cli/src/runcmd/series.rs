//! `run --repeat N`: the series of launches of a kernel file, within one deadline for the whole command.
//!
//! `--deadline` (default 600 s) counts from the moment `run` starts ([`super::RunOptions::started`]), not per
//! launch: each launch gets what is left of it, and the series stops when it passes, between launches or by
//! stopping the launch then running (a `DeadlineExceeded` trap). The command then prints what ran (the last
//! launch's buffers and statistics, the timing of the launches that completed) and exits 1, as a single launch
//! stopped by its deadline does.

use super::timing::LaunchTimes;
use super::{launch_with, RunOptions};
use lanejit::{Device, Kernel, LaunchConfig, LaunchError, LaunchStats, TrapKind};
use std::time::Duration;

/// What a series did: the last launch's result (the first failure ends the series), the times of the launches
/// that completed, and why the series stopped before `--repeat` launches, if the deadline stopped it.
pub struct Series {
    /// The last launch's result.
    pub result: Result<LaunchStats, LaunchError>,
    /// The completed launches' times.
    pub times: LaunchTimes,
    /// Set when the deadline stopped the series: a sentence saying where.
    pub cut: Option<String>,
}

impl Series {
    /// A series of one launch (`--record`), that ended with `result`.
    pub fn one(result: Result<LaunchStats, LaunchError>) -> Series {
        let mut times = LaunchTimes::default();
        if let Ok(s) = &result {
            times.push(s.elapsed);
        }
        Series { result, times, cut: None }
    }
}

/// What is left of the whole command's deadline `whole`, in whole milliseconds (at least one, so that the
/// first launch always runs and reports its own deadline trap).
fn left(whole: Duration, o: &RunOptions) -> Duration {
    let left = whole.saturating_sub(o.started.elapsed());
    Duration::from_millis(left.as_millis() as u64).max(Duration::from_millis(1))
}

/// Launches `kernel` up to `o.repeat` times (the first traced if `o.trace` says so), stopping at the first
/// failure or when the deadline of `cfg` passes, counted from `o.started`.
pub fn run_series(device: &Device, kernel: &Kernel, cfg: &LaunchConfig, o: &RunOptions) -> Series {
    let whole = cfg.deadline;
    let mut cfg = cfg.clone();
    cfg.deadline = whole.map(|d| left(d, o));
    let mut result = launch_with(device, kernel, &cfg, o);
    let mut times = LaunchTimes::default();
    let mut launched = 1;
    let mut cut = None;
    while let Ok(stats) = &result {
        times.push(stats.elapsed);
        if launched == o.repeat {
            break;
        }
        if let Some(d) = whole.filter(|&d| o.started.elapsed() >= d) {
            cut = Some(format!(
                "the whole command's --deadline of {} s passed after {launched} of {} launches",
                d.as_secs_f64(),
                o.repeat
            ));
            break;
        }
        cfg.deadline = whole.map(|d| left(d, o));
        result = device.launch(kernel, &cfg);
        launched += 1;
    }
    if let (Err(LaunchError::Trap { trap, .. }), Some(d)) = (&result, whole) {
        if trap.kind == TrapKind::DeadlineExceeded {
            cut = Some(format!(
                "the whole command's --deadline of {} s passed during launch {launched} of {}",
                d.as_secs_f64(),
                o.repeat
            ));
        }
    }
    Series { result, times, cut }
}
