//! One wave from a given state until `end`, a trap or the budget: `lanejit wave` and the conformance suite.

use crate::state_json::{parse_hex, to_hex, MemJson, StateJson};
use crate::wavemem::WaveMemory;
use crate::{engine_available, Device, Engine, Kernel};
use lanejit_interp::{Memory, Stop, Trap, TrapKind, Tracer, WaveEnv, WaveState, LANES};

/// Default instruction budget of a single-wave run.
pub const DEFAULT_WAVE_BUDGET: u64 = 10_000_000;

pub struct WaveOutcome {
    pub state: WaveState,
    pub trap: Option<Trap>,
    /// Contents after the run of every memory range of the initial state, in order.
    pub memory: Vec<MemJson>,
}

impl WaveOutcome {
    pub fn to_json(&self) -> StateJson {
        StateJson::from_wave(&self.state, self.trap.as_ref(), self.memory.clone())
    }
}

/// Runs one wave of `kernel` from `init`. Memory exists only where `init.memory` puts it.
pub fn run_wave(kernel: &Kernel, init: &StateJson, engine: Engine, budget: u64, tracer: Option<&mut dyn Tracer>) -> Result<WaveOutcome, String> {
    engine_available(engine)?;
    if engine == Engine::Jit {
        kernel.jit_ready()?;
    }
    let mut w = init.to_wave()?;
    let (device, ranges) = device_with(&init.memory)?;
    let meta = &kernel.program.meta;
    let allocs = device.arena.allocations();
    let mut shared = vec![0u8; meta.shared_bytes as usize + crate::launch::SHARED_RED_ZONE];
    let mut private = vec![0u8; meta.private_bytes as usize * LANES];
    let mut mem = WaveMemory { arena: &device.arena, allocs: &allocs, shared: &mut shared[..meta.shared_bytes as usize], private: &mut private, private_bytes: meta.private_bytes as u64 };
    let env = WaveEnv { wave_id: 0, wave_count: 1, wg_size: [LANES as u32, 1, 1], grid: [1, 1, 1], wg_id: [0; 3] };
    let trap = match run_chunks(kernel, engine, &mut w, &mut mem, &env, budget, tracer) {
        Ok(Stop::End) => None,
        Ok(Stop::Barrier) => Some(Trap::new(TrapKind::BarrierDeadlock, w.pc.wrapping_sub(4), "a lone wave cannot wait at a barrier in `wave` mode")),
        Ok(Stop::Steps) => Some(Trap::new(TrapKind::BudgetExceeded, w.pc, format!("instruction budget of {budget} exhausted"))),
        Err(t) => Some(t),
    };
    let memory = read_back(&device, &ranges)?;
    Ok(WaveOutcome { state: w, trap, memory })
}

/// Chunks under `auto` (and `jit` while it recompiles hot blocks): tiering decides between chunks, so the first `AUTO_SHORT` instructions go in chunks
/// of `AUTO_FIRST_CHUNK` (a short program still switches from the interpreter to compiled blocks in the
/// middle of its run, and budget stops land anywhere), then each chunk is twice the last, up to the launch's
/// chunk, so that a long run pays little for the decisions.
const AUTO_FIRST_CHUNK: u64 = 4;
const AUTO_SHORT: u64 = 256;
const AUTO_LAST_CHUNK: u64 = 4096;

/// Runs until the wave stops or `budget` instructions retire: in one chunk, or in growing ones while tiering.
fn run_chunks(kernel: &Kernel, engine: Engine, w: &mut WaveState, mem: &mut dyn Memory, env: &WaveEnv, budget: u64,
              mut tracer: Option<&mut dyn Tracer>) -> Result<Stop, Trap> {
    let tiering = match engine {
        Engine::Auto => true,
        Engine::Jit => kernel.promote.compiles_as_hot(),
        Engine::Interp => false,
    };
    let mut chunk = if tiering { AUTO_FIRST_CHUNK } else { budget };
    let start = w.retired;
    let mut windows = lanejit_jit::lanes_mem::WindowCache::default();
    loop {
        let left = budget - (w.retired - start);
        match crate::engine::run_chunk(kernel, engine, w, mem, env, left.min(chunk), tracer.as_deref_mut(), &mut windows)? {
            Stop::Steps if w.retired - start < budget => {
                if w.retired - start >= AUTO_SHORT {
                    chunk = chunk.saturating_mul(2).min(AUTO_LAST_CHUNK.max(chunk));
                }
            }
            stop => return Ok(stop),
        }
    }
}

/// A memory range of an initial state: address, length, read-only.
pub type Range = (u64, u64, bool);

/// A device holding exactly the memory ranges of a state (no other allocation exists).
pub fn device_with(memory: &[MemJson]) -> Result<(Device, Vec<Range>), String> {
    let device = Device::with_capacity(1 << 34).map_err(|e| e.to_string())?;
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
    ranges.iter()
        .map(|&(addr, len, readonly)| device.read(addr, len).map(|b| MemJson { addr, hex: to_hex(&b), readonly }))
        .collect()
}
