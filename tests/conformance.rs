//! Runs every conformance case under `tests/cases/` on every engine this build has.

use lanejit::{cases, engine_available, Engine};
use std::path::PathBuf;

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

#[test]
fn conformance_cases_pass_on_every_engine() {
    let engines: Vec<Engine> = [Engine::Interp, Engine::Jit, Engine::Auto].into_iter().filter(|e| engine_available(*e).is_ok()).collect();
    let (mut total, mut failures) = (0, Vec::new());
    for path in case_files() {
        let file = cases::load(&path).unwrap_or_else(|e| panic!("{e}"));
        for case in &file.cases {
            for &engine in &engines {
                total += 1;
                if let Err(e) = cases::run_case(case, engine) {
                    failures.push(format!("{} :: {} [{engine:?}]\n{e}", path.display(), case.name));
                }
            }
        }
    }
    assert!(total > 0, "no conformance cases found");
    println!("{total} case runs, {} failures", failures.len());
    assert!(failures.is_empty(), "{} of {total} case runs failed:\n\n{}", failures.len(), failures.join("\n\n"));
}
