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
pub mod oracle;
pub mod prog;
pub mod rng;
pub mod shrink;
pub mod values;

pub use campaign::{campaign, program_seed, Options, Summary};
pub use gen::{generate, generate_states, Case, GenConfig};
pub use oracle::{check, check_kernel, AutoMode, Divergence};

use anyhow::{anyhow, Result};
use std::ops::Range;
use std::path::PathBuf;
use std::time::Duration;

/// `lanejit fuzz` arguments.
#[derive(clap::Args, Debug)]
pub struct FuzzArgs {
    /// Campaign seed: program k has seed (SEED << 32) + k.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Programs to run (default 1000 unless --time is given).
    #[arg(long)]
    pub count: Option<u64>,
    /// Run for this many seconds (with --count, whichever ends first).
    #[arg(long)]
    pub time: Option<f64>,
    /// Worker threads (default: one per core).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Run exactly the program seeds A..B (hex with 0x, or decimal); overrides --seed/--count.
    #[arg(long, value_parser = parse_range)]
    pub seed_range: Option<Range<u64>>,
    /// Largest number of top-level items in a generated main program (structures add their bodies).
    #[arg(long, default_value_t = GenConfig::default().max_len)]
    pub size: usize,
    /// Initial states each compiled program is run from.
    #[arg(long, default_value_t = GenConfig::default().states)]
    pub states: usize,
    /// Percent of programs run as a workgroup of 2-4 waves with barriers and shared memory.
    #[arg(long, default_value_t = GenConfig::default().group_pct)]
    pub groups: u32,
    /// Print which mnemonics ran with full, partial and empty EXEC.
    #[arg(long)]
    pub coverage: bool,
    /// Where reproducers of divergences are written.
    #[arg(long, default_value = "fuzz-out")]
    pub out: PathBuf,
    /// Report divergences without shrinking them.
    #[arg(long)]
    pub no_shrink: bool,
    /// Stop after the batch in which N divergences have been found (every earlier program has run).
    #[arg(long)]
    pub stop_after: Option<usize>,
    /// Compile planted JIT bug ID into every kernel (sensitivity measurement; see jit/src/mutants.rs).
    #[arg(long)]
    pub mutant: Option<u32>,
    /// Ignore differences in this field (repeatable: lane_ops, retired, pc, exec, fcsr, trap, memory, u, v), e.g.
    /// to look past a known bug that would flood the report.
    #[arg(long)]
    pub ignore: Vec<String>,
    /// Replay reproducers (`.s` with a `.json` beside it; a directory replays every one) instead of fuzzing.
    #[arg(long)]
    pub replay: Vec<PathBuf>,
}

fn parse_u64(s: &str) -> Result<u64, String> {
    let s = s.trim().replace('_', "");
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16),
        None => s.parse(),
    }.map_err(|_| format!("`{s}` is not a number"))
}

fn parse_range(s: &str) -> Result<Range<u64>, String> {
    let (a, b) = s.split_once("..").ok_or_else(|| format!("`{s}`: expected A..B"))?;
    let (a, b) = (parse_u64(a)?, parse_u64(b)?);
    if a >= b {
        return Err(format!("`{s}`: empty range"));
    }
    Ok(a..b)
}

fn replay(paths: &[PathBuf]) -> Result<()> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            files.extend(corpus::cases(p).map_err(|e| anyhow!(e))?);
        } else {
            files.push(p.clone());
        }
    }
    let failed: Vec<String> = files.iter().filter_map(|f| corpus::replay(f).err()).collect();
    for f in &failed {
        eprintln!("DIVERGENCE {f}");
    }
    println!("replayed={} divergences={}", files.len(), failed.len());
    if !failed.is_empty() {
        std::process::exit(1);
    }
    Ok(())
}

/// `lanejit fuzz`: prints progress and a summary line; exits with status 1 when engines diverged.
pub fn run(a: &FuzzArgs) -> Result<()> {
    if let Some(m) = a.mutant {
        lanejit_jit::mutants::set(Some(m));
    }
    if !a.replay.is_empty() {
        return replay(&a.replay);
    }
    let opts = Options {
        seed: a.seed,
        count: a.count,
        time: a.time.map(Duration::from_secs_f64),
        seeds: a.seed_range.clone(),
        jobs: a.jobs,
        shrink: !a.no_shrink,
        progress: true,
        ignore: a.ignore.clone(),
        stop_after: a.stop_after,
        gen: GenConfig { max_len: a.size, states: a.states, group_pct: a.groups },
        ..Options::default()
    };
    let sum = campaign(&opts).map_err(|e| anyhow!(e))?;
    // A systematic bug can fail thousands of programs: write the first reproducers, list the other seeds.
    const WRITTEN: usize = 32;
    for f in sum.findings.iter().take(WRITTEN) {
        eprintln!("DIVERGENCE seed {:#x} state {}: {}", f.case.seed, f.state, f.div.summary());
        match campaign::write_finding(&a.out, f) {
            Ok(p) => eprintln!("  reproducer: {}{}", p.display(), if f.shrunk.is_some() { " (shrunk)" } else { "" }),
            Err(e) => eprintln!("  could not write the reproducer: {e}"),
        }
    }
    if sum.findings.len() > WRITTEN {
        let rest: Vec<String> = sum.findings[WRITTEN..].iter().take(200).map(|f| format!("{:#x}", f.case.seed)).collect();
        eprintln!("{} more divergent seeds (no reproducer written): {}{}", sum.findings.len() - WRITTEN, rest.join(" "),
                  if sum.findings.len() - WRITTEN > rest.len() { " …" } else { "" });
    }
    for (s, e) in &sum.errors {
        eprintln!("HARNESS ERROR seed {s:#x}: {e}");
    }
    if a.coverage {
        eprint!("{}", sum.coverage.report());
    }
    println!("{}", sum.line());
    if !sum.findings.is_empty() || !sum.errors.is_empty() {
        std::process::exit(1);
    }
    Ok(())
}
