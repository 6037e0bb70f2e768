//! `lanejit bench`: every bundled kernel on each available engine and as native Rust, in one run, with
//! ratios. Throughput is lane-ops (active lanes × retired instructions) per second.

use crate::examples::{self, Size};
use crate::{engine_available, Device, Engine, Kernel};
use anyhow::{anyhow, Result};
use std::time::{Duration, Instant};

#[derive(clap::Args, Clone)]
pub struct BenchArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Only kernels whose name contains this.
    #[arg(long)]
    pub filter: Option<String>,
    /// Problem size: small, default or large.
    #[arg(long, default_value = "default")]
    pub size: String,
    /// Worker threads for the launches (default 1: per-core figures).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
}

#[derive(Debug, serde::Serialize)]
pub struct BenchRow {
    pub kernel: String,
    pub engine: String,
    pub seconds: f64,
    pub retired: u64,
    pub lane_ops: u64,
    pub lane_ops_per_s: f64,
    pub native_seconds: f64,
    /// Engine time / native time (lower is better).
    pub slowdown_vs_native: f64,
}

/// Best of `reps` runs of `f`.
fn best_of(reps: usize, mut f: impl FnMut() -> Result<Duration>) -> Result<Duration> {
    let mut best = Duration::MAX;
    for _ in 0..reps {
        best = best.min(f()?);
    }
    Ok(best)
}

/// Measures one example on one engine; the answer is checked after every run.
pub fn measure(ex: &examples::Example, engine: Engine, size: Size, threads: usize) -> Result<BenchRow> {
    let kernel = Kernel::from_asm(ex.name, ex.source).map_err(|e| anyhow!("{e}"))?;
    let (mut retired, mut lane_ops, mut native) = (0, 0, Duration::MAX);
    let t = best_of(3, || {
        let device = Device::new()?;
        let setup = (ex.setup)(&device, size).map_err(|e| anyhow!(e))?;
        let cfg = crate::LaunchConfig { engine, threads: Some(threads), ..setup.cfg.clone() };
        let start = Instant::now();
        let stats = device.launch(&kernel, &cfg)?;
        let took = start.elapsed();
        (setup.check)(&device).map_err(|e| anyhow!("{}: wrong answer: {e}", ex.name))?;
        let n0 = Instant::now();
        (setup.native)();
        native = native.min(n0.elapsed());
        (retired, lane_ops) = (stats.retired, stats.lane_ops);
        Ok(took)
    })?;
    let secs = t.as_secs_f64();
    Ok(BenchRow {
        kernel: ex.name.into(), engine: format!("{engine:?}").to_lowercase(), seconds: secs, retired, lane_ops,
        lane_ops_per_s: lane_ops as f64 / secs, native_seconds: native.as_secs_f64(),
        slowdown_vs_native: secs / native.as_secs_f64().max(1e-12),
    })
}

pub fn run(a: &BenchArgs) -> Result<()> {
    let size = match a.size.as_str() {
        "small" => Size::Small,
        "default" => Size::Default,
        "large" => Size::Large,
        s => return Err(anyhow!("unknown size `{s}` (small, default, large)")),
    };
    let engines: Vec<Engine> = [Engine::Interp, Engine::Jit].into_iter().filter(|e| engine_available(*e).is_ok()).collect();
    let mut rows = Vec::new();
    for ex in examples::all().into_iter().filter(|e| a.filter.as_ref().is_none_or(|f| e.name.contains(f.as_str()))) {
        for &engine in &engines {
            let row = measure(ex, engine, size, a.threads)?;
            if !a.json {
                println!("{:<12} {:<7} {:>10.3} ms {:>12} instr {:>9.1} M lane-ops/s   native {:>9.3} ms   engine/native {:>8.1}x",
                    row.kernel, row.engine, row.seconds * 1e3, row.retired, row.lane_ops_per_s / 1e6,
                    row.native_seconds * 1e3, row.slowdown_vs_native);
            }
            rows.push(row);
        }
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    }
    Ok(())
}
