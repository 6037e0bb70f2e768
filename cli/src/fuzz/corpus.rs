//! Corpora of cases: `<name>.s` with its initial state `<name>.json` (the `lanejit wave --init` format),
//! replayed on every engine and compared with the interpreter. The regression corpus (`tests/regressions/`)
//! and a campaign's corpus (`lanejit fuzz --corpus DIR`: the cases that reached new coverage, which a later
//! campaign replays first, starting from their coverage) share the form.

use super::coverage::{Coverage, CELLS_PER_INSN};
use super::gen::Case;
use super::oracle::{check, AutoMode};
use lanejit::state_json::StateJson;
use lanejit_jit::RegAlloc;
use std::path::{Path, PathBuf};

/// Every `.s` file of `dir` that has a `.json` beside it, sorted.
pub fn cases(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "s") && p.with_extension("json").exists())
        .collect();
    out.sort();
    Ok(out)
}

/// Replays one reproducer on interp, jit and auto (cold and hot), its optimising tier compiled with either
/// register allocator (a campaign may have found it with either: `campaign::regalloc_of`); `Err` lists the
/// differences.
pub fn replay(source: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(source).map_err(|e| format!("{}: {e}", source.display()))?;
    let program = lanejit_isa::assemble(&source.display().to_string(), &text).map_err(|e| e.to_string())?;
    let json = source.with_extension("json");
    let init: StateJson =
        serde_json::from_str(&std::fs::read_to_string(&json).map_err(|e| format!("{}: {e}", json.display()))?)
            .map_err(|e| format!("{}: {e}", json.display()))?;
    for mode in [AutoMode::Cold, AutoMode::Hot] {
        for regalloc in [RegAlloc::Backtracking, RegAlloc::SinglePass] {
            if let Some(d) = check(&program, &init, (mode, regalloc), None, &[])? {
                let how = format!("auto {mode:?}, {} allocator", regalloc.name());
                return Err(format!("{} ({how}): {}", source.display(), d.diffs.join("\n  ")));
            }
        }
    }
    Ok(())
}

/// A campaign's corpus (`lanejit fuzz --corpus DIR`), replayed: what its entries covered and which diverge.
#[derive(Debug, Default)]
pub struct Replayed {
    /// Entries run.
    pub entries: u64,
    /// Corpus cells (`Coverage::cells`) the entries reached.
    pub known: Vec<bool>,
    /// Entries on which an engine diverges from the interpreter, each with its differences.
    pub divergent: Vec<String>,
}

/// Reads every entry of a corpus directory (created when missing): an entry that does not assemble or whose
/// state does not parse is bad input, named.
fn load(dir: &Path) -> Result<Vec<(PathBuf, lanejit_isa::Program, StateJson)>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("--corpus {}: {e}", dir.display()))?;
    let mut out = Vec::new();
    for source in cases(dir)? {
        let text = std::fs::read_to_string(&source).map_err(|e| format!("{}: {e}", source.display()))?;
        let program = lanejit_isa::assemble(&source.display().to_string(), &text).map_err(|e| e.to_string())?;
        let json = source.with_extension("json");
        let text = std::fs::read_to_string(&json).map_err(|e| format!("{}: {e}", json.display()))?;
        let init: StateJson = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", json.display()))?;
        out.push((source, program, init));
    }
    Ok(out)
}

/// Runs every entry of the corpus in `dir` (in parallel) as the oracle runs a case, both ways `auto` runs
/// (cold with users' register allocator, hot with the single-pass one), counting the coverage of the first;
/// `Err` is bad input.
pub fn replay_corpus(dir: &Path, ignore: &[String]) -> Result<Replayed, String> {
    use rayon::prelude::*;
    let entries = load(dir)?;
    let runs: Vec<(Coverage, Option<String>)> = entries
        .par_iter()
        .map(|(source, program, init)| {
            let mut cov = Coverage::default();
            let mut bad = None;
            for (mode, regalloc) in [(AutoMode::Cold, RegAlloc::Backtracking), (AutoMode::Hot, RegAlloc::SinglePass)] {
                let c = (mode == AutoMode::Cold).then_some(&mut cov);
                match check(program, init, (mode, regalloc), c, ignore) {
                    Ok(None) => {}
                    Ok(Some(d)) => bad = Some(format!("{}: {}", source.display(), d.summary())),
                    Err(e) => bad = Some(format!("{}: the interpreter failed: {e}", source.display())),
                }
                if bad.is_some() {
                    break;
                }
            }
            (cov, bad)
        })
        .collect();
    let mut known = vec![false; CELLS_PER_INSN * lanejit_isa::INSNS.len()];
    let mut divergent = Vec::new();
    for (cov, bad) in runs {
        for c in cov.cells() {
            known[c] = true;
        }
        divergent.extend(bad);
    }
    Ok(Replayed { entries: entries.len() as u64, known, divergent })
}

/// Writes the cases that reached new coverage into the corpus: `<seed>-<k>.s` (the program's disassembly under
/// a comment naming its seed) with its initial state `<seed>-<k>.json`, the form `fuzz --replay` and the
/// regression corpus use. Returns how many were written.
pub fn write_entries(dir: &Path, cases: &[Case]) -> Result<u64, String> {
    let mut per_seed: std::collections::HashMap<u64, u32> = Default::default();
    for case in cases {
        let k = per_seed.entry(case.seed).or_default();
        let name = format!("{:016x}-{k}", case.seed);
        *k += 1;
        let program = case.prog.render()?;
        let text = format!(
            "; lanejit fuzz corpus entry: seed {:#x}, a case that reached coverage no earlier case had\n\
             ; replay: lanejit fuzz --replay THIS.s\n{}",
            case.seed,
            lanejit_isa::disassemble(&program)
        );
        let state = serde_json::to_string_pretty(&case.init).map_err(|e| e.to_string())? + "\n";
        for (file, body) in [(format!("{name}.s"), text), (format!("{name}.json"), state)] {
            std::fs::write(dir.join(&file), body).map_err(|e| format!("{}: {e}", dir.join(&file).display()))?;
        }
    }
    Ok(cases.len() as u64)
}
