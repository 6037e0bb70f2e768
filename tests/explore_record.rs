//! `lanejit run --explore N --record FILE`: the first differing schedule's launch, shrunk, is written as a
//! record that `lanejit replay` reproduces, and its outputs are not the fixed run's; when every schedule
//! matches, no record is written.

use lanejit::record::Record;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn lanejit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lanejit")).args(args).output().expect("run lanejit")
}

fn planted(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/schedules").join(name).display().to_string()
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("lanejit-explore-record-{}-{name}", std::process::id()))
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

#[test]
fn a_found_difference_is_recorded_and_replays_exactly() {
    let (found, fixed) = (temp("found.json"), temp("fixed.json"));
    let kernel = planted("scan_assume.s");
    let base = [kernel.as_str(), "--buffer", "u32:4", "--engine", "interp"];
    let run = lanejit(&[&["run"][..], &base, &["--explore", "100", "--record", found.to_str().unwrap()]].concat());
    assert_eq!(run.status.code(), Some(1), "{}", text(&run));
    let record = Record::parse(&std::fs::read_to_string(&found).unwrap()).unwrap();
    let shrunk = format!("shrunk to: {}", record.schedule);
    assert!(record.schedule.starts_with("random:") && text(&run).contains(&shrunk), "{}", text(&run));
    for engine in ["interp", "jit", "auto"] {
        let replay = lanejit(&["replay", found.to_str().unwrap(), "--engine", engine]);
        assert!(replay.status.success() && text(&replay).contains("reproduced exactly"), "{}", text(&replay));
    }
    let plain = lanejit(&[&["run"][..], &base, &["--record", fixed.to_str().unwrap()]].concat());
    assert!(plain.status.success(), "{}", text(&plain));
    let fixed_record = Record::parse(&std::fs::read_to_string(&fixed).unwrap()).unwrap();
    assert_eq!(fixed_record.memory, record.memory, "both start from the memory before the launch");
    assert_ne!(fixed_record.outputs_hash, record.outputs_hash, "the recorded schedule's outputs differ");
    let _ = (std::fs::remove_file(&found), std::fs::remove_file(&fixed));
}

#[test]
fn no_difference_writes_no_record() {
    let path = temp("none.json");
    let kernel = planted("scan_assume_fixed.s");
    let args = ["run", &kernel, "--buffer", "u32:8", "--engine", "interp", "--explore", "50", "--record"];
    let run = lanejit(&[&args[..], &[path.to_str().unwrap()]].concat());
    assert!(run.status.success() && text(&run).contains("record: none written"), "{}", text(&run));
    assert!(!path.exists());
}
