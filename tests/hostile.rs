//! Hostile command lines (`tests/hostile/*.yaml`: `cases.yaml` holds issue 11's reproducers, `issue39-*.yaml`
//! issue 39's) run through the built `lanejit` binary: each must end within its timeout with the expected exit
//! code and message, and never with a panic. The header of `cases.yaml` describes the fields.
//!
//! `LANEJIT_HOSTILE_BIN=/path/to/lanejit` runs the cases against another build (e.g. one from before a fix,
//! to see the cases fail there).

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const DEFAULT_TIMEOUT_SECS: u64 = 30;

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    /// The issue item the case reproduces (for the reader; not checked).
    #[allow(dead_code)]
    item: u32,
    args: Vec<String>,
    #[serde(default)]
    files: BTreeMap<String, String>,
    #[serde(default)]
    hex_files: BTreeMap<String, String>,
    /// Environment variables set for the run.
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    repeat: BTreeMap<String, (String, usize)>,
    /// Sparse files of the given sizes in bytes (as `truncate -s` makes them): huge inputs that take no disk.
    #[serde(default)]
    sparse_files: BTreeMap<String, u64>,
    /// Named pipes (`mkfifo`) that no one writes: opening one to read blocks.
    #[serde(default)]
    fifos: Vec<String>,
    exit: i32,
    #[serde(default)]
    stderr: Vec<String>,
    #[serde(default)]
    not_stderr: Vec<String>,
    #[serde(default)]
    stdout: Vec<String>,
    #[serde(default)]
    file_contains: BTreeMap<String, String>,
    max_stderr: Option<usize>,
    timeout: Option<u64>,
}

fn load_cases() -> Vec<Case> {
    // A test of the lanejit-cli package (the one that builds the binary), whose manifest is in cli/. Every
    // `*.yaml` file of tests/hostile/ holds cases (one file per issue or surface), read in name order.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/hostile");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    let mut cases = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let more: Vec<Case> = serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        cases.extend(more);
    }
    cases
}

fn hex_bytes(hex: &str) -> Vec<u8> {
    (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex in cases.yaml")).collect()
}

/// A fresh directory for one case, holding its input files.
fn setup_dir(index: usize, case: &Case) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lanejit-hostile-{}-{index}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in &case.files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    for (name, hex) in &case.hex_files {
        std::fs::write(dir.join(name), hex_bytes(hex)).unwrap();
    }
    for (name, (text, count)) in &case.repeat {
        std::fs::write(dir.join(name), text.repeat(*count)).unwrap();
    }
    for (name, len) in &case.sparse_files {
        std::fs::File::create(dir.join(name)).and_then(|f| f.set_len(*len)).unwrap();
    }
    for name in &case.fifos {
        let made = Command::new("mkfifo").arg(dir.join(name)).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo {name}");
    }
    dir
}

struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

/// Runs the binary in `dir`, killing it when `timeout` passes (then `code` is `None`). Output goes to files so
/// that a chatty child cannot block on a full pipe while we wait.
fn run(dir: &Path, args: &[String], env: &BTreeMap<String, String>, timeout: Duration) -> Ran {
    let (out_path, err_path) = (dir.join(".stdout"), dir.join(".stderr"));
    let start = Instant::now();
    let binary = std::env::var_os("LANEJIT_HOSTILE_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_lanejit").into());
    let mut child = Command::new(binary)
        .args(args)
        .envs(env)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .expect("the lanejit binary starts");
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code();
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let read = |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned();
    Ran { code, stdout: read(&out_path), stderr: read(&err_path), elapsed: start.elapsed() }
}

/// Every way the run differs from what the case expects.
fn problems(case: &Case, dir: &Path, ran: &Ran) -> Vec<String> {
    let mut out = Vec::new();
    match ran.code {
        None => out.push(format!("still running after {:?}: killed", ran.elapsed)),
        Some(c) if c != case.exit => out.push(format!("exit code {c}, expected {}", case.exit)),
        Some(_) => {}
    }
    if ran.stderr.contains("panicked") || ran.stderr.contains("RUST_BACKTRACE") {
        out.push("panicked".into());
    }
    for s in case.stderr.iter().filter(|s| !ran.stderr.contains(s.as_str())) {
        out.push(format!("stderr lacks `{s}`"));
    }
    for s in case.not_stderr.iter().filter(|s| ran.stderr.contains(s.as_str())) {
        out.push(format!("stderr has `{s}`"));
    }
    for s in case.stdout.iter().filter(|s| !ran.stdout.contains(s.as_str())) {
        out.push(format!("stdout lacks `{s}`"));
    }
    if let Some(max) = case.max_stderr.filter(|&m| ran.stderr.len() > m) {
        out.push(format!("stderr has {} bytes, more than {max}", ran.stderr.len()));
    }
    for (file, s) in &case.file_contains {
        // Lossy: a binary file (a .npy header) is checked by its text parts.
        let text = std::fs::read(dir.join(file)).map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default();
        if !text.contains(s.as_str()) {
            out.push(format!("{file} lacks `{s}`"));
        }
    }
    out
}

fn clip(s: &str) -> &str {
    match s.char_indices().nth(600) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

#[test]
fn hostile_command_lines_fail_cleanly() {
    let cases = load_cases();
    assert!(cases.len() >= 50, "only {} cases loaded", cases.len());
    let mut failures = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let dir = setup_dir(i, case);
        let ran = run(&dir, &case.args, &case.env, Duration::from_secs(case.timeout.unwrap_or(DEFAULT_TIMEOUT_SECS)));
        let found = problems(case, &dir, &ran);
        if !found.is_empty() {
            failures.push(format!(
                "{}: lanejit {}\n  {}\n  stderr: {}",
                case.name,
                case.args.join(" "),
                found.join("\n  "),
                clip(&ran.stderr)
            ));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(
        failures.is_empty(),
        "{} of {} hostile cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
