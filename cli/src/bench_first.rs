//! `lanejit bench --first-launch`: what a kernel's first launches cost on each engine, compilation included.
//!
//! Over generated large kernels (straight-line ALU, cross-lane and memory code, a loop, barriers; 1k to 100k
//! instructions; `bench_first/generate.rs`) and every bundled example, each engine gets a fresh kernel (`CompileConfig::share` off, so no code
//! compiled for another engine or run is reused) and a series of launches, each from the same initial buffers and
//! all prepared before the first, so that the launches run back to back as an application's would. Reported per
//! engine: the first launch, the best, the launch at which the series reached its steady state (the first within
//! [`STEADY_WITHIN`] of the best), the compile time on the launch's critical path (the JIT's eager quick compile)
//! and the compile time spent off it (background compilations of hot blocks, measured after the series: waiting for
//! them between launches would hide their cost), both as the compile threads' CPU time and as the compiled code's
//! own `compile_time`.
//!
//! The engines' outputs must agree: a generated kernel's buffer after each engine's first launch is compared with
//! the reference engine's (the interpreter's), a bundled example's is checked against its Rust reference; a
//! disagreement or a wrong answer exits 1 (after the report), a trap at once.

mod generate;
mod table;
mod work;

use work::{disagreement, works, FirstOutput, Prepared, Work};

use crate::bench::BenchArgs;
use crate::bench_kernel;
use crate::cli::Failed;
use anyhow::{anyhow, bail, Result};
use lanejit::{CompileConfig, Device, Engine, Kernel, LaunchConfig, LaunchError, LaunchStats};
use std::time::{Duration, Instant};

/// The engines timed when `--engines` is not given: the eager JIT and the tiered engine against the interpreter.
pub const DEFAULT_ENGINES: [&str; 3] = ["interp", "jit", "auto"];

/// Launches per engine when `--repeat` is not given.
pub const DEFAULT_REPEAT: u32 = 5;

/// Most launches per engine: every launch's buffers are prepared before the first (see the module's text).
pub const MAX_REPEAT: u32 = 50;

/// A series has reached its steady state at the first launch no slower than this many times its best.
pub const STEADY_WITHIN: f64 = 1.2;

/// An interpreter first launch slower than this makes the kernel's series short ([`SLOW_REPEAT`] launches).
pub const SLOW_INTERP: Duration = Duration::from_secs(2);

/// Launches per engine of a kernel whose interpreter first launch exceeds [`SLOW_INTERP`].
pub const SLOW_REPEAT: u32 = 3;

/// Worker threads of every launch: one, as the rest of `lanejit bench`, which leaves the other core of a small
/// machine to the compile thread (background compilation is then truly off the critical path).
pub const WORKER_THREADS: usize = 1;

/// The generated kernels' seed.
pub const SEED: u64 = 1;

/// `lanejit bench --first-launch` options (the hook in `cli.rs` fills them from `bench`'s own).
#[derive(Clone, Debug, Default)]
pub struct FirstLaunchArgs {
    /// `small` (1k and 5k instructions, examples at their small size), `default` (adds 20k) or `large` (adds
    /// 100k; examples at their default size).
    pub size: String,
    /// Engines to time, by name (`interp`, `quick`, `jit`, `auto`); empty: [`DEFAULT_ENGINES`]. The interpreter
    /// always runs first (it is the reference).
    pub engines: Vec<String>,
    /// Launches per engine (default [`DEFAULT_REPEAT`], at most [`MAX_REPEAT`]).
    pub repeat: Option<u32>,
    /// Print one JSON object instead of the table.
    pub json: bool,
    /// Only kernels whose name contains this.
    pub filter: Option<String>,
}

impl FirstLaunchArgs {
    /// The options `lanejit bench --first-launch` was given; those that go with a kernel file or with the other
    /// bundled-kernel measurements are refused (bad input, exit 2).
    pub fn from_bench(a: &BenchArgs) -> Result<FirstLaunchArgs> {
        if a.kernel.is_some() || a.launch.any() {
            bail!(
                "--first-launch measures generated kernels and the bundled examples: no kernel file or launch options"
            );
        }
        if a.profile.is_some() || a.scaling_all || a.skip_large {
            bail!("--first-launch goes without --profile, --scaling-all and --skip-large");
        }
        Ok(FirstLaunchArgs {
            size: a.size.clone(),
            engines: a.engines.clone(),
            repeat: a.repeat,
            json: a.json,
            filter: a.filter.clone(),
        })
    }
}

/// One engine's series on one kernel.
#[derive(Clone, Debug, serde::Serialize)]
pub struct EngineRow {
    /// The engine's name.
    pub engine: &'static str,
    /// Launches timed.
    pub launches: u32,
    /// Every launch, in order, milliseconds (wall clock around `Device::launch`, compilation included).
    pub times_ms: Vec<f64>,
    /// The first launch, milliseconds.
    pub first_ms: f64,
    /// The fastest launch, milliseconds.
    pub best_ms: f64,
    /// The first launch (from 1) within [`STEADY_WITHIN`] of `best_ms`.
    pub steady_at: u32,
    /// Compile time on the critical path, milliseconds: the whole kernel compiled before launch 1 (`jit`,
    /// `quick`), and with no compile thread the hot blocks' compilations too.
    pub critical_compile_ms: f64,
    /// Compile time off the critical path, milliseconds: the `compile_time` of the tiering states' code after
    /// the series (the compilations that built it; a whole recompilation it replaced is not counted). Wall clock
    /// on the compile thread, which runs at a lower priority than the workers: on a busy machine it counts the
    /// time the thread waited for a core (see `background_cpu_ms`).
    pub background_compile_ms: f64,
    /// CPU time of the process's compile threads from before launch 1 until the compilations the series
    /// started had finished, milliseconds: every background compilation, replaced ones included (`None` where
    /// threads' CPU times cannot be read: only Linux's `/proc` gives them).
    pub background_cpu_ms: Option<f64>,
    /// Blocks those background compilations compiled (a block recompiled counts again).
    pub background_blocks: usize,
    /// A background compilation finished only after the last launch (its code served no launch timed).
    pub compiled_after_series: bool,
    /// Instructions the first launch retired.
    pub retired: u64,
    /// Percent of them the interpreter executed.
    pub first_interpreted_pct: f64,
    /// The same of the last launch (whether the series ended in compiled code).
    pub last_interpreted_pct: f64,
    /// `first_ms` over the interpreter's first launch (below 1: faster), when the interpreter ran.
    pub first_vs_interp: Option<f64>,
}

/// One kernel on every chosen engine.
#[derive(Clone, Debug, serde::Serialize)]
pub struct KernelRow {
    /// `alu-5k`, ... or a bundled example's name.
    pub kernel: String,
    /// `generated` or `example`.
    pub source: &'static str,
    /// Code size, 32-bit words.
    pub words: usize,
    /// Workgroups of one launch.
    pub workgroups: u64,
    /// Waves of one launch.
    pub waves: u64,
    /// The series was cut to [`SLOW_REPEAT`] launches (the interpreter's first launch exceeded [`SLOW_INTERP`]).
    pub capped: bool,
    /// The engines, in the order they ran.
    pub engines: Vec<EngineRow>,
    /// Every engine's first launch agreed with the reference (and, for an example, with its Rust reference).
    pub outputs_agree: bool,
    /// What disagreed, one line each.
    pub disagreements: Vec<String>,
}

/// The whole run.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Report {
    /// `small`, `default` or `large`.
    pub size: String,
    /// Launches per engine asked for.
    pub repeat: u32,
    /// Worker threads of each launch.
    pub worker_threads: usize,
    /// Background compile threads (`CompileConfig::compile_threads`; 0: compilations on the launch's worker).
    pub compile_threads: usize,
    /// See [`STEADY_WITHIN`].
    pub steady_within: f64,
    /// See [`SLOW_INTERP`], seconds.
    pub slow_interp_s: f64,
    /// See [`SLOW_REPEAT`].
    pub slow_repeat: u32,
    /// The generated kernels' seed.
    pub seed: u64,
    /// The kernels, generated ones first.
    pub kernels: Vec<KernelRow>,
    /// Wall-clock time of the whole run, seconds.
    pub total_s: f64,
}

/// The chosen engines, the interpreter first; an engine named twice or unknown is refused.
fn engines(names: &[String]) -> Result<Vec<&'static str>> {
    let mut chosen = if names.is_empty() { DEFAULT_ENGINES.to_vec() } else { bench_kernel::chosen_engines(names)? };
    chosen.sort_by_key(|e| *e != "interp");
    Ok(chosen)
}

/// The launch engine and configuration behind an engine name: a kernel of its own (`share` off), and for `quick`
/// the JIT that never recompiles a block with the optimising tier.
fn engine_setup(name: &str, compile: &CompileConfig) -> Result<(Engine, CompileConfig)> {
    let fresh = CompileConfig { share: false, ..*compile };
    match name {
        "quick" => Ok((Engine::Jit, CompileConfig { jit_hot: u32::MAX, ..fresh })),
        _ => crate::cli::engine_by_name(name).map(|e| (e, fresh)).ok_or_else(|| anyhow!("unknown engine `{name}`")),
    }
}

/// A trap is the kernel's failure (exit 1), any other launch error the user's (exit 2).
fn checked(r: Result<LaunchStats, LaunchError>, what: &str) -> Result<LaunchStats> {
    r.map_err(|e| match e {
        LaunchError::Trap { trap, .. } => Failed(format!("{what}: trap: {trap}")).into(),
        e => anyhow!("{what}: {e}"),
    })
}

fn interpreted_pct(s: &LaunchStats) -> f64 {
    100.0 * s.interpreted as f64 / s.retired.max(1) as f64
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The tiering states' generations: a change while waiting means a compilation finished after the series.
fn generations(k: &Kernel) -> (u64, u64) {
    (k.auto_tiering.generation(), k.jit_promotion.generation())
}

/// Compile time of the code compiled eagerly, before launch 1 ran anything: the JIT's whole kernel (the
/// optimising tier when `jit_hot` is 0), also `auto`'s when `auto_hot` is 0 (it then runs the JIT).
fn eager_compile(kernel: &Kernel, engine: Engine) -> Result<Duration> {
    let c = kernel.config();
    let eager = match engine {
        Engine::Interp => false,
        Engine::Jit => true,
        Engine::Auto => c.auto_hot == 0,
    };
    if !eager {
        return Ok(Duration::ZERO);
    }
    // Already compiled by launch 1: these only read it.
    let code = if c.jit_hot == 0 { kernel.compiled() } else { kernel.quick() };
    Ok(code.map_err(|e| anyhow!(e))?.compile_time)
}

/// Compile time and blocks of the tiering states' current code (the background compilations').
fn tiered_compile(kernel: &Kernel) -> (Duration, usize) {
    let states = [&kernel.auto_tiering, &kernel.jit_promotion];
    let time = states.iter().filter_map(|t| t.current()).map(|ck| ck.compile_time).sum();
    (time, states.iter().map(|t| t.blocks_compiled()).sum())
}

/// CPU time the process's compile threads (`lanejit-compile-N`, named by the library's compile pool) have run so
/// far, from Linux's per-thread scheduler statistics (nanoseconds on a CPU); `None` elsewhere. A compilation's
/// own `compile_time` is wall clock, which a busy machine inflates for a low-priority thread.
fn compile_threads_cpu() -> Option<Duration> {
    let mut total = Duration::ZERO;
    for task in std::fs::read_dir("/proc/self/task").ok()?.flatten() {
        let path = task.path();
        // The kernel keeps 15 bytes of a thread's name.
        let is_compile = std::fs::read_to_string(path.join("comm")).is_ok_and(|n| n.starts_with("lanejit-compile"));
        if !is_compile {
            continue;
        }
        let stat = std::fs::read_to_string(path.join("schedstat")).ok()?;
        total += Duration::from_nanos(stat.split_whitespace().next()?.parse().ok()?);
    }
    Some(total)
}

/// The first launch (from 1) within [`STEADY_WITHIN`] of the best.
fn steady_at(times: &[Duration]) -> u32 {
    let best = times.iter().min().copied().unwrap_or_default();
    let limit = best.mul_f64(STEADY_WITHIN);
    times.iter().position(|&t| t <= limit).map_or(1, |i| i as u32 + 1)
}

/// One engine's measured series.
struct Series {
    /// Its row (no ratio to the interpreter yet).
    row: EngineRow,
    /// The first launch's statistics.
    stats: LaunchStats,
    /// What the first launch left.
    output: FirstOutput,
    /// The kernel's code size, words.
    words: usize,
}

/// `launches` of a fresh kernel on engine `name`, back to back; `cap` cuts the series to [`SLOW_REPEAT`] when
/// the first launch exceeds [`SLOW_INTERP`] (the interpreter's series).
fn measure_engine(
    work: &Work,
    name: &'static str,
    compile: &CompileConfig,
    launches: u32,
    cap: bool,
) -> Result<Series> {
    let what = format!("{} on {name}", work.name());
    let (engine, config) = engine_setup(name, compile)?;
    let kernel = work.kernel(config)?;
    let device = Device::new()?;
    // Every launch's buffers first: preparing them between launches would give background compilations time
    // that back-to-back launches do not.
    let ready: Vec<Prepared> = (0..launches).map(|_| work.prepare(&device)).collect::<Result<_>>()?;
    let (mut times, mut first_stats, mut last_stats) = (Vec::new(), None, None);
    let cpu_before = compile_threads_cpu();
    for p in &ready {
        let cfg = LaunchConfig { engine, threads: Some(WORKER_THREADS), ..p.cfg.clone() };
        let t0 = Instant::now();
        let stats = checked(device.launch(&kernel, &cfg), &what)?;
        times.push(t0.elapsed());
        first_stats.get_or_insert_with(|| stats.clone());
        last_stats = Some(stats);
        if cap && times[0] > SLOW_INTERP && times.len() >= SLOW_REPEAT as usize {
            break;
        }
    }
    let (stats, last) = first_stats.zip(last_stats).ok_or_else(|| anyhow!("{what}: no launch"))?;
    let output = ready[0].read(&device)?;
    // Only now: the launches above must not wait for the compilations they started.
    let before = generations(&kernel);
    kernel.wait_for_compiles();
    let compiled_after_series = generations(&kernel) != before;
    let cpu = compile_threads_cpu().zip(cpu_before).map(|(after, before)| ms(after.saturating_sub(before)));
    let mut row = engine_row(name, &kernel, engine, &times, &stats, compiled_after_series)?;
    row.background_cpu_ms = cpu;
    row.last_interpreted_pct = interpreted_pct(&last);
    Ok(Series { row, stats, output, words: kernel.program.words.len() })
}

/// The row of a measured series.
fn engine_row(
    name: &'static str,
    kernel: &Kernel,
    engine: Engine,
    times: &[Duration],
    stats: &LaunchStats,
    compiled_after_series: bool,
) -> Result<EngineRow> {
    let mut critical = eager_compile(kernel, engine)?;
    let (mut background, background_blocks) = tiered_compile(kernel);
    // With no compile thread, the worker that found blocks hot compiled them: on the critical path.
    if kernel.config().compile_threads == 0 {
        critical += std::mem::take(&mut background);
    }
    Ok(EngineRow {
        engine: name,
        launches: times.len() as u32,
        times_ms: times.iter().map(|&t| ms(t)).collect(),
        first_ms: ms(times[0]),
        best_ms: times.iter().map(|&t| ms(t)).fold(f64::INFINITY, f64::min),
        steady_at: steady_at(times),
        critical_compile_ms: ms(critical),
        background_compile_ms: ms(background),
        background_cpu_ms: None,
        background_blocks,
        compiled_after_series,
        retired: stats.retired,
        first_interpreted_pct: interpreted_pct(stats),
        last_interpreted_pct: 0.0,
        first_vs_interp: None,
    })
}

/// One kernel on every engine: the interpreter first, whose first launch decides the series' length.
/// `bar` shows the kernel and engine being measured and counts the engines done.
fn measure_kernel(
    work: &Work,
    chosen: &[&'static str],
    compile: &CompileConfig,
    repeat: u32,
    bar: &indicatif::ProgressBar,
) -> Result<KernelRow> {
    let (mut rows, mut disagreements) = (Vec::<EngineRow>::new(), Vec::new());
    let mut reference: Option<(&'static str, FirstOutput)> = None;
    let (mut launches, mut last) = (repeat, None);
    for &name in chosen {
        bar.set_message(format!("{} on {name}", work.name()));
        let s = measure_engine(work, name, compile, launches, name == "interp")?;
        bar.inc(1);
        if name == "interp" {
            launches = launches.min(s.row.launches);
        }
        // An example's answer is checked on every engine; a generated kernel's buffer against the reference's.
        if let FirstOutput::Checked(Err(e)) = &s.output {
            disagreements.push(format!("{name}: wrong answer: {e}"));
        }
        match &reference {
            None => reference = Some((name, s.output)),
            Some((rname, r)) => disagreements.extend(disagreement((rname, r), (name, &s.output))),
        }
        rows.push(s.row);
        last = Some((s.stats, s.words));
    }
    let (stats, words) = last.ok_or_else(|| anyhow!("no engine chosen"))?;
    if let Some(interp) = rows.iter().find(|r| r.engine == "interp").map(|r| r.first_ms) {
        rows.iter_mut().for_each(|r| r.first_vs_interp = Some(r.first_ms / interp.max(1e-9)));
    }
    Ok(KernelRow {
        kernel: work.name(),
        source: if matches!(work, Work::Generated(_)) { "generated" } else { "example" },
        words,
        workgroups: stats.workgroups,
        waves: stats.waves,
        capped: launches < repeat,
        outputs_agree: disagreements.is_empty(),
        disagreements,
        engines: rows,
    })
}

/// A small kernel launched once on every engine, not reported: the process's one-time costs (host ISA detection
/// at the first compile, the compile thread's start) must not land on the first kernel measured.
fn warm_up(compile: &CompileConfig) -> Result<()> {
    let work = Work::Generated(generate::alu(32, SEED));
    for name in DEFAULT_ENGINES {
        measure_engine(&work, name, compile, 1, false)?;
    }
    Ok(())
}

/// Measures every chosen kernel, calling `each` with each kernel's row as it is done (the table prints as it
/// goes: a large size takes minutes).
pub fn measure_all(a: &FirstLaunchArgs, compile: &CompileConfig, mut each: impl FnMut(&KernelRow)) -> Result<Report> {
    let started = Instant::now();
    let repeat = a.repeat.unwrap_or(DEFAULT_REPEAT);
    if !(1..=MAX_REPEAT).contains(&repeat) {
        bail!("--first-launch: --repeat {repeat}: 1..={MAX_REPEAT} launches per engine");
    }
    let chosen = engines(&a.engines)?;
    let works = works(&a.size, chosen.contains(&"interp"), a.filter.as_deref())?;
    if works.is_empty() {
        bail!("--filter {}: no kernel's name contains it", a.filter.as_deref().unwrap_or(""));
    }
    warm_up(compile)?;
    let mut kernels = Vec::new();
    let template = "{spinner} first launches {bar:30} {pos}/{len} kernel-engines, now {msg} [{elapsed_precise}]";
    let bar = crate::progress::bar(crate::progress::wanted(a.json), (works.len() * chosen.len()) as u64, template);
    for w in &works {
        let row = measure_kernel(w, &chosen, compile, repeat, &bar)?;
        bar.suspend(|| each(&row));
        kernels.push(row);
    }
    bar.finish_and_clear();
    Ok(Report {
        size: a.size.clone(),
        repeat,
        worker_threads: WORKER_THREADS,
        compile_threads: compile.compile_threads,
        steady_within: STEADY_WITHIN,
        slow_interp_s: SLOW_INTERP.as_secs_f64(),
        slow_repeat: SLOW_REPEAT,
        seed: SEED,
        kernels,
        total_s: started.elapsed().as_secs_f64(),
    })
}

/// `lanejit bench --first-launch`: the report as a table (printed as it goes) or one JSON object; exit 1 when
/// the engines disagree.
pub fn run(a: &FirstLaunchArgs, compile: &CompileConfig) -> Result<()> {
    if !a.json {
        table::header(a, compile);
    }
    let report = measure_all(a, compile, |row| {
        if !a.json {
            table::kernel(row);
        }
    })?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!("total {:.1} s", report.total_s);
    }
    let bad: Vec<String> =
        report.kernels.iter().flat_map(|k| k.disagreements.iter().map(|d| format!("{}: {d}", k.kernel))).collect();
    if bad.is_empty() {
        Ok(())
    } else {
        Err(Failed(format!("the engines disagree: {}", bad.join("; "))).into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The steady state is the first launch within 1.2× of the best, counted from 1.
    #[test]
    fn steady_state_is_the_first_launch_near_the_best() {
        let t = |v: &[u64]| v.iter().map(|&x| Duration::from_millis(x)).collect::<Vec<_>>();
        assert_eq!(steady_at(&t(&[100, 50, 11, 10, 10])), 3);
        assert_eq!(steady_at(&t(&[10, 50, 10])), 1);
        assert_eq!(steady_at(&t(&[12, 10])), 1);
        assert_eq!(steady_at(&t(&[13, 10])), 2);
    }

    /// `bench`'s own options carry over; a kernel file's launch options and the other measurements' are refused.
    #[test]
    fn bench_options_carry_over_and_launch_options_are_refused() {
        use clap::Parser;
        let bench = |args: &[&str]| match crate::cli::Cli::try_parse_from([&["lanejit", "bench"], args].concat()) {
            Ok(crate::cli::Cli { cmd: crate::cli::Cmd::Bench(a) }) => FirstLaunchArgs::from_bench(&a),
            _ => panic!("`bench {args:?}` parses"),
        };
        let a = bench(&["--size", "small", "--repeat", "2", "--engines", "auto,interp", "--json"]).unwrap();
        assert_eq!((a.size.as_str(), a.repeat, a.json), ("small", Some(2), true));
        assert_eq!(a.engines, ["auto", "interp"]);
        for refused in [&["--grid", "4"][..], &["--profile", "3"], &["--skip-large"]] {
            assert!(bench(refused).is_err(), "{refused:?}");
        }
    }

    /// The interpreter runs first whatever the order given, and an unknown engine is refused.
    #[test]
    fn the_interpreter_runs_first() {
        assert_eq!(engines(&[]).unwrap(), ["interp", "jit", "auto"]);
        assert_eq!(engines(&["auto".into(), "interp".into()]).unwrap(), ["interp", "auto"]);
        assert!(engines(&["fast".into()]).is_err());
    }
}
