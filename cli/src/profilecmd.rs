//! `lanejit profile KERNEL [run's options]`: per instruction the times a wave ran it and its active lanes on
//! average, per block its share of the instructions, the tier that ran it and its compile time, the top source
//! lines, and the source annotated with those figures (as `perf annotate` shows them), or all of it as JSON.
//!
//! Two launches of the same setup, each on a device of its own: a timed launch on the chosen engine (its time,
//! and what the JIT compiled), then a counting launch in the interpreter (`LaunchConfig::profile`), whose
//! counts are exactly the retired instructions. docs/profiling.md explains the choice.

use crate::cli::{load_named_kernel, Failed, RunArgs};
use crate::examples::{self, Size};
use crate::runcmd::{self, RunOptions};
use anyhow::{anyhow, bail, Result};
use lanejit::profile::{BlockRow, InsnRow, Profile};
use lanejit::{Kernel, LaunchConfig, LaunchError, LaunchStats, LANES};
use serde_json::json;
use std::path::Path;

/// `lanejit profile` arguments: `run`'s, and how many lines to list as the hottest.
#[derive(clap::Args, Debug)]
pub struct ProfileArgs {
    /// The kernel and its launch, as `lanejit run` takes them (`--json` prints the profile as JSON).
    #[command(flatten)]
    pub run: RunArgs,
    /// Source lines in the list of the hottest.
    #[arg(long, default_value_t = 10)]
    pub top: usize,
}

/// What is profiled: a bundled example (its own setup) or a kernel file (buffers from the options).
enum Target {
    Example(&'static examples::Example),
    File(std::path::PathBuf),
}

/// One launch's device, configuration and result.
struct Launched {
    stats: LaunchStats,
    trap: Option<String>,
}

/// `lanejit profile`.
pub fn run(a: &ProfileArgs, compile: &lanejit::CompileConfig) -> Result<()> {
    refuse_unprofiled(&a.run)?;
    let o = a.run.options(compile);
    runcmd::check_timeline(&o, a.run.kernel.as_deref().map(Path::new))?;
    let target = match a.run.kernel.as_deref() {
        None => Target::Example(examples::by_name(examples::DEFAULT).expect("the default example")),
        Some(k) if examples::by_name(k).is_some() && !Path::new(k).exists() => {
            Target::Example(examples::by_name(k).expect("checked"))
        }
        Some(k) => Target::File(k.into()),
    };
    // The timed launch samples each block's share of time: its kernel's compiled code marks the blocks it
    // enters (a kernel of its own in the code cache: other launches' code is unchanged).
    let compile =
        &lanejit::CompileConfig { jit: lanejit_jit::JitOptions { mark_blocks: true, ..compile.jit }, ..*compile };
    let (kernel, source, source_name) = load(&target, &a.run, compile)?;
    let timed = launch(&target, &kernel, &o, false)?;
    let counted = launch(&target, &kernel, &RunOptions { timeline: None, ..o }, true)?;
    let profile = counted.stats.profile.as_deref().ok_or_else(|| anyhow!("the counting launch gave no profile"))?;
    let report = Report { kernel: &kernel, engine: a.run.engine, profile, timed: &timed, counted: &counted };
    // The profile's totals are the counting launch's statistics: a difference is a bug in lanejit.
    if profile.retired() != counted.stats.retired || profile.lane_ops() != counted.stats.lane_ops {
        bail!("internal error: the profile's counts differ from the launch's statistics");
    }
    match a.run.json {
        true => println!("{}", serde_json::to_string_pretty(&report.json(source.as_deref(), a.top))?),
        false => report.print(source.as_deref(), &source_name, a.top),
    }
    match counted.trap.or(timed.trap) {
        Some(t) => Err(Failed(format!("trap: {t}")).into()),
        None => Ok(()),
    }
}

/// `run`'s options that do not go with a profile.
fn refuse_unprofiled(r: &RunArgs) -> Result<()> {
    let given = [
        (r.trace, "--trace"),
        (r.repeat > 1, "--repeat"),
        (r.explore.is_some(), "--explore"),
        (r.record.is_some(), "--record"),
        (r.schedule.is_some(), "--schedule"),
        (!r.saves.is_empty() || !r.image_saves.is_empty(), "--save"),
        (r.launch.check.is_some(), "--check"),
        (r.list, "--list"),
    ];
    match given.iter().find(|(on, _)| *on) {
        Some((_, opt)) => bail!("profile runs one plain launch: {opt} does not go with it"),
        None => Ok(()),
    }
}

/// The kernel, its source text when there is one, and the source's name.
fn load(target: &Target, r: &RunArgs, compile: &lanejit::CompileConfig) -> Result<(Kernel, Option<String>, String)> {
    match target {
        Target::Example(ex) => {
            let name = format!("examples/{}.s", ex.name);
            let kernel = Kernel::from_asm(&name, ex.source).map_err(|e| anyhow!("{e}"))?.with_config(*compile);
            if let Some(k) = r.launch.kernel_name.as_deref().filter(|k| *k != kernel.program.meta.name) {
                bail!(
                    "--kernel `{k}`: the bundled example `{}` has one kernel, `{}`",
                    ex.name,
                    kernel.program.meta.name
                );
            }
            Ok((kernel, Some(ex.source.to_string()), name))
        }
        Target::File(path) => {
            let kernel = load_named_kernel(path, r.launch.kernel_name.as_deref(), compile)?;
            let source = match path.extension().is_some_and(|e| e == "s") {
                true => Some(crate::bufio::read_input_text(path, crate::bufio::KERNEL_FILE)?),
                false => None,
            };
            Ok((kernel, source, path.display().to_string()))
        }
    }
}

/// Sets the target up on a fresh device and launches it (`counting`: with the profile on).
fn launch(target: &Target, kernel: &Kernel, o: &RunOptions, counting: bool) -> Result<Launched> {
    let device = runcmd::new_device(o)?;
    let mut cfg: LaunchConfig = match target {
        Target::Example(ex) => {
            if !o.buffers.is_empty() || !o.args.is_empty() || !o.images.is_empty() {
                bail!(
                    "--buffer, --image and --arg go with a kernel file; the bundled example `{}` sets up its own",
                    ex.name
                );
            }
            let mut cfg = (ex.setup)(&device, Size::Default).map_err(|e| anyhow!(e))?.cfg;
            o.apply(&mut cfg);
            cfg.grid = o.grid.unwrap_or(cfg.grid);
            cfg.workgroup = o.wg.or(cfg.workgroup);
            cfg
        }
        Target::File(_) => runcmd::prepare(&device, o, runcmd::parse_inputs(o)?)?.cfg,
    };
    cfg.profile = counting;
    cfg.block_time = !counting;
    let _bar = crate::progress::LaunchBar::start(crate::progress::wanted(o.json), &mut cfg);
    match device.launch(kernel, &cfg) {
        Ok(stats) => Ok(Launched { stats, trap: None }),
        Err(LaunchError::Trap { trap, stats }) => Ok(Launched { stats, trap: Some(trap.to_string()) }),
        Err(e) => Err(e.into()),
    }
}

/// A source line's figures: the instructions assembled from it, summed.
#[derive(Clone, Copy, Default)]
struct LineFigures {
    count: u64,
    lanes: f64,
}

/// Everything the output shows.
struct Report<'a> {
    kernel: &'a Kernel,
    engine: lanejit::Engine,
    profile: &'a Profile,
    timed: &'a Launched,
    counted: &'a Launched,
}

impl Report<'_> {
    fn rows(&self) -> Vec<InsnRow> {
        self.profile.insn_rows(self.kernel)
    }

    fn blocks(&self) -> Vec<BlockRow> {
        let mut rows = self.profile.block_rows(self.kernel, self.engine);
        if let Some(t) = &self.timed.stats.block_time {
            lanejit::profile::add_block_time(&mut rows, t);
        }
        rows
    }

    /// Per source line (1-based), the count and average active lanes of its instructions.
    fn lines(&self) -> std::collections::BTreeMap<u32, LineFigures> {
        let mut lines = std::collections::BTreeMap::<u32, LineFigures>::new();
        for r in self.rows() {
            if let Some(l) = r.line {
                let f = lines.entry(l).or_default();
                f.lanes =
                    (f.lanes * f.count as f64 + r.active_lanes * r.count as f64) / (f.count + r.count).max(1) as f64;
                f.count += r.count;
            }
        }
        lines
    }

    fn share(&self, count: u64) -> f64 {
        count as f64 / self.profile.retired().max(1) as f64
    }

    /// Lanes active per retired instruction on average.
    fn active_lanes(&self) -> f64 {
        self.profile.lane_ops() as f64 / self.profile.retired().max(1) as f64
    }

    fn json(&self, source: Option<&str>, top: usize) -> serde_json::Value {
        let s = &self.counted.stats;
        let lines = self.lines();
        let text_of = |l: u32| source.and_then(|s| s.lines().nth(l as usize - 1)).unwrap_or("").trim_end().to_string();
        let line_rows: Vec<_> = lines
            .iter()
            .map(|(&l, f)| json!({ "line": l, "text": text_of(l), "count": f.count, "active_lanes": f.lanes, "share": self.share(f.count) }))
            .collect();
        json!({
            "kernel": self.kernel.program.meta.name,
            "engine": self.engine,
            "totals": {
                "retired": s.retired, "lane_ops": s.lane_ops, "workgroups": s.workgroups, "waves": s.waves,
                "active_lanes": self.active_lanes(), "lanes": LANES,
                "timed_retired": self.timed.stats.retired, "timed_interpreted": self.timed.stats.interpreted,
                "timed_elapsed_s": self.timed.stats.elapsed.as_secs_f64(),
                "counting_elapsed_s": s.elapsed.as_secs_f64(),
                "time_samples": self.timed.stats.block_time.as_ref().map(|t| t.samples()),
                "sample_ticks": self.timed.stats.block_time.as_ref().map(|t| t.ticks),
                "sample_every_us": lanejit::blocktime::SAMPLE_EVERY.as_micros() as u64,
            },
            "instructions": self.rows(),
            "blocks": self.blocks(),
            "lines": line_rows,
            "top": top_lines(&lines, top),
            "trap": self.counted.trap.clone().or(self.timed.trap.clone()),
        })
    }

    fn print(&self, source: Option<&str>, source_name: &str, top: usize) {
        let s = &self.counted.stats;
        let t = &self.timed.stats;
        println!(
            "profile of kernel `{}` ({source_name}): {} workgroups, {} waves",
            self.kernel.program.meta.name, s.workgroups, s.waves
        );
        println!(
            "  {} instructions retired, {} lane-ops: {:.1} of {LANES} lanes active on average ({:.1}% lane utilisation)",
            s.retired,
            s.lane_ops,
            self.active_lanes(),
            100.0 * self.active_lanes() / LANES as f64
        );
        println!(
            "  timed launch on {}: {:.3} ms, {} of its instructions interpreted; counting launch (interpreter): {:.3} ms",
            serde_json::to_value(self.engine).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default(),
            t.elapsed.as_secs_f64() * 1e3,
            t.interpreted,
            s.elapsed.as_secs_f64() * 1e3
        );
        if let Some(bt) = &t.block_time {
            println!(
                "  time per block: {} samples of the timed launch's workers in the kernel's code ({} readings, every {} µs){}",
                bt.samples(),
                bt.ticks,
                lanejit::blocktime::SAMPLE_EVERY.as_micros(),
                if bt.samples() < FEW_SAMPLES { ": too few for more than rough shares (a larger grid gives more)" } else { "" }
            );
        }
        self.print_blocks();
        let lines = self.lines();
        match source {
            Some(src) if !lines.is_empty() => {
                self.print_top(src, &lines, top);
                println!("\nannotated source ({source_name}):");
                println!("{}", LISTING_HEADER);
                let heads = self.block_heads(|b| self.kernel.source_line(b.start));
                for (i, text) in src.lines().enumerate() {
                    heads.get(&(i as u32 + 1)).into_iter().flatten().for_each(|h| println!("{h}"));
                    let figures = lines.get(&(i as u32 + 1));
                    println!("{} │ {:>5}  {}", self.figures(figures), i + 1, text.trim_end());
                }
            }
            _ => self.print_disassembly(),
        }
    }

    fn print_blocks(&self) {
        println!("\nblocks (time: share of the timed launch's samples, and of those in the interpreter; share of the");
        println!("retired instructions; the tier that ran each at the end of the timed launch):");
        println!(
            "  {:>8} {:>8} {:>7} {:>7} {:>14} {:>7}  {:<6} {:>10}",
            "start", "end", "time", "interp", "instructions", "share", "tier", "compile ms"
        );
        for b in self.blocks() {
            println!(
                "  {:>#8x} {:>#8x} {} {} {:>14} {:>6.2}%  {:<6} {:>10.3}",
                b.start,
                b.end,
                percent(b.time_share),
                percent((b.samples > 0).then(|| b.interpreted_samples as f64 / b.samples as f64)),
                b.count,
                100.0 * b.share,
                b.tier,
                b.compile_ms
            );
        }
    }

    /// Per line (of the source, or pc of the disassembly, as `line_of` gives it), a marker line for each block
    /// starting there: its range, share of time and of instructions, and tier.
    fn block_heads(&self, line_of: impl Fn(&BlockRow) -> Option<u32>) -> std::collections::BTreeMap<u32, Vec<String>> {
        let mut heads = std::collections::BTreeMap::<u32, Vec<String>>::new();
        for b in self.blocks() {
            let Some(line) = line_of(&b) else { continue };
            let time = b.time_share.map_or(String::new(), |t| format!("{:.2}% of the time, ", 100.0 * t));
            let text = format!(
                "{:28} │        ┌ block {:#x}..{:#x}: {time}{:.2}% of the instructions, {}",
                "",
                b.start,
                b.end,
                100.0 * b.share,
                b.tier
            );
            heads.entry(line).or_default().push(text);
        }
        heads
    }

    fn print_top(&self, src: &str, lines: &std::collections::BTreeMap<u32, LineFigures>, top: usize) {
        println!("\ntop {} lines:", top.min(lines.len()));
        println!("{}", LISTING_HEADER);
        for l in top_lines(lines, top) {
            let text = src.lines().nth(l as usize - 1).unwrap_or("").trim();
            println!("{} │ {l:>5}  {text}", self.figures(lines.get(&l)));
        }
    }

    /// Without source lines (a binary kernel): the disassembly, annotated.
    fn print_disassembly(&self) {
        println!("\nannotated disassembly:");
        println!("{}", LISTING_HEADER.replace(" line", "   pc"));
        let heads = self.block_heads(|b| Some(b.start));
        for r in self.rows() {
            heads.get(&r.pc).into_iter().flatten().for_each(|h| println!("{h}"));
            let f = LineFigures { count: r.count, lanes: r.active_lanes };
            println!("{} │ {:>#5x}  {}", self.figures(Some(&f)), r.pc, r.text);
        }
    }

    /// A line's share, count and average active lanes, blank for a line that assembled to nothing.
    fn figures(&self, f: Option<&LineFigures>) -> String {
        match f {
            Some(f) if f.count > 0 => format!("{:>7.2}% {:>12} {:>6.1}", 100.0 * self.share(f.count), f.count, f.lanes),
            Some(_) => format!("{:>8} {:>12} {:>6}", "0", "0", "-"),
            None => " ".repeat(28),
        }
    }
}

/// Below this many samples, the time shares are flagged as rough (a share's error is about its square root).
const FEW_SAMPLES: u64 = 100;

/// A share as a percentage in 7 columns, `-` when there is none.
fn percent(share: Option<f64>) -> String {
    share.map_or(format!("{:>7}", "-"), |s| format!("{:>6.2}%", 100.0 * s))
}

/// The header of an annotated listing.
const LISTING_HEADER: &str = "   share        count  lanes │  line  source";

/// The `n` lines with the most retired instructions, most first (ties by line).
fn top_lines(lines: &std::collections::BTreeMap<u32, LineFigures>, n: usize) -> Vec<u32> {
    let mut hot: Vec<(u32, u64)> = lines.iter().filter(|(_, f)| f.count > 0).map(|(&l, f)| (l, f.count)).collect();
    hot.sort_by_key(|&(l, c)| (std::cmp::Reverse(c), l));
    hot.into_iter().take(n).map(|(l, _)| l).collect()
}
