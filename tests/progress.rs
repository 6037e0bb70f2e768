//! Progress bars (docs/profiling.md) on explorations and `bench --first-launch`: drawn (here as plain lines,
//! the `LANEJIT_PROGRESS=lines` test setting) with the counts they promise, and nothing extra on standard
//! error when it is not a terminal or with `--json`; the output itself is the same with and without.

use std::process::{Command, Output};

/// `lanejit ARGS`, with the test setting that draws bars as lines when `lines`.
fn lanejit(args: &[&str], lines: bool) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_lanejit"));
    cmd.args(args).env_remove("LANEJIT_PROGRESS");
    if lines {
        cmd.env("LANEJIT_PROGRESS", "lines");
    }
    cmd.output().expect("the lanejit binary starts")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The report's lines without its timings (which differ from run to run).
fn untimed(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stdout).lines().filter(|l| !l.starts_with("cost:")).map(String::from).collect()
}

/// Runs `args` without and with bars: quiet leaves standard error empty, drawn shows lines containing every
/// string of each `expected` group and (when `same_report`: reports without timings) the same report; `json_args` (with `--json`) draws no bar, and its
/// standard output is JSON alone.
fn bar_only_when_asked(args: &[&str], expected: &[&[&str]], same_report: bool, json_args: &[&str]) {
    let quiet = lanejit(args, false);
    assert!(quiet.status.success(), "{}", stderr(&quiet));
    assert_eq!(stderr(&quiet), "", "standard error is not a terminal: nothing extra");
    let drawn = lanejit(args, true);
    assert!(drawn.status.success(), "{}", stderr(&drawn));
    let err = stderr(&drawn);
    for group in expected {
        assert!(err.lines().any(|l| group.iter().all(|s| l.contains(s))), "no line with {group:?}: {err}");
    }
    if same_report {
        assert_eq!(untimed(&drawn), untimed(&quiet), "the report is the same with a bar");
    }
    let json = lanejit(json_args, true);
    assert!(json.status.success(), "{}", stderr(&json));
    assert_eq!(stderr(&json), "", "no bar with --json");
    serde_json::from_slice::<serde_json::Value>(&json.stdout).expect("standard output is JSON alone");
}

#[test]
fn an_exploration_shows_schedules_run_and_differences_only_when_asked_to_draw() {
    let expected: &[&[&str]] = &[&["explore", "/12 schedules, 0 differing"]];
    bar_only_when_asked(
        &["run", "histogram", "--explore", "12"],
        expected,
        true,
        &["run", "histogram", "--explore", "3", "--json"],
    );
}

#[test]
fn first_launch_benchmarks_count_kernel_engines_done_only_when_asked_to_draw() {
    let args = ["bench", "--first-launch", "--size", "small", "--repeat", "1", "--filter", "alu-1k"];
    // One generated kernel on the three default engines.
    let expected: &[&[&str]] = &[&["0/3 kernel-engines"], &["alu-1k on interp"]];
    let json_args: Vec<&str> = args.iter().copied().chain(["--json"]).collect();
    // (Its report is all timings.)
    bar_only_when_asked(&args, expected, false, &json_args);
}
