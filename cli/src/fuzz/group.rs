//! Multi-wave cases: a kernel whose `.workgroup` holds more than `LANES` threads runs as one workgroup of that
//! many waves, sharing shared memory and global memory and meeting at `barrier`. Waves are scheduled exactly as
//! a launch schedules them (the same `launch::schedule_workgroup`): in wave order, each until it ends or waits at a barrier;
//! the barrier opens when every wave still running waits at the same one. The schedule is deterministic, so
//! races between waves through shared memory come out the same on every engine that executes correctly.
//!
//! A case still has one initial state (so the shrinker and the reproducer format are unchanged): it is wave 0's,
//! and wave k starts from `wave_state(init, k)`, a fixed transformation of it (or, for a workgroup shaped
//! `32, WAVES`, from the last wave's state as a launch sets it up: `launch_like`).

use lanejit::engine::{run_chunk, Runner};
use lanejit::launch::{schedule_workgroup, WaveStatus, WaveStop};
use lanejit::state_json::StateJson;
use lanejit::wave::{device_with, read_back, WaveOutcome};
use lanejit::wavemem::WaveMemory;
use lanejit::{engine_available, Engine, Kernel};
use lanejit_interp::{Stop, Tracer, Trap, TrapKind, WaveEnv, WaveState, LANES};
use lanejit_jit::NextWave;

/// Waves in the kernel's workgroup (1 for an ordinary single-wave case).
pub fn waves_of(kernel: &Kernel) -> u32 {
    kernel.program.meta.workgroup.iter().product::<u32>().div_ceil(LANES as u32).max(1)
}

/// Wave k's initial state: wave 0's with every vector register's lanes rotated by 7k, the generator's pool of
/// uniform registers (u0..u15, below the reserved base-address pairs) plus k, EXEC rotated by 8k, and no memory
/// (global memory belongs to the workgroup, given by wave 0's state). Different data and masks per wave, but the
/// same flavour of values.
pub fn wave_state(init: &StateJson, k: u32) -> StateJson {
    if k == 0 {
        return init.clone();
    }
    let mut s = init.clone();
    s.memory.clear();
    for lanes in s.v.values_mut() {
        let n = lanes.len().max(1);
        lanes.rotate_left(7 * k as usize % n);
    }
    for (r, x) in s.u.iter_mut() {
        if r.parse::<u8>().is_ok_and(|r| r < super::prog::UPOOL) {
            *x = x.wrapping_add(k);
        }
    }
    s.exec = s.exec.map(|e| e.rotate_left(8 * k));
    s
}

/// What a workgroup leaves behind: each wave's outcome (the trap, if any, on the wave that trapped; global
/// memory on wave 0's) and the shared memory.
pub struct GroupOutcome {
    /// Each wave's final state, trap and (wave 0's) memory.
    pub waves: Vec<WaveOutcome>,
    /// The workgroup's shared memory at the end.
    pub shared: Vec<u8>,
}

impl GroupOutcome {
    /// The trap that stopped the workgroup, with the wave it stopped.
    pub fn trap(&self) -> Option<(usize, &Trap)> {
        self.waves.iter().enumerate().find_map(|(i, w)| w.trap.as_ref().map(|t| (i, t)))
    }
}

/// Runs the case on `engine`: one wave (`wave::run_wave`) or the kernel's whole workgroup. `budget` is per wave.
pub fn run_case(
    kernel: &Kernel,
    init: &StateJson,
    engine: Engine,
    budget: u64,
    tracer: Option<&mut dyn Tracer>,
) -> Result<GroupOutcome, String> {
    run_case_installing(kernel, init, engine, budget, None, tracer)
}

/// `run_case`, a single wave with compiled code taking over at the moments `install_seed` draws
/// (`WaveLimits::install_seed`; a workgroup of several waves runs as `run_case` runs it).
pub fn run_case_installing(
    kernel: &Kernel,
    init: &StateJson,
    engine: Engine,
    budget: u64,
    install_seed: Option<u64>,
    tracer: Option<&mut dyn Tracer>,
) -> Result<GroupOutcome, String> {
    let n = waves_of(kernel) as usize;
    if n == 1 {
        let limits = lanejit::wave::WaveLimits { budget, install_seed, ..Default::default() };
        let w = lanejit::wave::run_wave_limited(kernel, init, engine, limits, tracer)?;
        return Ok(GroupOutcome { waves: vec![w], shared: Vec::new() });
    }
    engine_available(engine)?;
    if engine == Engine::Jit {
        kernel.jit_ready().map_err(|e| e.to_string())?;
    }
    let mut tracer = tracer;
    let mut waves = (0..n).map(|k| wave_state(init, k as u32).to_wave()).collect::<Result<Vec<_>, _>>()?;
    let (device, ranges) = device_with(&init.memory)?;
    let allocs = device.arena.allocations();
    let meta = &kernel.program.meta;
    if !kernel.may_wait_at_barrier() && meta.private_bytes == 0 {
        let mut mem = WaveMemory::new(&device.arena, &allocs, &mut [], &mut [], 0);
        let mut shared = vec![0u8; meta.shared_bytes as usize + lanejit::launch::SHARED_RED_ZONE];
        mem.shared = &mut shared[..meta.shared_bytes as usize];
        let trap = if super::launch_like::is_launch_like(kernel) {
            super::launch_like::run(kernel, engine, &mut waves[0], &mut mem, budget, tracer)
        } else {
            run_back_to_back(kernel, engine, &mut waves, &mut mem, budget, tracer)
        };
        shared.truncate(meta.shared_bytes as usize);
        return finish(&device, &ranges, waves, trap, shared);
    }
    let mut shared = vec![0u8; meta.shared_bytes as usize + lanejit::launch::SHARED_RED_ZONE];
    let pstride = meta.private_bytes as usize * LANES;
    let mut private = vec![0u8; pstride * n];
    let mut status = vec![WaveStatus::Running; n];
    let mut windows = lanejit_jit::WindowCache::default();
    // The trap and the wave it stopped (a deadlock names its wave in the trap).
    let mut stopped_wave = 0;
    let result = schedule_workgroup(&mut status, |wi| {
        stopped_wave = wi;
        let env = WaveEnv {
            wave_id: wi as u32,
            wave_count: n as u32,
            wg_size: meta.workgroup,
            grid: [1, 1, 1],
            wg_id: [0; 3],
        };
        let mut mem = WaveMemory::new(
            &device.arena,
            &allocs,
            &mut shared[..meta.shared_bytes as usize],
            &mut private[wi * pstride..(wi + 1) * pstride],
            meta.private_bytes as u64,
        );
        let w = &mut waves[wi];
        let left = budget.saturating_sub(w.retired);
        match run_chunk(kernel, engine, w, &mut mem, &env, left, tracer.as_deref_mut(), &mut windows)? {
            Stop::End => Ok(WaveStop::Ended),
            Stop::Barrier => Ok(WaveStop::AtBarrier(w.pc.wrapping_sub(4))),
            Stop::Steps => {
                Err(Trap::new(TrapKind::BudgetExceeded, w.pc, format!("instruction budget of {budget} exhausted")))
            }
        }
    });
    let trap = result.err().map(|t| match t.kind {
        TrapKind::BarrierDeadlock => (t.wave as usize, t),
        _ => (stopped_wave, t),
    });
    shared.truncate(meta.shared_bytes as usize);
    finish(&device, &ranges, waves, trap, shared)
}

/// Each wave's outcome (global memory read back into wave 0's, the trap on the wave it stopped).
fn finish(
    device: &lanejit::Device,
    ranges: &[(u64, u64, bool)],
    waves: Vec<WaveState>,
    trap: Option<(usize, Trap)>,
    shared: Vec<u8>,
) -> Result<GroupOutcome, String> {
    let memory = read_back(device, ranges)?;
    let mut outs: Vec<WaveOutcome> =
        waves.into_iter().map(|state| WaveOutcome { state, trap: None, memory: Vec::new() }).collect();
    outs[0].memory = memory;
    if let Some((wi, mut t)) = trap {
        t.wave = wi as u32;
        outs[wi].trap = Some(t);
    }
    Ok(GroupOutcome { waves: outs, shared })
}

/// The waves of a workgroup without barriers or private memory, run back to back as a launch runs them
/// (`launch::Batch`): one engine call goes on from a wave's end to the next wave, so compiled code starts the
/// next wave itself (`lanejit_jit::NextWave`). Each wave keeps its final state for the comparison.
struct BackToBack<'s> {
    states: &'s mut [WaveState],
    /// The wave running (its state is the engine's, not `states[wave]`).
    wave: usize,
}

impl NextWave for BackToBack<'_> {
    fn next(&mut self, w: &mut WaveState, env: &mut WaveEnv) -> bool {
        if self.wave + 1 >= self.states.len() {
            return false;
        }
        let following = self.states[self.wave + 1].clone();
        self.states[self.wave] = std::mem::replace(w, following);
        self.wave += 1;
        env.wave_id = self.wave as u32;
        true
    }
}

/// Runs `waves` back to back (`BackToBack`), each with `budget` instructions; returns the trap that stopped
/// the workgroup, with its wave.
fn run_back_to_back(
    kernel: &Kernel,
    engine: Engine,
    waves: &mut [WaveState],
    mem: &mut WaveMemory,
    budget: u64,
    tracer: Option<&mut dyn Tracer>,
) -> Option<(usize, Trap)> {
    let meta = &kernel.program.meta;
    let mut env =
        WaveEnv { wave_id: 0, wave_count: waves.len() as u32, wg_size: meta.workgroup, grid: [1, 1, 1], wg_id: [0; 3] };
    let mut w = waves[0].clone();
    let mut seq = BackToBack { states: waves, wave: 0 };
    let trap = run_until_no_next(kernel, engine, &mut w, mem, &mut env, budget, tracer, &mut seq);
    let wave = seq.wave;
    seq.states[wave] = w;
    trap.map(|t| (wave, t))
}

/// Runs from the wave in `w` on, going on with the waves `next` gives, each with `budget` instructions, until
/// one ends and `next` gives none (None) or one traps (its trap; a budget run out is `BudgetExceeded`).
#[allow(clippy::too_many_arguments)]
pub(super) fn run_until_no_next(
    kernel: &Kernel,
    engine: Engine,
    w: &mut WaveState,
    mem: &mut WaveMemory,
    env: &mut WaveEnv,
    budget: u64,
    mut tracer: Option<&mut dyn Tracer>,
    next: &mut dyn NextWave,
) -> Option<Trap> {
    let mut runner = Runner::new(kernel, engine);
    let mut windows = lanejit_jit::WindowCache::default();
    loop {
        let left = budget.saturating_sub(w.retired);
        match runner.run(w, mem, env, left, tracer.as_deref_mut(), &mut windows, Some(&mut *next)) {
            // (A barrier cannot happen: no word of the kernel decodes as one.)
            Ok(Stop::End | Stop::Barrier) => return None,
            // The call's steps ran out in a wave that started during the call: it has budget left.
            Ok(Stop::Steps) if w.retired < budget => {}
            Ok(Stop::Steps) => {
                return Some(Trap::new(
                    TrapKind::BudgetExceeded,
                    w.pc,
                    format!("instruction budget of {budget} exhausted"),
                ))
            }
            Err(t) => return Some(t),
        }
    }
}
