//! Differential fuzzing of the engines (`lanejit fuzz`): a generator driven by the ISA tables, an oracle that
//! compares the JIT and `auto` with the interpreter on everything a wave leaves behind, a delta-debugging
//! shrinker, coverage by EXEC class, and the regression corpus replay.
//!
//! A seed names one case (program + initial state) forever: `lanejit fuzz --seed-range S..S+1` replays it.

pub mod campaign;
pub mod corpus;
pub mod coverage;
pub mod gen;
pub mod group;
pub mod heap;
pub mod launch_like;
pub mod merge;
pub mod oracle;
pub mod prog;
pub mod record;
pub mod report;
pub mod rng;
pub mod shard;
pub mod shrink;
pub mod values;
pub mod watchdog;

pub use campaign::{campaign, program_seed, Options, Summary};
pub use gen::{generate, generate_states, Case, GenConfig};
pub use oracle::{check, check_kernel, AutoMode, Divergence};

use crate::cli::{parse_seconds, parse_threads, Failed};
use anyhow::{anyhow, Result};
use lanejit_jit::RegAlloc;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How the fuzzer compiles its programs: on the thread that runs them (the moment compiled code takes over is
/// then the same on every run of a seed, so a divergence replays and shrinks), outside the code cache (each
/// program's tiering state is reset between engines, which must not reach another kernel), and with
/// `regalloc` as the optimising tier's register allocator (`campaign::regalloc_of`).
pub fn kernel_config(regalloc: RegAlloc) -> lanejit::tier::CompileConfig {
    let jit = lanejit_jit::JitOptions { regalloc, ..Default::default() };
    lanejit::tier::CompileConfig { compile_threads: 0, share: false, reuse_opt_code: true, jit, ..Default::default() }
}

/// The default of `--backtracking`: one program in this many compiles its optimising tier with Cranelift's
/// backtracking register allocator, exactly as users' kernels are compiled; the others use the single-pass
/// allocator on the same CLIF, which compiles a fuzz program in about half the time (docs/fuzzing.md).
pub const BACKTRACKING_ONE_IN: u64 = 8;
/// Largest `--backtracking`.
pub const MAX_BACKTRACKING_ONE_IN: u64 = 1 << 20;

/// Longest `--time` of a campaign (one week).
pub const MAX_FUZZ_TIME: Duration = Duration::from_secs(7 * 24 * 3600);
/// Largest `--size` (top-level items of a generated program): generated programs stay small enough that a
/// campaign's memory is bounded, while far beyond what shrinking and triage find useful.
pub const MAX_FUZZ_SIZE: usize = 4096;
/// Most initial states per program (`--states`).
pub const MAX_FUZZ_STATES: usize = 1024;
/// What `--ignore` takes: the fields the oracle's difference lines start with (`oracle::compare` and
/// `compare_group`; `u` and `v` stand for every register of the file). A misspelt name would ignore nothing
/// and hide that it did, so clap refuses any other.
pub const IGNORABLE: [&str; 11] =
    ["lane_ops", "retired", "pc", "exec", "fcsr", "trap", "memory", "shared", "waves", "u", "v"];

/// What `lanejit fuzz` does besides running a campaign.
#[derive(clap::Subcommand, Debug)]
pub enum FuzzAction {
    /// Merge the `--json` reports of one campaign's shards into one report (totals, coverage united,
    /// divergences grouped by signature); exit 1 when it holds divergences or lost shards, 2 when the reports
    /// are not disjoint parts of one campaign (docs/fuzzing.md).
    #[command(after_help = crate::cli::EXIT_CODES_HELP)]
    Merge(merge::MergeArgs),
}

/// `lanejit fuzz` arguments.
#[derive(clap::Args, Debug)]
pub struct FuzzArgs {
    /// `lanejit fuzz merge REPORT...`.
    #[command(subcommand)]
    pub action: Option<FuzzAction>,
    /// Campaign seed (any u64): program k has seed (SEED << 32) + k, mixed with a hash of SEED's upper 32 bits
    /// (see `campaign::program_seed`).
    #[arg(long, default_value_t = 0, value_parser = parse_u64)]
    pub seed: u64,
    /// Programs to run (default 1000 unless --time is given).
    #[arg(long)]
    pub count: Option<u64>,
    /// Run for this many seconds (with --count, whichever ends first): finite, above 0, at most 604800.
    #[arg(long, value_parser = parse_fuzz_time)]
    pub time: Option<Duration>,
    /// Worker threads, 1..=256 (default: one per core).
    #[arg(long, value_parser = parse_threads)]
    pub jobs: Option<usize>,
    /// Run exactly the program seeds A..B (hex with 0x, or decimal); overrides --seed/--count.
    #[arg(long, value_parser = parse_range)]
    pub seed_range: Option<Range<u64>>,
    /// Run shard K of N (1 <= K <= N) of the campaign: a contiguous Nth of its --count programs (or of
    /// --seed-range), disjoint from the other shards'; `lanejit fuzz merge` combines the shards' --json
    /// reports. Needs the campaign's size: --count (default 1000) or --seed-range, so not --time alone.
    #[arg(long, value_parser = shard::parse_shard)]
    pub shard: Option<shard::Shard>,
    /// A corpus directory: its entries (`.s` + `.json`, as --out's reproducers) are replayed first and their
    /// coverage seeds the campaign's; every case that reaches coverage (a mnemonic with an EXEC class, or a
    /// trap) no earlier case reached is written into it (created when missing), for later campaigns.
    #[arg(long, value_name = "DIR")]
    pub corpus: Option<PathBuf>,
    /// With --shard: run nothing, print the JSON report of that shard as lost for REASON (a campaign driver's
    /// record of a shard whose worker died twice; merging it makes the campaign fail, naming the shard).
    #[arg(long, requires = "shard", value_name = "REASON")]
    pub report_lost: Option<String>,
    /// Largest number of top-level items in a generated main program (structures add their bodies), 4..=4096.
    #[arg(long, default_value_t = GenConfig::default().max_len, value_parser = parse_size)]
    pub size: usize,
    /// Initial states each compiled program is run from, 1..=1024.
    #[arg(long, default_value_t = GenConfig::default().states, value_parser = parse_states)]
    pub states: usize,
    /// Percent of programs run as a workgroup of 2-4 waves sharing shared memory (most with barriers; the others run
    /// their waves back to back, as a launch of a kernel without barriers does), 0..=100.
    #[arg(long, default_value_t = GenConfig::default().group_pct, value_parser = clap::value_parser!(u32).range(0..=100))]
    pub groups: u32,
    /// One program in N (those whose seed is a multiple of N) compiles its optimising tier with Cranelift's
    /// backtracking register allocator, as users' kernels are compiled; the others with the single-pass
    /// allocator (the same CLIF, compiled in about half the time). 1: every program as users' kernels are.
    /// 1..=1048576.
    #[arg(long, default_value_t = BACKTRACKING_ONE_IN, value_parser = parse_backtracking)]
    pub backtracking: u64,
    /// Print which mnemonics ran with full, partial and empty EXEC.
    #[arg(long)]
    pub coverage: bool,
    /// Where reproducers of divergences are written: for each, `<name>.s` and `<name>.json` (the shrunk case),
    /// the final states, the unshrunk case, and `<name>.record.json`, a record file that `lanejit replay` runs.
    #[arg(long, default_value = "fuzz-out")]
    pub out: PathBuf,
    /// Report divergences without shrinking them.
    #[arg(long)]
    pub no_shrink: bool,
    /// Stop after the batch in which N divergences have been found (every earlier program has run).
    #[arg(long)]
    pub stop_after: Option<usize>,
    /// Compile planted JIT bug ID into every kernel (sensitivity measurement; the IDs are those of
    /// jit/src/mutants.rs `CATALOGUE`).
    #[arg(long, value_parser = parse_mutant)]
    pub mutant: Option<u32>,
    /// Ignore differences in this field (repeatable: lane_ops, retired, pc, exec, fcsr, trap, memory, shared,
    /// waves, u, v), e.g. to look past a known bug that would flood the report; any other name is refused.
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(IGNORABLE))]
    pub ignore: Vec<String>,
    /// Replay reproducers (`.s` with a `.json` beside it; a directory replays every one) instead of fuzzing.
    #[arg(long)]
    pub replay: Vec<PathBuf>,
    /// Print the summary as one JSON object (programs, cases, coverage, rate, and each divergence with its
    /// seed, state, summary and reproducer file) instead of the `key=value` line; progress stays on stderr.
    #[arg(long)]
    pub json: bool,
    /// Seconds a program may run before it counts as a hang (an engine that does not stop at its budget): the
    /// program is reported (`HANG ...` on stderr, with its seed) and the fuzzer exits 1 at once, because a
    /// thread stuck in compiled code cannot be stopped.
    #[arg(long, default_value_t = campaign::HANG_AFTER.as_secs_f64(), value_parser = parse_hang_after)]
    pub hang_after: f64,
}

fn parse_hang_after(s: &str) -> Result<f64, String> {
    parse_seconds(s, MAX_FUZZ_TIME, "MAX_FUZZ_TIME").map(|d| d.as_secs_f64())
}

fn parse_fuzz_time(s: &str) -> Result<Duration, String> {
    parse_seconds(s, MAX_FUZZ_TIME, "MAX_FUZZ_TIME")
}

fn parse_bounded(s: &str, lo: usize, hi: usize, limit_name: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if (lo..=hi).contains(&n) => Ok(n),
        Ok(n) => Err(format!("{n} is outside {lo}..={hi} ({limit_name})")),
        Err(_) => Err(format!("`{s}` is not an integer in {lo}..={hi}")),
    }
}

fn parse_size(s: &str) -> Result<usize, String> {
    // Generated programs draw their length from 4..=size.
    parse_bounded(s, 4, MAX_FUZZ_SIZE, "MAX_FUZZ_SIZE")
}

fn parse_backtracking(s: &str) -> Result<u64, String> {
    parse_bounded(s, 1, MAX_BACKTRACKING_ONE_IN as usize, "MAX_BACKTRACKING_ONE_IN").map(|n| n as u64)
}

fn parse_states(s: &str) -> Result<usize, String> {
    parse_bounded(s, 1, MAX_FUZZ_STATES, "MAX_FUZZ_STATES")
}

/// A planted-bug ID listed in `lanejit_jit::mutants::CATALOGUE`.
fn parse_mutant(s: &str) -> Result<u32, String> {
    let id: u32 = s.trim().parse().map_err(|_| format!("`{s}` is not a mutant ID"))?;
    if !lanejit_jit::mutants::ENABLED {
        return Err(lanejit_jit::mutants::NotBuiltIn.to_string());
    }
    let ids = || lanejit_jit::mutants::CATALOGUE.iter().map(|m| m.0);
    if !ids().any(|m| m == id) {
        let (lo, hi) = (ids().min().unwrap_or(0), ids().max().unwrap_or(0));
        return Err(format!("no planted bug {id} (IDs between {lo} and {hi}, listed in jit/src/mutants.rs)"));
    }
    Ok(id)
}

fn parse_u64(s: &str) -> Result<u64, String> {
    let s = s.trim().replace('_', "");
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16),
        None => s.parse(),
    }
    .map_err(|_| format!("`{s}` is not a number"))
}

fn parse_range(s: &str) -> Result<Range<u64>, String> {
    let (a, b) = s.split_once("..").ok_or_else(|| format!("`{s}`: expected A..B"))?;
    let (a, b) = (parse_u64(a)?, parse_u64(b)?);
    if a >= b {
        return Err(format!("`{s}`: empty range"));
    }
    Ok(a..b)
}

/// Checks that a reproducer can be replayed at all (the files exist, assemble and parse), so that bad input is
/// reported as such rather than as a divergence.
fn check_reproducer(source: &Path) -> Result<()> {
    let text = std::fs::read_to_string(source).map_err(|e| anyhow!("{}: {e}", source.display()))?;
    lanejit_isa::assemble(&source.display().to_string(), &text).map_err(|e| anyhow!("{e}"))?;
    crate::cli::load_state(&source.with_extension("json"))?;
    Ok(())
}

fn replay(paths: &[PathBuf], json: bool) -> Result<()> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            files.extend(corpus::cases(p).map_err(|e| anyhow!(e))?);
        } else {
            files.push(p.clone());
        }
    }
    for f in &files {
        check_reproducer(f)?;
    }
    let failed: Vec<String> = files.iter().filter_map(|f| corpus::replay(f).err()).collect();
    for f in &failed {
        eprintln!("DIVERGENCE {f}");
    }
    if json {
        println!("{}", serde_json::json!({ "replayed": files.len(), "divergences": failed }));
    } else {
        println!("replayed={} divergences={}", files.len(), failed.len());
    }
    if !failed.is_empty() {
        return Err(Failed(format!("{} of {} reproducers diverge", failed.len(), files.len())).into());
    }
    Ok(())
}

/// The campaign's settings as its report names them (what makes runs parts of one campaign).
fn settings(a: &FuzzArgs) -> report::Settings {
    let mut ignore = a.ignore.clone();
    ignore.sort();
    ignore.dedup();
    let count = match (&a.seed_range, a.count, a.time) {
        (Some(_), _, _) | (None, None, Some(_)) => None,
        (None, c, _) => Some(c.unwrap_or(1000)),
    };
    report::Settings {
        seed: a.seed_range.is_none().then_some(a.seed),
        count,
        size: a.size,
        states: a.states,
        groups: a.groups,
        ignore,
        mutant: a.mutant,
        shrink: !a.no_shrink,
        backtracking: a.backtracking,
    }
}

/// The program numbers this run is asked for (`None`: until `--time` ends): the campaign's, or its shard's.
fn planned(a: &FuzzArgs, settings: &report::Settings) -> Result<Option<Range<u64>>> {
    let whole = match (&a.seed_range, settings.count) {
        (Some(r), _) => r.clone(),
        (None, Some(n)) => 0..n,
        (None, None) if a.shard.is_some() => {
            return Err(anyhow!("--shard splits a campaign of known size: give --count (or --seed-range) with --time"))
        }
        (None, None) => return Ok(None),
    };
    match a.shard {
        Some(s) => s.part(&whole).map(Some).map_err(|e| anyhow!(e)),
        None => Ok(Some(whole)),
    }
}

/// `lanejit fuzz`: prints progress and a summary line; a divergence (or a harness error) is a [`Failed`]
/// error (exit code 1).
pub fn run(a: &FuzzArgs) -> Result<()> {
    if let Some(FuzzAction::Merge(m)) = &a.action {
        return merge::run(m);
    }
    if let Some(m) = a.mutant {
        lanejit_jit::mutants::set(Some(m))?;
    }
    if !a.replay.is_empty() {
        return replay(&a.replay, a.json);
    }
    let settings = settings(a);
    let planned = planned(a, &settings)?;
    if let Some(reason) = &a.report_lost {
        let r = planned.map(|r| (r.start, r.end)).unwrap_or_default();
        let part = report::Part { shard: a.shard, planned: r, ran: (r.0, r.0), lost: Some(reason.clone()) };
        let report = report::Report::of_run(settings, part, &Summary::default(), Vec::new());
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    let corpus = match &a.corpus {
        Some(dir) => Some(corpus::replay_corpus(dir, &a.ignore).map_err(|e| anyhow!(e))?),
        None => None,
    };
    for d in corpus.iter().flat_map(|c| &c.divergent) {
        eprintln!("DIVERGENCE corpus entry {d}");
    }
    let (seeds, first, count) = match (&a.seed_range, &planned) {
        (Some(_), Some(p)) => (Some(p.clone()), 0, None),
        (None, Some(p)) => (None, p.start, Some(p.end - p.start)),
        (_, None) => (None, 0, None),
    };
    let opts = Options {
        seed: a.seed,
        count,
        time: a.time,
        seeds,
        first,
        jobs: a.jobs,
        shrink: !a.no_shrink,
        progress: true,
        ignore: a.ignore.clone(),
        stop_after: a.stop_after,
        gen: GenConfig { max_len: a.size, states: a.states, group_pct: a.groups },
        hang_after: Some(Duration::from_secs_f64(a.hang_after)),
        corpus_known: corpus.as_ref().map(|c| c.known.clone()),
        backtracking: a.backtracking,
        ..Options::default()
    };
    heap::keep_freed_memory();
    let sum = campaign(&opts).map_err(|e| anyhow!(e))?;
    let corpus_json = match (&a.corpus, corpus) {
        (Some(dir), Some(c)) => {
            let added = corpus::write_entries(dir, &sum.new_coverage).map_err(|e| anyhow!(e))?;
            eprintln!("corpus {}: {} entries replayed, {added} added", dir.display(), c.entries);
            Some(report::CorpusJson { replayed: c.entries, added, divergent: c.divergent })
        }
        _ => None,
    };
    let corpus_bad = corpus_json.as_ref().map_or(0, |c| c.divergent.len());
    let found = report::write_findings(&sum, &a.out, &a.ignore);
    for (s, e) in &sum.errors {
        eprintln!("HARNESS ERROR seed {s:#x}: {e}");
    }
    if a.coverage {
        eprint!("{}", sum.coverage.report());
    }
    if a.json {
        let start = planned.as_ref().map_or(0, |p| p.start);
        let plan = planned.as_ref().map_or((0, sum.programs), |p| (p.start, p.end));
        let part = report::Part { shard: a.shard, planned: plan, ran: (start, start + sum.programs), lost: None };
        let mut report = report::Report::of_run(settings, part, &sum, found);
        report.corpus = corpus_json;
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!("{}", sum.line());
    }
    if !sum.findings.is_empty() || !sum.errors.is_empty() || corpus_bad > 0 {
        return Err(Failed(format!(
            "{} divergences, {} harness errors, {corpus_bad} divergent corpus entries",
            sum.findings.len(),
            sum.errors.len()
        ))
        .into());
    }
    Ok(())
}
