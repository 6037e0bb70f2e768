//! Multi-wave cases run as a launch runs its waves back to back: a kernel whose `.workgroup` is `24, ROWS`
//! (no barrier, no private memory) runs as a 2 × 2 grid of such workgroups (so some waves hold a partial row and
//! start with a partial EXEC), every wave after the first
//! starting from the state the last one left, set up as a launch sets it up (`lanejit_jit::StartFacts::start`:
//! its clear set zeroed, u2..u4 the workgroup id, the ids and EXEC of its place in the workgroup). The
//! interpreter does that in Rust (`LaunchLike::next`); compiled code does it itself by the same plan
//! (`lanejit_jit::WavePlan`), so the fuzzer compares the two. The case's outcome is the last wave's final
//! state (as wave 0's) and memory; the workgroup's other waves keep their initial states.

use lanejit::wavemem::WaveMemory;
use lanejit::{Engine, Kernel};
use lanejit_interp::{Tracer, Trap, WaveEnv, WaveState};
use lanejit_jit::{NextWave, StartFacts, WavePlan, WaveStart};

/// The grid a launch-like case runs: two workgroups in x and two in y, so that a wave start crosses both
/// into the next column and into the next row.
pub const GRID: [u32; 3] = [2, 2, 1];

/// The x size of a launch-like case's workgroup: not a multiple of `LANES`, so the ids are two-dimensional
/// within a wave and the last wave of a workgroup may be partial.
pub const ROW: u32 = 24;

/// Does `kernel` run launch-like (a `.workgroup` of `ROW` threads in x and several rows)?
pub fn is_launch_like(kernel: &Kernel) -> bool {
    let wg = kernel.program.meta.workgroup;
    wg[0] == ROW && wg[1] > 1 && wg[2] == 1
}

/// The waves of a launch-like case after the first (`NextWave`, with the plan compiled code follows).
struct LaunchLike<'k> {
    facts: &'k StartFacts,
    starts: Vec<WaveStart>,
    plan: WavePlan,
}

/// The plan's stop flag: no other workgroup runs, so none traps.
static NO_STOP: u8 = 0;

impl NextWave for LaunchLike<'_> {
    fn next(&mut self, w: &mut WaveState, env: &mut WaveEnv) -> bool {
        // (Compiled code counts the waves it starts by the plan down in `waves_left` too.)
        if self.plan.waves_left == 0 {
            return false;
        }
        self.plan.waves_left -= 1;
        let wave = self.plan.advance(env);
        let p = &self.plan;
        self.facts.start(w, &self.starts[wave], env.wg_id, p.args_addr, p.whole_abi != 0);
        true
    }

    fn plan(&mut self) -> Option<&mut WavePlan> {
        Some(&mut self.plan)
    }
}

/// Runs the case launch-like from `w` (wave 0 of workgroup (0, 0, 0), the case's initial state), each wave
/// with `budget` instructions; leaves the last wave's final state in `w` and returns the trap that stopped
/// the launch, if any (its wave and workgroup ids as the launch would name them).
pub fn run(
    kernel: &Kernel,
    engine: Engine,
    w: &mut WaveState,
    mem: &mut WaveMemory,
    budget: u64,
    tracer: Option<&mut dyn Tracer>,
) -> Option<(usize, Trap)> {
    let meta = &kernel.program.meta;
    let starts = WaveStart::of_workgroup(meta.workgroup);
    let waves = starts.len() as u64 * GRID.iter().map(|&g| g as u64).product::<u64>();
    let mut env =
        WaveEnv { wave_id: 0, wave_count: starts.len() as u32, wg_size: meta.workgroup, grid: GRID, wg_id: [0; 3] };
    let facts = kernel.start_facts();
    let plan = WavePlan {
        waves_left: waves - 1,
        starts: starts.as_ptr(),
        stop: &NO_STOP,
        // The argument address a launch would give: the case's initial u0:u1.
        args_addr: w.u64_pair(lanejit_isa::UReg(0)),
        whole_abi: (facts.writes_launch_abi || starts.len() > 1) as u8,
        ..WavePlan::idle()
    };
    let mut seq = LaunchLike { facts, starts, plan };
    let trap = super::group::run_until_no_next(kernel, engine, w, mem, &mut env, budget, tracer, &mut seq);
    trap.map(|mut t| {
        (t.wave, t.workgroup) = (env.wave_id, env.wg_id);
        (0, t)
    })
}
