//! The C ABI from C: compiles `tests/c/vadd.c`, `checks.c` and `schedules.c` against the committed header and the
//! static library, runs them, and requires them to pass (a vector add on every engine, a trap report and bad
//! input; the checkers' findings and their bad input). Needs a C
//! compiler (`cc`, or the one `CC` names); `.ci/run` checks there is one.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The directory holding the static library cargo built for this test run: target/<profile>/deps, beside the
/// test executable (the copy in target/<profile> is only refreshed by `cargo build`, so it can be stale).
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    exe.parent().expect("target/<profile>/deps/<test>").to_path_buf()
}

/// Compiles `source` (C99, warnings as errors) against the header and the static library, runs it, and returns
/// its standard output; fails the test if it does not compile or exits non-zero.
fn compile_and_run(name: &str, source: &Path) -> String {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = library_dir().join("liblanejit_c.a");
    assert!(lib.exists(), "{} is missing: cargo builds it with this crate (crate-type staticlib)", lib.display());
    let out_dir = std::env::temp_dir().join(format!("lanejit-capi-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).unwrap();
    let exe = out_dir.join(name);
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let compiled = Command::new(&cc)
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-O1", "-I"])
        .arg(manifest.join("include"))
        .arg(source)
        .arg(&lib)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe)
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C compiler `{cc}` ({e}): install one (e.g. apt-get install gcc)"));
    assert!(compiled.status.success(), "C compile failed:\n{}", String::from_utf8_lossy(&compiled.stderr));
    let run = Command::new(&exe).output().expect("run the C program");
    let _ = std::fs::remove_dir_all(&out_dir);
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(
        run.status.success(),
        "the C program {name} failed ({}):\n{stdout}{}",
        run.status,
        String::from_utf8_lossy(&run.stderr)
    );
    stdout
}

#[test]
fn a_c_program_launches_a_kernel_checks_its_output_and_reads_a_trap() {
    let out = compile_and_run("vadd", &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/vadd.c"));
    assert!(out.contains("vadd on 3 engines"), "{out}");
}

#[test]
fn the_readme_c_example_compiles_and_reads_its_trap() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("repository root");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let start = readme.find("```c\n").expect("README has a ```c block") + 5;
    let len = readme[start..].find("```\n").expect("closing fence");
    let file = std::env::temp_dir().join(format!("lanejit-readme-{}.c", std::process::id()));
    std::fs::write(&file, &readme[start..start + len]).unwrap();
    let out = compile_and_run("readme", &file);
    let _ = std::fs::remove_file(&file);
    assert!(out.contains("trap code 7"), "{out}");
}

#[test]
fn a_c_program_runs_the_checkers_and_reads_their_findings() {
    let out = compile_and_run("checks", &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/checks.c"));
    assert!(out.contains("checkers from C: ok"), "{out}");
}

#[test]
fn a_c_program_runs_schedules_and_explores() {
    let out = compile_and_run("schedules", &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/schedules.c"));
    assert!(out.contains("schedules from C: ok"), "{out}");
}
