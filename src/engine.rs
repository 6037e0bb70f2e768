//! Running a chunk of a wave on the selected engine. The JIT compiles a kernel once with its quick tier
//! (shared by every wave, thread and launch of that kernel) and recompiles the blocks that become hot with its
//! optimising tier; `auto` compiles block by block as blocks become hot (`tier`), running the compiled blocks
//! natively and the others in the interpreter.

use crate::tier::HotBlocks;
use crate::{Engine, Kernel};
use lanejit_interp::{
    run, run_counting, run_marked, run_profiled, Code, InsnCount, Memory, Stop, Tracer, Trap, WaveEnv, WaveState,
};
use lanejit_jit::WindowCache;
use lanejit_jit::{CompiledKernel, NextWave};
use std::sync::Arc;

/// Runs chunks of waves of one kernel on one engine, keeping between chunks the optimised code it last took
/// (re-read only when the tiering state says it changed) and its own block-start counts (added to the
/// tiering state's heat every `HARVEST_EVERY` chunks and when the runner is dropped), so that a chunk takes
/// no lock and allocates nothing. One per worker thread and launch.
pub struct Runner<'k> {
    kernel: &'k Kernel,
    engine: Engine,
    /// `HotBlocks::generation` of the tiering state `opt` was taken from (`u64::MAX`: not taken yet).
    generation: u64,
    opt: Option<Arc<CompiledKernel>>,
    counts: Counts,
    /// Each call retires exactly `max_steps` unless the wave stops first (`lanejit_jit::Steps::exact`).
    exact: bool,
    /// Profiling (`profiling`): every call runs the interpreter, adding to these per-word counts.
    profile: Option<Vec<InsnCount>>,
}

/// Block starts counted per code word since the last harvest (allocated at the first counted chunk), and the
/// chunks they cover.
#[derive(Default)]
struct Counts {
    hits: Vec<u32>,
    unharvested: u32,
}

impl Counts {
    fn harvest(&mut self, tiers: &Arc<HotBlocks>, code: &Arc<Code>) {
        if self.unharvested > 0 {
            tiers.harvest(code, &mut self.hits);
            self.unharvested = 0;
        }
    }

    /// The buffer for one more chunk (harvesting first when enough chunks have been counted).
    fn next(&mut self, tiers: &Arc<HotBlocks>, code: &Arc<Code>) -> &mut [u32] {
        if self.unharvested >= HARVEST_EVERY {
            self.harvest(tiers, code);
        }
        if self.hits.is_empty() {
            self.hits = vec![0; code.words.len()];
        }
        self.unharvested += 1;
        &mut self.hits
    }
}

/// Chunks a runner counts before it hands the counts to the tiering state (a block becomes hot at most this
/// many chunks late; each harvest walks every block start, too slow for every chunk of a short wave).
const HARVEST_EVERY: u32 = 16;

impl Drop for Runner<'_> {
    fn drop(&mut self) {
        self.harvest();
    }
}

impl<'k> Runner<'k> {
    /// A runner of `kernel` on `engine`.
    pub fn new(kernel: &'k Kernel, engine: Engine) -> Self {
        Runner {
            kernel,
            engine,
            generation: u64::MAX,
            opt: None,
            counts: Counts::default(),
            exact: true,
            profile: None,
        }
    }

    /// This runner's calls run the interpreter whatever the engine, counting every retired instruction and its
    /// active lanes (`take_profile`): a profiling launch (`crate::profile`).
    pub fn profiling(mut self) -> Self {
        self.profile = Some(vec![InsnCount::default(); self.kernel.code.words.len()]);
        self
    }

    /// The counts of a profiling runner so far (then zero again).
    pub fn take_profile(&mut self) -> Option<Vec<InsnCount>> {
        let words = self.kernel.code.words.len();
        self.profile.as_mut().map(|p| std::mem::replace(p, vec![InsnCount::default(); words]))
    }

    /// This runner's calls may stop before `max_steps` (at least one instruction retired) at the start of a
    /// compiled block the rest does not cover, instead of interpreting that block's first instructions: for
    /// callers that cut a run into chunks to check limits between them, such as a launch.
    pub fn chunked(mut self) -> Self {
        self.exact = false;
        self
    }

    /// Adds the counts so far to the tiering state's heat (which may compile blocks that became hot).
    pub fn harvest(&mut self) {
        self.counts.harvest(self.hot_blocks(), &self.kernel.code);
    }

    /// The tiering state whose compiled code this runner runs.
    fn hot_blocks(&self) -> &'k Arc<HotBlocks> {
        match self.engine {
            Engine::Auto => &self.kernel.auto_tiering,
            _ => &self.kernel.jit_promotion,
        }
    }

    /// Takes the newest compiled code of the tiering state into `opt` (looked up only when it changed).
    fn refresh(&mut self) {
        let tiers = self.hot_blocks();
        let g = tiers.generation();
        if g != self.generation {
            self.opt = tiers.current();
            self.generation = g;
        }
    }

    /// Runs up to `max_steps` instructions of one wave. Tracing always interprets (it observes every instruction).
    /// `windows` carries the compiled code's memory windows between chunks: one per worker and launch (shared
    /// memory must stay at the same host address while it is used). With `next`, a wave's end goes on with
    /// the next wave it gives (in compiled code or in the run loop; `env` follows), until it gives none;
    /// `max_steps` counts the instructions of all the waves.
    /// When `windows.block_mark` is set (a profile samples it), the runs mark what they run there and the
    /// mark is `MARK_IDLE` again when this returns.
    #[allow(clippy::too_many_arguments)]
    pub fn run(
        &mut self,
        w: &mut WaveState,
        mem: &mut dyn Memory,
        env: &mut WaveEnv,
        max_steps: u64,
        tracer: Option<&mut (dyn Tracer + '_)>,
        windows: &mut WindowCache,
        next: Option<&mut dyn NextWave>,
    ) -> Result<Stop, Trap> {
        let stop = self.run_engine(w, mem, env, max_steps, tracer, windows, next);
        if let Some(mark) = &windows.block_mark {
            mark.store(lanejit_jit::MARK_IDLE, std::sync::atomic::Ordering::Relaxed);
        }
        stop
    }

    #[allow(clippy::too_many_arguments)]
    fn run_engine(
        &mut self,
        w: &mut WaveState,
        mem: &mut dyn Memory,
        env: &mut WaveEnv,
        max_steps: u64,
        tracer: Option<&mut (dyn Tracer + '_)>,
        windows: &mut WindowCache,
        next: Option<&mut dyn NextWave>,
    ) -> Result<Stop, Trap> {
        let kernel = self.kernel;
        let code = &kernel.code;
        let steps = lanejit_jit::Steps { max: max_steps, exact: self.exact };
        if let Some(counts) = self.profile.as_deref_mut() {
            return interpreted(w, env, max_steps, windows, next, |w, env, n| {
                run_profiled(code, w, mem, env, n, counts)
            });
        }
        match (self.engine, tracer) {
            (Engine::Jit, None) if kernel.jit_promotion.compiles_everything() => match kernel.compiled() {
                Ok(ck) => lanejit_jit::run(&[ck], code, w, mem, env, steps, None, windows, next),
                // `launch` compiles before it starts, so this is only reached by callers that did not check.
                Err(_) => interpreted(w, env, max_steps, windows, next, |w, env, n| run(code, w, mem, env, n, None)),
            },
            (Engine::Jit, None) => match kernel.quick() {
                // Hot blocks run in the optimised code, every other block in the quick code, which counts block
                // starts so that blocks becoming hot are recompiled.
                Ok(quick) => {
                    self.refresh();
                    let codes: &[&CompiledKernel] = match &self.opt {
                        Some(opt) => &[opt, quick],
                        None => &[quick],
                    };
                    let hits = self.counts.next(&kernel.jit_promotion, code);
                    lanejit_jit::run(codes, code, w, mem, env, steps, Some(hits), windows, next)
                }
                Err(_) => interpreted(w, env, max_steps, windows, next, |w, env, n| run(code, w, mem, env, n, None)),
            },
            (Engine::Auto, None) if kernel.auto_tiering.compiles_everything() => {
                let mut jit = Runner::new(kernel, Engine::Jit);
                jit.exact = self.exact;
                jit.run(w, mem, env, max_steps, None, windows, next)
            }
            (Engine::Auto, None) => {
                self.refresh();
                let hits = self.counts.next(&kernel.auto_tiering, code);
                match &self.opt {
                    Some(ck) => lanejit_jit::run(&[ck], code, w, mem, env, steps, Some(hits), windows, next),
                    None => match windows.block_mark.clone() {
                        Some(mark) => interpreted(w, env, max_steps, windows, next, |w, env, n| {
                            run_marked(code, w, mem, env, n, Some(&mut *hits), &mark)
                        }),
                        None => interpreted(w, env, max_steps, windows, next, |w, env, n| {
                            run_counting(code, w, mem, env, n, hits)
                        }),
                    },
                }
            }
            (_, None) if windows.block_mark.is_some() => {
                let mark = windows.block_mark.clone().expect("checked");
                interpreted(w, env, max_steps, windows, next, |w, env, n| run_marked(code, w, mem, env, n, None, &mark))
            }
            (_, mut tracer) => interpreted(w, env, max_steps, windows, next, |w, env, n| {
                run(code, w, mem, env, n, tracer.as_deref_mut())
            }),
        }
    }
}

/// Runs the interpreter (`f` runs up to n instructions of the wave in `w`) for up to `max_steps` instructions,
/// going on with the waves `next` gives when one ends. Every instruction counts as interpreted (compiled runs
/// count their own hand-overs in `WindowCache::interpreted`).
fn interpreted(
    w: &mut WaveState,
    env: &mut WaveEnv,
    max_steps: u64,
    windows: &mut WindowCache,
    mut next: Option<&mut dyn NextWave>,
    mut f: impl FnMut(&mut WaveState, &WaveEnv, u64) -> Result<Stop, Trap>,
) -> Result<Stop, Trap> {
    let mut left = max_steps;
    loop {
        let r0 = w.retired;
        let r = f(w, env, left);
        windows.interpreted += w.retired - r0;
        left -= w.retired - r0;
        match r {
            Ok(Stop::End) if next.as_deref_mut().is_some_and(|n| n.next(w, env)) => {}
            r => return r,
        }
    }
}

/// Runs up to `max_steps` instructions of one wave (a [`Runner`] for one chunk, harvested at its end: callers
/// that run many chunks should keep a runner).
#[allow(clippy::too_many_arguments)]
pub fn run_chunk(
    kernel: &Kernel,
    engine: Engine,
    w: &mut WaveState,
    mem: &mut dyn Memory,
    env: &WaveEnv,
    max_steps: u64,
    tracer: Option<&mut (dyn Tracer + '_)>,
    windows: &mut WindowCache,
) -> Result<Stop, Trap> {
    Runner::new(kernel, engine).run(w, mem, &mut env.clone(), max_steps, tracer, windows, None)
}

impl std::fmt::Debug for Runner<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runner")
            .field("kernel", &self.kernel.program.meta.name)
            .field("engine", &self.engine)
            .field("has_optimised_code", &self.opt.is_some())
            .finish_non_exhaustive()
    }
}
