//! The generated conformance case files (`tests/cases/*/gen*.py` write the YAML beside them, with expected
//! values computed independently of the engines) are what their generators write today: each generator runs on
//! a copy of the case tree (plus the ISA YAML some of them read), and every file of the copy must equal the
//! committed one. Needs `python3` (`.ci/run` checks for it); without it this test fails, it does not skip.

use std::path::{Path, PathBuf};
use std::process::Command;

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().map(|e| e.unwrap()) {
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if src.is_dir() {
            copy_tree(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

/// Every file under `dir`, relative to it, sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for p in std::fs::read_dir(&d).unwrap().map(|e| e.unwrap().path()) {
            if p.is_dir() {
                if p.file_name().is_some_and(|n| n != "__pycache__") {
                    dirs.push(p);
                }
            } else {
                out.push(p.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn generated_case_files_match_their_generators() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = std::env::temp_dir().join(format!("lanejit-cases-fresh-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    copy_tree(&root.join("tests/cases"), &tmp.join("tests/cases"));
    copy_tree(&root.join("isa-spec/groups"), &tmp.join("isa-spec/groups"));
    let generators: Vec<PathBuf> = files(&tmp.join("tests/cases"))
        .into_iter()
        .filter(|p| {
            p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("gen"))
                && p.extension().is_some_and(|e| e == "py")
        })
        .collect();
    assert!(generators.len() >= 8, "expected the 8 case generators, found {generators:?}");
    for g in &generators {
        let out =
            Command::new("python3").arg(tmp.join("tests/cases").join(g)).current_dir(&tmp).output().unwrap_or_else(
                |e| panic!("python3 is needed to check the generated case files ({e}); .ci/run checks for it"),
            );
        assert!(out.status.success(), "{} failed:\n{}", g.display(), String::from_utf8_lossy(&out.stderr));
    }
    let (committed, regenerated) = (files(&root.join("tests/cases")), files(&tmp.join("tests/cases")));
    assert_eq!(committed, regenerated, "the generators wrote files that are not committed (or the reverse)");
    let stale: Vec<String> = committed
        .iter()
        .filter(|f| {
            std::fs::read(root.join("tests/cases").join(f)).unwrap()
                != std::fs::read(tmp.join("tests/cases").join(f)).unwrap()
        })
        .map(|f| f.display().to_string())
        .collect();
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(stale.is_empty(), "stale generated case files (rerun their gen*.py and commit): {stale:?}");
}
