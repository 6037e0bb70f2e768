//! `lanejit check KERNEL` through the built binary: a bundled example by name (no hazard, exit 0), a planted
//! kernel of `tests/check/` (exit 1, `file:line:` leads each hazard), the same as an ELF binary (no lines), the
//! JSON's shape, and bad input (exit 2).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn planted(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/check").join(name)
}

fn lanejit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lanejit")).args(args).output().expect("the lanejit binary starts")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn every_bundled_example_checks_clean_by_name() {
    for name in ["vadd", "scan", "matmul", "histogram", "reduce"] {
        let out = lanejit(&["check", name]);
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{name}: {stdout}{}", text(&out.stderr));
        assert!(stdout.contains(&format!("examples/{name}.s: kernel {name}: 0 hazards")), "{stdout}");
    }
}

#[test]
fn a_planted_hazard_exits_1_and_names_file_line_pcs_register_and_counter() {
    let k = planted("branch_one_path.s");
    let out = lanejit(&["check", k.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let want = "branch_one_path.s:14: hazard read_before_wait: pc 0x28 reads v5 before a wait vm covers its write by pc 0xc (line 6)";
    assert!(stdout.lines().any(|l| l.ends_with(want)), "{stdout}");
    assert!(text(&out.stderr).contains("1 wait hazards"));
}

#[test]
fn json_lists_every_finding_with_its_sites() {
    let k = planted("loop_back_edge.s");
    let out = lanejit(&["check", k.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(v["hazards"], 1);
    assert_eq!(v["notes"], 1);
    let k0 = &v["kernels"][0];
    assert_eq!(k0["kernel"], "loop_back_edge");
    let f = &k0["findings"][0];
    assert_eq!(f["kind"], "read_before_wait");
    assert_eq!(f["hazard"], true);
    assert_eq!(f["reg"], "v5");
    assert_eq!(f["counter"], "vm");
    assert_eq!(f["line"], 11);
    assert_eq!(f["producers"][0]["line"], 12);
    let note = &k0["findings"][1];
    assert_eq!(note["kind"], "wait_stronger_than_needed");
    assert_eq!((note["value"].as_u64(), note["weakest"].as_u64()), (Some(0), Some(63)));
}

#[test]
fn a_binary_kernel_is_checked_by_pc() {
    let dir = std::env::temp_dir().join(format!("lanejit-check-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let elf = dir.join("k.elf");
    let asm = lanejit(&["asm", planted("vm_load_read.s").to_str().unwrap(), "-o", elf.to_str().unwrap()]);
    assert_eq!(asm.status.code(), Some(0), "{}", text(&asm.stderr));
    let out = lanejit(&["check", elf.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("k.elf: hazard read_before_wait: pc 0x18 reads v5"), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_exits_2() {
    let missing = lanejit(&["check", "/nonexistent/k.s"]);
    assert_eq!(missing.status.code(), Some(2));
    let dir = std::env::temp_dir().join(format!("lanejit-check-cli-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.s");
    std::fs::write(&bad, ".kernel bad\n v.frobnicate v1\n").unwrap();
    let out = lanejit(&["check", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("bad.s:2:"), "{}", text(&out.stderr));
    let out = lanejit(&["check", "vadd", "--kernel", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no kernel `nope`"));
    std::fs::remove_dir_all(&dir).unwrap();
}

fn dynamic(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/check_dyn").join(name).to_str().unwrap().to_string()
}

#[test]
fn run_check_exits_1_on_a_finding_0_on_the_fixed_twin_and_2_on_an_unknown_checker() {
    let out = lanejit(&["run", &dynamic("wait_vm.s"), "--buffer", "u32:32", "--check", "all"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("wait hazard: read of v6 at pc 0x18 (line 9)"), "{}", text(&out.stdout));
    assert!(text(&out.stderr).contains("1 checker finding"), "{}", text(&out.stderr));
    let out = lanejit(&["run", &dynamic("wait_vm_fixed.s"), "--buffer", "u32:32", "--check", "all", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(v["stats"]["findings"], serde_json::json!([]));
    let out = lanejit(&["run", &dynamic("wait_vm.s"), "--buffer", "u32:32", "--check", "wait"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("unknown check `wait`"), "{}", text(&out.stderr));
}

#[test]
fn run_check_buffers_reports_a_buffer_the_host_left_unwritten() {
    let k = dynamic("uninit_buffer.s");
    let out = lanejit(&["run", &k, "--buffer", "u32:32:uninit", "--check", "buffers", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    let f = &v["stats"]["findings"][0];
    assert_eq!(
        (f["sink"].as_str(), f["register"].as_str(), f["line"].as_u64()),
        (Some("kernel_output"), Some("v7"), Some(12))
    );
    // Written by the host (`zero`), or not watched (`all` leaves buffers out): nothing to report.
    for (init, check) in [("u32:32", "all,buffers"), ("u32:32:uninit", "all")] {
        let out = lanejit(&["run", &k, "--buffer", init, "--check", check]);
        assert_eq!(out.status.code(), Some(0), "{init} {check}: {}{}", text(&out.stdout), text(&out.stderr));
    }
}
