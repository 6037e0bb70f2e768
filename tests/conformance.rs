//! Runs every conformance case under `tests/cases/` on every engine this build has, the JIT in each of its
//! modes: one test per case file and mode, named `MODE::DIR/FILE` (e.g. `jit-opt::xlane/shfl`), so that
//! `cargo test --test conformance -- xlane` runs one group and a failure names its file. A custom harness
//! (libtest-mimic): the test names come from the files found at run time.

use lanejit::{engine_available, tier, CompileConfig, Engine};
use lanejit_cli::cases::{self, Case};
use libtest_mimic::{Arguments, Failed, Trial};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn cases_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/cases")
}

fn case_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![cases_dir()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap().map(|e| e.unwrap().path()) {
            if e.is_dir() {
                dirs.push(e);
            } else if e.extension().is_some_and(|x| x == "yaml") {
                out.push(e);
            }
        }
    }
    out.sort();
    out
}

/// `--engine jit` runs three ways: as shipped (tiered at `tier::JIT_HOT_BLOCK`), the optimising tier for every
/// block (promote threshold 0) and the quick tier alone (`u32::MAX`): cases are short and rarely make a block
/// hot, so as shipped they would test the quick tier only.
const MODES: [(&str, Engine, u32); 5] = [
    ("interp", Engine::Interp, tier::JIT_HOT_BLOCK),
    ("jit", Engine::Jit, tier::JIT_HOT_BLOCK),
    ("jit-opt", Engine::Jit, 0),
    ("jit-quick", Engine::Jit, u32::MAX),
    ("auto", Engine::Auto, tier::JIT_HOT_BLOCK),
];

/// Runs every case of one file on `engine`, the JIT promote threshold pinned to `jit_hot`; the error lists
/// every failing case.
fn check_file(path: &Path, cases: &[Case], engine: Engine, jit_hot: u32) -> Result<(), Failed> {
    let compile = CompileConfig { jit_hot, ..Default::default() };
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            cases::run_case_with(case, engine, &compile)
                .err()
                .map(|e| format!("{} :: {}\n{e}", path.display(), case.name))
        })
        .collect();
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!("{} of {} cases failed:\n\n{}", failures.len(), cases.len(), failures.join("\n\n")).into())
    }
}

fn main() {
    let args = Arguments::from_args();
    let files = case_files();
    let mut trials = vec![Trial::test("cases_exist", {
        let n = files.len();
        move || if n > 0 { Ok(()) } else { Err("no conformance case files under tests/cases".into()) }
    })];
    for path in files {
        let name = path.strip_prefix(cases_dir()).unwrap().with_extension("").display().to_string();
        // A file that does not load is one failing test per mode, named after it.
        let loaded = Arc::new(cases::load(&path).map(|f| f.cases).map_err(|e| e.to_string()));
        for (mode, engine, jit_hot) in MODES.into_iter().filter(|m| engine_available(m.1).is_ok()) {
            let (loaded, path) = (loaded.clone(), path.clone());
            trials.push(Trial::test(format!("{mode}::{name}"), move || match &*loaded {
                Ok(cases) if cases.is_empty() => Err(format!("{}: no cases", path.display()).into()),
                Ok(cases) => check_file(&path, cases, engine, jit_hot),
                Err(e) => Err(e.clone().into()),
            }));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}
