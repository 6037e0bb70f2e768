//! Running a chunk of a wave on the selected engine. The JIT compiles a kernel once with its quick tier
//! (shared by every wave, thread and launch of that kernel) and recompiles the blocks that become hot with its
//! optimising tier; `auto` compiles block by block as blocks become hot (`tier`), running the compiled blocks
//! natively and the others in the interpreter.

use crate::{Engine, Kernel};
use lanejit_interp::{run, run_counting, Memory, Stop, Tracer, Trap, WaveEnv, WaveState};
use lanejit_jit::lanes_mem::WindowCache;

/// Runs up to `max_steps` instructions of one wave. Tracing always interprets (it observes every instruction).
/// `windows` carries the compiled code's memory windows between chunks: keep one per workgroup (shared memory
/// is the workgroup's).
pub fn run_chunk(kernel: &Kernel, engine: Engine, w: &mut WaveState, mem: &mut dyn Memory, env: &WaveEnv, max_steps: u64,
                 tracer: Option<&mut (dyn Tracer + '_)>, windows: &mut WindowCache) -> Result<Stop, Trap> {
    let code = &kernel.code;
    match (engine, tracer) {
        (Engine::Jit, None) if kernel.promote.compiles_everything() => match kernel.compiled() {
            Ok(ck) => lanejit_jit::run(&[ck], code, w, mem, env, max_steps, None, windows),
            // `launch` compiles before it starts, so this is only reached by callers that did not check.
            Err(_) => run(code, w, mem, env, max_steps, None),
        },
        (Engine::Jit, None) => match kernel.quick() {
            // Hot blocks run in the optimised code, every other block in the quick code, which counts block
            // starts so that blocks becoming hot are recompiled.
            Ok(quick) => {
                let opt = kernel.promote.current();
                let codes: Vec<&lanejit_jit::CompiledKernel> = opt.as_deref().into_iter().chain([quick]).collect();
                kernel.promote.profiled(code, |hits| lanejit_jit::run(&codes, code, w, mem, env, max_steps, Some(hits), windows))
            }
            Err(_) => run(code, w, mem, env, max_steps, None),
        },
        (Engine::Auto, None) if kernel.tiers.compiles_everything() => run_chunk(kernel, Engine::Jit, w, mem, env, max_steps, None, windows),
        (Engine::Auto, None) => {
            let current = kernel.tiers.current();
            kernel.tiers.profiled(code, |hits| match &current {
                Some(ck) => lanejit_jit::run(&[ck], code, w, mem, env, max_steps, Some(hits), windows),
                None => run_counting(code, w, mem, env, max_steps, hits),
            })
        }
        (_, tracer) => run(code, w, mem, env, max_steps, tracer),
    }
}
