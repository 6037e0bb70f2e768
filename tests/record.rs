//! Record files (`lanejit::record`): every bundled example, a trapping launch and a deadlocking one replay
//! exactly on every engine; a changed record is a difference; bad files are refused by name; a version-1 file
//! (no `kind`) still replays.

use lanejit::record::{Record, RecordError, KIND_LAUNCH, RECORD_VERSION};
use lanejit::{Device, Engine, Kernel, LaunchConfig, Schedule};
use lanejit_cli::examples::{self, Size};

/// Records the launch of `kernel` with `cfg` on `device` and reads the record back from its JSON.
fn record(device: &Device, kernel: &Kernel, cfg: &LaunchConfig) -> Record {
    let mut r = Record::capture(device, kernel, cfg).unwrap();
    let result = device.launch(kernel, cfg);
    r.finish(device, &result).unwrap();
    Record::parse(&r.to_json()).unwrap()
}

fn replays_exactly(name: &str, r: &Record) {
    for engine in [Engine::Interp, Engine::Jit, Engine::Auto] {
        let got = r.replay(engine).unwrap();
        assert_eq!(got.difference, None, "{name} on {engine:?}");
        assert_eq!((got.outcome.as_str(), got.outputs_hash.as_str()), (r.outcome.as_str(), r.outputs_hash.as_str()));
    }
}

#[test]
fn every_example_replays_exactly_on_every_engine() {
    for ex in examples::all() {
        let kernel = Kernel::from_asm(ex.name, ex.source).unwrap();
        let device = Device::new().unwrap();
        let cfg = (ex.setup)(&device, Size::Small).unwrap().cfg;
        replays_exactly(ex.name, &record(&device, &kernel, &cfg));
    }
}

fn small(src: &str, words: u64, schedule: Schedule) -> Record {
    let kernel = Kernel::from_asm("k.s", src).unwrap();
    let device = Device::with_capacity(1 << 24).unwrap();
    let buf = device.alloc(words * 4).unwrap().addr;
    let cfg = LaunchConfig { args: buf.to_le_bytes().to_vec(), schedule, ..Default::default() };
    record(&device, &kernel, &cfg)
}

const TRAPS: &str = "
    v.li v1, 3
    u.li u4, 0
    u.li u5, 0
    ld.b32 v2, v1, u4, 0
    end
";

#[test]
fn a_trapping_and_a_deadlocking_launch_replay_exactly() {
    let trap = small(TRAPS, 1, Schedule::Fixed);
    assert!(trap.outcome.starts_with("trapped: Misaligned"), "{}", trap.outcome);
    replays_exactly("trap", &trap);
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/schedules/deadlock.s");
    let deadlock = small(&std::fs::read_to_string(path).unwrap(), 33, Schedule::Fixed);
    assert!(deadlock.outcome.contains("BarrierDeadlock"), "{}", deadlock.outcome);
    replays_exactly("deadlock", &deadlock);
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/schedules/scan_assume.s");
    let scheduled = small(&std::fs::read_to_string(path).unwrap(), 4, Schedule::parse("random:3").unwrap());
    replays_exactly("scan_assume under random:3", &scheduled);
}

#[test]
fn a_record_that_does_not_match_its_replay_names_the_difference() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/schedules/scan_assume.s");
    let mut r = small(&std::fs::read_to_string(path).unwrap(), 4, Schedule::Fixed);
    r.output_hashes[0].1 = "0000000000000000".into();
    let d = r.replay(Engine::Interp).unwrap().difference.expect("a difference");
    assert!(d.contains("the allocation at 0x"), "{d}");
    r.outcome = "trapped: something else".into();
    let d = r.replay(Engine::Interp).unwrap().difference.expect("a difference");
    assert!(d.contains("the launch ended otherwise"), "{d}");
}

#[test]
fn bad_record_files_are_refused_by_name() {
    let good = small("    end\n", 1, Schedule::Fixed).to_json();
    let current = format!("\"version\": {RECORD_VERSION}");
    assert!(good.contains(&current), "{good}");
    let newer = good.replace(&current, &format!("\"version\": {}", RECORD_VERSION + 1));
    assert!(matches!(Record::parse(&newer), Err(RecordError::Newer(v)) if v == RECORD_VERSION + 1));
    let fuzz_case = good.replace("\"kind\": \"launch\"", "\"kind\": \"fuzz_case\"");
    assert!(matches!(Record::parse(&fuzz_case), Err(RecordError::Kind(m)) if m.contains("fuzz_case")));
    let unknown_kind = good.replace("\"kind\": \"launch\"", "\"kind\": \"film\"");
    assert!(matches!(Record::parse(&unknown_kind), Err(RecordError::Malformed(m)) if m.contains("film")));
    let other = good.replace("lanejit-record", "something-else");
    assert!(matches!(Record::parse(&other), Err(RecordError::Magic(m)) if m == "something-else"));
    assert!(matches!(Record::parse(&good[..good.len() / 2]), Err(RecordError::Malformed(_))));
    let bad_hex = good.replacen("\"kernel\": \"", "\"kernel\": \"zz", 1);
    assert!(matches!(Record::parse(&bad_hex).unwrap().replay(Engine::Interp), Err(RecordError::Malformed(_))));
}

#[test]
fn a_version_1_record_without_a_kind_still_replays() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/schedules/scan_assume.s");
    let r = small(&std::fs::read_to_string(path).unwrap(), 4, Schedule::parse("random:3").unwrap());
    assert_eq!((r.version, r.kind.as_str()), (RECORD_VERSION, KIND_LAUNCH));
    let v2 = r.to_json();
    let v1 = v2
        .replace(&format!("\"version\": {RECORD_VERSION}"), "\"version\": 1")
        .replace("  \"kind\": \"launch\",\n", "");
    assert!(!v1.contains("\"kind\"") && v1.contains("\"version\": 1"), "{v1}");
    let old = Record::parse(&v1).unwrap();
    assert_eq!((old.version, old.kind.as_str()), (1, KIND_LAUNCH));
    replays_exactly("a version-1 file", &old);
}
