//! The Python module (`python/lanejit`, over this crate's shared library through ctypes) under pytest, in the
//! virtual environment with numpy and pytest that `.ci/run` makes at `target/py-venv`.

use std::path::Path;
use std::process::Command;

#[test]
fn the_python_module_passes_its_pytest_suite() {
    let exe = std::env::current_exe().expect("test executable path");
    let deps = exe.parent().expect("target/<profile>/deps");
    let target = deps.parent().and_then(Path::parent).expect("target/");
    let python = target.join("py-venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run .ci/run, or python3 -m venv {} && {} -m pip install numpy pytest",
        python.display(),
        target.join("py-venv").display(),
        python.display()
    );
    let lib = deps.join("liblanejit_c.so");
    assert!(lib.exists(), "{} is missing: cargo builds it with this crate (crate-type cdylib)", lib.display());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("repository root");
    let out = Command::new(&python)
        .current_dir(root)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "python/tests"])
        .env("LANEJIT_LIB", &lib)
        .env("PYTHONPATH", root.join("python"))
        .output()
        .expect("run pytest");
    let report = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "pytest failed:\n{report}");
    assert!(report.contains(" passed"), "pytest ran nothing:\n{report}");
}
