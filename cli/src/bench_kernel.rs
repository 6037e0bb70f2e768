//! `lanejit bench KERNEL`: a user's kernel, set up by `run`'s kernel, grid, buffer and argument options, timed on
//! each engine. Every engine gets its own device and `--repeat` launches, each from the buffers' initial
//! contents (written again before every launch); the engines' output buffers are compared after the first
//! launch, and a trap or a disagreement is the kernel's failure (exit code 1).

use crate::cli::{engine_by_name, Failed};
use crate::runcmd::timing::{LaunchTimes, Summary};
use crate::runcmd::{self, BufferSpec, RunOptions};
use anyhow::{anyhow, bail, Result};
use lanejit::{CompileConfig, Device, Engine, Kernel, LaunchError, LaunchStats};
use std::time::{Duration, Instant};

/// The engines `bench KERNEL` times, by name: `run`'s engines, and `quick` (the JIT's quick code alone, no block
/// recompiled by the optimising tier).
pub const BENCH_ENGINES: [&str; 4] = ["interp", "quick", "jit", "auto"];

/// Launches per engine when `--repeat` is not given.
pub const DEFAULT_REPEAT: u32 = 5;

/// One engine's measurement of the kernel.
#[derive(Debug, Clone, serde::Serialize)]
pub struct EngineTiming {
    /// The engine's name (one of [`BENCH_ENGINES`]).
    pub engine: &'static str,
    /// The first launch, compilation included, milliseconds.
    pub first_ms: f64,
    /// The fastest of the other launches (of the only one when there is one), milliseconds.
    pub best_ms: f64,
    /// Their median, milliseconds (exact up to `timing::EXACT_LAUNCHES` of them, else within 0.5%).
    pub median_ms: f64,
    /// Whether `median_ms` is exact.
    pub median_exact: bool,
    /// Instructions one launch retires.
    pub retired: u64,
    /// The interpreter's median over this engine's (how many times faster it is), when the interpreter ran.
    pub vs_interp: Option<f64>,
}

/// What each engine's first launch left in the buffers, by buffer.
type Outputs = Vec<Vec<u32>>;

/// The launch engine and compile configuration behind an engine name (`quick` is the JIT that never
/// recompiles a block with the optimising tier).
fn engine_setup(name: &str, compile: &CompileConfig) -> Result<(Engine, CompileConfig)> {
    match name {
        "quick" => Ok((Engine::Jit, CompileConfig { jit_hot: u32::MAX, ..*compile })),
        _ => engine_by_name(name).map(|e| (e, *compile)).ok_or_else(|| anyhow!("unknown engine `{name}`")),
    }
}

/// `--engines` as given (clap has checked each name), with no engine twice; empty means all of them.
pub fn chosen_engines(names: &[String]) -> Result<Vec<&'static str>> {
    if names.is_empty() {
        return Ok(BENCH_ENGINES.to_vec());
    }
    let mut out: Vec<&'static str> = Vec::new();
    for name in names {
        let known = BENCH_ENGINES
            .iter()
            .find(|e| **e == name.as_str())
            .ok_or_else(|| anyhow!("--engines: unknown engine `{name}` (one of {})", BENCH_ENGINES.join(", ")))?;
        if out.contains(known) {
            bail!("--engines: `{name}` is named twice");
        }
        out.push(known);
    }
    Ok(out)
}

/// A trap is the kernel's failure (exit code 1), any other launch error the user's (exit code 2).
fn checked(r: Result<LaunchStats, LaunchError>, engine: &str) -> Result<LaunchStats> {
    r.map_err(|e| match e {
        LaunchError::Trap { trap, .. } => Failed(format!("{engine}: trap: {trap}")).into(),
        e => anyhow!("{engine}: {e}"),
    })
}

/// `repeat` launches of `kernel` on one engine, each from the buffers' initial contents: the launch times (in
/// bounded memory, whatever `repeat` is), the instructions retired and the buffers after the first launch.
fn measure(
    kernel: &Kernel,
    name: &'static str,
    o: &RunOptions,
    inputs: &runcmd::Inputs,
) -> Result<(Summary, u64, Outputs)> {
    let (engine, config) = engine_setup(name, &o.compile)?;
    let kernel = kernel.clone().with_config(config);
    let device = Device::new()?;
    let mut launch = runcmd::prepare(&device, o, inputs.clone())?;
    launch.cfg.engine = engine;
    // Wall-clock time around the whole call, so that the first launch's includes compiling the kernel.
    let timed = |start: Instant| checked(device.launch(&kernel, &launch.cfg), name).map(|s| (start.elapsed(), s));
    let (took, first) = timed(Instant::now())?;
    let outputs = launch.read_all(&device)?;
    let mut times = LaunchTimes::default();
    times.push(took);
    for _ in 1..o.repeat {
        launch.refill(&device)?;
        times.push(timed(Instant::now())?.0);
    }
    let summary = times.summary().ok_or_else(|| anyhow!("{name}: no launch was timed"))?;
    Ok((summary, first.retired, outputs))
}

/// Where `other`'s buffers differ from `reference`'s: the first differing element of each buffer that differs.
fn mismatches(reference: (&str, &Outputs), other: (&str, &Outputs), specs: &[BufferSpec]) -> Vec<String> {
    let ((rname, rbufs), (oname, obufs)) = (reference, other);
    let mut out = Vec::new();
    for (i, (r, x)) in rbufs.iter().zip(obufs).enumerate() {
        if let Some(at) = r.iter().zip(x).position(|(a, b)| a != b) {
            let differ = r.iter().zip(x).filter(|(a, b)| a != b).count();
            out.push(format!(
                "{}: {oname} differs from {rname} in {differ} elements, first at [{at}]: {rname} {:#010x}, {oname} {:#010x}",
                match specs.get(i) {
                    Some(s) => format!("buffer {i} ({})", s.type_name()),
                    None => format!("image {} (texel words)", i - specs.len()),
                },
                r[at],
                x[at]
            ));
        }
    }
    out
}

/// `lanejit bench KERNEL`: `kernel` on each of `engines`, `o.repeat` launches each, compared and reported.
pub fn run(kernel: &Kernel, engines: &[&'static str], o: &RunOptions) -> Result<()> {
    let inputs = runcmd::parse_inputs(o)?;
    let mut rows = Vec::new();
    let mut reference: Option<(&'static str, Outputs)> = None;
    let mut disagreements = Vec::new();
    for &name in engines {
        let (t, retired, outputs) = measure(kernel, name, o, &inputs)?;
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let (first_ms, best_ms, median_ms) = (ms(t.first), ms(t.best), ms(t.median));
        let median_exact = t.median_exact;
        rows.push(EngineTiming { engine: name, first_ms, best_ms, median_ms, median_exact, retired, vs_interp: None });
        match &reference {
            None => reference = Some((name, outputs)),
            Some((rname, r)) => disagreements.extend(mismatches((rname, r), (name, &outputs), &inputs.0)),
        }
    }
    if let Some(interp) = rows.iter().find(|r| r.engine == "interp").map(|r| r.median_ms) {
        for r in &mut rows {
            r.vs_interp = Some(interp / r.median_ms.max(1e-9));
        }
    }
    report(kernel, o, &rows, &disagreements)?;
    if disagreements.is_empty() {
        Ok(())
    } else {
        Err(Failed(format!("the engines disagree on the output buffers: {}", disagreements.join("; "))).into())
    }
}

/// Prints the rows: a table, or one JSON object with `--json`.
fn report(kernel: &Kernel, o: &RunOptions, rows: &[EngineTiming], disagreements: &[String]) -> Result<()> {
    let name = &kernel.program.meta.name;
    let grid = o.grid.unwrap_or([1, 1, 1]);
    let workgroup = o.wg.unwrap_or(kernel.program.meta.workgroup);
    if o.json {
        let out = serde_json::json!({
            "kernel": name, "grid": grid, "workgroup": workgroup, "repeat": o.repeat, "engines": rows,
            "outputs_agree": disagreements.is_empty(), "disagreements": disagreements,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    let dims = |d: [u32; 3]| d.map(|x| x.to_string()).join(",");
    println!(
        "kernel `{name}`, grid {}, workgroup {}: {} launches per engine, each from the buffers' initial contents; \
         times in ms (first: compilation included; best and median of the others)",
        dims(grid),
        dims(workgroup),
        o.repeat
    );
    println!("{:<8} {:>10} {:>10} {:>10} {:>14} {:>9}", "engine", "first", "best", "median", "retired", "× interp");
    for r in rows {
        let ratio = r.vs_interp.map_or("-".to_string(), |v| format!("{v:.2}"));
        // An approximate median (more than `timing::EXACT_LAUNCHES` launches) is marked with `≈`.
        let median = format!("{}{:.3}", if r.median_exact { "" } else { "≈" }, r.median_ms);
        println!(
            "{:<8} {:>10.3} {:>10.3} {:>10} {:>14} {:>9}",
            r.engine, r.first_ms, r.best_ms, median, r.retired, ratio
        );
    }
    if disagreements.is_empty() && rows.len() > 1 {
        println!("outputs: every engine left the same buffers after its first launch");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only the buffers that differ are reported, each with how many elements differ and the first of them.
    #[test]
    fn mismatches_name_each_differing_buffer_and_its_first_element() {
        let specs = vec![crate::runcmd::parse_buffer("u32:3").unwrap(), crate::runcmd::parse_buffer("f32:3").unwrap()];
        let reference: Outputs = vec![vec![1, 2, 3], vec![4, 5, 6]];
        assert!(mismatches(("interp", &reference), ("jit", &reference.clone()), &specs).is_empty());
        let other: Outputs = vec![vec![1, 2, 3], vec![4, 9, 0]];
        let found = mismatches(("interp", &reference), ("jit", &other), &specs);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with("buffer 1 (f32): jit differs from interp in 2 elements, first at [1]"),
            "{found:?}"
        );
    }
}
