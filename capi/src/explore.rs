//! Exploration from C: `lj_explore` runs a launch under many schedules and compares each with the fixed run
//! (`lanejit::explore`); `lj_last_exploration` holds the whole report as JSON.

use super::launch::launch_config;
use super::{bad, c_str, guard, non_null, Failure, Out};
use super::{LjDevice, LjKernel, LjLaunchConfig, LjStatus};
use lanejit::explore::{explore, parse_policy, ExploreConfig};
use lanejit::LaunchError;
use std::cell::RefCell;
use std::ffi::{c_char, CString};

/// Bytes of [`LjExploreResult::schedule`] (a schedule's text is at most about 90 of them, plus the NUL).
pub const LJ_SCHEDULE_TEXT: usize = 128;

/// How to explore; start from [`lj_explore_config_default`].
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LjExploreConfig {
    /// Schedules to run besides the fixed one.
    pub schedules: u32,
    /// NULL (random schedules from seed 0), or `"random[:FIRST_SEED]"` or `"pct[:FIRST_SEED[,DEPTH]]"` as
    /// `lanejit run --explore N --schedule` takes it: seeds count up from FIRST_SEED; pct's DEPTH is 3 unless given.
    pub policy: *const c_char,
    /// 1: stop at the first schedule that differs (the default); 0: run them all and count every difference.
    pub stop_at_first: u32,
}

/// What an exploration found; the whole report (the differing bytes too) is [`lj_last_exploration`]'s JSON.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LjExploreResult {
    /// Schedules run (not counting the fixed run and shrinking).
    pub schedules_run: u32,
    /// Schedules whose result differed from the fixed run's.
    pub differing: u32,
    /// 1 when some schedule differed.
    pub differs: u32,
    /// Instructions the fixed run retired.
    pub fixed_retired: u64,
    /// The first difference's schedule shrunk to the fewest preemptions, NUL-terminated: put it in
    /// `LjLaunchConfig::schedule` to replay it ("" when every schedule matched).
    pub schedule: [c_char; LJ_SCHEDULE_TEXT],
}

/// The defaults: 100 random schedules from seed 0, stopping at the first difference.
#[no_mangle]
pub extern "C" fn lj_explore_config_default() -> LjExploreConfig {
    LjExploreConfig { schedules: 100, policy: std::ptr::null(), stop_at_first: 1 }
}

thread_local! {
    static LAST_EXPLORATION: RefCell<CString> = RefCell::new(c"null".to_owned());
}

fn set_last_exploration(text: Option<String>) {
    let c = text.map_or_else(|| c"null".to_owned(), |t| CString::new(t.replace('\0', "\\u0000")).unwrap_or_default());
    LAST_EXPLORATION.with(|e| *e.borrow_mut() = c);
}

/// The calling thread's last `lj_explore` report as one JSON object, the same as `lanejit run --explore N
/// --json` prints (`schedules`, `differing`, `differ`, `fixed`, `first_difference` with the replayable
/// `schedule` and the first differing bytes, `per_schedule_ms`), or "null" when it failed; valid until the
/// thread's next `lj_explore`.
#[no_mangle]
pub extern "C" fn lj_last_exploration() -> *const c_char {
    LAST_EXPLORATION.with(|e| e.borrow().as_ptr())
}

/// Runs the launch `config` describes once in the fixed order, then under `explore->schedules` schedules,
/// each compared with the fixed run (how it ended; when both finished, every byte of writable device memory),
/// restoring device memory before each; the first difference is shrunk to the fewest preemptions. Afterwards
/// device memory holds the fixed run's results. `config->schedule` is ignored (the fixed run is the
/// reference). Returns `LJ_STATUS_OK` whether or not results differed (`result_out->differs` says; the
/// kernel's traps are compared, not returned), bad input for a bad config or policy.
#[no_mangle]
pub unsafe extern "C" fn lj_explore(
    device: *const LjDevice,
    kernel: *const LjKernel,
    config: *const LjLaunchConfig,
    explore_config: *const LjExploreConfig,
    result_out: *mut LjExploreResult,
) -> LjStatus {
    set_last_exploration(None);
    guard(|| {
        let d = unsafe { non_null(device, "device") }?;
        let k = unsafe { non_null(kernel, "kernel") }?;
        let cfg = launch_config(unsafe { non_null(config, "config") }?)?;
        let ec = unsafe { non_null(explore_config, "explore_config") }?;
        let out = unsafe { Out::new(result_out, "result_out") }?;
        let (policy, first_seed) = match ec.policy.is_null() {
            true => parse_policy("random"),
            false => parse_policy(unsafe { c_str(ec.policy, "explore_config.policy") }?),
        }
        .map_err(|e| bad(format!("explore_config.policy: {e}")))?;
        let ex = ExploreConfig {
            schedules: ec.schedules,
            policy,
            first_seed,
            stop_at_first: ec.stop_at_first != 0,
            ..Default::default()
        };
        let report = explore(&d.0, &k.kernel, &cfg, &ex).map_err(|e| match e {
            LaunchError::Compile(e) => Failure(LjStatus::Failed, e.to_string()),
            e => bad(e.to_string()),
        })?;
        let mut schedule = [0 as c_char; LJ_SCHEDULE_TEXT];
        if let Some(first) = &report.first {
            let text = first.schedule.to_string();
            for (dst, &b) in schedule.iter_mut().zip(text.as_bytes().iter().take(LJ_SCHEDULE_TEXT - 1)) {
                *dst = b as c_char;
            }
        }
        set_last_exploration(Some(report.to_json(&ex).to_string()));
        out.write(LjExploreResult {
            schedules_run: report.schedules_run,
            differing: report.differing,
            differs: report.first.is_some() as u32,
            fixed_retired: report.fixed_retired,
            schedule,
        });
        Ok(LjStatus::Ok)
    })
}
