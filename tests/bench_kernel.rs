//! `lanejit bench KERNEL` through the built binary: a user's kernel with `run`'s buffer and argument options,
//! timed on each engine; its JSON's shape, a trapping kernel (exit 1) and bad options (exit 2).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository's `examples/` (this is a test of the lanejit-cli package, whose manifest is in cli/).
fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples").join(name)
}

fn lanejit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lanejit")).args(args).output().expect("the lanejit binary starts")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// vadd over 1000 elements in 16 workgroups of 64 threads: a = iota, b = seeded random, c the sums.
fn vadd_args(vadd: &str) -> Vec<&str> {
    vec![
        "bench",
        vadd,
        "--grid",
        "16",
        "--buffer",
        "u32:1000:iota",
        "--buffer",
        "u32:1000:rand=7",
        "--buffer",
        "u32:1000",
        "--arg",
        "1000",
    ]
}

#[test]
fn a_user_kernel_runs_on_every_engine_and_prints_a_row_each() {
    let vadd = example("vadd.s");
    let mut args = vadd_args(vadd.to_str().unwrap());
    args.extend(["--repeat", "2"]);
    let out = lanejit(&args);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "stdout: {stdout}\nstderr: {}", text(&out.stderr));
    for engine in ["interp", "quick", "jit", "auto"] {
        let row = stdout.lines().find(|l| l.starts_with(engine)).unwrap_or_else(|| panic!("no {engine} row: {stdout}"));
        // vadd retires the same instructions on every engine: 17 per wave, 2 waves per workgroup, 16 workgroups.
        assert!(row.split_whitespace().any(|c| c == "544"), "{engine}: {row}");
    }
    assert!(stdout.contains("every engine left the same buffers"), "{stdout}");
}

#[test]
fn json_has_a_row_per_chosen_engine_with_times_retired_and_the_ratio() {
    let vadd = example("vadd.s");
    let mut args = vadd_args(vadd.to_str().unwrap());
    args.extend(["--engines", "interp,jit", "--repeat", "3", "--json"]);
    let out = lanejit(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(v["kernel"], "vadd");
    assert_eq!(v["repeat"], 3);
    assert_eq!(v["grid"], serde_json::json!([16, 1, 1]));
    assert_eq!(v["outputs_agree"], true);
    let rows = v["engines"].as_array().expect("engines");
    let names: Vec<&str> = rows.iter().map(|r| r["engine"].as_str().unwrap()).collect();
    assert_eq!(names, ["interp", "jit"]);
    for r in rows {
        for key in ["first_ms", "best_ms", "median_ms", "vs_interp"] {
            assert!(r[key].as_f64().is_some_and(|x| x > 0.0), "{key} in {r}");
        }
        assert!(r["best_ms"].as_f64() <= r["median_ms"].as_f64(), "{r}");
        assert_eq!(r["retired"], 544);
    }
    assert_eq!(rows[0]["vs_interp"], 1.0);
}

#[test]
fn a_trapping_kernel_exits_1_naming_the_trap() {
    let dir = std::env::temp_dir().join(format!("lanejit-bench-kernel-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let k = dir.join("trap.s");
    std::fs::write(&k, ".kernel t\n trap 7\n").unwrap();
    let out = lanejit(&["bench", k.to_str().unwrap(), "--repeat", "2"]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("trap"), "{}", text(&out.stderr));
}

#[test]
fn bad_options_exit_2_before_anything_runs() {
    let vadd = example("vadd.s");
    let vadd = vadd.to_str().unwrap();
    let cases: [(&[&str], &str); 8] = [
        (&["bench", vadd, "--buffer", "u64:4"], "unknown type"),
        (&["bench", vadd, "--engines", "interp,warp"], "warp"),
        (&["bench", vadd, "--engines", "jit,jit"], "named twice"),
        (&["bench", vadd, "--repeat", "0"], "--repeat"),
        (&["bench", vadd, "--filter", "saxpy"], "cannot be used with"),
        (&["bench", "--buffer", "u32:4"], "go with a kernel file"),
        (&["bench", vadd, "--best-of", "5"], "cannot be used with"),
        (&["bench", "--best-of", "0"], "--best-of"),
    ];
    for (args, says) in cases {
        let out = lanejit(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains(says), "{args:?}: {}", text(&out.stderr));
        assert!(out.stdout.is_empty(), "{args:?} printed {}", text(&out.stdout));
    }
}
