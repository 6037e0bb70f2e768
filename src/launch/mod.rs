//! Launches: a grid of workgroups, each of up to 1024 threads in waves of `LANES`. Waves of one workgroup are
//! interleaved at `barrier`; workgroups run in parallel on rayon. A launch has an instruction budget and a
//! wall-clock deadline; the first trap (lowest workgroup, deterministically) stops it with a precise report.

use crate::arena::LaunchTable;
use crate::error::{ConfigError, JitError};
use crate::{Device, Engine, Kernel};

mod batch;
mod checked;
pub(crate) mod debugged;
mod observe;
mod policy;
mod schedule;
mod simulate;
mod worker;
use lanejit_interp::{Tracer, Trap, TrapKind, WaveEnv, WaveState, LANES};
use lanejit_jit::{StartFacts, WaveStart};
pub use observe::LaunchProgress;
pub use policy::{Schedule, MAX_OVERLAP, MAX_PCT_DEPTH, MAX_RR_SLICE};
use rayon::prelude::*;
/// The workgroup scheduler, public for the tools' differential fuzzer (`lanejit-cli`'s `fuzz::group`), which
/// runs its multi-wave cases in exactly the order a launch uses; not part of the embedding API.
#[doc(hidden)]
pub use schedule::{run_workgroup as schedule_workgroup, WaveStatus, WaveStop};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use worker::{Worker, FLUSH_EVERY};

/// Most threads in a workgroup.
pub const MAX_WORKGROUP_THREADS: u32 = 1024;
/// Most shared memory per workgroup.
pub const MAX_SHARED_BYTES: u32 = 64 * 1024;
/// Bytes allocated after each workgroup's shared memory and never part of it (guest accesses are checked
/// against the shared size): a bounds-check bug in compiled code then corrupts this padding, which the
/// differential fuzzer notices, rather than the host heap.
pub const SHARED_RED_ZONE: usize = 256;
/// Most workgroups in one grid. Each grid dimension is a u32 (the workgroup ids in u2..u4 are 32-bit), and the
/// product is capped too, so that a linear workgroup index always fits a u32 and no product of three
/// dimensions can wrap around.
pub const MAX_GRID_WORKGROUPS: u64 = u32::MAX as u64;
/// Most private memory per lane, bytes (the assembler and the container loader enforce the same limit).
pub const MAX_PRIVATE_BYTES: u32 = lanejit_isa::asm::MAX_PRIVATE_BYTES;
/// Largest kernel argument block, bytes.
pub const MAX_ARG_BYTES: u32 = lanejit_isa::asm::MAX_ARG_BYTES;
/// Most worker threads of one launch: far beyond any host's cores, and small enough that a thread pool is
/// built in milliseconds rather than exhausting the host.
pub const MAX_THREADS: usize = 256;
/// Longest wall-clock deadline of a launch (one week); it keeps `start + deadline` far from overflow.
pub const MAX_DEADLINE: Duration = Duration::from_secs(7 * 24 * 3600);
/// Instructions a wave runs between checks of the budget, the deadline and other workgroups' traps.
const CHUNK: u64 = 4096;

#[derive(Clone, Debug)]
/// How to launch a kernel. `LaunchConfig::default()` is one workgroup, no arguments, the JIT, a budget of 2^40
/// instructions and a deadline of 600 s.
pub struct LaunchConfig {
    /// Workgroups in x, y and z (each at least 1; at most `MAX_GRID_WORKGROUPS` in all).
    pub grid: [u32; 3],
    /// Workgroup size; `None` takes the kernel's `.workgroup`.
    pub workgroup: Option<[u32; 3]>,
    /// Kernel argument bytes, copied to a constant buffer whose address arrives in u0:u1.
    pub args: Vec<u8>,
    /// Shared and private memory; `None` takes the kernel's `.shared` / `.private`.
    pub shared_bytes: Option<u32>,
    /// Private memory per lane; `None` takes the kernel's `.private`.
    pub private_bytes: Option<u32>,
    /// Most instructions the whole launch may retire.
    pub budget: u64,
    /// Wall-clock limit of the launch (`None`: none; at most `MAX_DEADLINE`).
    pub deadline: Option<Duration>,
    /// The engine (default: the JIT; `Engine::Interp` is the golden model).
    pub engine: Engine,
    /// Worker threads (`None`: rayon's default, one per core).
    pub threads: Option<usize>,
    /// A handle another thread may cancel the launch with: it stops at its next limit check (every 4,096
    /// instructions a worker retires) with a `Cancelled` trap naming the wave that ran last.
    pub cancel: Option<CancelToken>,
    /// Checkers to run (`crate::check`; default none). A launch with any runs on the interpreter, one
    /// workgroup at a time on the calling thread, whatever `engine` says; its findings are in
    /// `LaunchStats::findings`.
    pub check: crate::check::Checks,
    /// The interleaving of waves and workgroups (`Schedule::Fixed`, the launch's own order, by default). Any
    /// other runs on the calling thread, whatever `threads` says, and gives the same results on every engine.
    pub schedule: Schedule,
    /// Write the launch's timeline there, as Chrome Trace Event JSON for Perfetto or chrome://tracing
    /// (`crate::timeline`). The file is created before the launch (a path that cannot be written is a
    /// `LaunchError::Config`) and appears whole at the end, also after a trap. Only with the fixed schedule and
    /// no checkers.
    pub timeline: Option<std::path::PathBuf>,
    /// Count every instruction each wave retires, with its active lanes: `LaunchStats::profile`
    /// (`crate::profile`). The launch then runs in the interpreter, whatever `engine` says (the results are
    /// the same). Only with the fixed schedule and no checkers.
    pub profile: bool,
    /// Sample what each worker runs, for each block's share of time: `LaunchStats::block_time`
    /// (`crate::blocktime`). On the JIT and `auto`, the kernel must be compiled with
    /// `JitOptions::mark_blocks`. Only with the fixed schedule and no checkers.
    pub block_time: bool,
    /// Counts the workgroups done while the launch runs, for a progress display on another thread.
    pub progress: Option<LaunchProgress>,
}

/// Cancels running launches from another thread: every launch whose `LaunchConfig::cancel` is a clone of this
/// token stops soon after `cancel()`, and a launch started with a cancelled token stops at its first check.
#[derive(Clone, Debug, Default)]
pub struct CancelToken(std::sync::Arc<AtomicBool>);

impl CancelToken {
    /// A token not cancelled yet.
    pub fn new() -> CancelToken {
        CancelToken::default()
    }
    /// Cancels every launch holding a clone of this token (any thread, any number of times).
    pub fn cancel(&self) {
        self.0.store(true, Relaxed);
    }
    /// `cancel` has been called.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Relaxed)
    }
}

impl Default for LaunchConfig {
    fn default() -> Self {
        LaunchConfig {
            grid: [1, 1, 1],
            workgroup: None,
            args: Vec::new(),
            shared_bytes: None,
            private_bytes: None,
            budget: 1 << 40,
            deadline: Some(Duration::from_secs(600)),
            engine: Engine::Auto,
            threads: None,
            cancel: None,
            check: crate::check::Checks::default(),
            schedule: Schedule::Fixed,
            timeline: None,
            profile: false,
            block_time: false,
            progress: None,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
/// What a launch did (also reported with a trap: the work up to it).
pub struct LaunchStats {
    /// Instructions retired, summed over waves.
    pub retired: u64,
    /// Of `retired`, the instructions the interpreter executed (all of them under `Engine::Interp`; under the
    /// JIT, those its compiled code handed over).
    pub interpreted: u64,
    /// Instructions times the lanes active when each ran.
    pub lane_ops: u64,
    /// Workgroups started: the whole grid, or, when a trap (or the budget, deadline or a cancellation) stopped
    /// the launch, those that had begun by then (on several threads, later workgroups than the trapping one may
    /// have begun too).
    pub workgroups: u64,
    /// Waves started, counted as `workgroups` is.
    pub waves: u64,
    /// Wall-clock time of the launch.
    pub elapsed: Duration,
    /// What the checkers of `LaunchConfig::check` found (empty without checks), each distinct problem once.
    pub findings: Vec<crate::check::Finding>,
    /// With `LaunchConfig::profile`: the per-instruction counts, which sum to `retired` and `lane_ops`.
    pub profile: Option<Box<crate::profile::Profile>>,
    /// With `LaunchConfig::block_time`: the samples of what the workers ran, per block.
    pub block_time: Option<Box<crate::blocktime::BlockTime>>,
}

#[derive(Debug, thiserror::Error)]
/// Why a launch did not finish.
pub enum LaunchError {
    /// The configuration was refused before anything ran.
    #[error("bad launch configuration: {0}")]
    Config(ConfigError),
    /// The JIT could not compile the kernel (nothing ran).
    #[error("{0}")]
    Compile(JitError),
    /// The kernel trapped, or the budget, deadline or a cancellation stopped it.
    #[error("{trap}")]
    Trap {
        /// The precise report: kind, pc, workgroup, wave, lanes, addresses.
        trap: Box<Trap>,
        /// The work done up to the trap (its writes to device memory stay).
        stats: LaunchStats,
    },
}

/// Shared by every workgroup of one launch.
struct LaunchCtx<'a> {
    device: &'a Device,
    kernel: &'a Kernel,
    /// Owns the launch's argument buffer: dropping the context (when the launch ends, whichever way) frees it.
    allocs: LaunchTable<'a>,
    env: WaveEnv,
    /// Per wave index: what the ABI sets (the same in every workgroup).
    starts: Vec<WaveStart>,
    /// What a wave's start re-zeroes and rewrites (`Kernel::start_facts`).
    facts: &'a StartFacts,
    /// The kernel has no barrier, so each wave runs to its end before the next starts: the waves of a worker
    /// take turns in one wave state (set up as each starts), which stays in the host's L1 cache.
    one_state: bool,
    /// Besides, no wave has private memory: the waves run back to back, each started by the one before
    /// (`Batch`), so a worker's run enters compiled code once per chunk of instructions, not once per wave.
    batched: bool,
    args_addr: u64,
    shared_bytes: u32,
    private_bytes: u32,
    budget: u64,
    engine: Engine,
    start: Instant,
    deadline: Option<Instant>,
    cancel: Option<CancelToken>,
    retired: AtomicU64,
    interpreted: AtomicU64,
    lane_ops: AtomicU64,
    /// Workgroups and waves started (`LaunchStats::workgroups`, `waves`), added by each worker when it is done.
    started: [AtomicU64; 2],
    /// Set once any workgroup traps; workgroups after the lowest trapping one stop early.
    trapped: AtomicBool,
    first_trap: Mutex<Option<(u64, Trap)>>,
    /// The timeline, profile and progress count the configuration asks for.
    obs: observe::Observers,
}

fn validate(k: &Kernel, c: &LaunchConfig) -> Result<([u32; 3], u32, u32), LaunchError> {
    let config = |e: ConfigError| LaunchError::Config(e);
    let wg = c.workgroup.unwrap_or(k.program.meta.workgroup);
    lanejit_isa::asm::check_workgroup(wg).map_err(|m| config(ConfigError::Workgroup(m)))?;
    check_grid(c.grid).map_err(|m| config(ConfigError::Grid(m)))?;
    let shared = c.shared_bytes.unwrap_or(k.program.meta.shared_bytes);
    if shared > MAX_SHARED_BYTES {
        return Err(config(ConfigError::SharedMemory { bytes: shared, limit: MAX_SHARED_BYTES }));
    }
    let private = c.private_bytes.unwrap_or(k.program.meta.private_bytes);
    lanejit_isa::asm::check_private(private).map_err(|m| config(ConfigError::PrivateMemory(m)))?;
    if c.args.len() > MAX_ARG_BYTES as usize {
        return Err(config(ConfigError::ArgsTooLong { given: c.args.len(), limit: MAX_ARG_BYTES }));
    }
    // A kernel that declares its argument block (`.args N`) reads N bytes from it: a shorter block would make
    // its argument loads fault inside the runtime's allocation, far from the cause.
    let declared = k.program.meta.arg_bytes;
    if c.args.len() < declared as usize {
        return Err(config(ConfigError::ArgsTooShort { declared, given: c.args.len() }));
    }
    if let Some(n) = c.threads.filter(|n| !(1..=MAX_THREADS).contains(n)) {
        return Err(config(ConfigError::Threads { requested: n, limit: MAX_THREADS }));
    }
    if let Some(d) = c.deadline.filter(|d| *d > MAX_DEADLINE) {
        return Err(config(ConfigError::Deadline { requested: d, limit: MAX_DEADLINE }));
    }
    Ok((wg, shared, private))
}

/// Checks a grid shape: every dimension at least 1, at most [`MAX_GRID_WORKGROUPS`] workgroups in all.
pub fn check_grid(grid: [u32; 3]) -> Result<u64, String> {
    if grid.contains(&0) {
        return Err(format!("grid {grid:?} has an empty dimension"));
    }
    let count = grid.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d as u64)).filter(|&n| n <= MAX_GRID_WORKGROUPS);
    count.ok_or_else(|| {
        let total = grid.iter().map(|&d| d as u128).product::<u128>();
        format!(
            "grid {grid:?} has {total} workgroups, more than the limit of {MAX_GRID_WORKGROUPS} (MAX_GRID_WORKGROUPS)"
        )
    })
}

/// Runs `kernel` over `cfg.grid` on `device` and waits for it (`Device::launch`).
pub fn launch(device: &Device, kernel: &Kernel, cfg: &LaunchConfig) -> Result<LaunchStats, LaunchError> {
    // The timeline's time zero is before the compilation a JIT launch waits for, which it shows.
    let obs = observe::Observers::new(kernel, cfg, Instant::now())?;
    if !cfg.check.is_empty() {
        return checked::launch_checked(device, kernel, cfg);
    }
    // Nothing watches what this launch writes: the uninit checker's tracking of device memory (if on) counts
    // all of it as defined.
    device.arena.define_all_live();
    if cfg.engine == Engine::Jit {
        kernel.jit_ready().map_err(LaunchError::Compile)?;
    }
    let cx = prepare(device, kernel, cfg)?.observed(obs);
    if cfg.schedule != Schedule::Fixed {
        simulate::launch_simulated(&cx, cfg.schedule, None);
        return finish(cx);
    }
    let count = workgroup_count(cfg.grid);
    let threads = cfg.threads.unwrap_or_else(rayon::current_num_threads).max(1) as u64;
    // Workgroups go to workers in runs of consecutive indices, enough runs per thread to balance uneven work.
    let per_run = (count / (threads * RUNS_PER_THREAD)).max(1);
    let run_range = |run: u64| run_workgroups(&cx, run * per_run..((run + 1) * per_run).min(count));
    let runs = count.div_ceil(per_run);
    // One run (a small launch) goes on the calling thread: handing it to a pool and waiting for it costs
    // ~20 µs of thread wake-ups, 20× the launch itself (`cargo bench --bench embedding`).
    match cfg.threads {
        _ if runs == 1 => run_range(0),
        Some(1) => (0..runs).for_each(run_range),
        Some(n) => device
            .pool(n)
            .map_err(|e| LaunchError::Config(ConfigError::ThreadPool(e)))?
            .install(|| (0..runs).into_par_iter().for_each(run_range)),
        None => (0..runs).into_par_iter().for_each(run_range),
    }
    finish(cx)
}

/// Runs of consecutive workgroups per worker thread (see `launch`).
const RUNS_PER_THREAD: u64 = 8;

fn workgroup_count(grid: [u32; 3]) -> u64 {
    grid.iter().map(|&d| d as u64).product()
}

fn workgroup_id(grid: [u32; 3], i: u64) -> [u32; 3] {
    let [gx, gy, _] = grid.map(|d| d as u64);
    [(i % gx) as u32, (i / gx % gy) as u32, (i / (gx * gy)) as u32]
}

/// Runs the workgroups `range` on one worker, stopping at the first trap (a lower workgroup's trap stops it too).
fn run_workgroups(cx: &LaunchCtx, range: std::ops::Range<u64>) {
    let mut worker = Worker::new(cx);
    if cx.batched {
        worker.run_batched(range);
        return;
    }
    for i in range.clone() {
        if preempted(cx, i) {
            return;
        }
        if let Err(t) = worker.run_workgroup(workgroup_id(cx.env.grid, i), i, None) {
            note_trap(cx, i, t);
            return;
        }
        if let Some(p) = &cx.obs.progress {
            p.add(1);
        }
    }
    // The counts not yet added may be what exceeds the budget: checked before the run is over.
    if let Some(last) = range.last() {
        if let Err(t) = worker.flush() {
            note_trap(cx, last, t);
        }
    }
}

/// Runs a launch on one thread, printing every retired instruction through `tracer` (without the checkers,
/// the timeline, the profile or the progress count: `cfg.check`, `timeline`, `profile` and `progress` are not
/// looked at).
pub fn launch_traced(
    device: &Device,
    kernel: &Kernel,
    cfg: &LaunchConfig,
    tracer: &mut dyn Tracer,
) -> Result<LaunchStats, LaunchError> {
    device.arena.define_all_live();
    let cx = prepare(device, kernel, cfg)?;
    if cfg.schedule != Schedule::Fixed {
        simulate::launch_simulated(&cx, cfg.schedule, Some(tracer));
        return finish(cx);
    }
    let count = workgroup_count(cfg.grid);
    let mut worker = Worker::new(&cx);
    for i in 0..count {
        let id = workgroup_id(cfg.grid, i);
        if let Err(t) = worker.run_workgroup(id, i, Some(&mut *tracer)) {
            note_trap(&cx, i, t);
            break;
        }
    }
    if let Err(t) = worker.flush() {
        note_trap(&cx, count - 1, t);
    }
    drop(worker);
    finish(cx)
}

fn prepare<'a>(device: &'a Device, kernel: &'a Kernel, cfg: &LaunchConfig) -> Result<LaunchCtx<'a>, LaunchError> {
    let (wg, shared_bytes, private_bytes) = validate(kernel, cfg)?;
    let allocs = device.arena.launch_table(&cfg.args).map_err(|e| LaunchError::Config(ConfigError::ArgsBuffer(e)))?;
    let threads_per_wg = wg.iter().product::<u32>();
    let env = WaveEnv {
        wave_id: 0,
        wave_count: threads_per_wg.div_ceil(LANES as u32),
        wg_size: wg,
        grid: cfg.grid,
        wg_id: [0; 3],
    };
    let start = Instant::now();
    Ok(LaunchCtx {
        device,
        kernel,
        args_addr: allocs.args_addr(),
        allocs,
        env,
        starts: WaveStart::of_workgroup(wg),
        facts: kernel.start_facts(),
        one_state: !kernel.may_wait_at_barrier(),
        batched: !kernel.may_wait_at_barrier() && private_bytes == 0,
        shared_bytes,
        private_bytes,
        budget: cfg.budget,
        engine: cfg.engine,
        start,
        deadline: cfg.deadline.map(|d| start + d),
        cancel: cfg.cancel.clone(),
        retired: AtomicU64::new(0),
        interpreted: AtomicU64::new(0),
        lane_ops: AtomicU64::new(0),
        started: [AtomicU64::new(0), AtomicU64::new(0)],
        trapped: AtomicBool::new(false),
        first_trap: Mutex::new(None),
        obs: observe::Observers::default(),
    })
}

impl<'a> LaunchCtx<'a> {
    /// The context recording what `obs` asks for (a timeline needs every wave to come back to the worker
    /// between waves, so waves are not batched).
    fn observed(self, obs: observe::Observers) -> Self {
        LaunchCtx { batched: self.batched && obs.timeline.is_none(), obs, ..self }
    }
}

fn finish(mut cx: LaunchCtx) -> Result<LaunchStats, LaunchError> {
    let stats = LaunchStats {
        retired: cx.retired.load(Relaxed),
        interpreted: cx.interpreted.load(Relaxed),
        lane_ops: cx.lane_ops.load(Relaxed),
        workgroups: cx.started[0].load(Relaxed),
        waves: cx.started[1].load(Relaxed),
        elapsed: cx.start.elapsed(),
        findings: Vec::new(),
        profile: None,
        block_time: None,
    };
    let result = match cx.first_trap.lock().unwrap().take() {
        Some((_, trap)) => Err(LaunchError::Trap { trap: Box::new(trap), stats }),
        None => Ok(stats),
    };
    let obs = std::mem::take(&mut cx.obs);
    observe::finish(&cx, obs, result)
}

/// Keeps the trap of the lowest workgroup, so the report does not depend on thread timing.
fn note_trap(cx: &LaunchCtx, wg_index: u64, t: Trap) {
    let mut first = cx.first_trap.lock().unwrap();
    if first.as_ref().is_none_or(|(i, _)| wg_index < *i) {
        if let Some(r) = &cx.obs.timeline {
            r.trap(&t, wg_index);
        }
        *first = Some((wg_index, t));
    }
    cx.trapped.store(true, Relaxed);
}

/// Should this workgroup stop because a lower one trapped?
fn preempted(cx: &LaunchCtx, wg_index: u64) -> bool {
    cx.trapped.load(Relaxed) && cx.first_trap.lock().unwrap().as_ref().is_some_and(|(i, _)| *i < wg_index)
}

/// Gives `w` the ABI's initial state of wave `wi` of workgroup `wg_id` (`StartFacts::start`): the registers
/// the kernel may have left non-zero zeroed, the ids and the argument address too when `whole_abi` (else `w`
/// holds them already).
fn reset_wave(cx: &LaunchCtx, w: &mut WaveState, wi: usize, wg_id: [u32; 3], whole_abi: bool) {
    cx.facts.start(w, &cx.starts[wi], wg_id, cx.args_addr, whole_abi);
}

fn check_limits(cx: &LaunchCtx, total: u64, pc: u32) -> Result<(), Trap> {
    if total > cx.budget {
        return Err(Trap::new(TrapKind::BudgetExceeded, pc, format!("instruction budget of {} exhausted", cx.budget)));
    }
    if cx.deadline.is_some_and(|d| Instant::now() > d) {
        let limit = cx.deadline.map(|d| d - cx.start).unwrap_or_default();
        return Err(Trap::new(
            TrapKind::DeadlineExceeded,
            pc,
            format!("wall-clock deadline of {} s passed", limit.as_secs_f64()),
        ));
    }
    if cx.cancel.as_ref().is_some_and(CancelToken::is_cancelled) {
        return Err(Trap::new(TrapKind::Cancelled, pc, "the launch was cancelled"));
    }
    Ok(())
}
