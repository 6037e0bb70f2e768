//! `lanejit bench`: every bundled kernel on the interpreter, on the JIT and as native Rust, all in one run, with
//! the ratios the project's targets are stated in. Throughput is lane-ops (active lanes × retired instructions)
//! per second; times are the best of three runs, each checked against the Rust reference.

use crate::bench_kernel::{self, BENCH_ENGINES, DEFAULT_REPEAT};
use crate::cli::{load_named_kernel, Failed, LaunchArgs};
use crate::examples::{self, Size};
use anyhow::{anyhow, bail, Result};
use lanejit::{CompileConfig, Device, Engine, Kernel, LaunchConfig};
use lanejit_jit::Tier;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// `lanejit bench` arguments.
#[derive(clap::Args, Clone)]
pub struct BenchArgs {
    /// Time first launches instead: generated large kernels (alu, xlane, mem, loop, barrier; 1k and 5k
    /// instructions, 20k at the default size, 100k with `--size large`) and every bundled example (at the default
    /// size with `--size large`, unless `--engines` leaves the interpreter out), a fresh kernel per engine (`--engines`, default interp,jit,auto), `--repeat` launches each (default 5): first launch,
    /// best, the launch at steady state, compile time on and off the critical path. Exit 1 if the engines
    /// disagree.
    #[arg(long, conflicts_with_all = ["kernel", "profile", "scaling_all", "skip_large"])]
    pub first_launch: bool,
    /// Your kernel (source .s or binary) instead of the bundled ones: launched as `run` launches it (the options
    /// below it up to `--kernel`), `--repeat` times on each of `--engines`, each launch from the buffers' initial
    /// contents; the engines' output buffers must agree (exit 1 otherwise, or on a trap).
    pub kernel: Option<PathBuf>,
    /// Your kernel's launch: grid, workgroup, buffers, arguments, threads and limits, as `run` takes them.
    #[command(flatten)]
    pub launch: LaunchArgs,
    /// With a kernel: the engines to time, in order (the first one's buffers are the reference); default all.
    #[arg(long, value_delimiter = ',', value_parser = clap::builder::PossibleValuesParser::new(BENCH_ENGINES))]
    pub engines: Vec<String>,
    /// With a kernel: launches per engine (default 5); the first, compilation included, is reported apart, best and
    /// median are of the others.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: Option<u32>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Only kernels whose name contains this.
    #[arg(long, conflicts_with = "kernel")]
    pub filter: Option<String>,
    /// Problem size: small, default or large.
    #[arg(long, conflicts_with = "kernel", default_value = "default")]
    pub size: String,
    /// Skip the interpreter when a kernel's interpreted run would exceed this many retired instructions
    /// (estimated from the JIT run); the row then reports the JIT alone.
    #[arg(long, conflicts_with = "kernel", default_value_t = 50_000_000)]
    pub interp_limit: u64,
    /// Size of the two-thread scaling run of alu_loop (it needs enough work per launch that starting threads and
    /// workgroups does not dominate).
    #[arg(long, conflicts_with = "kernel", default_value = "large")]
    pub scaling_size: String,
    /// Also measure one against two worker threads (the JIT) for every chosen kernel at `--size`, not only
    /// alu_loop at `--scaling-size`: the "two threads on every large kernel" (memory-bound ones included).
    #[arg(long, conflicts_with = "kernel")]
    pub scaling_all: bool,
    /// Launches per figure for the bundled kernels, the shortest reported: more give steadier figures on a noisy
    /// machine (a VM's run-to-run spread can exceed 30%).
    #[arg(long, conflicts_with = "kernel", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub best_of: u32,
    /// Leave out the extra row for the matrix multiply at the large size (1024 × 1024 × 1024 f32, JIT only).
    #[arg(long, conflicts_with = "kernel")]
    pub skip_large: bool,
    /// Only launch each chosen kernel this many times on the JIT (one setup, answer checked once at the end),
    /// printing the time per launch: a clean run for a profiler (`perf record -g lanejit bench --profile 20`).
    #[arg(long, conflicts_with = "kernel")]
    pub profile: Option<u32>,
}

fn parse_size(s: &str) -> Result<Size> {
    match s {
        "small" => Ok(Size::Small),
        "default" => Ok(Size::Default),
        "large" => Ok(Size::Large),
        s => Err(anyhow!("unknown size `{s}` (small, default, large)")),
    }
}

/// One row of `lanejit bench`: a bundled kernel at one size on every engine, with the ratios.
#[derive(Debug, Default, serde::Serialize)]
pub struct BenchRow {
    /// The bundled example's name.
    pub kernel: String,
    /// Its problem size: `small`, `default` or `large`.
    pub size: String,
    /// Instructions the launch retired.
    pub retired: u64,
    /// Active lanes × retired instructions.
    pub lane_ops: u64,
    /// Best interpreter time, seconds (`None`: skipped by `--interp-limit`).
    pub interp_s: Option<f64>,
    /// Best JIT time, seconds.
    pub jit_s: f64,
    /// Best time of the native Rust implementation, seconds.
    pub native_s: f64,
    /// Interpreter time / JIT time.
    pub jit_speedup: Option<f64>,
    /// Interpreter throughput, lane-ops per second.
    pub interp_lane_ops_per_s: Option<f64>,
    /// JIT throughput, lane-ops per second.
    pub jit_lane_ops_per_s: f64,
    /// JIT time / native time (1.0 = as fast as native Rust; lower is better).
    pub jit_vs_native: f64,
    /// Compiling the whole kernel with the quick tier (what `--engine jit` does before running).
    pub compile_ms: f64,
    /// `compile_ms` per guest instruction, microseconds.
    pub compile_us_per_insn: f64,
    /// Compiling the whole kernel with the optimising tier (`--engine jit` recompiles only the hot blocks).
    pub opt_compile_ms: f64,
    /// `opt_compile_ms` per guest instruction, microseconds.
    pub opt_compile_us_per_insn: f64,
    /// Instructions of the whole kernel the compiler saw.
    pub guest_insns: usize,
    /// The JIT with quick code only (no block recompiled), and its speedup over the interpreter.
    pub quick_s: Option<f64>,
    /// Interpreter time / quick-code time.
    pub quick_speedup: Option<f64>,
    /// Percent of the JIT run's retired instructions that the interpreter executed (the last of the runs).
    pub jit_interpreted_pct: f64,
}

/// A launch whose trap is the kernel's failure (exit 1), not bad input (a refused configuration: exit 2).
fn launch(device: &Device, kernel: &Kernel, cfg: &LaunchConfig) -> Result<lanejit::LaunchStats> {
    device.launch(kernel, cfg).map_err(|e| match e {
        lanejit::LaunchError::Trap { .. } => Failed(e.to_string()).into(),
        e => e.into(),
    })
}

/// One checked launch; returns (launch time, native time, retired, lane-ops, interpreted).
fn once(
    ex: &examples::Example,
    kernel: &Kernel,
    engine: Engine,
    size: Size,
    threads: usize,
) -> Result<(Duration, Duration, u64, u64, u64)> {
    let device = Device::new()?;
    let setup = (ex.setup)(&device, size).map_err(|e| anyhow!(e))?;
    let cfg = LaunchConfig { engine, threads: Some(threads), ..setup.cfg.clone() };
    let start = Instant::now();
    let stats = launch(&device, kernel, &cfg)?;
    let took = start.elapsed();
    (setup.check)(&device).map_err(|e| Failed(format!("{}: wrong answer on {engine:?}: {e}", ex.name)))?;
    let n0 = Instant::now();
    (setup.native)();
    Ok((took, n0.elapsed(), stats.retired, stats.lane_ops, stats.interpreted))
}

/// The shortest of `m.best_of` launches (and of their native runs), in the steady state: after a first launch
/// whose hot blocks the compile threads are then left to finish (a launch never waits for them itself).
fn best(
    ex: &examples::Example,
    kernel: &Kernel,
    engine: Engine,
    m: Measure,
    threads: usize,
) -> Result<(Duration, Duration, u64, u64, u64)> {
    let size = m.size;
    if engine != Engine::Interp {
        once(ex, kernel, engine, size, threads)?;
        kernel.wait_for_compiles();
    }
    let mut b = once(ex, kernel, engine, size, threads)?;
    for _ in 1..m.best_of {
        let r = once(ex, kernel, engine, size, threads)?;
        b = (b.0.min(r.0), b.1.min(r.1), r.2, r.3, r.4);
    }
    Ok(b)
}

/// How a bundled kernel is measured: its problem size and launches per figure (the shortest counts).
#[derive(Clone, Copy)]
pub struct Measure {
    /// The example's problem size.
    pub size: Size,
    /// Launches per figure (at least 1).
    pub best_of: u32,
}

/// Measures one bundled example at `m.size`: compile times, the JIT, the interpreter (unless the run would retire more than `interp_limit`), quick code alone and native Rust.
pub fn measure(ex: &examples::Example, m: Measure, interp_limit: u64, compile: &CompileConfig) -> Result<BenchRow> {
    let size = m.size;
    // A fresh kernel per measurement so the compile time is this run's.
    let kernel = assemble(ex, compile)?;
    let insns = kernel.quick().map_err(|e| anyhow!(e))?.guest_insns.max(1) as f64;
    let (quick_c, opt_c) = (
        median_compile(&kernel.code, Tier::Quick, &compile.jit)?,
        median_compile(&kernel.code, Tier::Opt, &compile.jit)?,
    );
    let (jit, native, retired, lane_ops, interpreted) = best(ex, &kernel, Engine::Jit, m, 1)?;
    let interp = if retired <= interp_limit { Some(best(ex, &kernel, Engine::Interp, m, 1)?.0) } else { None };
    // Quick code alone, where the interpreter also ran (quick code on a run too long to interpret is slow too).
    let quick = match interp {
        Some(_) => {
            let only_quick = assemble(ex, &CompileConfig { jit_hot: u32::MAX, ..*compile })?;
            Some(best(ex, &only_quick, Engine::Jit, m, 1)?.0)
        }
        None => None,
    };
    let secs = |d: Duration| d.as_secs_f64().max(1e-9);
    Ok(BenchRow {
        kernel: ex.name.into(),
        size: format!("{size:?}").to_lowercase(),
        retired,
        lane_ops,
        interp_s: interp.map(secs),
        jit_s: secs(jit),
        native_s: secs(native),
        jit_speedup: interp.map(|i| secs(i) / secs(jit)),
        interp_lane_ops_per_s: interp.map(|i| lane_ops as f64 / secs(i)),
        jit_lane_ops_per_s: lane_ops as f64 / secs(jit),
        jit_vs_native: secs(jit) / secs(native),
        compile_ms: quick_c.as_secs_f64() * 1e3,
        guest_insns: insns as usize,
        compile_us_per_insn: quick_c.as_secs_f64() * 1e6 / insns,
        opt_compile_ms: opt_c.as_secs_f64() * 1e3,
        opt_compile_us_per_insn: opt_c.as_secs_f64() * 1e6 / insns,
        quick_s: quick.map(secs),
        quick_speedup: interp.zip(quick).map(|(i, q)| secs(i) / secs(q)),
        jit_interpreted_pct: 100.0 * interpreted as f64 / retired.max(1) as f64,
    })
}

/// Compile time of the whole kernel: the median of `COMPILES` fresh compilations (one is noisy: the first
/// touches cold caches and fresh code pages).
fn median_compile(code: &lanejit_interp::Code, tier: Tier, opts: &lanejit_jit::JitOptions) -> Result<Duration> {
    const COMPILES: usize = 7;
    let mut times = Vec::with_capacity(COMPILES);
    for _ in 0..COMPILES {
        let t0 = Instant::now();
        lanejit_jit::compile_blocks(code, None, tier, opts).map_err(|e| anyhow!(e))?;
        times.push(t0.elapsed());
    }
    times.sort();
    Ok(times[COMPILES / 2])
}

/// Launch time with one and with two worker threads (the JIT), on a many-workgroup kernel.
pub fn scaling(name: &str, m: Measure, compile: &CompileConfig) -> Result<(f64, f64)> {
    let ex = examples::by_name(name).ok_or_else(|| anyhow!("no example {name}"))?;
    let kernel = assemble(ex, compile)?;
    let one = best(ex, &kernel, Engine::Jit, m, 1)?.0.as_secs_f64();
    let two = best(ex, &kernel, Engine::Jit, m, 2)?.0.as_secs_f64();
    Ok((one, two))
}

fn print_row(r: &BenchRow) {
    let opt =
        |x: Option<f64>, scale: f64, w: usize| x.map_or(format!("{:>w$}", "-"), |v| format!("{:>w$.1}", v * scale));
    let name = if r.size == "default" { r.kernel.clone() } else { format!("{} ({})", r.kernel, r.size) };
    println!(
        "{:<16} {:>11} {:>10} {:>9.2} {:>9.3} {:>8} {:>8} {:>9.0} {:>8.2} {:>9} {:>7} {:>7.2} {:>7.1} {:>7.2}",
        name,
        r.retired,
        opt(r.interp_s, 1e3, 10),
        r.jit_s * 1e3,
        r.native_s * 1e3,
        opt(r.jit_speedup, 1.0, 8),
        opt(r.interp_lane_ops_per_s, 1e-6, 8),
        r.jit_lane_ops_per_s / 1e6,
        r.jit_vs_native,
        opt(r.quick_s, 1e3, 9),
        opt(r.quick_speedup, 1.0, 7),
        r.compile_us_per_insn * 100.0 / 1e3,
        r.opt_compile_us_per_insn * 100.0 / 1e3,
        r.jit_interpreted_pct
    );
}

/// `lanejit bench KERNEL`: the user's kernel with `run`'s options, on each chosen engine.
fn run_user_kernel(a: &BenchArgs, path: &std::path::Path, compile: &CompileConfig) -> Result<()> {
    let engines = bench_kernel::chosen_engines(&a.engines)?;
    if a.launch.check.is_some() {
        // Every engine's row would time the same checking interpreter.
        bail!("bench KERNEL compares the engines; time a checker with `lanejit run KERNEL --check C --repeat N`");
    }
    let opts = crate::runcmd::RunOptions {
        json: a.json,
        repeat: a.repeat.unwrap_or(DEFAULT_REPEAT),
        ..a.launch.options(compile)
    };
    let kernel = load_named_kernel(path, a.launch.kernel_name.as_deref(), compile)?;
    bench_kernel::run(&kernel, &engines, &opts)
}

/// `--profile N`: N launches of each kernel on the JIT, one worker thread, nothing else timed or run.
fn profile(chosen: &[&examples::Example], size: Size, launches: u32, compile: &CompileConfig) -> Result<()> {
    for ex in chosen {
        let kernel = assemble(ex, compile)?;
        let device = Device::new()?;
        let setup = (ex.setup)(&device, size).map_err(|e| anyhow!(e))?;
        let cfg = LaunchConfig { engine: Engine::Jit, threads: Some(1), ..setup.cfg.clone() };
        let t0 = Instant::now();
        for _ in 0..launches {
            launch(&device, &kernel, &cfg)?;
        }
        let per = t0.elapsed().as_secs_f64() * 1e3 / launches.max(1) as f64;
        // Kernels that update memory in place (saxpy, histogram) are checked only after their first launch.
        let verdict = if launches == 1 {
            (setup.check)(&device).map_err(|e| Failed(format!("{}: wrong answer: {e}", ex.name)))?
        } else {
            "not checked".into()
        };
        println!("{:<12} {launches} launches, {per:.3} ms each ({verdict})", ex.name);
    }
    Ok(())
}

/// A bundled example's kernel, compiled and tiered as `compile` says.
fn assemble(ex: &examples::Example, compile: &CompileConfig) -> Result<Kernel> {
    Ok(Kernel::from_asm(ex.name, ex.source).map_err(|e| anyhow!("{e}"))?.with_config(*compile))
}

/// `lanejit bench`: kernels compiled and tiered as `compile` says.
pub fn run(a: &BenchArgs, compile: &CompileConfig) -> Result<()> {
    if let Some(path) = &a.kernel {
        return run_user_kernel(a, path, compile);
    }
    if a.launch.any() || !a.engines.is_empty() || a.repeat.is_some() {
        bail!("--grid, --wg, --buffer, --arg, --threads, --budget, --deadline, --kernel, --check, --engines and --repeat go with a kernel file (`lanejit bench KERNEL ...`)");
    }
    let (size, scaling_size) = (parse_size(&a.size)?, parse_size(&a.scaling_size)?);
    let chosen: Vec<_> =
        examples::all().into_iter().filter(|e| a.filter.as_ref().is_none_or(|f| e.name.contains(f.as_str()))).collect();
    if let Some(n) = a.profile {
        return profile(&chosen, size, n, compile);
    }
    let with_scaling = chosen.iter().any(|e| e.name == "alu_loop");
    if !a.json {
        println!("one worker thread; times in ms, best of {}; lane-ops/s in millions; jit = quick code with hot blocks \
                  optimised, quick = quick code only; compile ms per 100 instructions of the whole kernel (median of 7) \
                  with the quick tier (c/100) and the optimising tier (opt/100); int% = share of the jit run's instructions the \
                  interpreter executed", a.best_of);
        println!(
            "{:<16} {:>11} {:>10} {:>9} {:>9} {:>8} {:>8} {:>9} {:>8} {:>9} {:>7} {:>7} {:>7} {:>7}",
            "kernel",
            "retired",
            "interp",
            "jit",
            "native",
            "speedup",
            "interp/s",
            "jit/s",
            "jit/nat",
            "quick",
            "quick×",
            "c/100",
            "opt/100",
            "int%"
        );
    }
    let mut runs: Vec<_> = chosen.iter().map(|&e| (e, size)).collect();
    if size != Size::Large && !a.skip_large && chosen.iter().any(|e| e.name == "matmul") {
        runs.push((examples::by_name("matmul").expect("bundled"), Size::Large));
    }
    // Host ISA detection happens once per process, at the first compile: do it before any timed compile.
    if let Some(ex) = chosen.first() {
        let k = assemble(ex, compile)?;
        k.compiled().map_err(|e| anyhow!(e))?;
        k.quick().map_err(|e| anyhow!(e))?;
    }
    let mut rows = Vec::new();
    let template = "{spinner} bench {bar:30} {pos}/{len} kernels, now {msg} [{elapsed_precise}]";
    let bar = crate::progress::bar(crate::progress::wanted(a.json), runs.len() as u64, template);
    for (ex, size) in runs {
        bar.set_message(ex.name);
        let row = measure(ex, Measure { size, best_of: a.best_of }, a.interp_limit, compile)?;
        if !a.json {
            bar.suspend(|| print_row(&row));
        }
        rows.push(row);
        bar.inc(1);
    }
    bar.finish_and_clear();
    let at = |size| Measure { size, best_of: a.best_of };
    let scale = if with_scaling { Some(scaling("alu_loop", at(scaling_size), compile)?) } else { None };
    let mut all = Vec::new();
    for ex in chosen.iter().filter(|_| a.scaling_all) {
        let (one, two) = scaling(ex.name, at(size), compile)?;
        if !a.json {
            println!(
                "threads: {} ({}) on the JIT, 1 thread {:.2} ms, 2 threads {:.2} ms, speedup {:.2}x",
                ex.name,
                format!("{size:?}").to_lowercase(),
                one * 1e3,
                two * 1e3,
                one / two
            );
        }
        all.push(
            serde_json::json!({"kernel": ex.name, "one_thread_s": one, "two_threads_s": two, "speedup": one / two}),
        );
    }
    let scaling_size = format!("{scaling_size:?}").to_lowercase();
    if a.json {
        let s = scale.map(|(one, two)| serde_json::json!({"kernel": "alu_loop", "size": scaling_size, "one_thread_s": one, "two_threads_s": two, "speedup": one / two}));
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({"rows": rows, "scaling": s, "scaling_all": all}))?
        );
    } else if let Some((one, two)) = scale {
        println!(
            "threads: alu_loop ({scaling_size}) on the JIT, 1 thread {:.2} ms, 2 threads {:.2} ms, speedup {:.2}x",
            one * 1e3,
            two * 1e3,
            one / two
        );
    }
    Ok(())
}
