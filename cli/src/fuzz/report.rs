//! The `lanejit fuzz --json` report: everything `lanejit fuzz merge` needs to combine the reports of a
//! campaign's shards into one (docs/fuzzing.md, "The report"): the lanejit version and the campaign's settings
//! (what makes two runs parts of one campaign), which programs each part planned and ran, the totals, the
//! coverage per mnemonic (so that merged coverage is the true union), and every divergence with its signature
//! and reproducer. A merged report has the same shape, so merged reports merge again.

use super::campaign::{write_finding, Finding, Summary};
use super::coverage::Coverage;
use super::shard::Shard;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The `format` field of a report.
pub const REPORT_FORMAT: &str = "lanejit-fuzz-report";
/// The report format's version: a reader refuses a newer one.
pub const REPORT_VERSION: u32 = 1;
/// Divergences whose reproducer and record a run writes (a systematic bug can fail thousands of programs: the
/// others are listed by seed).
pub const WRITTEN: usize = 32;

/// What makes runs parts of one campaign: two reports merge only when these are equal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// The campaign seed (`None`: a `--seed-range` campaign, whose program numbers are the seeds themselves).
    pub seed: Option<u64>,
    /// The campaign's programs (`--count`; `None` for `--seed-range` and for `--time` without `--count`).
    pub count: Option<u64>,
    /// `--size`.
    pub size: usize,
    /// `--states`.
    pub states: usize,
    /// `--groups`.
    pub groups: u32,
    /// `--ignore`, sorted, without repeats.
    pub ignore: Vec<String>,
    /// `--mutant`.
    pub mutant: Option<u32>,
    /// Whether findings are shrunk (`--no-shrink` changes the signatures).
    pub shrink: bool,
    /// `--backtracking`: one program in this many compiled with users' register allocator.
    pub backtracking: u64,
}

impl Settings {
    /// The `lanejit fuzz` arguments that run programs `range` of this campaign again (the shard's own
    /// `--shard K/N` when it has one).
    pub fn command(&self, shard: Option<Shard>, range: (u64, u64)) -> String {
        let mut s = String::from("lanejit fuzz");
        match (self.seed, shard, self.count) {
            (Some(seed), Some(k), Some(count)) => s += &format!(" --seed {seed} --count {count} --shard {k}"),
            (Some(seed), _, _) if range.0 == 0 => s += &format!(" --seed {seed} --count {}", range.1),
            // A part of a campaign that is no shard: its seeds one by one (seed-range names program seeds).
            (Some(seed), _, _) => s += &format!(" --seed {seed} (programs {}..{})", range.0, range.1),
            (None, _, _) => s += &format!(" --seed-range {}..{}", range.0, range.1),
        }
        s += &format!(" --size {} --states {} --groups {}", self.size, self.states, self.groups);
        for i in &self.ignore {
            s += &format!(" --ignore {i}");
        }
        if let Some(m) = self.mutant {
            s += &format!(" --mutant {m}");
        }
        if !self.shrink {
            s += " --no-shrink";
        }
        if self.backtracking != crate::fuzz::BACKTRACKING_ONE_IN {
            s += &format!(" --backtracking {}", self.backtracking);
        }
        s
    }
}

/// One run's share of the campaign (a merged report lists every input's).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Part {
    /// The run's `--shard`, if any.
    pub shard: Option<Shard>,
    /// Program numbers it was asked to run, `[first, end)` (with `--seed-range`, the seeds themselves).
    pub planned: (u64, u64),
    /// Program numbers it ran, `[first, end)`: `planned`, or a prefix of it when `--time` or `--stop-after`
    /// ended the run early (empty when the part was lost).
    pub ran: (u64, u64),
    /// Why the part never ran to its end (its worker died twice: `lanejit fuzz --report-lost`).
    pub lost: Option<String>,
}

/// Coverage per mnemonic: executions with a full, a partial and an empty EXEC, and how many of them trapped.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoverageJson {
    /// `[full, partial, empty, trapped]` per mnemonic (every mnemonic of the ISA, hit or not).
    pub mnemonics: BTreeMap<String, [u64; 4]>,
    /// How runs ended: `end`, or the trap kind.
    pub endings: BTreeMap<String, u64>,
}

impl CoverageJson {
    /// The report's form of a campaign's coverage.
    pub fn of(c: &Coverage) -> CoverageJson {
        let mnemonics = lanejit_isa::INSNS
            .iter()
            .zip(c.hits.iter().zip(&c.traps))
            .map(|(i, (h, &t))| (i.mnemonic.to_string(), [h[0], h[1], h[2], t]))
            .collect();
        let endings = c.endings.iter().map(|(k, n)| (k.to_string(), *n)).collect();
        CoverageJson { mnemonics, endings }
    }

    /// Adds another report's counts (the union of what was hit, with summed counts).
    pub fn merge(&mut self, o: &CoverageJson) {
        for (m, h) in &o.mnemonics {
            let mine = self.mnemonics.entry(m.clone()).or_default();
            for (a, b) in mine.iter_mut().zip(h) {
                *a += b;
            }
        }
        for (k, n) in &o.endings {
            *self.endings.entry(k.clone()).or_default() += n;
        }
    }

    /// Share of (mnemonic, EXEC class) cells hit, in percent (as `Coverage::percent`).
    pub fn percent(&self) -> f64 {
        let hit = self.mnemonics.values().flat_map(|h| &h[..3]).filter(|&&n| n > 0).count();
        100.0 * hit as f64 / (3 * self.mnemonics.len()).max(1) as f64
    }
}

/// One divergence: the case, its signature, and the files that reproduce it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DivergenceJson {
    /// The program seed (`lanejit fuzz --seed-range SEED..SEED+1` with the campaign's settings runs it again).
    pub seed: u64,
    /// Which of the program's initial states diverged.
    pub state: usize,
    /// The engine that differs from the interpreter (`jit` or `auto`).
    pub engine: String,
    /// The engine and the first differences, in words.
    pub summary: String,
    /// `ENGINE:HASH`, HASH a 64-bit FNV-1a of the disassembled (shrunk, when shrinking succeeded) program:
    /// the same bug found from two seeds usually shrinks to one program, hence one signature.
    pub signature: String,
    /// The shrunk program's disassembly (absent when it was not shrunk: generated programs are long).
    pub instructions: Option<Vec<String>>,
    /// The reproducer `.s` (with its `.json` state beside it), when one was written.
    pub reproducer: Option<String>,
    /// The record file `lanejit replay` runs, when one was written.
    pub record: Option<String>,
    /// Whether the reproducer holds the shrunk case.
    pub shrunk: bool,
}

/// Divergences with one signature.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignatureJson {
    /// The signature.
    pub signature: String,
    /// The engine that differs.
    pub engine: String,
    /// How many divergences have it.
    pub count: usize,
    /// Their seeds, ascending.
    pub seeds: Vec<u64>,
    /// The first one's summary.
    pub summary: String,
    /// The shrunk program (from the first divergence that has it).
    pub instructions: Option<Vec<String>>,
    /// Every reproducer written for it.
    pub reproducers: Vec<String>,
    /// Every record file written for it.
    pub records: Vec<String>,
}

/// A case the harness itself could not run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HarnessError {
    /// The program seed.
    pub seed: u64,
    /// What failed.
    pub error: String,
}

/// A `lanejit fuzz --json` report, or a merge of several.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Report {
    /// [`REPORT_FORMAT`].
    pub format: String,
    /// [`REPORT_VERSION`].
    pub format_version: u32,
    /// The lanejit version that ran the campaign.
    pub lanejit_version: String,
    /// The campaign's settings.
    pub campaign: Settings,
    /// The runs this report covers, by first program.
    pub parts: Vec<Part>,
    /// Programs no part ran, `[first, end)`: of `0..count` when the campaign has a count, else of what the
    /// parts planned.
    pub not_run: Vec<(u64, u64)>,
    /// `not_run` is empty and no part was lost.
    pub complete: bool,
    /// Programs generated and compared.
    pub programs: u64,
    /// (program, initial state) runs.
    pub cases: u64,
    /// Seconds the parts ran, summed.
    pub elapsed_s: f64,
    /// `programs / elapsed_s`: programs per second of one run.
    pub programs_per_s: f64,
    /// `coverage`'s share of (mnemonic, EXEC class) cells hit, percent.
    pub coverage_percent: f64,
    /// Coverage per mnemonic.
    pub coverage: CoverageJson,
    /// Every divergence, by seed.
    pub divergences: Vec<DivergenceJson>,
    /// The divergences grouped by signature, most frequent first.
    pub signatures: Vec<SignatureJson>,
    /// Cases the harness could not run (bugs of the fuzzer), by seed.
    pub harness_errors: Vec<HarnessError>,
    /// Parts lost (their worker died twice), with the command that runs them again.
    pub lost: Vec<LostPart>,
    /// What the runs did with a corpus (`--corpus`), summed over the parts that had one.
    pub corpus: Option<CorpusJson>,
}

/// A run's corpus (`lanejit fuzz --corpus DIR`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorpusJson {
    /// Entries replayed before the campaign (their coverage is not in the report's).
    pub replayed: u64,
    /// Cases of the campaign that reached new coverage, written to the corpus.
    pub added: u64,
    /// Entries on which an engine diverges from the interpreter: each a finding (exit 1).
    pub divergent: Vec<String>,
}

impl CorpusJson {
    /// Adds another run's.
    pub fn merge(&mut self, o: &CorpusJson) {
        self.replayed += o.replayed;
        self.added += o.added;
        self.divergent.extend(o.divergent.iter().cloned());
    }
}

/// A part that never ran: reported as a finding so that a campaign never silently drops programs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LostPart {
    /// Its shard, if any.
    pub shard: Option<Shard>,
    /// The program numbers it should have run.
    pub programs: (u64, u64),
    /// Why it was lost.
    pub reason: String,
    /// The command that runs it again.
    pub rerun: String,
}

/// `ENGINE:HASH` of a program's disassembly (see [`DivergenceJson::signature`]).
pub fn signature(engine: &str, disassembly: &str) -> String {
    let h = disassembly.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3));
    format!("{engine}:{h:016x}")
}

/// The JSON entry of a finding, its files not yet written.
fn divergence_json(f: &Finding) -> DivergenceJson {
    let (prog, div) = f.shrunk.as_ref().map_or((&f.case.prog, &f.div), |(p, _, d)| (p, d));
    let engine = format!("{:?}", div.engine).to_lowercase();
    let text = prog.render().map(|p| lanejit_isa::disassemble(&p)).unwrap_or_default();
    DivergenceJson {
        seed: f.case.seed,
        state: f.state,
        summary: f.div.summary(),
        signature: signature(&engine, &text),
        instructions: f.shrunk.is_some().then(|| text.lines().map(str::to_string).collect()),
        engine,
        reproducer: None,
        record: None,
        shrunk: f.shrunk.is_some(),
    }
}

/// Writes the first [`WRITTEN`] findings' reproducers and records into `out` (saying so on standard error) and
/// returns every finding's JSON entry.
pub fn write_findings(sum: &Summary, out: &Path, ignore: &[String]) -> Vec<DivergenceJson> {
    let mut found = Vec::new();
    for (i, f) in sum.findings.iter().enumerate() {
        let mut d = divergence_json(f);
        if i < WRITTEN {
            eprintln!("DIVERGENCE seed {:#x} state {}: {} [{}]", f.case.seed, f.state, f.div.summary(), d.signature);
            match write_finding(out, f) {
                Ok(p) => {
                    eprintln!("  reproducer: {}{}", p.display(), if f.shrunk.is_some() { " (shrunk)" } else { "" });
                    d.reproducer = Some(p.display().to_string());
                    match super::record::write_beside(&p, f, ignore) {
                        Ok(r) => {
                            eprintln!("  record: {} (lanejit replay)", r.display());
                            d.record = Some(r.display().to_string());
                        }
                        Err(e) => eprintln!("  could not write the record: {e}"),
                    }
                }
                Err(e) => eprintln!("  could not write the reproducer: {e}"),
            }
        }
        found.push(d);
    }
    if sum.findings.len() > WRITTEN {
        let rest: Vec<String> =
            sum.findings[WRITTEN..].iter().take(200).map(|f| format!("{:#x}", f.case.seed)).collect();
        eprintln!(
            "{} more divergent seeds (no reproducer written): {}{}",
            sum.findings.len() - WRITTEN,
            rest.join(" "),
            if sum.findings.len() - WRITTEN > rest.len() { " …" } else { "" }
        );
    }
    found
}

impl Report {
    /// The report of one run: `part` says which programs it planned and ran.
    pub fn of_run(settings: Settings, part: Part, sum: &Summary, divergences: Vec<DivergenceJson>) -> Report {
        let harness_errors =
            sum.errors.iter().map(|(seed, error)| HarnessError { seed: *seed, error: error.clone() }).collect();
        Report::assemble(
            settings,
            vec![part],
            (sum.programs, sum.cases, sum.elapsed.as_secs_f64()),
            CoverageJson::of(&sum.coverage),
            divergences,
            harness_errors,
        )
    }

    /// A report from its inputs; every derived field (signatures, lost parts, what did not run, rates) is
    /// computed here, so that a merge recomputes them rather than trusting its inputs'.
    pub fn assemble(
        campaign: Settings,
        mut parts: Vec<Part>,
        (programs, cases, elapsed_s): (u64, u64, f64),
        coverage: CoverageJson,
        mut divergences: Vec<DivergenceJson>,
        mut harness_errors: Vec<HarnessError>,
    ) -> Report {
        parts.sort_by_key(|p| p.planned);
        divergences.sort_by_key(|d| (d.seed, d.state));
        harness_errors.sort_by_key(|e| e.seed);
        let lost: Vec<LostPart> = parts
            .iter()
            .filter_map(|p| {
                let reason = p.lost.clone()?;
                Some(LostPart {
                    shard: p.shard,
                    programs: p.planned,
                    reason,
                    rerun: campaign.command(p.shard, p.planned),
                })
            })
            .collect();
        let not_run = not_run(&parts, campaign.count);
        Report {
            format: REPORT_FORMAT.into(),
            format_version: REPORT_VERSION,
            lanejit_version: lanejit::BUILD.into(),
            complete: not_run.is_empty() && lost.is_empty(),
            not_run,
            parts,
            programs,
            cases,
            elapsed_s,
            programs_per_s: programs as f64 / elapsed_s.max(1e-9),
            coverage_percent: coverage.percent(),
            coverage,
            signatures: signatures(&divergences),
            divergences,
            harness_errors,
            lost,
            campaign,
            corpus: None,
        }
    }

    /// One line: what the `key=value` summary of a run says, for a merged report.
    pub fn line(&self) -> String {
        format!(
            "programs={} divergences={} signatures={} coverage={:.1}% cases={} lost={} complete={}",
            self.programs,
            self.divergences.len(),
            self.signatures.len(),
            self.coverage_percent,
            self.cases,
            self.lost.len(),
            self.complete
        )
    }
}

/// Program numbers the campaign should have run and no part ran: of `0..count` when the campaign has a count,
/// else of what the parts planned (a `--seed-range` part cut short by `--time`, a lost one).
fn not_run(parts: &[Part], count: Option<u64>) -> Vec<(u64, u64)> {
    let mut wanted: Vec<(u64, u64)> = match count {
        Some(c) => vec![(0, c)],
        None => parts.iter().map(|p| p.planned).collect(),
    };
    wanted.sort();
    let mut ran: Vec<(u64, u64)> = parts.iter().map(|p| p.ran).filter(|r| r.1 > r.0).collect();
    ran.sort();
    let mut out = Vec::new();
    for (mut a, b) in wanted {
        for &(ra, rb) in &ran {
            if rb <= a || ra >= b {
                continue;
            }
            if ra > a {
                out.push((a, ra));
            }
            a = a.max(rb);
        }
        if a < b {
            out.push((a, b));
        }
    }
    out
}

/// The divergences grouped by signature, most frequent first (then by first seed).
fn signatures(divs: &[DivergenceJson]) -> Vec<SignatureJson> {
    let mut by: BTreeMap<&str, SignatureJson> = BTreeMap::new();
    for d in divs {
        let s = by.entry(&d.signature).or_insert_with(|| SignatureJson {
            signature: d.signature.clone(),
            engine: d.engine.clone(),
            count: 0,
            seeds: Vec::new(),
            summary: d.summary.clone(),
            instructions: None,
            reproducers: Vec::new(),
            records: Vec::new(),
        });
        s.count += 1;
        s.seeds.push(d.seed);
        if s.instructions.is_none() {
            s.instructions = d.instructions.clone();
        }
        s.reproducers.extend(d.reproducer.clone());
        s.records.extend(d.record.clone());
    }
    let mut out: Vec<SignatureJson> = by.into_values().collect();
    out.sort_by(|a, b| b.count.cmp(&a.count).then(a.seeds[0].cmp(&b.seeds[0])));
    out
}
