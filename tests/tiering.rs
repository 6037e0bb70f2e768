//! Tiering, for both engines that tier: `auto` compiles blocks as they become hot (part of a kernel compiled
//! and part interpreted), `jit` runs quick code and recompiles hot blocks with the optimising tier (part of a
//! kernel quick, part optimised). With several thresholds (so that blocks switch code at different moments)
//! and with one and two worker threads (one thread compiles while the other runs the older code), every
//! example still gives its exact answer; and the compiled set grows only with the blocks that ran.

use lanejit::tier::{CompileConfig, HotBlocks};
use lanejit::{Device, Engine, Kernel, LaunchConfig};
use lanejit_cli::examples::{self, Size};
use lanejit_jit::Tier;
use std::sync::Arc;

/// Examples with loops, divergence, barriers and atomics: blocks that get hot at different moments.
const EXAMPLES: [&str; 7] = ["saxpy", "reduce", "scan", "matmul", "divergent", "alu_loop", "histogram"];

/// The tiering `engine` does: `auto`'s block compilation or `jit`'s promotion of quick blocks.
fn tiers_of(kernel: &Kernel, engine: Engine) -> &HotBlocks {
    match engine {
        Engine::Jit => &kernel.jit_promotion,
        _ => &kernel.auto_tiering,
    }
}

/// Launches example `name` on `engine` with its tiering threshold pinned, checks the answer and returns the
/// kernel (whose tiering state the caller inspects).
fn launch(engine: Engine, name: &str, threshold: u32, threads: usize) -> Kernel {
    let ex = examples::by_name(name).expect("bundled example");
    // Outside the code cache (the reset must reach no other test's kernel); compiled on the compile threads, so
    // code arrives at moments the launch does not choose.
    let config = CompileConfig { share: false, ..Default::default() };
    let kernel = Kernel::from_asm(name, ex.source).unwrap_or_else(|e| panic!("{e}")).with_config(config);
    tiers_of(&kernel, engine).reset(threshold);
    let device = Device::new().expect("device");
    let setup = (ex.setup)(&device, Size::Small).expect("setup");
    let cfg = LaunchConfig { engine, threads: Some(threads), ..setup.cfg.clone() };
    let what = format!("{name} on {engine:?}, threshold {threshold}, {threads} threads");
    device.launch(&kernel, &cfg).unwrap_or_else(|e| panic!("{what}: {e}"));
    (setup.check)(&device).unwrap_or_else(|e| panic!("{what}: wrong answer: {e}"));
    // The callers look at what was compiled.
    kernel.wait_for_compiles();
    kernel
}

fn examples_are_exact(engine: Engine, thresholds: &[u32]) {
    for name in EXAMPLES {
        for &threshold in thresholds {
            for threads in [1, 2] {
                launch(engine, name, threshold, threads);
            }
        }
    }
}

#[test]
fn examples_are_exact_whatever_blocks_are_compiled() {
    examples_are_exact(Engine::Auto, &[1, 3, 17, 200]);
}

/// `u32::MAX` too: quick code alone, never promoted.
#[test]
fn jit_examples_are_exact_whatever_blocks_are_optimised() {
    examples_are_exact(Engine::Jit, &[1, 3, 17, 200, u32::MAX]);
}

#[test]
fn hot_loops_get_compiled_and_never_run_code_does_not() {
    let k = launch(Engine::Auto, "alu_loop", 8, 1);
    let ck = k.auto_tiering.current().expect("the loop of alu_loop runs thousands of times: it must be compiled");
    assert!(
        ck.guest_insns > 0 && ck.guest_insns < k.code.words.len(),
        "compiled {} of {} words",
        ck.guest_insns,
        k.code.words.len()
    );
}

#[test]
fn jit_hot_loops_get_optimised_and_never_run_code_does_not() {
    let k = launch(Engine::Jit, "alu_loop", 8, 1);
    let ck = k.jit_promotion.current().expect("the loop of alu_loop runs thousands of times: it must be optimised");
    assert_eq!(ck.tier, Tier::Opt);
    assert!(
        ck.guest_insns > 0 && ck.guest_insns < k.code.words.len(),
        "optimised {} of {} words",
        ck.guest_insns,
        k.code.words.len()
    );
}

#[test]
fn thresholds_zero_and_max_mean_everything_and_nothing() {
    let k = launch(Engine::Auto, "divergent", u32::MAX, 2);
    assert!(k.auto_tiering.current().is_none(), "a threshold of u32::MAX never compiles");
    let k = launch(Engine::Auto, "divergent", 0, 2);
    assert!(k.auto_tiering.compiles_everything());
}

/// alu_loop's loop would be promoted at any other threshold (see above); the answer is still exact.
#[test]
fn jit_threshold_max_never_promotes() {
    let k = launch(Engine::Jit, "alu_loop", u32::MAX, 2);
    assert!(k.jit_promotion.current().is_none(), "a promote threshold of u32::MAX never optimises");
}

/// A block that crosses the threshold after a compilation that took warm blocks along is still compiled: the
/// tiering counts crossings it has taken in, not blocks compiled (counting the warm ones made a later crossing
/// look handled, and such a block ran in the interpreter for good: `reduce`'s once-per-workgroup block).
#[test]
fn a_block_that_gets_hot_after_a_compilation_with_warm_blocks_is_compiled_too() {
    let ex = examples::by_name("reduce").expect("bundled example");
    let kernel = Kernel::from_asm("reduce", ex.source).unwrap_or_else(|e| panic!("{e}"));
    let threshold = 64;
    let tiers = Arc::new(HotBlocks::new(&kernel.code, threshold, Default::default()));
    let starts: Vec<usize> = lanejit_jit::block_starts(&kernel.code).iter().map(|&pc| (pc / 4) as usize).collect();
    assert!(starts.len() >= 3, "reduce has several blocks");
    let mut hits = vec![0u32; kernel.code.words.len()];
    // The first block gets hot, the second warm (an eighth of the threshold), the third has not run.
    hits[starts[0]] = threshold;
    hits[starts[1]] = threshold / 8;
    tiers.harvest(&kernel.code, &mut hits);
    let first = tiers.current().expect("the hot block is compiled").guest_insns;
    // Now the third crosses the threshold.
    hits[starts[2]] = threshold;
    tiers.harvest(&kernel.code, &mut hits);
    let second = tiers.current().expect("still compiled").guest_insns;
    assert!(second > first, "the block that got hot later was not compiled ({first} then {second} instructions)");
}

/// Compiled code that arrives at arbitrary moments of a launch (each background compilation first waits a
/// random 0–20 ms, `CompileConfig::compile_jitter`) changes no answer and no count: every example on `auto` and
/// `jit`, at thresholds that make blocks hot mid-launch, retires the instructions and lane-ops the interpreter
/// does, on one and two worker threads.
#[test]
fn answers_and_counts_never_depend_on_when_compiled_code_arrives() {
    for name in EXAMPLES {
        let ex = examples::by_name(name).expect("bundled example");
        let run = |engine: Engine, config: CompileConfig, threads: usize| {
            let kernel = Kernel::from_asm(name, ex.source).unwrap_or_else(|e| panic!("{e}")).with_config(config);
            let device = Device::new().expect("device");
            let setup = (ex.setup)(&device, Size::Small).expect("setup");
            let cfg = LaunchConfig { engine, threads: Some(threads), ..setup.cfg.clone() };
            let what = format!("{name} on {engine:?}, {config:?}, {threads} threads");
            let stats = device.launch(&kernel, &cfg).unwrap_or_else(|e| panic!("{what}: {e}"));
            (setup.check)(&device).unwrap_or_else(|e| panic!("{what}: wrong answer: {e}"));
            (stats.retired, stats.lane_ops, stats.workgroups, stats.waves)
        };
        let reference = run(Engine::Interp, CompileConfig::default(), 1);
        for seed in 1..=3u64 {
            for (engine, threads) in [(Engine::Auto, 1), (Engine::Auto, 2), (Engine::Jit, 2)] {
                let config = CompileConfig {
                    share: false,
                    compile_jitter: Some(seed),
                    auto_hot: 3,
                    jit_hot: 3,
                    ..CompileConfig::default()
                };
                assert_eq!(run(engine, config, threads), reference, "{name} {engine:?} seed {seed}");
            }
        }
    }
}

/// With `CompileConfig::reuse_opt_code` (the fuzzer's setting), a block set compiled again after a reset is
/// taken from the kernel's memo, not compiled: the second launch compiles nothing and still gives the exact
/// answer with the same blocks compiled. Without it, the same launch compiles again.
#[test]
fn a_block_set_compiled_again_is_reused_when_asked() {
    for reuse in [true, false] {
        let ex = examples::by_name("alu_loop").expect("bundled example");
        // One worker and no compile thread: the same launch makes the same blocks hot at the same moments.
        let config = CompileConfig { share: false, compile_threads: 0, reuse_opt_code: reuse, ..Default::default() };
        let kernel = Kernel::from_asm("alu_loop", ex.source).unwrap_or_else(|e| panic!("{e}")).with_config(config);
        let run = || {
            kernel.auto_tiering.reset(3);
            let device = Device::new().expect("device");
            let setup = (ex.setup)(&device, Size::Small).expect("setup");
            let cfg = LaunchConfig { engine: Engine::Auto, threads: Some(1), ..setup.cfg.clone() };
            device.launch(&kernel, &cfg).unwrap_or_else(|e| panic!("reuse {reuse}: {e}"));
            (setup.check)(&device).unwrap_or_else(|e| panic!("reuse {reuse}: wrong answer: {e}"));
            (kernel.auto_tiering.compiled_blocks(), kernel.auto_tiering.blocks_compiled())
        };
        let (blocks, compiled) = run();
        assert!(compiled > 0, "the first launch compiles hot blocks");
        let (again, compiled_again) = run();
        assert_eq!(again, blocks, "reuse {reuse}: the same blocks are compiled");
        assert_eq!(compiled_again == 0, reuse, "reuse {reuse}: blocks compiled again: {compiled_again}");
    }
}
