//! The regression corpus: `tests/regressions/<name>.s` with its initial state `<name>.json` (the
//! `lanejit wave --init` format), replayed on every engine and compared with the interpreter.

use super::oracle::{check, AutoMode};
use lanejit::state_json::StateJson;
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

/// Replays one reproducer on interp, jit and auto (cold and hot); `Err` lists the differences.
pub fn replay(source: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(source).map_err(|e| format!("{}: {e}", source.display()))?;
    let program = lanejit_isa::assemble(&source.display().to_string(), &text).map_err(|e| e.to_string())?;
    let json = source.with_extension("json");
    let init: StateJson =
        serde_json::from_str(&std::fs::read_to_string(&json).map_err(|e| format!("{}: {e}", json.display()))?)
            .map_err(|e| format!("{}: {e}", json.display()))?;
    for mode in [AutoMode::Cold, AutoMode::Hot] {
        if let Some(d) = check(&program, &init, mode, None, &[])? {
            return Err(format!("{}: {}", source.display(), d.diffs.join("\n  ")));
        }
    }
    Ok(())
}
