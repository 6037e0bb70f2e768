//! `lanejit run --explore N`: the launch under N schedules, compared with the fixed run
//! (`lanejit::explore`), the first difference printed with the schedule that replays it.

use super::{new_device, parse_inputs, prepare, RunOptions};
use crate::cli::Failed;
use crate::examples::{self, Size};
use anyhow::{anyhow, bail, Result};
use lanejit::explore::{explore, policy_text, ExploreConfig, ExplorePolicy, ExploreReport};
use lanejit::explore::{HANG_FACTOR, MIN_HANG_BUDGET};
use lanejit::memimage::MemoryImage;
use lanejit::record::Record;
use lanejit::{Device, Kernel, LaunchConfig, LaunchError, Schedule};

/// `--schedule` with `--explore`: `random[:FIRST_SEED]` or `pct[:FIRST_SEED[,DEPTH]]` (seeds count up from
/// FIRST_SEED, 0 by default), as `lanejit::explore::parse_policy` reads it.
pub fn parse_policy(text: &str) -> Result<(ExplorePolicy, u64)> {
    lanejit::explore::parse_policy(text).map_err(|e| anyhow!("--explore --schedule {text}: {e}"))
}

/// What `--explore` refuses to combine with.
fn refuse_combinations(o: &RunOptions) -> Result<()> {
    if o.trace || o.repeat > 1 || !o.check.is_empty() || !o.saves.is_empty() || !o.image_saves.is_empty() {
        bail!("--explore runs the launch many times: it does not go with --trace, --repeat, --check or --save");
    }
    Ok(())
}

/// The exploration `o` asks for (`o.explore` schedules).
fn config(o: &RunOptions, schedules: u32) -> Result<ExploreConfig> {
    let (policy, first_seed) = parse_policy(o.schedule_text.as_deref().unwrap_or("random"))?;
    Ok(ExploreConfig { schedules, policy, first_seed, ..Default::default() })
}

/// `run FILE --explore N`.
pub fn explore_file(kernel: &Kernel, o: &RunOptions, schedules: u32) -> Result<()> {
    refuse_combinations(o)?;
    let ex = config(o, schedules)?;
    let device = new_device(o)?;
    let launch = prepare(&device, o, parse_inputs(o)?)?;
    let names: Vec<(u64, String)> = launch.addrs.iter().enumerate().map(|(i, &a)| (a, format!("buffer {i}"))).collect();
    let report = explore_recorded(&device, kernel, &launch.cfg, &ex, o)?;
    print_report(&report, &ex, o, &names)
}

/// `run NAME --explore N` for a bundled example.
pub fn explore_example(name: &str, o: &RunOptions, schedules: u32) -> Result<()> {
    refuse_combinations(o)?;
    let ex = config(o, schedules)?;
    let example = examples::by_name(name).ok_or_else(|| anyhow!("no bundled example `{name}` (see --list)"))?;
    let kernel = Kernel::from_asm(&format!("examples/{name}.s"), example.source)
        .map_err(|e| anyhow!("{e}"))?
        .with_config(o.compile);
    let device = new_device(o)?;
    let setup = (example.setup)(&device, Size::Default).map_err(|e| anyhow!(e))?;
    let mut cfg: LaunchConfig = setup.cfg;
    o.apply(&mut cfg);
    cfg.grid = o.grid.unwrap_or(cfg.grid);
    cfg.workgroup = o.wg.or(cfg.workgroup);
    let report = explore_recorded(&device, &kernel, &cfg, &ex, o)?;
    print_report(&report, &ex, o, &[])
}

/// Explores; with `--record FILE` and a difference, the shrunk schedule's launch from the memory before
/// exploring is written there as a record (`lanejit replay FILE` reproduces it), under the budget exploring
/// gave it (so that a hang is recorded as one). Device memory ends as `explore` leaves it.
fn explore_recorded(
    device: &Device,
    kernel: &Kernel,
    cfg: &LaunchConfig,
    ex: &ExploreConfig,
    o: &RunOptions,
) -> Result<ExploreReport> {
    let progress = lanejit::explore::ExploreProgress::new();
    let ex = &ExploreConfig { progress: Some(progress.clone()), ..ex.clone() };
    let _bar = explore_bar(crate::progress::wanted(o.json), ex.schedules, progress);
    let Some(path) = &o.record else { return Ok(explore(device, kernel, cfg, ex)?) };
    let before = MemoryImage::take(device).map_err(|e| anyhow!("{e}"))?;
    let report = explore(device, kernel, cfg, ex)?;
    let Some(d) = &report.first else { return Ok(report) };
    let after = MemoryImage::take(device).map_err(|e| anyhow!("{e}"))?;
    before.restore(device).map_err(|e| anyhow!("{e}"))?;
    let hang = ex.hang_budget.unwrap_or(report.fixed_retired.saturating_mul(HANG_FACTOR).max(MIN_HANG_BUDGET));
    let cfg = LaunchConfig { schedule: d.schedule, budget: cfg.budget.min(hang), ..cfg.clone() };
    let mut record = Record::capture(device, kernel, &cfg)?;
    let result = device.launch(kernel, &cfg);
    if let Err(e @ (LaunchError::Config(_) | LaunchError::Compile(_))) = &result {
        bail!("recording schedule {}: {e}", d.schedule);
    }
    record.finish(device, &result)?;
    std::fs::write(path, record.to_json()).map_err(|e| anyhow!("--record {}: {e}", path.display()))?;
    after.restore(device).map_err(|e| anyhow!("{e}"))?;
    Ok(report)
}

/// The exploration's bar: schedules run of those asked for, differences so far, the time left at the rate so
/// far (the exploration stops earlier at a difference unless told to run them all), then the shrinking.
fn explore_bar(show: bool, schedules: u32, p: lanejit::explore::ExploreProgress) -> crate::progress::Watch {
    let template = "{spinner} explore {bar:30} {pos}/{len} schedules, {msg} [{elapsed_precise}, {eta} left]";
    crate::progress::Watch::start(show, schedules as u64, template, move || {
        let msg = match (p.differing(), p.shrink_runs()) {
            (d, 0) => format!("{d} differing"),
            (d, n) => format!("{d} differing, shrinking the first: {n} launches"),
        };
        (p.schedules_run(), msg)
    })
}

/// `addr` as `buffer I + OFFSET` when it lies in a named buffer (the one at or below it).
fn place(addr: u64, names: &[(u64, String)]) -> String {
    match names.iter().filter(|(a, _)| *a <= addr).max_by_key(|(a, _)| *a) {
        Some((a, n)) => format!("{addr:#x} ({n} + {})", addr - a),
        None => format!("{addr:#x}"),
    }
}

fn byte(b: Option<u8>) -> String {
    b.map_or("none".into(), |b| format!("{b:#04x}"))
}

/// Prints the report (text or JSON); results that differ fail the command (exit code 1).
fn print_report(r: &ExploreReport, ex: &ExploreConfig, o: &RunOptions, names: &[(u64, String)]) -> Result<()> {
    let recorded = o.record.as_ref().filter(|_| r.first.is_some()).map(|p| p.display().to_string());
    let per_ms = r.explore_elapsed.as_secs_f64() * 1e3 / r.schedules_run.max(1) as f64;
    let fixed_ms = r.fixed_elapsed.as_secs_f64() * 1e3;
    if o.json {
        let mut j = report_json(r, ex, names);
        j["record"] = recorded.into();
        println!("{}", serde_json::to_string_pretty(&j)?);
    } else {
        print_text(r, ex, per_ms, fixed_ms, names);
        match (&o.record, &r.first) {
            (Some(path), Some(d)) => println!("record: {} (`{}`; lanejit replay FILE)", path.display(), d.schedule),
            (Some(_), None) => println!("record: none written (no difference)"),
            _ => {}
        }
    }
    match &r.first {
        Some(d) => Err(Failed(format!("results differ under --schedule {}", d.schedule)).into()),
        None => Ok(()),
    }
}

fn print_text(r: &ExploreReport, ex: &ExploreConfig, per_ms: f64, fixed_ms: f64, names: &[(u64, String)]) {
    println!(
        "explore: {} schedules ({} upward) against the fixed run ({}, {} instructions)",
        r.schedules_run,
        policy_text(ex),
        r.fixed,
        r.fixed_retired
    );
    match &r.first {
        None => println!("no difference: every schedule matched the fixed run"),
        Some(d) => {
            println!("difference: schedule {} (`{}`) differs from the fixed run", d.index, d.found);
            println!("  shrunk to: {}", d.schedule);
            println!("  outcome: {} (fixed: {})", d.outcome, r.fixed);
            if d.differing_bytes > 0 {
                println!("  {} bytes differ; the first:", d.differing_bytes);
                for b in &d.bytes {
                    println!("    {}: fixed {}, schedule {}", place(b.addr, names), byte(b.left), byte(b.right));
                }
            }
            println!("replay: the same command with --schedule {} (and without --explore)", d.schedule);
        }
    }
    println!("cost: {per_ms:.3} ms per schedule, fixed run {fixed_ms:.3} ms");
}

/// The library's JSON report, each listed byte with its place in the named buffers (`where`).
fn report_json(r: &ExploreReport, ex: &ExploreConfig, names: &[(u64, String)]) -> serde_json::Value {
    let mut j = r.to_json(ex);
    if let Some(bytes) = j["first_difference"]["bytes"].as_array_mut() {
        for b in bytes {
            let addr = b["addr"].as_u64().unwrap_or(0);
            b["where"] = place(addr, names).into();
        }
    }
    j
}

/// A schedule for a plain run: `--schedule` parsed as `Schedule::parse` reads it.
pub fn plain_schedule(text: Option<&str>) -> Result<Schedule> {
    text.map_or(Ok(Schedule::Fixed), |t| Schedule::parse(t).map_err(|e| anyhow!("--schedule: {e}")))
}
