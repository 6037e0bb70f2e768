//! One wave from a given state until `end`, a trap, the budget or the deadline: `lanejit wave` and the
//! conformance suite.

use crate::error::WaveError;
use crate::launch::{WaveStatus, WaveStop};
use crate::state_json::{parse_hex, to_hex, MemJson, StateJson};
use crate::wavemem::WaveMemory;
use crate::{engine_available, Device, Engine, Kernel};
use lanejit_interp::{Memory, Stop, Tracer, Trap, TrapKind, WaveEnv, WaveState, LANES};
use std::time::{Duration, Instant};

/// Default instruction budget of a single-wave run.
pub const DEFAULT_WAVE_BUDGET: u64 = 10_000_000;
/// Default wall-clock deadline of a single-wave run: the launch's default, so that a huge budget on a loop
/// still ends.
pub const DEFAULT_WAVE_DEADLINE: Duration = Duration::from_secs(600);
/// Instructions run between two looks at the clock when nothing else cuts the run into chunks: small enough
/// that a deadline is noticed within milliseconds, large enough that the look costs nothing.
const DEADLINE_CHUNK: u64 = 1 << 20;

/// How long a single-wave run may go on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WaveLimits {
    /// Most instructions to retire.
    pub budget: u64,
    /// Wall-clock limit (`None`: none; at most [`crate::launch::MAX_DEADLINE`]).
    pub deadline: Option<Duration>,
    /// Test setting (the fuzzer's): with `Some(seed)`, a tiering run (`auto`, or `jit` recompiling hot blocks)
    /// goes in chunks of 1 to [`INSTALL_CHUNK_MAX`] instructions drawn from the seed instead of the usual
    /// growing ones, so that newly compiled code takes over after any instruction, in the middle of a block
    /// as often as at its start. Results must not change. `None` in normal use.
    pub install_seed: Option<u64>,
}

/// Longest chunk of a run with [`WaveLimits::install_seed`].
pub const INSTALL_CHUNK_MAX: u64 = 16;

impl Default for WaveLimits {
    fn default() -> Self {
        WaveLimits { budget: DEFAULT_WAVE_BUDGET, deadline: Some(DEFAULT_WAVE_DEADLINE), install_seed: None }
    }
}

/// How a single-wave run ended.
#[derive(Debug)]
pub struct WaveOutcome {
    /// The wave's registers and pc when it stopped.
    pub state: WaveState,
    /// Why it stopped, unless it reached `end`.
    pub trap: Option<Trap>,
    /// Contents after the run of every memory range of the initial state, in order.
    pub memory: Vec<MemJson>,
}

impl WaveOutcome {
    /// The outcome in the JSON state format (registers, memory, trap).
    pub fn to_json(&self) -> StateJson {
        StateJson::from_wave(&self.state, self.trap.as_ref(), self.memory.clone())
    }
}

/// Runs one wave of `kernel` from `init` with `budget` and the default deadline. Memory exists only where
/// `init.memory` puts it.
pub fn run_wave(
    kernel: &Kernel,
    init: &StateJson,
    engine: Engine,
    budget: u64,
    tracer: Option<&mut dyn Tracer>,
) -> Result<WaveOutcome, WaveError> {
    run_wave_limited(kernel, init, engine, WaveLimits { budget, ..WaveLimits::default() }, tracer)
}

/// Runs one wave of `kernel` from `init` until `end`, a trap, or one of `limits`. A `barrier` is passed at
/// once: the wave is its workgroup's only one, so the barrier is trivially satisfied, as in a launch.
pub fn run_wave_limited(
    kernel: &Kernel,
    init: &StateJson,
    engine: Engine,
    limits: WaveLimits,
    tracer: Option<&mut dyn Tracer>,
) -> Result<WaveOutcome, WaveError> {
    if let Some(d) = limits.deadline.filter(|d| *d > crate::launch::MAX_DEADLINE) {
        return Err(WaveError::Limits(format!(
            "deadline of {} s exceeds the limit of {} s (MAX_DEADLINE)",
            d.as_secs_f64(),
            crate::launch::MAX_DEADLINE.as_secs()
        )));
    }
    let deadline = limits.deadline.map(|d| Instant::now() + d);
    engine_available(engine).map_err(WaveError::Limits)?;
    if engine == Engine::Jit {
        kernel.jit_ready().map_err(WaveError::Compile)?;
    }
    let mut w = init.to_wave().map_err(WaveError::State)?;
    let (device, ranges) = device_with(&init.memory).map_err(WaveError::Memory)?;
    let meta = &kernel.program.meta;
    let allocs = device.arena.allocations();
    let mut shared = vec![0u8; meta.shared_bytes as usize + crate::launch::SHARED_RED_ZONE];
    let mut private = vec![0u8; meta.private_bytes as usize * LANES];
    let mut mem = WaveMemory::new(
        &device.arena,
        &allocs,
        &mut shared[..meta.shared_bytes as usize],
        &mut private,
        meta.private_bytes as u64,
    );
    let env = WaveEnv { wave_id: 0, wave_count: 1, wg_size: [LANES as u32, 1, 1], grid: [1, 1, 1], wg_id: [0; 3] };
    let budget = limits.budget;
    let trap = match run_chunks(kernel, engine, &mut w, &mut mem, &env, (budget, deadline, limits.install_seed), tracer)
    {
        Ok(Ended::End) => None,
        Ok(Ended::Budget) => {
            Some(Trap::new(TrapKind::BudgetExceeded, w.pc, format!("instruction budget of {budget} exhausted")))
        }
        Ok(Ended::Deadline) => {
            let secs = limits.deadline.unwrap_or_default().as_secs_f64();
            Some(Trap::new(TrapKind::DeadlineExceeded, w.pc, format!("wall-clock deadline of {secs} s passed")))
        }
        Err(t) => Some(t),
    };
    let memory = read_back(&device, &ranges).map_err(WaveError::Memory)?;
    Ok(WaveOutcome { state: w, trap, memory })
}

/// Chunks under `auto` (and `jit` while it recompiles hot blocks): tiering decides between chunks, so the first `AUTO_SHORT` instructions go in chunks
/// of `AUTO_FIRST_CHUNK` (a short program still switches from the interpreter to compiled blocks in the
/// middle of its run, and budget stops land anywhere), then each chunk is twice the last, up to the launch's
/// chunk, so that a long run pays little for the decisions.
const AUTO_FIRST_CHUNK: u64 = 4;
const AUTO_SHORT: u64 = 256;
const AUTO_LAST_CHUNK: u64 = 4096;

/// Why a single-wave run stopped without a trap.
enum Ended {
    End,
    Budget,
    Deadline,
}

/// Runs until the wave ends or traps, `budget` instructions retire or `deadline` passes: in chunks of
/// [`DEADLINE_CHUNK`], or in growing ones from [`AUTO_FIRST_CHUNK`] while tiering. A barrier is passed (the
/// wave is its workgroup's only one).
#[allow(clippy::too_many_arguments)]
fn run_chunks(
    kernel: &Kernel,
    engine: Engine,
    w: &mut WaveState,
    mem: &mut dyn Memory,
    env: &WaveEnv,
    (budget, deadline, install_seed): (u64, Option<Instant>, Option<u64>),
    mut tracer: Option<&mut dyn Tracer>,
) -> Result<Ended, Trap> {
    let tiering = match engine {
        Engine::Auto => true,
        Engine::Jit => kernel.jit_promotion.compiles_as_hot(),
        Engine::Interp => false,
    };
    let mut chunk = if tiering { AUTO_FIRST_CHUNK } else { DEADLINE_CHUNK };
    let mut install_draws = install_seed.filter(|_| tiering).map(|s| s | 1);
    let start = w.retired;
    let mut windows = lanejit_jit::WindowCache::default();
    let mut ended = Ended::End;
    // The launches' scheduler, with a workgroup of this one wave (so a barrier releases at once).
    crate::launch::schedule_workgroup(&mut [WaveStatus::Running], |_| loop {
        let left = budget - (w.retired - start);
        if left == 0 {
            ended = Ended::Budget;
            return Ok(WaveStop::Preempted);
        }
        if deadline.is_some_and(|d| Instant::now() > d) {
            ended = Ended::Deadline;
            return Ok(WaveStop::Preempted);
        }
        let stop = crate::engine::run_chunk(
            kernel,
            engine,
            w,
            mem,
            env,
            left.min(install_draws.as_mut().map_or(chunk, next_install_chunk)),
            tracer.as_deref_mut(),
            &mut windows,
        )?;
        match stop {
            Stop::End => return Ok(WaveStop::Ended),
            Stop::Barrier => return Ok(WaveStop::AtBarrier(w.pc.wrapping_sub(4))),
            Stop::Steps if tiering && w.retired - start >= AUTO_SHORT => {
                chunk = chunk.saturating_mul(2).min(AUTO_LAST_CHUNK.max(chunk));
            }
            Stop::Steps => {}
        }
    })?;
    Ok(ended)
}

/// The next chunk length of a run with `WaveLimits::install_seed` (xorshift; `state` is never 0).
fn next_install_chunk(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    1 + *state % INSTALL_CHUNK_MAX
}

/// A memory range of an initial state: address, length, read-only.
pub type Range = (u64, u64, bool);

/// A device holding exactly the memory ranges of a state (no other allocation exists).
pub fn device_with(memory: &[MemJson]) -> Result<(Device, Vec<Range>), String> {
    // A state's ranges are small: base pages, so that each range does not zero a 2 MiB huge page.
    let device = Device::with_pages(1 << 34, crate::Pages::Base).map_err(|e| e.to_string())?;
    let mut ranges = Vec::new();
    for m in memory {
        let bytes = parse_hex(&m.hex).map_err(|e| format!("memory at {:#x}: {e}", m.addr))?;
        device.arena.alloc_at(m.addr, bytes.len() as u64, m.readonly).map_err(|e| e.to_string())?;
        device.write(m.addr, &bytes)?;
        ranges.push((m.addr, bytes.len() as u64, m.readonly));
    }
    Ok((device, ranges))
}

/// The contents of `ranges` now, in the initial state's format.
pub fn read_back(device: &Device, ranges: &[Range]) -> Result<Vec<MemJson>, String> {
    ranges
        .iter()
        .map(|&(addr, len, readonly)| {
            device.read(addr, len).map_err(String::from).map(|b| MemJson { addr, hex: to_hex(&b), readonly })
        })
        .collect()
}
