//! Launches: a grid of workgroups, each of up to 1024 threads in waves of `LANES`. Waves of one workgroup are
//! interleaved at `barrier`; workgroups run in parallel on rayon. A launch has an instruction budget and a
//! wall-clock deadline; the first trap (lowest workgroup, deterministically) stops it with a precise report.

use crate::arena::Alloc;
use crate::wavemem::WaveMemory;
use crate::{Device, Engine, Kernel};
use crate::engine::run_chunk;
use lanejit_jit::lanes_mem::WindowCache;
use lanejit_interp::{Stop, Trap, TrapKind, Tracer, WaveEnv, WaveState, LANES};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::{Duration, Instant};

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
pub struct LaunchConfig {
    pub grid: [u32; 3],
    /// Workgroup size; `None` takes the kernel's `.workgroup`.
    pub workgroup: Option<[u32; 3]>,
    /// Kernel argument bytes, copied to a constant buffer whose address arrives in u0:u1.
    pub args: Vec<u8>,
    /// Shared and private memory; `None` takes the kernel's `.shared` / `.private`.
    pub shared_bytes: Option<u32>,
    pub private_bytes: Option<u32>,
    /// Most instructions the whole launch may retire.
    pub budget: u64,
    pub deadline: Option<Duration>,
    pub engine: Engine,
    /// Worker threads (`None`: rayon's default, one per core).
    pub threads: Option<usize>,
}

impl Default for LaunchConfig {
    fn default() -> Self {
        LaunchConfig {
            grid: [1, 1, 1], workgroup: None, args: Vec::new(), shared_bytes: None, private_bytes: None,
            budget: 1 << 40, deadline: Some(Duration::from_secs(600)), engine: Engine::Interp, threads: None,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LaunchStats {
    pub retired: u64,
    pub lane_ops: u64,
    pub workgroups: u64,
    pub waves: u64,
    pub elapsed: Duration,
}

#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error("bad launch configuration: {0}")]
    Config(String),
    #[error("{trap}")]
    Trap { trap: Box<Trap>, stats: LaunchStats },
}

/// Shared by every workgroup of one launch.
struct LaunchCtx<'a> {
    device: &'a Device,
    kernel: &'a Kernel,
    allocs: Vec<Alloc>,
    env: WaveEnv,
    args_addr: u64,
    shared_bytes: u32,
    private_bytes: u32,
    budget: u64,
    engine: Engine,
    start: Instant,
    deadline: Option<Instant>,
    retired: AtomicU64,
    lane_ops: AtomicU64,
    /// Set once any workgroup traps; workgroups after the lowest trapping one stop early.
    trapped: AtomicBool,
    first_trap: Mutex<Option<(u64, Trap)>>,
}

fn validate(k: &Kernel, c: &LaunchConfig) -> Result<([u32; 3], u32, u32), LaunchError> {
    let config = LaunchError::Config;
    let wg = c.workgroup.unwrap_or(k.program.meta.workgroup);
    lanejit_isa::asm::check_workgroup(wg).map_err(config)?;
    check_grid(c.grid).map_err(config)?;
    let shared = c.shared_bytes.unwrap_or(k.program.meta.shared_bytes);
    if shared > MAX_SHARED_BYTES {
        return Err(config(format!("shared memory {shared} bytes exceeds {MAX_SHARED_BYTES}")));
    }
    let private = c.private_bytes.unwrap_or(k.program.meta.private_bytes);
    lanejit_isa::asm::check_private(private).map_err(config)?;
    if c.args.len() > MAX_ARG_BYTES as usize {
        return Err(config(format!("{} argument bytes exceed the limit of {MAX_ARG_BYTES} (MAX_ARG_BYTES)", c.args.len())));
    }
    if let Some(n) = c.threads.filter(|n| !(1..=MAX_THREADS).contains(n)) {
        return Err(config(format!("{n} worker threads: the limit is 1..={MAX_THREADS} (MAX_THREADS)")));
    }
    if let Some(d) = c.deadline.filter(|d| *d > MAX_DEADLINE) {
        return Err(config(format!("deadline of {} s exceeds the limit of {} s (MAX_DEADLINE)", d.as_secs_f64(), MAX_DEADLINE.as_secs())));
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
        format!("grid {grid:?} has {total} workgroups, more than the limit of {MAX_GRID_WORKGROUPS} (MAX_GRID_WORKGROUPS)")
    })
}

pub fn launch(device: &Device, kernel: &Kernel, cfg: &LaunchConfig) -> Result<LaunchStats, LaunchError> {
    if cfg.engine == Engine::Jit {
        kernel.jit_ready().map_err(LaunchError::Config)?;
    }
    let cx = prepare(device, kernel, cfg)?;
    let [gx, gy, gz] = cfg.grid;
    let count = gx as u64 * gy as u64 * gz as u64;
    let run_one = |i: u64| {
        let id = [(i % gx as u64) as u32, (i / gx as u64 % gy as u64) as u32, (i / (gx as u64 * gy as u64)) as u32];
        if let Err(t) = run_workgroup(&cx, id, i, None) {
            note_trap(&cx, i, t);
        }
    };
    match cfg.threads {
        Some(1) => (0..count).for_each(run_one),
        Some(n) => rayon::ThreadPoolBuilder::new().num_threads(n).build()
            .map_err(|e| LaunchError::Config(e.to_string()))?
            .install(|| (0..count).into_par_iter().for_each(run_one)),
        None => (0..count).into_par_iter().for_each(run_one),
    }
    finish(cx, count)
}

/// Runs a launch on one thread, printing every retired instruction through `tracer`.
pub fn launch_traced(device: &Device, kernel: &Kernel, cfg: &LaunchConfig, tracer: &mut dyn Tracer) -> Result<LaunchStats, LaunchError> {
    let cx = prepare(device, kernel, cfg)?;
    let [gx, gy, gz] = cfg.grid;
    let count = gx as u64 * gy as u64 * gz as u64;
    for i in 0..count {
        let id = [(i % gx as u64) as u32, (i / gx as u64 % gy as u64) as u32, (i / (gx as u64 * gy as u64)) as u32];
        if let Err(t) = run_workgroup(&cx, id, i, Some(&mut *tracer)) {
            note_trap(&cx, i, t);
            break;
        }
    }
    finish(cx, count)
}

fn prepare<'a>(device: &'a Device, kernel: &'a Kernel, cfg: &LaunchConfig) -> Result<LaunchCtx<'a>, LaunchError> {
    let (wg, shared_bytes, private_bytes) = validate(kernel, cfg)?;
    let args = device.alloc_const(&cfg.args).map_err(|e| LaunchError::Config(e.to_string()))?;
    let threads_per_wg = wg.iter().product::<u32>();
    let env = WaveEnv { wave_id: 0, wave_count: threads_per_wg.div_ceil(LANES as u32), wg_size: wg, grid: cfg.grid, wg_id: [0; 3] };
    let start = Instant::now();
    Ok(LaunchCtx {
        device, kernel, allocs: device.arena.allocations(), env, args_addr: args.addr, shared_bytes, private_bytes,
        budget: cfg.budget, engine: cfg.engine, start, deadline: cfg.deadline.map(|d| start + d), retired: AtomicU64::new(0),
        lane_ops: AtomicU64::new(0), trapped: AtomicBool::new(false), first_trap: Mutex::new(None),
    })
}

fn finish(cx: LaunchCtx, count: u64) -> Result<LaunchStats, LaunchError> {
    let stats = LaunchStats {
        retired: cx.retired.load(Relaxed), lane_ops: cx.lane_ops.load(Relaxed), workgroups: count,
        waves: count * cx.env.wave_count as u64, elapsed: cx.start.elapsed(),
    };
    match cx.first_trap.into_inner().unwrap() {
        Some((_, trap)) => Err(LaunchError::Trap { trap: Box::new(trap), stats }),
        None => Ok(stats),
    }
}

/// Keeps the trap of the lowest workgroup, so the report does not depend on thread timing.
fn note_trap(cx: &LaunchCtx, wg_index: u64, t: Trap) {
    let mut first = cx.first_trap.lock().unwrap();
    if first.as_ref().is_none_or(|(i, _)| wg_index < *i) {
        *first = Some((wg_index, t));
    }
    cx.trapped.store(true, Relaxed);
}

/// Should this workgroup stop because a lower one trapped?
fn preempted(cx: &LaunchCtx, wg_index: u64) -> bool {
    cx.trapped.load(Relaxed) && cx.first_trap.lock().unwrap().as_ref().is_some_and(|(i, _)| *i < wg_index)
}

/// Initial state of one wave, as the ABI of ISA.md says.
fn initial_wave(cx: &LaunchCtx, wg_id: [u32; 3], wave: u32) -> WaveState {
    let mut w = WaveState::default();
    let [sx, sy, _] = cx.env.wg_size;
    let threads = cx.env.wg_size.iter().product::<u32>();
    w.set_u64_pair(lanejit_isa::UReg(0), cx.args_addr);
    w.u[2..5].copy_from_slice(&wg_id);
    for lane in 0..LANES {
        let t = wave * LANES as u32 + lane as u32;
        if t < threads {
            w.exec |= 1 << lane;
            w.v[0][lane] = t % sx;
            w.v[1][lane] = t / sx % sy;
            w.v[2][lane] = t / (sx * sy);
        }
    }
    w
}

/// Where a wave of a workgroup stands (shared with the fuzzer's workgroup runner, `fuzz::group`, so that it
/// schedules waves exactly as a launch does).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum WaveStatus {
    Running,
    /// Waiting at the barrier at this pc.
    AtBarrier(u32),
    Ended,
}

fn run_workgroup(cx: &LaunchCtx, wg_id: [u32; 3], wg_index: u64, mut tracer: Option<&mut dyn Tracer>) -> Result<(), Trap> {
    let n = cx.env.wave_count;
    let mut waves: Vec<WaveState> = (0..n).map(|w| initial_wave(cx, wg_id, w)).collect();
    let mut status = vec![WaveStatus::Running; n as usize];
    let mut shared = vec![0u8; cx.shared_bytes as usize + SHARED_RED_ZONE];
    let mut private = vec![0u8; cx.private_bytes as usize * LANES * n as usize];
    let mut windows = WindowCache::default();
    let with_ids = |mut t: Trap, wave: u32| {
        t.wave = wave;
        t.workgroup = wg_id;
        t
    };
    loop {
        for wi in 0..n as usize {
            while status[wi] == WaveStatus::Running {
                let env = WaveEnv { wave_id: wi as u32, wg_id, ..cx.env };
                let pstride = cx.private_bytes as usize * LANES;
                let mut mem = WaveMemory {
                    arena: &cx.device.arena, allocs: &cx.allocs, shared: &mut shared[..cx.shared_bytes as usize],
                    private: &mut private[wi * pstride..(wi + 1) * pstride], private_bytes: cx.private_bytes as u64,
                };
                let w = &mut waves[wi];
                let (r0, l0) = (w.retired, w.lane_ops);
                let res = run_chunk(cx.kernel, cx.engine, w, &mut mem, &env, CHUNK, tracer.as_deref_mut(), &mut windows);
                let total = cx.retired.fetch_add(w.retired - r0, Relaxed) + (w.retired - r0);
                cx.lane_ops.fetch_add(w.lane_ops - l0, Relaxed);
                match res.map_err(|t| with_ids(t, wi as u32))? {
                    Stop::End => status[wi] = WaveStatus::Ended,
                    Stop::Barrier => status[wi] = WaveStatus::AtBarrier(w.pc.wrapping_sub(4)),
                    Stop::Steps => {}
                }
                check_limits(cx, total, w.pc).map_err(|t| with_ids(t, wi as u32))?;
                if preempted(cx, wg_index) {
                    return Ok(());
                }
            }
        }
        if !release_barrier(&mut status).map_err(|t| with_ids(t, 0))? {
            return Ok(());
        }
    }
}

fn check_limits(cx: &LaunchCtx, total: u64, pc: u32) -> Result<(), Trap> {
    if total > cx.budget {
        return Err(Trap::new(TrapKind::BudgetExceeded, pc, format!("instruction budget of {} exhausted", cx.budget)));
    }
    if cx.deadline.is_some_and(|d| Instant::now() > d) {
        let limit = cx.deadline.map(|d| d - cx.start).unwrap_or_default();
        return Err(Trap::new(TrapKind::DeadlineExceeded, pc, format!("wall-clock deadline of {} s passed", limit.as_secs_f64())));
    }
    Ok(())
}

/// Every wave is now ended or at a barrier. Returns false when all have ended; releases the barrier when
/// all waiting waves are at the same one; otherwise the barrier can never be satisfied.
pub(crate) fn release_barrier(status: &mut [WaveStatus]) -> Result<bool, Trap> {
    let waiting: Vec<(usize, u32)> = status.iter().enumerate()
        .filter_map(|(i, s)| match s { WaveStatus::AtBarrier(pc) => Some((i, *pc)), _ => None }).collect();
    let Some(&(_, pc0)) = waiting.first() else { return Ok(false) };
    if let Some(&(wave, pc)) = waiting.iter().find(|(_, pc)| *pc != pc0) {
        let list: Vec<String> = waiting.iter().map(|(w, pc)| format!("wave {w} at {pc:#x}")).collect();
        let mut t = Trap::new(TrapKind::BarrierDeadlock, pc, format!("waves wait at different barriers: {}", list.join(", ")));
        t.wave = wave as u32;
        return Err(t);
    }
    for s in status.iter_mut() {
        if matches!(s, WaveStatus::AtBarrier(_)) {
            *s = WaveStatus::Running;
        }
    }
    Ok(true)
}
