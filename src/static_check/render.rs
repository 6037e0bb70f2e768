//! Reports of [`check`](super::check)'s findings: one line per finding (text), or one JSON object.

use super::cfg::{counter_index, counter_max};
use super::{hazard_count, reg_name, Finding, FindingKind, Site};
use serde_json::{json, Value};

/// `file:line: ` where the line is known, else `file: `.
fn place(file: &str, s: Site) -> String {
    match s.line {
        Some(l) => format!("{file}:{l}: "),
        None => format!("{file}: "),
    }
}

fn site_text(s: &Site) -> String {
    match s.line {
        Some(l) => format!("pc {:#x} (line {l})", s.pc),
        None => format!("pc {:#x}", s.pc),
    }
}

/// One finding as a line of text, led by `file:line:` as compilers write it.
fn line_of(file: &str, f: &Finding) -> String {
    let counter = f.counter.name();
    let at = place(file, f.at);
    let mut producers = f.producers.iter().map(site_text).collect::<Vec<_>>().join(", ");
    if f.more_producers {
        producers += ", and more";
    }
    let reg = f.reg.map(reg_name).unwrap_or_default();
    match f.kind {
        FindingKind::ReadBeforeWait => format!(
            "{at}hazard {}: pc {:#x} reads {reg} before a wait {counter} covers its write by {producers}",
            f.kind.name(),
            f.at.pc
        ),
        FindingKind::OverwriteBeforeWait => format!(
            "{at}hazard {}: pc {:#x} writes {reg} before a wait {counter} covers its write by {producers}",
            f.kind.name(),
            f.at.pc
        ),
        FindingKind::StoreSourceOverwritten => format!(
            "{at}hazard {}: pc {:#x} writes {reg} before a wait {counter} covers its read by {producers}",
            f.kind.name(),
            f.at.pc
        ),
        FindingKind::WaitStrongerThanNeeded => {
            let (value, weakest) = f.field.unwrap_or_default();
            format!(
                "{at}note {}: pc {:#x}: {counter}={value} could be {counter}={weakest}{} with no hazard",
                f.kind.name(),
                f.at.pc,
                if weakest == counter_max(counter_index(f.counter)) { " (no wait on it)" } else { "" }
            )
        }
    }
}

/// The findings of one kernel as text: one line each, then a summary line (`kernel NAME: N hazards, M notes`).
pub fn render_text(file: &str, kernel: &str, findings: &[Finding]) -> String {
    let mut out: String = findings.iter().map(|f| line_of(file, f) + "\n").collect();
    let hazards = hazard_count(findings);
    out += &format!("{file}: kernel {kernel}: {hazards} hazards, {} notes\n", findings.len() - hazards);
    out
}

fn site_json(s: &Site) -> Value {
    json!({ "pc": s.pc, "line": s.line })
}

/// The findings of one kernel as one JSON object: `file`, `kernel`, `hazards` (count), `notes` (count) and
/// `findings`, each with `kind`, `hazard` (bool), `pc`, `line`, `producers` (`pc`, `line`; the lowest
/// `MAX_PRODUCERS`), `more_producers` (bool: there are more), `reg`, `counter`
/// and, for notes, `value` and `weakest`.
pub fn render_json(file: &str, kernel: &str, findings: &[Finding]) -> Value {
    let rows: Vec<Value> = findings
        .iter()
        .map(|f| {
            json!({
                "kind": f.kind.name(),
                "hazard": f.kind.is_hazard(),
                "pc": f.at.pc,
                "line": f.at.line,
                "producers": f.producers.iter().map(site_json).collect::<Vec<_>>(),
                "more_producers": f.more_producers,
                "reg": f.reg.map(reg_name),
                "counter": f.counter.name(),
                "value": f.field.map(|x| x.0),
                "weakest": f.field.map(|x| x.1),
            })
        })
        .collect();
    let hazards = hazard_count(findings);
    json!({ "file": file, "kernel": kernel, "hazards": hazards, "notes": findings.len() - hazards, "findings": rows })
}
