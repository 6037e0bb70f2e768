//! A fuzz campaign: seeds → cases → oracle, in parallel (rayon), deterministic per seed; failing cases are
//! shrunk and written out as reproducers.

use super::coverage::Coverage;
use super::gen::{generate_states, Case, GenConfig};
use super::oracle::{check, check_kernel, AutoMode, Divergence};
use super::prog::GenProgram;
use super::shrink::shrink;
use super::watchdog::{exit_on_hang, OnHang, Watchdog};
use lanejit::state_json::StateJson;
use lanejit_jit::RegAlloc;
use rayon::prelude::*;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Seed of program `k` of the campaign with seed `campaign`; `--seed-range` names these directly. The low 32
/// bits of `campaign` go to the seed's upper half; its upper 32 bits (which that shift would drop) are mixed
/// in by a hash that is zero for zero, so campaigns below 2^32 keep their historical seeds while `7` and
/// `2^32 + 7` differ.
pub fn program_seed(campaign: u64, k: u64) -> u64 {
    campaign.wrapping_shl(32).wrapping_add(k) ^ mix64(campaign >> 32)
}

/// MurmurHash3's 64-bit finaliser: a bijection with `mix64(0) == 0`.
fn mix64(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// `auto` runs cold for even (seed + state index) and hot (compiled) for odd ones, so both paths are compared.
pub fn auto_mode(seed: u64, state: usize) -> AutoMode {
    if seed.wrapping_add(state as u64) & 1 == 1 {
        AutoMode::Hot
    } else {
        AutoMode::Cold
    }
}

/// The register allocator of program `seed`'s optimising tier when one program in `one_in` uses the
/// backtracking allocator (users' allocator: `lanejit_jit::JitOptions::default`): those whose seed is a multiple
/// of `one_in`, so a shard of consecutive seeds gets its share and a seed alone says how it was compiled.
pub fn regalloc_of(seed: u64, one_in: u64) -> RegAlloc {
    if seed.is_multiple_of(one_in.max(1)) {
        RegAlloc::Backtracking
    } else {
        RegAlloc::SinglePass
    }
}

/// What a campaign runs and how.
#[derive(Clone, Debug)]
pub struct Options {
    /// Campaign seed: program k has seed `program_seed(seed, k)`.
    pub seed: u64,
    /// Programs to run (ignored when `seeds` is given); with `time`, whichever ends first.
    pub count: Option<u64>,
    /// Stop after this long (with `count`, whichever ends first).
    pub time: Option<Duration>,
    /// Exactly these program seeds (overrides `seed` and `count`).
    pub seeds: Option<Range<u64>>,
    /// Number of this run's first program in the campaign (a shard's start; ignored with `seeds`): program k
    /// of the run has seed `program_seed(seed, first + k)`.
    pub first: u64,
    /// Worker threads (default: one per core).
    pub jobs: Option<usize>,
    /// Shrink the findings.
    pub shrink: bool,
    /// Evaluation budget of one shrink.
    pub shrink_evals: usize,
    /// At most this many findings are shrunk (the rest are counted and listed unshrunk).
    pub max_shrinks: usize,
    /// Print progress lines to standard error.
    pub progress: bool,
    /// Program sizes and states per program.
    pub gen: GenConfig,
    /// Difference kinds to ignore (see `oracle::Ignore`).
    pub ignore: Vec<String>,
    /// Stop once this many findings are in (checked after each batch, so every program before the last
    /// finding has run and the first findings by seed do not depend on thread timing).
    pub stop_after: Option<usize>,
    /// A program still running after this long is a hang (an engine that does not stop at its budget): it is
    /// reported through `on_hang`, which ends the process. `None`: no watch.
    pub hang_after: Option<Duration>,
    /// What a hang does (default: report on standard error, exit code 1).
    pub on_hang: OnHang,
    /// Corpus cells (`Coverage::cells`) already covered: `Some` keeps the cases that reach others in
    /// `Summary::new_coverage` (`lanejit fuzz --corpus`).
    pub corpus_known: Option<Vec<bool>>,
    /// One program in this many compiles with the backtracking allocator (`regalloc_of`).
    pub backtracking: u64,
}

/// The default hang limit: far above any program's run (each runs a few thousand instructions per state, on
/// a machine as loaded as CI's) and short enough that a hung campaign ends well inside a CI run.
pub const HANG_AFTER: Duration = Duration::from_secs(120);

impl Default for Options {
    fn default() -> Self {
        Options {
            seed: 0,
            count: Some(1000),
            time: None,
            seeds: None,
            first: 0,
            jobs: None,
            shrink: true,
            shrink_evals: 2000,
            max_shrinks: 16,
            progress: false,
            gen: GenConfig::default(),
            ignore: Vec::new(),
            stop_after: None,
            hang_after: Some(HANG_AFTER),
            on_hang: exit_on_hang,
            corpus_known: None,
            backtracking: crate::fuzz::BACKTRACKING_ONE_IN,
        }
    }
}

/// A failing case, and its shrunk form.
#[derive(Clone, Debug)]
pub struct Finding {
    /// The program with the initial state that made it diverge.
    pub case: Case,
    /// Position of the program in the run (0-based): `index + 1` programs ran up to and including it.
    pub index: u64,
    /// Which of the program's states, and how `auto` ran.
    pub state: usize,
    /// How `auto` ran.
    pub mode: AutoMode,
    /// The optimising tier's register allocator.
    pub regalloc: RegAlloc,
    /// What differed.
    pub div: Divergence,
    /// The shrunk program and state, and how they still diverge (when shrinking ran and succeeded).
    pub shrunk: Option<(GenProgram, StateJson, Divergence)>,
}

/// What a campaign did and found.
#[derive(Debug, Default)]
pub struct Summary {
    /// Programs generated and compiled.
    pub programs: u64,
    /// (program, initial state) runs: `programs` × states per program.
    pub cases: u64,
    /// The divergences, by program order.
    pub findings: Vec<Finding>,
    /// Cases the harness itself could not run (a generator or interpreter error): bugs of the fuzzer.
    pub errors: Vec<(u64, String)>,
    /// Instructions and EXEC classes the interpreter executed.
    pub coverage: Coverage,
    /// How long the campaign ran.
    pub elapsed: Duration,
    /// With `Options::corpus_known`: the cases that reached corpus cells no earlier case (in program order,
    /// after the known ones) reached.
    pub new_coverage: Vec<Case>,
}

impl Summary {
    /// Programs per second.
    pub fn rate(&self) -> f64 {
        self.programs as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
    /// `programs=… divergences=… coverage=…% programs_per_s=…`
    pub fn line(&self) -> String {
        format!(
            "programs={} divergences={} coverage={:.1}% programs_per_s={:.0} cases={}",
            self.programs,
            self.findings.len(),
            self.coverage.percent(),
            self.rate(),
            self.cases
        )
    }
}

/// One worker's share of a batch: its coverage, the cases it ran, its non-passing seeds, and its cases that
/// reached corpus cells unknown at the batch's start.
type BatchPart = (Coverage, u64, Vec<(u64, Outcome)>, Vec<NewCells>);

/// A case that reached corpus cells unknown at its batch's start: (program index, state, the case, its cells).
type NewCells = (u64, usize, Case, Vec<usize>);

enum Outcome {
    Pass,
    Fail(Box<Finding>),
    Error(String),
}

/// Runs one seed: generate, render, compile once, compare from every state until one diverges.
fn run_seed(
    index: u64,
    seed: u64,
    opts: &Options,
    cov: &mut Coverage,
    dog: Option<&Watchdog>,
    new: &mut Vec<NewCells>,
) -> (u64, Outcome) {
    let _watched = dog.map(|d| d.watch(index, seed, "the campaign"));
    let (prog, states) = generate_states(seed, &opts.gen);
    let program = match prog.render() {
        Ok(p) => p,
        Err(e) => return (0, Outcome::Error(format!("render: {e}"))),
    };
    let regalloc = regalloc_of(seed, opts.backtracking);
    let kernel = lanejit::Kernel::from_program_with(program, crate::fuzz::kernel_config(regalloc));
    for (i, init) in states.into_iter().enumerate() {
        let mode = auto_mode(seed, i);
        // With a corpus, each case's coverage on its own: does it reach a cell no earlier case reached?
        let mut mine = opts.corpus_known.as_ref().map(|_| Coverage::default());
        let checked = check_kernel(&kernel, &init, mode, Some(mine.as_mut().unwrap_or(cov)), &opts.ignore);
        if let (Some(m), Some(known)) = (mine, &opts.corpus_known) {
            let cells = m.cells();
            if cells.iter().any(|&c| !known[c]) {
                new.push((index, i, Case { seed, prog: prog.clone(), init: init.clone() }, cells));
            }
            cov.merge(&m);
        }
        let div = match checked {
            Ok(None) => continue,
            Ok(Some(d)) => d,
            Err(e) => return (i as u64 + 1, Outcome::Error(format!("interp: {e}"))),
        };
        let case = Case { seed, prog, init };
        return (
            i as u64 + 1,
            Outcome::Fail(Box::new(Finding { case, index, state: i, mode, regalloc, div, shrunk: None })),
        );
    }
    (opts.gen.states.max(1) as u64, Outcome::Pass)
}

/// Keeps, in program order, the cases that reach a cell still unknown, and marks their cells known: the same
/// cases whatever the batches (a case whose cells were all known at its batch's start is known after it too).
fn keep_new_coverage(known: &mut [bool], mut new: Vec<NewCells>, kept: &mut Vec<Case>) {
    new.sort_by_key(|n| (n.0, n.1));
    for (_, _, case, cells) in new {
        if cells.iter().any(|&c| !known[c]) {
            for c in cells {
                known[c] = true;
            }
            kept.push(case);
        }
    }
}

/// Shrinks a failing case, keeping only candidates that still diverge on the same engine.
pub fn shrink_case(f: &Finding, opts: &Options) -> Option<(GenProgram, StateJson, Divergence)> {
    let dog = opts.hang_after.map(|limit| Watchdog::start(limit, opts.on_hang));
    let (mode, ra, ig, engine) = (f.mode, f.regalloc, &opts.ignore, f.div.engine);
    let still = |p: &GenProgram, s: &StateJson| {
        let _watched = dog.as_ref().map(|d| d.watch(f.index, f.case.seed, "a shrink of its finding"));
        p.render()
            .ok()
            .and_then(|prog| check(&prog, s, (mode, ra), None, ig).ok().flatten())
            .is_some_and(|d| d.engine == engine)
    };
    let (p, s, _) = shrink(f.case.prog.clone(), f.case.init.clone(), still, opts.shrink_evals);
    let d = check(&p.render().ok()?, &s, (mode, ra), None, ig).ok().flatten()?;
    Some((p, s, d))
}

/// The campaign's bar (`crate::progress`): programs of the total, or seconds of `--time`; hidden without
/// `opts.progress` or a terminal.
fn campaign_bar(opts: &Options, total: Option<u64>) -> indicatif::ProgressBar {
    let show = opts.progress && crate::progress::wanted(false);
    match (opts.time, total) {
        (Some(t), _) => crate::progress::bar(
            show,
            t.as_secs().max(1),
            "{spinner} fuzz {bar:30} {msg} [{elapsed_precise}, {eta} left]",
        ),
        (None, Some(n)) => crate::progress::bar(
            show,
            n,
            "{spinner} fuzz {bar:30} {pos}/{len} programs, {msg} [{elapsed_precise}, {eta} left]",
        ),
        (None, None) => crate::progress::bar(show, 0, "{spinner} fuzz {pos} programs, {msg} [{elapsed_precise}]"),
    }
}

/// Moves the campaign's bar on: programs (or seconds of `--time`), rate, divergences.
fn show_progress(bar: &indicatif::ProgressBar, opts: &Options, sum: &Summary) {
    let found = sum.findings.len();
    match opts.time {
        Some(_) => {
            bar.set_position(sum.elapsed.as_secs());
            bar.set_message(format!("{} programs, {:.0}/s, {found} divergences", sum.programs, sum.rate()));
        }
        None => {
            bar.set_position(sum.programs);
            bar.set_message(format!("{:.0}/s, {found} divergences", sum.rate()));
        }
    }
}

/// Runs a campaign on `opts.jobs` threads (default: every core).
pub fn campaign(opts: &Options) -> Result<Summary, String> {
    if let Some(j) = opts.jobs.filter(|j| !(1..=lanejit::launch::MAX_THREADS).contains(j)) {
        return Err(format!("{j} jobs: the limit is 1..={} (MAX_THREADS)", lanejit::launch::MAX_THREADS));
    }
    let pool =
        rayon::ThreadPoolBuilder::new().num_threads(opts.jobs.unwrap_or(0)).build().map_err(|e| e.to_string())?;
    let t0 = Instant::now();
    // Program k of this run: seed range start + k, or the campaign's k-th seed.
    let (start, total) = match &opts.seeds {
        Some(r) => (Some(r.start), Some(r.end.saturating_sub(r.start))),
        None => (None, if opts.time.is_some() { opts.count } else { Some(opts.count.unwrap_or(1000)) }),
    };
    let (campaign_seed, first) = (opts.seed, opts.first);
    let seeds = move |k: u64| start.map_or_else(|| program_seed(campaign_seed, first.wrapping_add(k)), |s| s + k);
    let mut sum = Summary::default();
    let batch = 64 * pool.current_num_threads() as u64;
    let mut next = 0u64;
    let bar = campaign_bar(opts, total);
    let dog = opts.hang_after.map(|limit| Watchdog::start(limit, opts.on_hang));
    let mut known = opts.corpus_known.clone();
    let mut batch_opts = std::borrow::Cow::Borrowed(opts);
    loop {
        if let Some(k) = &known {
            // Each batch filters its cases against the cells known at its start.
            batch_opts.to_mut().corpus_known = Some(k.clone());
        }
        let opts = batch_opts.as_ref();
        let end = total.map_or(next + batch, |t| t.min(next + batch));
        if next >= end || opts.time.is_some_and(|t| t0.elapsed() >= t) {
            break;
        }
        let results: Vec<BatchPart> = pool.install(|| {
            (next..end)
                .into_par_iter()
                .fold(
                    || (Coverage::default(), 0, Vec::new(), Vec::new()),
                    |(mut cov, mut cases, mut out, mut new), k| {
                        let s = seeds(k);
                        let (n, o) = run_seed(k, s, opts, &mut cov, dog.as_ref(), &mut new);
                        cases += n;
                        if !matches!(o, Outcome::Pass) {
                            out.push((s, o));
                        }
                        (cov, cases, out, new)
                    },
                )
                .collect()
        });
        sum.programs += end - next;
        let mut new: Vec<NewCells> = Vec::new();
        for (cov, cases, outs, n) in results {
            new.extend(n);
            sum.cases += cases;
            sum.coverage.merge(&cov);
            for (s, o) in outs {
                match o {
                    Outcome::Fail(f) => sum.findings.push(*f),
                    Outcome::Error(e) => sum.errors.push((s, e)),
                    Outcome::Pass => {}
                }
            }
        }
        if let Some(known) = &mut known {
            keep_new_coverage(known, new, &mut sum.new_coverage);
        }
        next = end;
        sum.elapsed = t0.elapsed();
        if opts.stop_after.is_some_and(|n| sum.findings.len() >= n) {
            break;
        }
        show_progress(&bar, opts, &sum);
    }
    sum.elapsed = t0.elapsed();
    bar.finish_and_clear();
    sum.findings.sort_by_key(|f| f.case.seed);
    sum.errors.sort_by_key(|e| e.0);
    // Shrink the first findings by seed, after the campaign, so that which ones are shrunk is deterministic.
    if opts.shrink {
        let n = opts.max_shrinks.min(sum.findings.len());
        pool.install(|| sum.findings[..n].par_iter_mut().for_each(|f| f.shrunk = shrink_case(f, opts)));
    }
    Ok(sum)
}

fn engine_name(e: lanejit::Engine) -> &'static str {
    match e {
        lanejit::Engine::Interp => "interp",
        lanejit::Engine::Jit => "jit",
        lanejit::Engine::Auto => "auto",
    }
}

fn pretty(s: &StateJson) -> String {
    serde_json::to_string_pretty(s).unwrap_or_default() + "\n"
}

/// The reproducer text: a comment header naming the seed and the differences, then the disassembly.
pub fn reproducer_source(f: &Finding, prog: &GenProgram, div: &Divergence) -> Result<String, String> {
    let p = prog.render()?;
    let mut s = format!(
        "; lanejit fuzz reproducer: seed {:#x}, state {}, auto {:?}: {} diverges from interp\n",
        f.case.seed,
        f.state,
        f.mode,
        engine_name(div.engine)
    );
    for d in &div.diffs {
        s += &format!(";   {d}\n");
    }
    if f.regalloc == RegAlloc::SinglePass {
        s += "; compiled with Cranelift's single-pass register allocator (fuzz --backtracking): replay the JIT with LANEJIT_JIT_RA=single_pass\n";
    }
    if prog.launch {
        s += &format!("; {} rows of 24 threads per workgroup, a 2x2 grid, its waves run as a launch runs them (fuzz::launch_like): the first starts from THIS.json\n", prog.waves);
        s += "; replay: lanejit fuzz --replay THIS.s   (every engine, compared with interp)\n";
    } else if prog.waves > 1 {
        s += &format!("; a workgroup of {} waves (.workgroup): wave 0 starts from THIS.json, wave k from fuzz::group::wave_state\n", prog.waves);
        s += "; replay: lanejit fuzz --replay THIS.s   (every engine, compared with interp)\n";
    } else {
        s += "; replay: lanejit wave THIS.s --init THIS.json --engine jit   (compare with --engine interp)\n";
    }
    Ok(s + &lanejit_isa::disassemble(&p))
}

/// Writes a finding: `<name>.s` + `<name>.json` (the shrunk case, or the original if it was not shrunk),
/// `<name>.interp.json` and `<name>.<engine>.json` (both final states), and `<name>.orig.{s,json}`.
pub fn write_finding(dir: &Path, f: &Finding) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let name = format!("{}-{:016x}", engine_name(f.div.engine), f.case.seed);
    let (prog, init, div) = match &f.shrunk {
        Some((p, s, d)) => (p, s, d),
        None => (&f.case.prog, &f.case.init, &f.div),
    };
    let w = |file: String, text: String| std::fs::write(dir.join(&file), text).map_err(|e| format!("{file}: {e}"));
    w(format!("{name}.s"), reproducer_source(f, prog, div)?)?;
    w(format!("{name}.json"), pretty(init))?;
    if let Some(r) = &div.reference {
        w(format!("{name}.interp.json"), pretty(r))?;
    }
    match &div.other {
        Some(o) => w(format!("{name}.{}.json", engine_name(div.engine)), pretty(o))?,
        None => w(format!("{name}.{}.txt", engine_name(div.engine)), div.diffs.join("\n") + "\n")?,
    }
    w(format!("{name}.orig.s"), reproducer_source(f, &f.case.prog, &f.div)?)?;
    w(format!("{name}.orig.json"), pretty(&f.case.init))?;
    Ok(dir.join(format!("{name}.s")))
}
