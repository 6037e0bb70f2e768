//! `lanejit fuzz merge A.json B.json …`: the `--json` reports of a campaign's shards (or of merges of them)
//! combined into one report of the same shape: totals summed, coverage united, divergences grouped by
//! signature. Inputs that are not parts of one campaign are bad input (exit 2): a different lanejit version or
//! settings, or two parts that planned the same programs.

use super::report::{Report, REPORT_FORMAT, REPORT_VERSION};
use crate::cli::Failed;
use anyhow::{anyhow, bail, Result};
use std::path::{Path, PathBuf};

/// `lanejit fuzz merge` arguments.
#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// The reports to merge (`lanejit fuzz --json` output, or an earlier merge's).
    #[arg(required = true)]
    pub reports: Vec<PathBuf>,
    /// Print the merged report as JSON (the `fuzz --json` shape) instead of a summary.
    #[arg(long)]
    pub json: bool,
}

/// Reads one report strictly: its format and version first, so that a newer report is refused as such.
pub fn read_report(path: &Path) -> Result<Report> {
    let at = |e: String| anyhow!("{}: {e}", path.display());
    let text = std::fs::read_to_string(path).map_err(|e| at(e.to_string()))?;
    let v: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| at(format!("not JSON ({e}): expected a `lanejit fuzz --json` report")))?;
    if v.get("format").and_then(|f| f.as_str()) != Some(REPORT_FORMAT) {
        return Err(at(format!(
            "not a fuzz report (no `\"format\": \"{REPORT_FORMAT}\"`): write one with `lanejit fuzz --json`"
        )));
    }
    match v.get("format_version").and_then(|f| f.as_u64()) {
        Some(n) if n == REPORT_VERSION as u64 => {}
        Some(n) if n > REPORT_VERSION as u64 => {
            return Err(at(format!("report format {n} is newer than this lanejit reads ({REPORT_VERSION})")))
        }
        other => {
            return Err(at(format!("unknown report format version {other:?} (this lanejit reads {REPORT_VERSION})")))
        }
    }
    serde_json::from_value(v).map_err(|e| at(format!("malformed report: {e}")))
}

/// Refuses inputs that are not parts of one campaign.
fn check_one_campaign(inputs: &[(PathBuf, Report)]) -> Result<()> {
    let (first, r0) = &inputs[0];
    for (path, r) in &inputs[1..] {
        if r.lanejit_version != r0.lanejit_version {
            bail!(
                "{} was written by lanejit {}, {} by lanejit {}: runs of different versions are not one campaign",
                first.display(),
                r0.lanejit_version,
                path.display(),
                r.lanejit_version
            );
        }
        if r.campaign != r0.campaign {
            let (a, b) = (serde_json::to_value(&r0.campaign)?, serde_json::to_value(&r.campaign)?);
            let differ: Vec<String> = a
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(k, v)| b.get(k.as_str()) != Some(v))
                .map(|(k, v)| format!("{k} {v} vs {}", b.get(k.as_str()).unwrap_or(&serde_json::Value::Null)))
                .collect();
            bail!(
                "{} and {} are different campaigns ({}): only shards of one campaign merge",
                first.display(),
                path.display(),
                differ.join(", ")
            );
        }
    }
    Ok(())
}

/// Refuses two parts that planned overlapping programs (a shard given twice, or shards of different splits
/// that overlap).
fn check_disjoint(inputs: &[(PathBuf, Report)]) -> Result<()> {
    let mut parts: Vec<(&Path, &super::report::Part)> =
        inputs.iter().flat_map(|(p, r)| r.parts.iter().map(move |part| (p.as_path(), part))).collect();
    parts.sort_by_key(|(_, p)| p.planned);
    for w in parts.windows(2) {
        let ((fa, a), (fb, b)) = (w[0], w[1]);
        if b.planned.0 < a.planned.1 {
            let name = |p: &super::report::Part| p.shard.map_or(String::from("a run"), |s| format!("shard {s}"));
            bail!(
                "{} ({}, programs {}..{}) and {} ({}, programs {}..{}) overlap: each program may be run by one part only",
                fa.display(),
                name(a),
                a.planned.0,
                a.planned.1,
                fb.display(),
                name(b),
                b.planned.0,
                b.planned.1
            );
        }
    }
    Ok(())
}

/// Merges reports of one campaign (checked) into one.
pub fn merge(inputs: Vec<(PathBuf, Report)>) -> Result<Report> {
    if inputs.is_empty() {
        bail!("nothing to merge");
    }
    check_one_campaign(&inputs)?;
    check_disjoint(&inputs)?;
    let campaign = inputs[0].1.campaign.clone();
    let (mut parts, mut coverage, mut divs, mut errors) = (Vec::new(), inputs[0].1.coverage.clone(), vec![], vec![]);
    let (mut programs, mut cases, mut elapsed) = (0, 0, 0.0);
    let mut corpus: Option<super::report::CorpusJson> = None;
    for (i, (_, r)) in inputs.into_iter().enumerate() {
        if let Some(c) = &r.corpus {
            corpus.get_or_insert_with(Default::default).merge(c);
        }
        if i > 0 {
            coverage.merge(&r.coverage);
        }
        parts.extend(r.parts);
        programs += r.programs;
        cases += r.cases;
        elapsed += r.elapsed_s;
        divs.extend(r.divergences);
        errors.extend(r.harness_errors);
    }
    let mut merged = Report::assemble(campaign, parts, (programs, cases, elapsed), coverage, divs, errors);
    merged.corpus = corpus;
    Ok(merged)
}

/// Prints what a report found on standard error: each signature with its reproducers, each lost part with the
/// command that reruns it, what did not run.
pub fn print_findings(r: &Report) {
    for s in &r.signatures {
        eprintln!("SIGNATURE {} ({} divergences, first seed {:#x}): {}", s.signature, s.count, s.seeds[0], s.summary);
        if let Some(ins) = &s.instructions {
            for l in ins.iter().filter(|l| !l.trim().is_empty()) {
                eprintln!("    {l}");
            }
        }
        for p in &s.reproducers {
            eprintln!("  reproducer: {p} (its record: the same name ending .record.json)");
        }
    }
    for d in r.corpus.iter().flat_map(|c| &c.divergent) {
        eprintln!("DIVERGENCE corpus entry {d}");
    }
    for e in &r.harness_errors {
        eprintln!("HARNESS ERROR seed {:#x}: {}", e.seed, e.error);
    }
    for l in &r.lost {
        let shard = l.shard.map_or(String::new(), |s| format!("shard {s}, "));
        eprintln!("LOST {shard}programs {}..{}: {}\n  rerun: {}", l.programs.0, l.programs.1, l.reason, l.rerun);
    }
    if !r.not_run.is_empty() {
        let gaps: Vec<String> = r.not_run.iter().map(|(a, b)| format!("{a}..{b}")).collect();
        eprintln!("not run (no part covers them, or a run ended early): programs {}", gaps.join(", "));
    }
}

/// The failure a report stands for (divergences, harness errors, lost parts), if any: exit code 1.
pub fn verdict(r: &Report) -> Result<()> {
    let corpus = r.corpus.as_ref().map_or(0, |c| c.divergent.len());
    if r.divergences.is_empty() && r.harness_errors.is_empty() && r.lost.is_empty() && corpus == 0 {
        return Ok(());
    }
    Err(Failed(format!(
        "{} divergences ({} signatures), {} harness errors, {} lost parts, {corpus} divergent corpus entries",
        r.divergences.len(),
        r.signatures.len(),
        r.harness_errors.len(),
        r.lost.len()
    ))
    .into())
}

/// `lanejit fuzz merge`.
pub fn run(a: &MergeArgs) -> Result<()> {
    let mut inputs = Vec::new();
    for p in &a.reports {
        inputs.push((p.clone(), read_report(p)?));
    }
    let merged = merge(inputs)?;
    print_findings(&merged);
    if a.json {
        println!("{}", serde_json::to_string_pretty(&merged)?);
    } else {
        println!("{}", merged.line());
    }
    verdict(&merged)
}
