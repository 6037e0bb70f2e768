//! Each block's share of time (`LaunchConfig::block_time`, `JitOptions::mark_blocks`, docs/profiling.md): the
//! shares of a launch's blocks sum to one on every engine, the hot loop of `alu_loop` takes the largest, code
//! compiled to mark its blocks gives the same results as code that does not, and `lanejit profile` reports the
//! shares in its table, its listing and its JSON.

use lanejit::profile::{add_block_time, BlockRow};
use lanejit::{CompileConfig, Device, Engine, Kernel, LaunchConfig, LaunchError, LaunchStats};
use lanejit_cli::examples::{self, Size};
use serde_json::Value;
use std::process::Command;

const ENGINES: [Engine; 3] = [Engine::Interp, Engine::Jit, Engine::Auto];

/// The tests of this file run one at a time: each samples its launch's workers from a thread of its own, and the
/// others' launches would crowd out the few samples a short launch gets. (Sampling's cost is a benchmark:
/// `cargo bench --bench block_time`.)
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn alone() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// `ex` assembled, its compiled code marking the blocks it enters when `marking`.
fn assemble(ex: &examples::Example, marking: bool) -> Kernel {
    let mut config = CompileConfig::default();
    config.jit.mark_blocks = marking;
    Kernel::from_asm(&format!("examples/{}.s", ex.name), ex.source)
        .unwrap_or_else(|e| panic!("{e}"))
        .with_config(config)
}

/// Launches `ex` (on a fresh device, at `size`) with `cfg`'s changes; the statistics (also after a trap) and
/// what the example's check says of the results.
fn launch(
    ex: &examples::Example,
    kernel: &Kernel,
    size: Size,
    change: impl FnOnce(&mut LaunchConfig),
) -> (LaunchStats, Result<String, String>) {
    let device = Device::new().expect("device");
    let setup = (ex.setup)(&device, size).unwrap_or_else(|e| panic!("{}: {e}", ex.name));
    let mut cfg = setup.cfg.clone();
    change(&mut cfg);
    let stats = match device.launch(kernel, &cfg) {
        Ok(s) | Err(LaunchError::Trap { stats: s, .. }) => s,
        Err(e) => panic!("{}: {e}", ex.name),
    };
    (stats, (setup.check)(&device))
}

/// The blocks of a launch on `engine` with block time, their time filled in.
fn timed_blocks(ex: &examples::Example, engine: Engine) -> (Vec<BlockRow>, u64) {
    let kernel = assemble(ex, true);
    let (stats, check) = launch(ex, &kernel, Size::Default, |c| (c.engine, c.block_time) = (engine, true));
    check.unwrap_or_else(|e| panic!("{} on {engine:?}: {e}", ex.name));
    let time = stats.block_time.as_deref().unwrap_or_else(|| panic!("{engine:?}: no block time"));
    let profile = lanejit::profile::Profile { counts: vec![Default::default(); kernel.code.words.len()] };
    let mut rows = profile.block_rows(&kernel, engine);
    add_block_time(&mut rows, time);
    (rows, time.samples())
}

#[test]
fn shares_sum_to_one_and_the_hot_loop_block_leads_on_every_engine() {
    let _alone = alone();
    let ex = examples::by_name("alu_loop").expect("alu_loop");
    // The loop's block: the one that branches back to itself, at the `loop:` label.
    let loop_start = assemble(ex, false).program.labels["loop"];
    for engine in ENGINES {
        let (rows, samples) = timed_blocks(ex, engine);
        assert!(samples >= 20, "{engine:?}: only {samples} samples");
        let sum: f64 = rows.iter().map(|r| r.time_share.expect("a share")).sum();
        assert!((sum - 1.0).abs() < 1e-9, "{engine:?}: shares sum to {sum}: {rows:?}");
        assert_eq!(rows.iter().map(|r| r.samples).sum::<u64>(), samples, "{engine:?}: every sample in a block");
        let hottest = rows.iter().max_by(|a, b| a.time_share.partial_cmp(&b.time_share).unwrap()).unwrap();
        assert_eq!(hottest.start, loop_start, "{engine:?}: {rows:?}");
        assert!(hottest.time_share.unwrap() > 0.8, "{engine:?}: the loop is nearly all the time: {rows:?}");
        if engine == Engine::Interp {
            assert_eq!(hottest.interpreted_samples, hottest.samples, "the interpreter ran every sample");
        }
    }
}

#[test]
fn code_that_marks_its_blocks_gives_the_same_results_on_every_engine() {
    let _alone = alone();
    for ex in examples::all() {
        for engine in ENGINES {
            let what = format!("{} on {engine:?}", ex.name);
            let (plain, plain_check) = launch(ex, &assemble(ex, false), Size::Small, |c| c.engine = engine);
            let (sampled, check) =
                launch(ex, &assemble(ex, true), Size::Small, |c| (c.engine, c.block_time) = (engine, true));
            assert_eq!(check, plain_check, "{what}: the example's check");
            assert_eq!((sampled.retired, sampled.lane_ops), (plain.retired, plain.lane_ops), "{what}");
            assert_eq!(sampled.workgroups, plain.workgroups, "{what}");
            assert!(sampled.block_time.is_some() && plain.block_time.is_none(), "{what}");
            // Marking code launched without sampling writes its marks nowhere anyone reads.
            let (unsampled, check) = launch(ex, &assemble(ex, true), Size::Small, |c| c.engine = engine);
            assert_eq!(check, plain_check, "{what}: marking code, no sampling");
            assert_eq!(unsampled.retired, plain.retired, "{what}");
        }
    }
}

#[test]
fn block_time_on_a_compiling_engine_needs_code_that_marks_its_blocks() {
    let _alone = alone();
    let ex = examples::by_name("vadd").expect("vadd");
    for engine in [Engine::Jit, Engine::Auto] {
        let device = Device::new().expect("device");
        let setup = (ex.setup)(&device, Size::Small).expect("setup");
        let cfg = LaunchConfig { engine, block_time: true, ..setup.cfg.clone() };
        match device.launch(&assemble(ex, false), &cfg) {
            Err(LaunchError::Config(e)) => assert!(e.to_string().contains("mark_blocks"), "{e}"),
            other => panic!("{engine:?}: {other:?}"),
        }
    }
    // The interpreter marks what it runs itself.
    let (stats, check) =
        launch(ex, &assemble(ex, false), Size::Small, |c| (c.engine, c.block_time) = (Engine::Interp, true));
    check.expect("vadd's answer");
    assert!(stats.block_time.is_some());
}

#[test]
fn the_profile_command_reports_each_blocks_share_of_time() {
    let _alone = alone();
    let run = |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_lanejit")).args(args).output().expect("lanejit starts");
    let out = run(&["profile", "alu_loop", "--engine", "jit", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let blocks = doc["blocks"].as_array().expect("blocks");
    let shares: Vec<f64> = blocks.iter().map(|b| b["time_share"].as_f64().expect("time_share")).collect();
    assert!((shares.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{blocks:?}");
    let samples: u64 = blocks.iter().map(|b| b["samples"].as_u64().expect("samples")).sum();
    assert_eq!(Some(samples), doc["totals"]["time_samples"].as_u64(), "{:#}", doc["totals"]);
    let text = run(&["profile", "alu_loop", "--engine", "jit"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("time per block:"), "{text}");
    let loop_start = assemble(examples::by_name("alu_loop").expect("alu_loop"), false).program.labels["loop"];
    let head = format!("┌ block {loop_start:#x}..");
    let marker = text.lines().find(|l| l.contains(&head)).unwrap_or_else(|| panic!("{head}: {text}"));
    assert!(marker.contains("of the time"), "{marker}");
}
