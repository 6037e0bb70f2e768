//! Runs every conformance case under `tests/cases/` on every engine this build has, the JIT in each of its modes.

use lanejit::cases::{self, Case};
use lanejit::{engine_available, tier, CompileConfig, Engine};
use std::path::PathBuf;
use std::sync::OnceLock;

fn case_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/cases")];
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

/// Every case file with its cases, loaded once for all the tests of this binary.
fn all_cases() -> &'static [(PathBuf, Vec<Case>)] {
    static CASES: OnceLock<Vec<(PathBuf, Vec<Case>)>> = OnceLock::new();
    CASES.get_or_init(|| {
        case_files()
            .into_iter()
            .map(|p| match cases::load(&p) {
                Ok(f) => (p, f.cases),
                Err(e) => panic!("{e}"),
            })
            .collect()
    })
}

/// Runs every case on `engine`, the kernel's JIT promote threshold pinned to `jit_hot`; failures are labelled
/// with `mode`.
fn check(mode: &str, engine: Engine, jit_hot: u32) {
    if engine_available(engine).is_err() {
        return;
    }
    let (mut total, mut failures) = (0, Vec::new());
    for (path, file_cases) in all_cases() {
        for case in file_cases {
            total += 1;
            if let Err(e) = cases::run_case_with(case, engine, &CompileConfig { jit_hot, ..Default::default() }) {
                failures.push(format!("{} :: {} [{mode}]\n{e}", path.display(), case.name));
            }
        }
    }
    assert!(total > 0, "no conformance cases found");
    println!("{mode}: {total} case runs, {} failures", failures.len());
    assert!(
        failures.is_empty(),
        "{mode}: {} of {total} case runs failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

// One test per mode, so that the harness runs them side by side. `--engine jit` runs three ways: as shipped
// (tiered at `tier::JIT_HOT_BLOCK`), the optimising tier for every block (promote threshold 0) and the quick
// tier alone (`u32::MAX`): cases are short and rarely make a block hot, so as shipped they would test the quick
// tier only.

#[test]
fn cases_pass_on_interp() {
    check("interp", Engine::Interp, tier::JIT_HOT_BLOCK);
}

#[test]
fn cases_pass_on_jit() {
    check("jit", Engine::Jit, tier::JIT_HOT_BLOCK);
}

#[test]
fn cases_pass_on_jit_opt() {
    check("jit-opt", Engine::Jit, 0);
}

#[test]
fn cases_pass_on_jit_quick() {
    check("jit-quick", Engine::Jit, u32::MAX);
}

#[test]
fn cases_pass_on_auto() {
    check("auto", Engine::Auto, tier::JIT_HOT_BLOCK);
}
