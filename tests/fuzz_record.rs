//! Fuzz divergences as record files: a short campaign with a planted JIT bug (this binary is built with the
//! `mutants` feature, which the tools' tests turn on) writes a record beside its reproducer; `lanejit replay`
//! shows the divergence again exactly (exit 1); the same case without the planted bug, as a build where the bug
//! is fixed runs it, replays with no divergence (exit 0); bad and newer files are bad input (exit 2).

use lanejit::record::RECORD_VERSION;
use lanejit_cli::fuzz::record::FuzzRecord;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn lanejit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lanejit")).args(args).output().expect("run lanejit")
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("lanejit-fuzz-record-{}-{name}", std::process::id()))
}

/// Runs a campaign with planted bug 1 (as tests/hostile/cases.yaml's "fuzz exits 1 when it finds a
/// divergence", with the CI campaign's small programs: its first batch finds one in about 9 s on 2 busy cores)
/// until it finds one, and returns the record file it wrote.
fn found_record(out: &Path) -> PathBuf {
    let dir = out.to_str().unwrap();
    let args = [
        "fuzz",
        "--mutant",
        "1",
        "--count",
        "400",
        "--stop-after",
        "1",
        "--jobs",
        "2",
        "--size",
        "10",
        "--json",
        "--out",
        dir,
    ];
    let fuzz = lanejit(&args);
    assert_eq!(fuzz.status.code(), Some(1), "{}", text(&fuzz));
    let summary: serde_json::Value = serde_json::from_slice(&fuzz.stdout).expect("fuzz --json prints JSON");
    let first = &summary["divergences"][0];
    let record = PathBuf::from(first["record"].as_str().expect("the divergence names its record"));
    let reproducer = PathBuf::from(first["reproducer"].as_str().unwrap());
    assert_eq!(record, reproducer.with_extension("record.json"), "the record lies beside its reproducer");
    assert!(text(&fuzz).contains(&format!("record: {}", record.display())), "{}", text(&fuzz));
    record
}

/// One campaign serves both checks (it is the slow part).
#[test]
fn a_planted_divergence_is_recorded_and_replays_until_fixed_and_bad_records_are_bad_input() {
    let out = temp("found");
    let path = found_record(&out);
    replays_until_fixed(&path);
    bad_fuzz_records_are_bad_input(&path);
    let _ = std::fs::remove_dir_all(&out);
}

fn replays_until_fixed(path: &Path) {
    let json = std::fs::read_to_string(path).unwrap();
    let record = FuzzRecord::parse(&json).unwrap();
    assert_eq!((record.version, record.kind.as_str(), record.mutant), (RECORD_VERSION, "fuzz_case", Some(1)));
    assert_eq!(FuzzRecord::parse(&record.to_json()).unwrap(), record, "the record round-trips");
    // The optimising tier's register allocator is the one the campaign used for that seed.
    let regalloc = lanejit_cli::fuzz::campaign::regalloc_of(record.seed, lanejit_cli::fuzz::BACKTRACKING_ONE_IN);
    assert_eq!(record.regalloc.as_deref(), Some(regalloc.name()));
    // A record from before the choice existed was compiled with users' allocator, and says so.
    let old = FuzzRecord::parse(&FuzzRecord { regalloc: None, ..record.clone() }.to_json()).unwrap();
    assert_eq!(old.regalloc.as_deref(), Some("backtracking"));

    let replay = lanejit(&["replay", path.to_str().unwrap()]);
    assert_eq!(replay.status.code(), Some(1), "{}", text(&replay));
    let recorded = format!("{:?} differs from interp: {}", record.divergence.engine, record.divergence.differences[0]);
    assert!(text(&replay).contains("still diverges (reproduced exactly)"), "{}", text(&replay));
    assert!(text(&replay).contains(&recorded), "{}\nwanted: {recorded}", text(&replay));
    assert!(!text(&replay).contains("changed:"), "{}", text(&replay));
    assert!(text(&replay).contains(&format!("{} allocator", regalloc.name())), "{}", text(&replay));

    // The same case without the planted bug: what replaying it on a build with the bug fixed does.
    let fixed = temp("fixed.json");
    std::fs::write(&fixed, FuzzRecord { mutant: None, ..record.clone() }.to_json()).unwrap();
    let replay = lanejit(&["replay", fixed.to_str().unwrap()]);
    assert_eq!(replay.status.code(), Some(0), "{}", text(&replay));
    assert!(text(&replay).contains("no divergence"), "{}", text(&replay));
    assert!(text(&replay).contains("no longer diverges"), "{}", text(&replay));
    let _ = std::fs::remove_file(&fixed);
}

fn bad_fuzz_records_are_bad_input(path: &Path) {
    let good = std::fs::read_to_string(path).unwrap();
    let current = format!("\"version\": {RECORD_VERSION}");
    let newer = format!("\"version\": {}", RECORD_VERSION + 1);
    let allocator = |name: &str| {
        let json = good.replace("\"regalloc\": \"single_pass\"", &format!("\"regalloc\": \"{name}\""));
        json.replace("\"regalloc\": \"backtracking\"", &format!("\"regalloc\": \"{name}\""))
    };
    let cases: [(&str, String, &str); 7] = [
        ("bad allocator", allocator("greedy"), "`regalloc` is `greedy`"),
        ("newer", good.replace(&current, &newer), "is newer than this lanejit reads"),
        ("truncated", good[..good.len() * 2 / 3].to_string(), "not a valid record file"),
        ("corrupt kernel", good.replacen("\"kernel\": \"", "\"kernel\": \"zz", 1), "`kernel` is not hex bytes"),
        ("unknown field", good.replacen("\"seed\"", "\"colour\": 1, \"seed\"", 1), "unknown field `colour`"),
        (
            "bad auto mode",
            good.replace("\"auto\": \"hot\"", "\"auto\": \"warm\"").replace("\"auto\": \"cold\"", "\"auto\": \"warm\""),
            "`auto` is `warm`",
        ),
        ("other magic", good.replace("lanejit-record", "something-else"), "not a lanejit record file"),
    ];
    for (name, body, message) in cases {
        let file = temp(&format!("{}.json", name.replace(' ', "-")));
        std::fs::write(&file, body).unwrap();
        let replay = lanejit(&["replay", file.to_str().unwrap()]);
        assert_eq!(replay.status.code(), Some(2), "{name}: {}", text(&replay));
        assert!(text(&replay).contains(message), "{name}: {}", text(&replay));
        let _ = std::fs::remove_file(&file);
    }
    let interp = lanejit(&["replay", path.to_str().unwrap(), "--engine", "interp"]);
    assert_eq!(interp.status.code(), Some(2), "{}", text(&interp));
    assert!(text(&interp).contains("--engine takes jit or auto"), "{}", text(&interp));
}

/// A record keeps a multi-wave case whole (its workgroup shape and memory go through the `LJK1` container and
/// the initial state): replaying the record of a case without a divergence gives the interpreter's outcome of
/// the case as generated, bit for bit, and no engine diverges.
#[test]
fn a_multi_wave_case_round_trips_through_its_record() {
    use lanejit_cli::fuzz::campaign::Finding;
    use lanejit_cli::fuzz::oracle::{outcome_hash, run_reference};
    use lanejit_cli::fuzz::{generate_states, AutoMode, Case, Divergence, GenConfig};
    let cfg = GenConfig { max_len: 10, states: 1, group_pct: 100 };
    let (mut launch_like, mut other) = (0, 0);
    for seed in 0..64u64 {
        let (prog, states) = generate_states(seed, &cfg);
        let wanted = if prog.launch { &mut launch_like } else { &mut other };
        if prog.waves < 2 || *wanted >= 2 {
            continue;
        }
        *wanted += 1;
        let init = states[0].clone();
        let kernel = lanejit::Kernel::from_program_with(
            prog.render().unwrap(),
            lanejit_cli::fuzz::kernel_config(Default::default()),
        );
        let interp = outcome_hash(&run_reference(&kernel, &init).unwrap());
        // The record of a divergence that is not there (its engine's hash made up): what matters is the case.
        let div = Divergence {
            engine: lanejit::Engine::Jit,
            diffs: vec!["v0 (made up)".into()],
            reference: None,
            other: None,
            reference_hash: interp,
            other_hash: Some(0),
        };
        let case = Case { seed, prog, init };
        let regalloc = lanejit_jit::RegAlloc::SinglePass;
        let f = Finding { case, index: seed, state: 0, mode: AutoMode::Cold, regalloc, div, shrunk: None };
        let record = FuzzRecord::parse(&FuzzRecord::of_finding(&f, &[]).unwrap().to_json()).unwrap();
        let r = record.replay(None).unwrap();
        assert_eq!(r.interp_hash, format!("{interp:016x}"), "seed {seed}");
        assert!(r.divergence.is_none(), "seed {seed}: {:?}", r.divergence);
        assert_eq!(r.changes, ["Jit no longer diverges from the interpreter"], "seed {seed}");
    }
    assert_eq!((launch_like, other), (2, 2), "the first 64 seeds hold two cases of each multi-wave kind");
}
