//! `auto` tiering, block by block: waves run in the interpreter (or in the compiled code of the blocks already
//! hot, which hands every other block to the interpreter), counting how often each block starts. A block that
//! has started `threshold` times joins the hot set, and the kernel is compiled anew with every hot block (or,
//! for large hot sets, only the new blocks are compiled, onto the current code: see `WHOLE_RECOMPILE_BLOCKS`);
//! the new code replaces the old for chunks that start afterwards (chunks already running keep theirs).
//! Compilations run on the process's compile threads (`compile_pool`, `CompileConfig::compile_threads`), one
//! per kernel and tier at a time: the launch's workers go on running in the tier they have, and take the new
//! code at their next chunk. With no compile thread, the worker whose count made blocks hot compiles them
//! while the others go on.

use lanejit_interp::Code;
use lanejit_jit::CompiledKernel;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{
    AtomicBool, AtomicU32, AtomicU64, AtomicUsize,
    Ordering::{Acquire, Relaxed, Release},
};
use std::sync::{Arc, Mutex};

/// Times a block must start before `auto` compiles it: about where compiling starts to pay, so that a kernel
/// whose blocks run few times (straight-line code launched once) is never slowed by a compilation that cannot
/// repay it, while a loop's blocks are compiled after a small share of its work ("ski rental": interpret until
/// the interpreting has cost what compiling would, then compile, which is never worse than twice the best
/// choice made in hindsight). Both costs grow with a block's length, so the break-even is a count of starts:
/// the optimising tier costs 0.25 ms (ALU) to 1.25 ms (memory) of CPU per instruction, the interpreter 50–140
/// ns per instruction of a wave, measured on the generated 1k kernels (`lanejit bench --first-launch --size
/// small` with `LANEJIT_AUTO_HOT=1`: a break-even of 3,000–9,000 starts). At 64 starts, a 20k-instruction
/// kernel's first launch ran 1.24x the interpreter's time beside its own pointless compilation.
pub const AUTO_HOT_BLOCK: u32 = 4096;
/// Times a block of `--engine jit`'s quick code must start before it is recompiled with the optimising tier.
pub const JIT_HOT_BLOCK: u32 = 64;

/// How a kernel is compiled and tiered: each [`crate::Kernel`] carries one (`Kernel::with_config`). The library
/// reads no environment variable; the `lanejit` command maps `LANEJIT_AUTO_HOT`, `LANEJIT_JIT_HOT` and the
/// `LANEJIT_JIT_*` knobs onto this (`cli::config_from_env`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CompileConfig {
    /// `--engine auto`: starts of a block before it is compiled (0: the whole kernel up front; `u32::MAX`:
    /// never, the interpreter runs everything).
    pub auto_hot: u32,
    /// `--engine jit`: starts of a quick-code block before the optimising tier recompiles it (0: every block
    /// with the optimising tier up front; `u32::MAX`: quick code only).
    pub jit_hot: u32,
    /// Cranelift settings and compile-time reports.
    pub jit: lanejit_jit::JitOptions,
    /// Compile threads that tiering's compilations run on (shared by the whole process: the most any kernel
    /// asked for; see `compile_pool`). 0: the worker thread whose count made blocks hot compiles them itself.
    /// Default: 1 on machines of up to 4 cores, 2 on larger ones.
    pub compile_threads: usize,
    /// Test setting: with `Some(seed)`, every background compilation first waits a pseudo-random 0–20 ms drawn
    /// from the seed and the compilation's number, so that compiled code arrives at arbitrary moments of a
    /// launch (results must not change). `None` in normal use.
    pub compile_jitter: Option<u64>,
    /// Kernels of the same code words and configuration share decoded code, compiled code and tiering state
    /// through the process's code cache (`code_cache`), so loading a kernel again compiles nothing. Off: the
    /// kernel has all of them to itself (tests that reset its tiering state, the fuzzer).
    pub share: bool,
    /// Keep every whole optimising compilation of a block set for the kernel's life, and take it again when
    /// either tiering state (`auto`'s or `jit`'s promotion) compiles the same set, after a reset or for the
    /// other engine: the code is the one a new compilation would make, only not compiled twice. Off by
    /// default: a long-lived kernel's tiering compiles ever larger sets, and keeping each would hold the
    /// superseded code. The fuzzer, which resets tiering for every engine and state, turns it on.
    pub reuse_opt_code: bool,
}

impl Default for CompileConfig {
    fn default() -> Self {
        CompileConfig {
            auto_hot: AUTO_HOT_BLOCK,
            jit_hot: JIT_HOT_BLOCK,
            jit: lanejit_jit::JitOptions::default(),
            compile_threads: default_compile_threads(),
            compile_jitter: None,
            share: true,
            reuse_opt_code: false,
        }
    }
}

/// 1 compile thread on machines of up to 4 cores (2 on larger ones): a compilation then takes at most one core
/// from the launch workers, and at a lower priority than theirs.
fn default_compile_threads() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let cores = *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if cores <= 4 {
        1
    } else {
        2
    }
}

/// Where `HotBlocks` runs its compilations (`CompileConfig::compile_threads`, `compile_jitter`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Background {
    /// Compile threads to use (0: compile on the thread that found the blocks hot).
    pub threads: usize,
    /// Test setting: a seed for random delays before each compilation.
    pub jitter: Option<u64>,
}

impl CompileConfig {
    /// Where this configuration's tiering compiles.
    pub fn background(&self) -> Background {
        Background { threads: self.compile_threads, jitter: self.compile_jitter }
    }
}

/// Hot sets of up to this many blocks are always compiled whole, so that their blocks chain directly. A larger
/// set is compiled whole only once it has doubled since its last whole compilation; in between, each
/// recompilation compiles just the blocks that became hot, onto the current code. Compile time is then linear in
/// the number of hot blocks, however many recompilations it takes (each whole one costs at most twice the
/// blocks added since the previous one).
pub const WHOLE_RECOMPILE_BLOCKS: usize = 256;

/// The whole optimising compilations of one kernel, by the block starts they compiled (per code word), shared
/// by its two tiering states (`CompileConfig::reuse_opt_code`).
#[derive(Default)]
pub struct OptCodeMemo(Mutex<HashMap<Vec<bool>, Arc<CompiledKernel>>>);

impl std::fmt::Debug for OptCodeMemo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OptCodeMemo").field("sets", &self.0.lock().map_or(0, |m| m.len())).finish()
    }
}

impl OptCodeMemo {
    fn get(&self, hot: &[bool]) -> Option<Arc<CompiledKernel>> {
        self.0.lock().expect("opt code memo").get(hot).cloned()
    }

    fn keep(&self, hot: &[bool], code: &Arc<CompiledKernel>) {
        self.0.lock().expect("opt code memo").insert(hot.to_vec(), code.clone());
    }
}

/// Which blocks of a kernel have run often enough to compile (with the optimising tier), and the code compiled
/// for them; shared by every launch of the kernel.
pub struct HotBlocks {
    /// Word indices of block starts.
    starts: Vec<usize>,
    /// Starts counted per block (indexed like `starts`).
    heat: Vec<AtomicU32>,
    threshold: AtomicU32,
    /// Blocks that have reached the threshold, and how many of those crossings a finished compilation has
    /// taken in: while the first is larger, every chunk's end tries to compile (one thread at a time). The
    /// watermark counts crossings, not compiled blocks: a compilation also takes warm blocks, and counting
    /// those once made a block that crossed later look compiled already, so it ran in the interpreter for
    /// good (`reduce`'s once-per-workgroup block: 31 ms instead of 19 ms a launch).
    crossed: AtomicUsize,
    handled: AtomicUsize,
    compiling: AtomicBool,
    /// Bumped whenever `current` changes, so that a runner can keep the code it has without taking the lock.
    generation: AtomicU64,
    state: Mutex<TierState>,
    options: lanejit_jit::JitOptions,
    background: Background,
    /// Compilations started (numbers the jitter's draws).
    compilations: AtomicU64,
    /// Whole compilations kept to be taken again (`CompileConfig::reuse_opt_code`).
    memo: Option<Arc<OptCodeMemo>>,
}

#[derive(Default)]
struct TierState {
    /// Per code word: the block starting there is in the compiled set.
    hot: Vec<bool>,
    current: Option<Arc<CompiledKernel>>,
    /// Hot blocks at the last whole compilation (see `WHOLE_RECOMPILE_BLOCKS`).
    whole: usize,
    /// Blocks compiled by every compilation so far, counted once per compilation that compiled them.
    blocks_compiled: usize,
    /// Compilation failed once: stay on the interpreter (the error is the JIT's to report under `--engine jit`).
    failed: bool,
}

thread_local! {
    /// Per-thread instruction counts of the chunk being run (reused: allocated once per thread and kernel size).
    /// Tagged with the `HotBlocks` it counts for: another kernel's leftover counts must not be read as this one's
    /// (a stale tag after a kernel is dropped could only misjudge heat, never change a result).
    static HITS: RefCell<(usize, Vec<u32>)> = const { RefCell::new((0, Vec::new())) };
}

impl HotBlocks {
    /// Nothing counted yet; blocks are compiled after `threshold` starts with `options`, on the thread that
    /// finds them hot (`with_background` hands the compilations to compile threads).
    pub fn new(code: &Code, threshold: u32, options: lanejit_jit::JitOptions) -> HotBlocks {
        let starts: Vec<usize> = lanejit_jit::block_starts(code).iter().map(|&pc| (pc / 4) as usize).collect();
        HotBlocks {
            heat: starts.iter().map(|_| AtomicU32::new(0)).collect(),
            starts,
            threshold: AtomicU32::new(threshold),
            crossed: AtomicUsize::new(0),
            handled: AtomicUsize::new(0),
            compiling: AtomicBool::new(false),
            generation: AtomicU64::new(0),
            state: Mutex::new(TierState { hot: vec![false; code.words.len()], ..TierState::default() }),
            options,
            background: Background::default(),
            compilations: AtomicU64::new(0),
            memo: None,
        }
    }

    /// The same, compiling where `background` says.
    pub fn with_background(self, background: Background) -> HotBlocks {
        HotBlocks { background, ..self }
    }

    /// The same, taking a whole compilation from `memo` when it holds one of the same blocks, and keeping there
    /// the ones it makes (`CompileConfig::reuse_opt_code`).
    pub fn with_memo(self, memo: Option<Arc<OptCodeMemo>>) -> HotBlocks {
        HotBlocks { memo, ..self }
    }

    /// Forgets all counts and compiled code; blocks are compiled after `threshold` starts (0: every block
    /// before the first chunk runs; `u32::MAX`: never).
    pub fn reset(&self, threshold: u32) {
        // A compilation under way would install code counted before the reset.
        self.wait_idle();
        let mut st = self.state.lock().expect("tier state");
        st.hot.iter_mut().for_each(|h| *h = false);
        st.current = None;
        st.whole = 0;
        st.blocks_compiled = 0;
        st.failed = false;
        self.heat.iter().for_each(|h| h.store(0, Relaxed));
        self.crossed.store(0, Relaxed);
        self.handled.store(0, Relaxed);
        self.threshold.store(threshold, Relaxed);
        self.generation.fetch_add(1, Release);
    }

    /// A threshold of 0: the whole kernel is compiled up front (the caller uses `Kernel::compiled`).
    pub fn compiles_everything(&self) -> bool {
        self.threshold.load(Relaxed) == 0
    }

    /// Blocks are compiled as they become hot (neither everything up front nor never): runs should end chunks
    /// early so that the decision is taken soon.
    pub fn compiles_as_hot(&self) -> bool {
        !matches!(self.threshold.load(Relaxed), 0 | u32::MAX)
    }

    /// Changes whenever `current` does (read it before `current`: a runner that saw this value and then took
    /// `current` has code at least that new).
    pub fn generation(&self) -> u64 {
        self.generation.load(Acquire)
    }

    /// Byte addresses of the blocks the current compiled code holds (those tiering made hot).
    pub fn compiled_blocks(&self) -> Vec<u32> {
        let st = self.state.lock().expect("tier state");
        if st.current.is_none() {
            return Vec::new();
        }
        (0..st.hot.len()).filter(|&i| st.hot[i]).map(|i| 4 * i as u32).collect()
    }

    /// Blocks compiled by all compilations since the last reset (a block recompiled counts again): the
    /// compile work tiering has done, linear in the hot blocks (see `WHOLE_RECOMPILE_BLOCKS`).
    pub fn blocks_compiled(&self) -> usize {
        self.state.lock().expect("tier state").blocks_compiled
    }

    /// The newest compiled code, if any block is compiled.
    pub fn current(&self) -> Option<Arc<CompiledKernel>> {
        self.state.lock().expect("tier state").current.clone()
    }

    /// Runs `f` with a per-word count buffer (zero at every block start), then adds the counts at block starts to the heat and
    /// compiles the blocks that became hot.
    pub fn profiled<R>(self: &Arc<Self>, code: &Arc<Code>, f: impl FnOnce(&mut [u32]) -> R) -> R {
        HITS.with(|cell| {
            let mut buf = cell.borrow_mut();
            let owner = Arc::as_ptr(self) as usize;
            if buf.0 != owner || buf.1.len() != code.words.len() {
                *buf = (owner, vec![0; code.words.len()]);
            }
            let r = f(&mut buf.1);
            self.harvest(code, &mut buf.1);
            r
        })
    }

    /// Adds the block-start counts of `hits` (one per code word) to the heat, clears them, and compiles the
    /// blocks that became hot.
    pub fn harvest(self: &Arc<Self>, code: &Arc<Code>, hits: &mut [u32]) {
        let threshold = self.threshold.load(Relaxed);
        // Only block starts are read (and cleared); other words' counts are never looked at, so they are
        // left to saturate rather than cleared over the whole code after every chunk.
        for (i, &w) in self.starts.iter().enumerate() {
            let n = std::mem::take(&mut hits[w]);
            if n > 0 {
                let before = self.heat[i].fetch_add(n, Relaxed);
                if before < threshold && before.saturating_add(n) >= threshold {
                    self.crossed.fetch_add(1, Relaxed);
                }
            }
        }
        let crossed = self.crossed.load(Relaxed);
        // While a compilation is under way (on a compile thread, often for many chunks), `handled` stays behind:
        // the hot set is not gathered only to be dropped by `compile`.
        if crossed > self.handled.load(Relaxed) && !self.compiling.load(Relaxed) {
            self.compile_hot(code, threshold, crossed);
        }
    }

    /// Compiles every hot or warm block; `crossed` crossings were counted before the heat is read, so the set
    /// holds every block they concern.
    fn compile_hot(self: &Arc<Self>, code: &Arc<Code>, threshold: u32, crossed: usize) {
        let mut hot = vec![false; code.words.len()];
        // Blocks already warm (an eighth of the way) join too: they are likely to become hot soon, and each
        // recompilation costs as much as the whole hot set.
        let warm = (threshold / 8).max(1);
        for (i, &w) in self.starts.iter().enumerate() {
            hot[w] = self.heat[i].load(Relaxed) >= warm;
        }
        self.compile(code, hot, crossed);
    }

    /// Compiles `hot` (on a compile thread when there is one) unless a compilation is under way (a later
    /// chunk's end tries again: `handled` stays behind).
    fn compile(self: &Arc<Self>, code: &Arc<Code>, hot: Vec<bool>, crossed: usize) {
        if self.compiling.swap(true, Relaxed) {
            return;
        }
        if self.background.threads == 0 {
            return self.compile_now(code, hot, crossed);
        }
        let (me, code) = (Arc::clone(self), Arc::clone(code));
        let job = Box::new(move || {
            me.jitter();
            me.compile_now(&code, hot, crossed);
        });
        // No thread could be started: compile here, as without compile threads.
        if let Err(job) = crate::compile_pool::submit(self.background.threads, job) {
            job();
        }
    }

    /// Test setting (`CompileConfig::compile_jitter`): waits 0–20 ms, drawn from the seed and this
    /// compilation's number.
    fn jitter(&self) {
        if let Some(seed) = self.background.jitter {
            let n = self.compilations.fetch_add(1, Relaxed);
            let mut x = seed ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            x ^= x >> 33;
            x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
            x ^= x >> 33;
            std::thread::sleep(std::time::Duration::from_micros(x % 20_001));
        }
    }

    /// Compiles `hot` unless it is the set compiled already; either way `crossed` crossings are then handled
    /// and the next compilation may start. Called with `compiling` set.
    fn compile_now(&self, code: &Code, hot: Vec<bool>, crossed: usize) {
        // Whatever happens below (a panic in Cranelift on a compile thread included), the next compilation
        // may start.
        struct Done<'a>(&'a AtomicBool);
        impl Drop for Done<'_> {
            fn drop(&mut self) {
                self.0.store(false, Release);
            }
        }
        let _done = Done(&self.compiling);
        let n = hot.iter().filter(|&&h| h).count();
        let (same, base) = {
            let st = self.state.lock().expect("tier state");
            let base = st.current.clone().filter(|_| n > WHOLE_RECOMPILE_BLOCKS && n < 2 * st.whole);
            (st.failed || st.hot == hot && st.current.is_some(), base)
        };
        if !same {
            if self.options.report.timing {
                let pcs: Vec<String> = (0..hot.len()).filter(|&i| hot[i]).map(|i| format!("{:#x}", 4 * i)).collect();
                eprintln!(
                    "tiering: optimising blocks at {}{}",
                    pcs.join(" "),
                    if base.is_some() { " (the new ones onto the current code)" } else { "" }
                );
            }
            let reused = self.memo.as_ref().filter(|_| base.is_none()).and_then(|m| m.get(&hot));
            let result = match &reused {
                Some(ck) => Ok(ck.clone()),
                None => self.compile_set(code, &hot, base.as_deref()),
            };
            let mut st = self.state.lock().expect("tier state");
            match result {
                Ok(ck) => {
                    let before = st.hot.iter().filter(|&&h| h).count();
                    // (Code taken from the memo cost no compilation.)
                    if reused.is_none() {
                        st.blocks_compiled += if base.is_some() { n - before } else { n };
                    }
                    if base.is_none() {
                        st.whole = n;
                    }
                    st.current = Some(ck);
                    st.hot = hot;
                    self.generation.fetch_add(1, Release);
                }
                Err(_) => {
                    st.failed = true;
                    self.handled.store(usize::MAX, Relaxed);
                }
            }
        }
        self.handled.fetch_max(crossed, Relaxed);
    }

    /// Compiles `hot` (onto `base` when given), logged; a whole compilation is kept in the memo, if any.
    fn compile_set(&self, code: &Code, hot: &[bool], base: Option<&CompiledKernel>) -> Result<Arc<CompiledKernel>, ()> {
        let blocks = || (0..hot.len()).filter(|&i| hot[i]).map(|i| 4 * i as u32).collect();
        let result = crate::compile_log::logged(code, "opt blocks", blocks, || match base {
            Some(b) => lanejit_jit::compile_more(b, code, hot),
            None => lanejit_jit::compile_blocks(code, Some(hot), lanejit_jit::Tier::Opt, &self.options),
        });
        let ck = Arc::new(result.map_err(drop)?);
        if let (Some(memo), None) = (&self.memo, base) {
            memo.keep(hot, &ck);
        }
        Ok(ck)
    }

    /// Waits until no compilation of this tiering state is queued or under way.
    pub fn wait_idle(&self) {
        while self.compiling.load(Acquire) {
            crate::compile_pool::wait_idle();
            std::thread::yield_now();
        }
    }
}

impl std::fmt::Debug for HotBlocks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HotBlocks")
            .field("blocks", &self.starts.len())
            .field("threshold", &self.threshold.load(Relaxed))
            .field("crossed", &self.crossed.load(Relaxed))
            .field("generation", &self.generation.load(Relaxed))
            .finish_non_exhaustive()
    }
}
