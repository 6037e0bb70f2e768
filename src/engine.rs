//! Running a chunk of a wave on the selected engine. The JIT compiles a kernel once (shared by every wave,
//! thread and launch of that kernel); `auto` interprets until the kernel has retired `AUTO_HOT` instructions
//! on the interpreter, then compiles it and runs compiled code from then on.

use crate::{Engine, Kernel};
use lanejit_interp::{run, Memory, Stop, Tracer, Trap, WaveEnv, WaveState};
use std::sync::atomic::Ordering::Relaxed;

/// Instructions a kernel retires in the interpreter before `auto` compiles it.
pub const AUTO_HOT: u64 = 50_000;

/// Runs up to `max_steps` instructions of one wave. Tracing always interprets (it observes every instruction).
pub fn run_chunk(kernel: &Kernel, engine: Engine, w: &mut WaveState, mem: &mut dyn Memory, env: &WaveEnv, max_steps: u64,
                 tracer: Option<&mut (dyn Tracer + '_)>) -> Result<Stop, Trap> {
    let compiled = match (engine, tracer.is_some()) {
        (Engine::Interp, _) | (_, true) => None,
        (Engine::Jit, false) => kernel.compiled().ok(),
        (Engine::Auto, false) => kernel.compiled_if_hot(),
    };
    match compiled {
        Some(ck) => lanejit_jit::run(ck, &kernel.code, w, mem, env, max_steps),
        None => {
            let r0 = w.retired;
            let r = run(&kernel.code, w, mem, env, max_steps, tracer);
            kernel.interp_retired.fetch_add(w.retired - r0, Relaxed);
            r
        }
    }
}
