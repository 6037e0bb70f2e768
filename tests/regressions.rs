//! Replays the regression corpus (`tests/regressions/<name>.s` + `<name>.json`) on interp, jit and auto (cold
//! and compiled) and compares every engine with the interpreter. Every divergence `lanejit fuzz` finds becomes
//! a file here (copy the reproducer's `.s` and `.json`); hand-made tricky programs sit beside them.

use lanejit_cli::fuzz::corpus;
use std::path::PathBuf;

#[test]
fn regression_corpus_agrees_on_every_engine() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/regressions");
    let files = corpus::cases(&dir).unwrap_or_else(|e| panic!("{e}"));
    assert!(files.len() >= 10, "the corpus has only {} cases", files.len());
    let failures: Vec<String> = files.iter().filter_map(|f| corpus::replay(f).err()).collect();
    println!("{} reproducers replayed, {} diverge", files.len(), failures.len());
    assert!(failures.is_empty(), "{} of {} reproducers diverge:\n{}", failures.len(), files.len(), failures.join("\n"));
}
