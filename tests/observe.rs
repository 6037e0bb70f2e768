//! Timelines and profiles (docs/profiling.md): every bundled example's timeline follows the Trace Event
//! Format's rules and has a slice per wave; a profile's counts are the interpreter's, instruction by
//! instruction, whichever engine is asked for; the command line refuses a bad timeline path before the launch
//! and leaves nothing behind.

use lanejit::launch::launch_traced;
use lanejit::profile::InsnCount;
use lanejit::{Device, Engine, Kernel, LaunchConfig, LaunchError, LaunchStats, LANES};
use lanejit_cli::examples::{self, Size};
use lanejit_interp::{Tracer, WaveState};
use lanejit_isa::Insn;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

const ENGINES: [Engine; 3] = [Engine::Interp, Engine::Jit, Engine::Auto];

fn assemble(ex: &examples::Example) -> Kernel {
    Kernel::from_asm(&format!("examples/{}.s", ex.name), ex.source).unwrap_or_else(|e| panic!("{e}"))
}

/// A fresh directory for one test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lanejit-observe-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// Launches `ex` at `size` with `cfg`'s changes on a fresh device; the statistics (also after a trap).
fn launch(ex: &examples::Example, size: Size, change: impl FnOnce(&mut LaunchConfig)) -> LaunchStats {
    let kernel = assemble(ex);
    let device = Device::new().expect("device");
    let setup = (ex.setup)(&device, size).unwrap_or_else(|e| panic!("{}: {e}", ex.name));
    let mut cfg = setup.cfg.clone();
    change(&mut cfg);
    match device.launch(&kernel, &cfg) {
        Ok(s) | Err(LaunchError::Trap { stats: s, .. }) => s,
        Err(e) => panic!("{}: {e}", ex.name),
    }
}

/// Time in integer nanoseconds (the file's microseconds carry three decimals).
fn ns(v: &Value) -> i64 {
    (v.as_f64().expect("a number") * 1000.0).round() as i64
}

/// Per track: the last timestamp, the open B events, the ends of the X slices enclosing the current time.
type Track = (i64, Vec<String>, Vec<i64>);

/// Checks the Trace Event Format's rules on `doc`; returns the complete slices by category.
fn validate(doc: &Value, what: &str) -> HashMap<String, usize> {
    assert_eq!(doc["displayTimeUnit"], "ns", "{what}");
    let events = doc["traceEvents"].as_array().unwrap_or_else(|| panic!("{what}: no traceEvents array"));
    let mut named_threads = std::collections::HashSet::new();
    let mut named_process = false;
    let mut tracks: BTreeMap<(u64, u64), Track> = BTreeMap::new();
    let mut slices = HashMap::new();
    for e in events {
        for key in ["name", "cat", "ph", "ts", "pid", "tid", "args"] {
            assert!(e.get(key).is_some(), "{what}: event without `{key}`: {e}");
        }
        let (pid, tid) = (e["pid"].as_u64().expect("pid"), e["tid"].as_u64().expect("tid"));
        let ph = e["ph"].as_str().expect("ph");
        if ph == "M" {
            match e["name"].as_str() {
                Some("thread_name") => drop(named_threads.insert((pid, tid))),
                Some("process_name") => named_process = true,
                _ => {}
            }
            continue;
        }
        let ts = ns(&e["ts"]);
        let (last, open, enclosing) = tracks.entry((pid, tid)).or_insert((i64::MIN, Vec::new(), Vec::new()));
        assert!(ts >= *last, "{what}: timestamps go back on track {tid}: {e}");
        *last = ts;
        while enclosing.last().is_some_and(|&end| end <= ts) {
            enclosing.pop();
        }
        match ph {
            "X" => {
                let end = ts + ns(&e["dur"]);
                if let Some(&outer) = enclosing.last() {
                    assert!(end <= outer, "{what}: slice overlaps the end of the one enclosing it: {e}");
                }
                enclosing.push(end);
                *slices.entry(e["cat"].as_str().expect("cat").to_string()).or_insert(0) += 1;
            }
            "B" => open.push(e["name"].as_str().expect("name").to_string()),
            "E" => assert!(open.pop().is_some(), "{what}: an end without its begin: {e}"),
            "i" | "C" => {}
            other => panic!("{what}: unexpected phase {other}: {e}"),
        }
    }
    assert!(named_process, "{what}: no process_name metadata");
    for ((pid, tid), (_, open, _)) in &tracks {
        assert!(open.is_empty(), "{what}: begins without ends on track {tid}: {open:?}");
        assert!(named_threads.contains(&(*pid, *tid)), "{what}: track {tid} has no thread_name");
    }
    slices
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Wave slices that ended their wave (a wave that waits at barriers has a slice per stretch between them).
fn wave_ends(doc: &Value) -> u64 {
    let events = doc["traceEvents"].as_array().expect("events");
    let wave = |e: &&Value| e["ph"] == "X" && e["cat"].as_str().is_some_and(|c| c.starts_with("wave"));
    events.iter().filter(wave).filter(|e| e["args"]["stop"] == "end").count() as u64
}

#[test]
fn every_example_timeline_follows_the_trace_event_format_with_a_slice_per_wave() {
    let dir = scratch("examples");
    for ex in examples::all() {
        for (engine, threads) in [(Engine::Auto, Some(2)), (Engine::Jit, Some(1)), (Engine::Interp, None)] {
            let path = dir.join(format!("{}-{engine:?}.json", ex.name));
            let stats = launch(ex, Size::Small, |c| {
                (c.engine, c.threads, c.timeline) = (engine, threads, Some(path.clone()));
            });
            let what = format!("{} on {engine:?}", ex.name);
            let doc = read_json(&path);
            let slices = validate(&doc, &what);
            assert_eq!(slices.get("workgroup").copied().unwrap_or(0) as u64, stats.workgroups, "{what}");
            assert_eq!(wave_ends(&doc), stats.waves, "{what}: one ending slice per wave");
            assert_eq!(doc["otherData"]["truncated"], false, "{what}");
            if !assemble(ex).may_wait_at_barrier() {
                let shown: usize = slices.iter().filter(|(c, _)| c.starts_with("w")).map(|(_, n)| n).sum();
                assert_eq!(shown as u64, stats.workgroups + stats.waves, "{what}: {slices:?}");
            }
        }
    }
    let left: Vec<_> = std::fs::read_dir(&dir).expect("dir").map(|e| e.expect("entry").file_name()).collect();
    assert!(left.iter().all(|n| !n.to_string_lossy().ends_with(".tmp")), "temporary files left: {left:?}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_timeline_shows_compilations_barrier_waits_and_traps() {
    let dir = scratch("content");
    let reduce = examples::by_name("reduce").expect("reduce");
    let path = dir.join("reduce.json");
    launch(reduce, Size::Small, |c| (c.engine, c.timeline) = (Engine::Jit, Some(path.clone())));
    let slices = validate(&read_json(&path), "reduce");
    assert!(slices.get("compile").copied().unwrap_or(0) >= 1, "{slices:?}");
    assert!(slices.get("barrier").copied().unwrap_or(0) >= 1, "{slices:?}");
    // A kernel that traps: the trap is an instant event, and the file is written anyway.
    let kernel = Kernel::from_asm("t.s", ".kernel t\n  v.li v4, 0\n  ld.b32 v5, v4, u4, 0\n  wait vm=0\n  end\n")
        .unwrap_or_else(|e| panic!("{e}"));
    let device = Device::new().expect("device");
    let path = dir.join("trap.json");
    let cfg = LaunchConfig { engine: Engine::Interp, timeline: Some(path.clone()), ..Default::default() };
    assert!(matches!(device.launch(&kernel, &cfg), Err(LaunchError::Trap { .. })));
    let doc = read_json(&path);
    validate(&doc, "trap");
    let traps = doc["traceEvents"].as_array().expect("events").iter().filter(|e| e["cat"] == "trap").count();
    assert_eq!(traps, 1);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_launch_cut_by_the_budget_is_not_labelled_a_trap() {
    let dir = scratch("budget");
    // One wave whose loop runs far past the budget: the budget cuts it in the middle of a stretch.
    let source =
        ".kernel spin\n  u.li u5, 60000\nloop:\n  v.add.vu v4, v4, u5\n  u.add.i u5, u5, -1\n  b.nz u5, loop\n  end\n";
    let kernel = Kernel::from_asm("spin.s", source).unwrap_or_else(|e| panic!("{e}"));
    for engine in ENGINES {
        let path = dir.join(format!("{engine:?}.json"));
        let cfg = LaunchConfig { engine, budget: 50_000, timeline: Some(path.clone()), ..Default::default() };
        let what = format!("spin on {engine:?}");
        match Device::new().expect("device").launch(&kernel, &cfg) {
            Err(LaunchError::Trap { trap, .. }) => assert_eq!(trap.kind.name(), "BudgetExceeded", "{what}"),
            other => panic!("{what}: {other:?}"),
        }
        let doc = read_json(&path);
        validate(&doc, &what);
        let events = doc["traceEvents"].as_array().expect("events");
        let stops: Vec<&Value> = events.iter().filter(|e| e["args"]["stop"].is_string()).collect();
        assert_eq!(stops.len(), 1, "{what}: one stretch: {stops:?}");
        assert_eq!(stops[0]["args"]["stop"], "budget", "{what}: the cut stretch says why");
        assert!(events.iter().all(|e| e["cat"] != "trap"), "{what}: no trap event");
        assert!(events.iter().any(|e| e["cat"] == "stop" && e["name"] == "stopped: BudgetExceeded"), "{what}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn large_launches_keep_their_timelines_bounded_and_say_so() {
    let dir = scratch("large");
    let mut truncated = 0;
    for ex in examples::all() {
        let path = dir.join(format!("{}.json", ex.name));
        let stats = launch(ex, Size::Large, |c| (c.engine, c.timeline) = (Engine::Jit, Some(path.clone())));
        let bytes = std::fs::metadata(&path).expect("timeline").len();
        let doc = read_json(&path);
        validate(&doc, ex.name);
        assert!(bytes < 50 << 20, "{}: {bytes} bytes", ex.name);
        let limited = doc["otherData"]["truncated"] == true;
        truncated += limited as u32;
        println!(
            "{:<14} {:>9} waves {:>10} bytes{}",
            ex.name,
            stats.waves,
            bytes,
            if limited { " (limited)" } else { "" }
        );
        std::fs::remove_file(&path).ok();
    }
    assert!(truncated > 0, "some large launch must reach the limit for this test to mean anything");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_timeline_with_checkers_or_another_schedule_is_refused_before_anything_is_written() {
    let dir = scratch("refused");
    let ex = examples::by_name("vadd").expect("vadd");
    let kernel = assemble(ex);
    let device = Device::new().expect("device");
    let setup = (ex.setup)(&device, Size::Small).expect("setup");
    let path = dir.join("t.json");
    let checked =
        LaunchConfig { check: lanejit::check::Checks::ALL, timeline: Some(path.clone()), ..setup.cfg.clone() };
    assert!(matches!(device.launch(&kernel, &checked), Err(LaunchError::Config(_))));
    let unwritable = LaunchConfig { timeline: Some(dir.join("missing").join("t.json")), ..setup.cfg.clone() };
    assert!(matches!(device.launch(&kernel, &unwritable), Err(LaunchError::Config(_))));
    assert_eq!(std::fs::read_dir(&dir).expect("dir").count(), 0, "nothing written");
    std::fs::remove_dir_all(&dir).ok();
}

/// Counts per instruction through the interpreter's tracer: an independent count to compare with.
struct CountingTracer(Vec<InsnCount>);

impl Tracer for CountingTracer {
    fn retired(&mut self, pc: u32, _insn: &Insn, before: &WaveState, _after: &WaveState) {
        let c = &mut self.0[(pc / 4) as usize];
        c.count += 1;
        c.lanes += before.exec.count_ones() as u64;
    }
}

#[test]
fn profile_counts_are_the_interpreters_per_instruction_on_every_engine() {
    for ex in examples::all() {
        let kernel = assemble(ex);
        let device = Device::new().expect("device");
        let setup = (ex.setup)(&device, Size::Small).expect("setup");
        let mut tracer = CountingTracer(vec![InsnCount::default(); kernel.code.words.len()]);
        let traced = launch_traced(&device, &kernel, &setup.cfg, &mut tracer).expect("traced launch");
        for engine in ENGINES {
            let what = format!("{} on {engine:?}", ex.name);
            let plain = launch(ex, Size::Small, |c| c.engine = engine);
            let profiled = launch(ex, Size::Small, |c| (c.engine, c.profile) = (engine, true));
            let profile = profiled.profile.as_deref().unwrap_or_else(|| panic!("{what}: no profile"));
            assert_eq!(profile.counts, tracer.0, "{what}: per-instruction counts");
            assert_eq!(profile.retired(), plain.retired, "{what}: retired");
            assert_eq!(profile.retired(), traced.retired, "{what}: retired");
            assert_eq!(profile.lane_ops(), plain.lane_ops, "{what}: lane-ops");
            assert_eq!(profiled.retired, plain.retired, "{what}");
        }
    }
}

#[test]
fn divergent_profile_shows_half_empty_waves() {
    let ex = examples::by_name("divergent").expect("divergent");
    let stats = launch(ex, Size::Small, |c| c.profile = true);
    let kernel = assemble(ex);
    let rows = stats.profile.as_deref().expect("profile").insn_rows(&kernel);
    let row = |prefix: &str| rows.iter().find(|r| r.text.starts_with(prefix)).unwrap_or_else(|| panic!("{prefix}"));
    // The kernel's start runs with every lane; the odd side of the loop's branch with about half or fewer.
    assert_eq!(rows[0].active_lanes, LANES as f64);
    for side in ["v.mul.i", "v.shr.i"] {
        let r = row(side);
        assert!(r.count > 0 && r.active_lanes < LANES as f64 / 2.0, "{side}: {r:?}");
    }
    assert!(stats.lane_ops < stats.retired * LANES as u64 / 2, "divergent's waves are at most half full on average");
}

fn lanejit(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_lanejit")).args(args).output().expect("the lanejit binary starts")
}

#[test]
fn an_unwritable_timeline_path_fails_before_the_launch_with_exit_2_and_leaves_nothing() {
    let dir = scratch("cli");
    let file = dir.join("a-file");
    std::fs::write(&file, "x").expect("file");
    let kernel = dir.join("k.s");
    std::fs::write(&kernel, ".kernel k\n  end\n").expect("kernel");
    let bad = [dir.join("missing").join("t.json"), dir.clone(), file.join("t.json"), kernel.clone()];
    for path in &bad {
        let shown = path.to_str().expect("utf-8");
        let out = lanejit(&["run", kernel.to_str().expect("utf-8"), "--timeline", shown]);
        assert_eq!(out.status.code(), Some(2), "{shown}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(out.stdout.is_empty(), "the launch must not run: {out:?}");
        if path == &kernel {
            continue; // (not an input of the bundled example)
        }
        let out = lanejit(&["run", "vadd", "--timeline", shown]);
        assert_eq!(out.status.code(), Some(2), "{shown}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(out.stdout.is_empty(), "the launch must not run: {out:?}");
    }
    let mut names: Vec<_> = std::fs::read_dir(&dir).expect("dir").map(|e| e.expect("entry").file_name()).collect();
    names.sort();
    assert_eq!(names, ["a-file", "k.s"].map(std::ffi::OsString::from), "only the test's own files are left");
    assert_eq!(std::fs::read_to_string(&kernel).expect("kernel"), ".kernel k\n  end\n", "the kernel is untouched");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_profile_command_lists_the_source_and_its_json_totals_equal_the_launch() {
    let out = lanejit(&["profile", "divergent", "--top", "3"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("annotated source (examples/divergent.s)"), "{text}");
    assert!(text.contains("top 3 lines:"), "{text}");
    assert!(text.lines().any(|l| l.contains("│") && l.contains("v.mul.i v5, v5, 3")), "{text}");
    let out = lanejit(&["profile", "divergent", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON alone on standard output");
    let rows = doc["instructions"].as_array().expect("rows");
    let sum: u64 = rows.iter().map(|r| r["count"].as_u64().expect("count")).sum();
    assert_eq!(sum, doc["totals"]["retired"].as_u64().expect("retired"));
    assert_eq!(doc["totals"]["retired"], doc["totals"]["timed_retired"]);
    for key in ["pc", "line", "text", "count", "active_lanes"] {
        assert!(rows[0].get(key).is_some(), "{key}");
    }
}
