//! Exploration: a launch run under many schedules (`Schedule::Random` or `Schedule::Pct` with successive
//! seeds), each compared with the `fixed` run: the outcome (finished, trapped and how, deadlocked at a barrier,
//! or hung: the budget or deadline ran out) and, when both finished, every byte of writable device memory. The
//! first schedule that differs is shrunk to the fewest preemptions that still differ (`Schedule::switches`),
//! so that what it prints replays the difference with as few switches as this search found.

use crate::memimage::{ByteDiff, MemoryImage};
use crate::{Device, Kernel, LaunchConfig, LaunchError, LaunchStats, Schedule, TrapKind, MAX_PCT_DEPTH};
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

/// Which schedules to try.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExplorePolicy {
    /// `random:SEED` for successive seeds.
    Random,
    /// `pct:SEED,DEPTH` for successive seeds, the change points drawn over the fixed run's instruction count.
    Pct {
        /// One more than the change points (1..=`MAX_PCT_DEPTH`).
        depth: u32,
    },
}

/// How to explore. `ExploreConfig::default()`: 100 random schedules from seed 0, shrunk.
#[derive(Clone, Debug)]
pub struct ExploreConfig {
    /// Schedules to run (besides the fixed one).
    pub schedules: u32,
    /// Random or PCT schedules.
    pub policy: ExplorePolicy,
    /// The seed of the first schedule; the others follow it (wrapping).
    pub first_seed: u64,
    /// Shrink the first difference to the fewest preemptions that still show it.
    pub shrink: bool,
    /// Instructions a schedule may retire before it counts as hung (`None`: `HANG_FACTOR` times the fixed
    /// run's, at least `MIN_HANG_BUDGET`; never more than the launch's own budget).
    pub hang_budget: Option<u64>,
    /// Stop after the first difference (else every schedule runs and `differing` counts them all).
    pub stop_at_first: bool,
    /// Counts schedules run and differing as the exploration goes, for a progress display on another thread.
    pub progress: Option<ExploreProgress>,
}

/// How far an exploration has got, readable from another thread while it runs (`ExploreConfig::progress`).
#[derive(Clone, Debug, Default)]
pub struct ExploreProgress(std::sync::Arc<[std::sync::atomic::AtomicU64; 3]>);

impl ExploreProgress {
    /// Nothing run yet.
    pub fn new() -> ExploreProgress {
        ExploreProgress::default()
    }
    /// Schedules run so far (the fixed reference run not counted).
    pub fn schedules_run(&self) -> u64 {
        self.0[0].load(Relaxed)
    }
    /// Of those, the schedules whose outcome or memory differed from the fixed run.
    pub fn differing(&self) -> u64 {
        self.0[1].load(Relaxed)
    }
    /// Launches run to shrink the first difference (after the schedules).
    pub fn shrink_runs(&self) -> u64 {
        self.0[2].load(Relaxed)
    }
    fn add(&self, which: usize) {
        self.0[which].fetch_add(1, Relaxed);
    }
}

impl Default for ExploreConfig {
    fn default() -> Self {
        ExploreConfig {
            schedules: 100,
            policy: ExplorePolicy::Random,
            first_seed: 0,
            shrink: true,
            hang_budget: None,
            stop_at_first: true,
            progress: None,
        }
    }
}

/// The depth `pct` explores with when its policy text names none.
pub const DEFAULT_PCT_DEPTH: u32 = 3;

/// Reads an exploration policy and its first seed: `random[:FIRST_SEED]` or `pct[:FIRST_SEED[,DEPTH]]` (seeds
/// count up from FIRST_SEED, 0 by default; DEPTH `DEFAULT_PCT_DEPTH` by default, in 1..=`MAX_PCT_DEPTH`).
pub fn parse_policy(text: &str) -> Result<(ExplorePolicy, u64), String> {
    let (name, rest) = text.trim().split_once(':').unwrap_or((text.trim(), ""));
    let mut parts = rest.split(',').map(str::trim).filter(|p| !p.is_empty());
    let mut number = |what: &str| -> Result<Option<u64>, String> {
        parts
            .next()
            .map(|p| p.parse::<u64>().map_err(|_| format!("{what} `{p}` is not an integer in 0..={}", u64::MAX)))
            .transpose()
    };
    let policy = match name {
        "random" => ExplorePolicy::Random,
        "pct" => ExplorePolicy::Pct { depth: DEFAULT_PCT_DEPTH },
        _ => return Err(format!("exploration takes {POLICY_FORMS}, not `{text}`")),
    };
    let seed = number("the first seed")?.unwrap_or(0);
    let policy = match policy {
        ExplorePolicy::Pct { .. } => {
            let depth = number("DEPTH")?.unwrap_or(DEFAULT_PCT_DEPTH as u64);
            if !(1..=MAX_PCT_DEPTH as u64).contains(&depth) {
                return Err(format!("DEPTH {depth} must be in 1..={MAX_PCT_DEPTH}"));
            }
            ExplorePolicy::Pct { depth: depth as u32 }
        }
        random => random,
    };
    if number("")?.is_some() {
        return Err(format!("too many numbers ({POLICY_FORMS})"));
    }
    Ok((policy, seed))
}

/// The exploration policy forms, for error messages.
pub const POLICY_FORMS: &str = "random[:FIRST_SEED] or pct[:FIRST_SEED[,DEPTH]]";

/// The policy and first seed as `parse_policy` reads them (`random:0`, `pct:5,3`).
pub fn policy_text(ex: &ExploreConfig) -> String {
    match ex.policy {
        ExplorePolicy::Random => format!("random:{}", ex.first_seed),
        ExplorePolicy::Pct { depth } => format!("pct:{},{depth}", ex.first_seed),
    }
}

/// A schedule's instructions may be this many times the fixed run's before it counts as hung.
pub const HANG_FACTOR: u64 = 16;
/// The least hang budget (short kernels: a spinning wave still spins a while before it counts as hung).
pub const MIN_HANG_BUDGET: u64 = 1 << 20;
/// Differing bytes a report lists (it counts them all).
pub const LISTED_BYTES: usize = 16;

/// How a launch ended, as exploration compares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every wave ended.
    Finished,
    /// A trap other than a deadlock or a limit (its kind's name and its message).
    Trapped {
        /// `TrapKind::name`.
        kind: String,
        /// The whole report.
        message: String,
    },
    /// Waves waited at different barriers (`BarrierDeadlock`).
    Deadlock(String),
    /// The budget or the deadline ran out: a wave spinning on a store that never comes, under this schedule.
    Hang(String),
}

impl Outcome {
    /// A launch's ending and the instructions it retired; a configuration or compile error stays an error.
    pub fn of(result: Result<LaunchStats, LaunchError>) -> Result<(Outcome, u64), LaunchError> {
        match result {
            Ok(s) => Ok((Outcome::Finished, s.retired)),
            Err(LaunchError::Trap { trap, stats }) => Ok((
                match trap.kind {
                    TrapKind::BarrierDeadlock => Outcome::Deadlock(trap.to_string()),
                    TrapKind::BudgetExceeded | TrapKind::DeadlineExceeded => Outcome::Hang(trap.to_string()),
                    kind => Outcome::Trapped { kind: kind.name().to_string(), message: trap.to_string() },
                },
                stats.retired,
            )),
            Err(e) => Err(e),
        }
    }

    /// Whether two outcomes are the same kind of ending (traps of one kind match whatever their place: under
    /// another order another workgroup may trap first).
    pub fn same_as(&self, other: &Outcome) -> bool {
        match (self, other) {
            (Outcome::Trapped { kind: a, .. }, Outcome::Trapped { kind: b, .. }) => a == b,
            _ => std::mem::discriminant(self) == std::mem::discriminant(other),
        }
    }

    /// One word for the kind of ending: `finished`, `trapped`, `deadlock` or `hang`.
    pub fn name(&self) -> &'static str {
        match self {
            Outcome::Finished => "finished",
            Outcome::Trapped { .. } => "trapped",
            Outcome::Deadlock(_) => "deadlock",
            Outcome::Hang(_) => "hang",
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Finished => f.write_str("finished"),
            Outcome::Trapped { message, .. } => write!(f, "trapped: {message}"),
            Outcome::Deadlock(m) => write!(f, "deadlock: {m}"),
            Outcome::Hang(m) => write!(f, "hang: {m}"),
        }
    }
}

/// A schedule whose result differs from the fixed one.
#[derive(Clone, Debug)]
pub struct Difference {
    /// The schedule as found (its seed; no preemption limit).
    pub found: Schedule,
    /// The shrunk schedule (the fewest preemptions tried that still differ): the one to replay.
    pub schedule: Schedule,
    /// Its position among the explored schedules (from 0).
    pub index: u32,
    /// How the shrunk schedule's launch ended.
    pub outcome: Outcome,
    /// The first differing bytes (fixed run on the left), ascending by address, at most `LISTED_BYTES`; empty
    /// when only the outcome differs.
    pub bytes: Vec<ByteDiff>,
    /// How many bytes differ in all.
    pub differing_bytes: u64,
}

/// What an exploration found.
#[derive(Clone, Debug)]
pub struct ExploreReport {
    /// How the fixed run ended.
    pub fixed: Outcome,
    /// Instructions the fixed run retired.
    pub fixed_retired: u64,
    /// Wall-clock time of the fixed run.
    pub fixed_elapsed: Duration,
    /// Schedules run (not counting the fixed run and shrinking).
    pub schedules_run: u32,
    /// Schedules whose result differed (all of them, unless `stop_at_first`).
    pub differing: u32,
    /// The first differing schedule, shrunk.
    pub first: Option<Difference>,
    /// Wall-clock time of the explored schedules (not of shrinking): per schedule, what exploring costs.
    pub explore_elapsed: Duration,
}

impl ExploreReport {
    /// The report as one JSON object (what `lanejit run --explore --json` prints, the C ABI's
    /// `lj_last_exploration` and Python's `Device.explore` return): the policy (`explore`), `schedules` run,
    /// `differing`, `differ`, the `fixed` run (`result`, `retired`, `elapsed_ms`), `per_schedule_ms`, and
    /// `first_difference` (null, or its `index`, the schedule as `found`, the shrunk `schedule` that replays it,
    /// `switches`, `result`, `differing_bytes`, and the first `bytes`: `addr`, `fixed`, `schedule`, a byte or
    /// null where none).
    pub fn to_json(&self, ex: &ExploreConfig) -> serde_json::Value {
        let first = self.first.as_ref().map(|d| {
            let bytes: Vec<_> = d
                .bytes
                .iter()
                .map(|b| serde_json::json!({ "addr": b.addr, "fixed": b.left, "schedule": b.right }))
                .collect();
            serde_json::json!({
                "index": d.index, "found": d.found.to_string(), "schedule": d.schedule.to_string(),
                "switches": d.schedule.switches(), "result": outcome_json(&d.outcome),
                "differing_bytes": d.differing_bytes, "bytes": bytes,
            })
        });
        let per_ms = self.explore_elapsed.as_secs_f64() * 1e3 / self.schedules_run.max(1) as f64;
        let fixed_ms = self.fixed_elapsed.as_secs_f64() * 1e3;
        serde_json::json!({
            "explore": policy_text(ex), "schedules": self.schedules_run, "differing": self.differing,
            "fixed": { "result": outcome_json(&self.fixed), "retired": self.fixed_retired, "elapsed_ms": fixed_ms },
            "first_difference": first, "per_schedule_ms": per_ms, "differ": self.first.is_some(),
        })
    }
}

fn outcome_json(o: &Outcome) -> serde_json::Value {
    let message = match o {
        Outcome::Finished => serde_json::Value::Null,
        Outcome::Trapped { message, .. } | Outcome::Deadlock(message) | Outcome::Hang(message) => {
            message.clone().into()
        }
    };
    serde_json::json!({ "outcome": o.name(), "message": message })
}

/// One run's ending and memory.
struct Run {
    outcome: Outcome,
    memory: MemoryImage,
    retired: u64,
    elapsed: Duration,
}

/// Explores the launch of `kernel` with `cfg` (its schedule is ignored: the fixed run is the reference) on
/// `device` as `ex` says. The reference runs the fixed order on one thread (workgroups in index order): with
/// several workers the fixed order of a racy kernel is itself a race, and the reference must not be. Memory is restored before each schedule; at the end it holds the fixed run's results.
/// A configuration or compile error is returned as the launch would return it.
pub fn explore(
    device: &Device,
    kernel: &Kernel,
    cfg: &LaunchConfig,
    ex: &ExploreConfig,
) -> Result<ExploreReport, LaunchError> {
    let before = memory(device)?;
    let reference = LaunchConfig { schedule: Schedule::Fixed, threads: Some(1), ..cfg.clone() };
    let fixed = run_once(device, kernel, &reference, &before)?;
    let hang = ex.hang_budget.unwrap_or(fixed.retired.saturating_mul(HANG_FACTOR).max(MIN_HANG_BUDGET));
    let cfg = LaunchConfig { budget: cfg.budget.min(hang), ..cfg.clone() };
    let started = Instant::now();
    let (mut run, mut differing, mut first) = (0, 0, None);
    while run < ex.schedules && !(ex.stop_at_first && first.is_some()) {
        let schedule = nth_schedule(ex, run, fixed.retired);
        let r = run_once(device, kernel, &LaunchConfig { schedule, ..cfg.clone() }, &before)?;
        let differ = differs(&fixed, &r);
        if differ {
            differing += 1;
            first = first.or(Some((run, schedule, r)));
        }
        run += 1;
        if let Some(p) = &ex.progress {
            if differ {
                p.add(1);
            }
            p.add(0);
        }
    }
    let explore_elapsed = started.elapsed();
    let first = match first {
        Some((index, found, r)) => Some(shrink(device, kernel, &cfg, ex, &before, &fixed, (index, found, r))?),
        None => None,
    };
    fixed.memory.restore(device).map_err(memory_error)?;
    Ok(ExploreReport {
        fixed: fixed.outcome,
        fixed_retired: fixed.retired,
        fixed_elapsed: fixed.elapsed,
        schedules_run: run,
        differing,
        first,
        explore_elapsed,
    })
}

/// The schedule of exploration step `i`.
fn nth_schedule(ex: &ExploreConfig, i: u32, fixed_retired: u64) -> Schedule {
    let seed = ex.first_seed.wrapping_add(i as u64);
    match ex.policy {
        ExplorePolicy::Random => Schedule::Random { seed, switches: None },
        ExplorePolicy::Pct { depth } => {
            Schedule::Pct { seed, depth, horizon: Some(fixed_retired.max(1)), switches: None }
        }
    }
}

/// Whether a run differs from the fixed one: another kind of ending, or, when both finished, other bytes.
fn differs(fixed: &Run, r: &Run) -> bool {
    !fixed.outcome.same_as(&r.outcome) || (r.outcome == Outcome::Finished && fixed.memory != r.memory)
}

/// Shrinks the found schedule to the fewest preemptions that still differ: limits 0, 1, 2, 4, ... until one
/// differs, then a binary search below it; the difference is reported for the shrunk schedule.
fn shrink(
    device: &Device,
    kernel: &Kernel,
    cfg: &LaunchConfig,
    ex: &ExploreConfig,
    before: &MemoryImage,
    fixed: &Run,
    (index, found, found_run): (u32, Schedule, Run),
) -> Result<Difference, LaunchError> {
    let mut best = (found, found_run);
    if ex.shrink {
        let try_limit = |n: u32| -> Result<Option<(Schedule, Run)>, LaunchError> {
            let s = found.with_switches(Some(n));
            let r = run_once(device, kernel, &LaunchConfig { schedule: s, ..cfg.clone() }, before)?;
            if let Some(p) = &ex.progress {
                p.add(2);
            }
            Ok(differs(fixed, &r).then_some((s, r)))
        };
        let (mut low, mut high) = (0u32, None);
        let mut n = 0u32;
        while n <= MAX_SHRINK_LIMIT {
            if let Some(hit) = try_limit(n)? {
                high = Some((n, hit));
                break;
            }
            low = n + 1;
            n = if n == 0 { 1 } else { n * 2 };
        }
        if let Some((mut h, mut hit)) = high {
            while low < h {
                let mid = low + (h - low) / 2;
                match try_limit(mid)? {
                    Some(r) => (h, hit) = (mid, r),
                    None => low = mid + 1,
                }
            }
            best = hit;
        }
    }
    let (schedule, r) = best;
    let (bytes, differing_bytes) = match r.outcome {
        Outcome::Finished => fixed.memory.diff(&r.memory, LISTED_BYTES),
        _ => (Vec::new(), 0),
    };
    Ok(Difference { found, schedule, index, outcome: r.outcome, bytes, differing_bytes })
}

/// Preemption limits tried when shrinking stop here (beyond it the schedule is reported as found).
const MAX_SHRINK_LIMIT: u32 = 1 << 16;

/// One launch from the memory `before`: its ending and the memory it left.
fn run_once(device: &Device, kernel: &Kernel, cfg: &LaunchConfig, before: &MemoryImage) -> Result<Run, LaunchError> {
    before.restore(device).map_err(memory_error)?;
    let t0 = Instant::now();
    let result = device.launch(kernel, cfg);
    let elapsed = t0.elapsed();
    let (outcome, retired) = Outcome::of(result)?;
    Ok(Run { outcome, memory: memory(device)?, retired, elapsed })
}

fn memory(device: &Device) -> Result<MemoryImage, LaunchError> {
    MemoryImage::take(device).map_err(memory_error)
}

/// Device memory that cannot be read or written back (a buffer freed while exploring): a configuration error.
fn memory_error(e: impl std::fmt::Display) -> LaunchError {
    LaunchError::Config(crate::ConfigError::Memory(e.to_string()))
}
