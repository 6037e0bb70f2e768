//! Gives the library its build's identity (`lanejit::BUILD`): the package version and, in a git checkout, the
//! commit (`+g` and 12 hex digits; `.dirty` when tracked files differ from it). Fuzz reports and record files
//! carry it, so reports of two builds of different code do not pass for one version when merged.

use std::process::Command;

/// `git ARGS` in the package's directory: its trimmed standard output, or `None` when git or the checkout is
/// missing. `GIT_OPTIONAL_LOCKS=0` keeps `git status` from rewriting the index (which would re-run this script).
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("GIT_OPTIONAL_LOCKS", "0")
        .output()
        .ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let mut build = std::env::var("CARGO_PKG_VERSION").expect("cargo sets CARGO_PKG_VERSION");
    if let Some(commit) = git(&["rev-parse", "--short=12", "HEAD"]) {
        build += &format!("+g{commit}");
        if git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty()) {
            build += ".dirty";
        }
        // A commit, a checkout or a branch moving changes these files.
        let refs = git(&["rev-parse", "--symbolic-full-name", "HEAD"]).unwrap_or_default();
        for name in ["HEAD", "packed-refs", refs.as_str()].into_iter().filter(|n| !n.is_empty()) {
            if let Some(path) = git(&["rev-parse", "--path-format=absolute", "--git-path", name]) {
                println!("cargo:rerun-if-changed={path}");
            }
        }
    }
    // An edit to any crate's sources may make the build dirty.
    for dir in ["build.rs", "src", "interp", "jit", "isa-spec", "cli/src", "Cargo.toml"] {
        println!("cargo:rerun-if-changed={dir}");
    }
    println!("cargo:rustc-env=LANEJIT_BUILD={build}");
}
