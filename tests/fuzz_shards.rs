//! Campaigns in shards (`lanejit fuzz --shard K/N --json`) merged by `lanejit fuzz merge`: a planted JIT bug is
//! still reported after the merge, the merged report equals the unsharded campaign's (totals, coverage,
//! divergence signatures), and inputs that are not disjoint parts of one campaign are bad input (exit 2).
//! This binary is built with the planted bugs (`mutants` feature, as the tools' tests turn it on).

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn lanejit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lanejit")).args(args).output().expect("run lanejit")
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lanejit-fuzz-shards-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The CI campaign's small programs with planted bug 1: on seed 7, 300 programs find a few divergences (all of
/// them shrunk, so that the signatures are the shrunk programs' on both sides).
const CAMPAIGN: [&str; 12] =
    ["--seed", "7", "--count", "300", "--size", "10", "--states", "2", "--mutant", "1", "--jobs", "2"];

/// Runs the campaign (or one shard of it) with `--json`, writing reproducers under `dir`; returns the report
/// file and the exit code.
fn run(dir: &Path, name: &str, extra: &[&str]) -> (PathBuf, Option<i32>) {
    let out = dir.join(name);
    let mut args = vec!["fuzz"];
    args.extend(CAMPAIGN);
    args.extend(extra);
    args.extend(["--json", "--out", out.to_str().unwrap()]);
    let o = lanejit(&args);
    let report = dir.join(format!("{name}.json"));
    std::fs::write(&report, &o.stdout).unwrap();
    (report, o.status.code())
}

fn read(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// What must agree between a campaign and its shards merged: everything but timing, paths and parts.
fn comparable(r: &Value) -> Value {
    let sigs: Vec<Value> = r["signatures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| serde_json::json!([s["signature"], s["count"], s["seeds"], s["instructions"]]))
        .collect();
    let divs: Vec<Value> = r["divergences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| serde_json::json!([d["seed"], d["state"], d["signature"]]))
        .collect();
    serde_json::json!({
        "campaign": r["campaign"], "programs": r["programs"], "cases": r["cases"], "coverage": r["coverage"],
        "coverage_percent": r["coverage_percent"], "divergences": divs, "signatures": sigs,
        "complete": r["complete"], "not_run": r["not_run"],
    })
}

#[test]
fn two_shards_with_a_planted_bug_merge_into_the_unsharded_campaign() {
    let dir = temp("mutant");
    let (whole, code) = run(&dir, "whole", &[]);
    assert_eq!(code, Some(1), "the planted bug is found: {}", std::fs::read_to_string(&whole).unwrap());
    let (s1, c1) = run(&dir, "shard1", &["--shard", "1/2"]);
    let (s2, c2) = run(&dir, "shard2", &["--shard", "2/2"]);
    assert!(c1.is_some_and(|c| c <= 1) && c2.is_some_and(|c| c <= 1), "shards ran: {c1:?} {c2:?}");
    assert_eq!(read(&s1)["parts"][0]["planned"], serde_json::json!([0, 150]));
    assert_eq!(read(&s2)["parts"][0]["planned"], serde_json::json!([150, 300]));

    let merge = lanejit(&["fuzz", "merge", "--json", s1.to_str().unwrap(), s2.to_str().unwrap()]);
    assert_eq!(merge.status.code(), Some(1), "divergences make the merge exit 1: {}", text(&merge));
    let merged: Value = serde_json::from_slice(&merge.stdout).expect("merge --json prints the merged report");
    let want = read(&whole);
    assert!(!want["divergences"].as_array().unwrap().is_empty());
    assert_eq!(comparable(&merged), comparable(&want));
    assert!(text(&merge).contains("SIGNATURE "), "{}", text(&merge));
    // Every signature keeps its reproducers, and they exist.
    for s in merged["signatures"].as_array().unwrap() {
        assert!(!s["reproducers"].as_array().unwrap().is_empty(), "{s}");
        for p in s["reproducers"].as_array().unwrap() {
            assert!(Path::new(p.as_str().unwrap()).exists(), "{p}");
        }
    }
    // A merge of merges is the same merge.
    let m = dir.join("merged.json");
    std::fs::write(&m, &merge.stdout).unwrap();
    let again = lanejit(&["fuzz", "merge", "--json", m.to_str().unwrap()]);
    assert_eq!(comparable(&serde_json::from_slice(&again.stdout).unwrap()), comparable(&merged));
    let _ = std::fs::remove_dir_all(&dir);
}

fn bad(args: &[&str], wanted: &str) {
    let o = lanejit(args);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
    assert!(text(&o).contains(wanted), "{args:?}: wanted `{wanted}` in:\n{}", text(&o));
}

/// Small shards of a campaign without planted bugs (a few seconds), and everything that is not one campaign.
#[test]
fn shards_that_are_not_one_campaign_are_bad_input() {
    let dir = temp("bad");
    let small = ["fuzz", "--seed", "9", "--count", "8", "--size", "6", "--states", "1", "--jobs", "2", "--json"];
    let report = |name: &str, extra: &[&str]| {
        let mut args = small.to_vec();
        args.extend(extra);
        let o = lanejit(&args);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        let p = dir.join(name);
        std::fs::write(&p, &o.stdout).unwrap();
        p.to_str().unwrap().to_string()
    };
    let (a, b) = (report("a.json", &["--shard", "1/2"]), report("b.json", &["--shard", "2/2"]));
    let quarter = report("q.json", &["--shard", "2/4"]);
    let other_size = report("groups.json", &["--shard", "2/2", "--groups", "5"]);
    let other_share = report("share.json", &["--shard", "2/2", "--backtracking", "1"]);
    let ok = lanejit(&["fuzz", "merge", &a, &b]);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok));
    assert!(text(&ok).contains("programs=8 ") && text(&ok).contains("complete=true"), "{}", text(&ok));

    bad(&["fuzz", "merge", &a, &a], "overlap");
    bad(&["fuzz", "merge", &a, &quarter], "overlap");
    bad(&["fuzz", "merge", &a, &other_size], "different campaigns (groups ");
    bad(&["fuzz", "merge", &a, &other_share], "different campaigns (backtracking 8 vs 1)");
    for share in ["0", "-1", "x", "1048577"] {
        bad(&["fuzz", "--backtracking", share], share);
    }
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&b).unwrap()).unwrap();
    // The report names the build that wrote it, as `lanejit --version` does.
    let version = String::from_utf8(lanejit(&["--version"]).stdout).unwrap();
    assert_eq!(version.trim(), format!("lanejit {}", v["lanejit_version"].as_str().unwrap()));
    // A build of another commit of the same version.
    v["lanejit_version"] = format!("{}+g000000000000", env!("CARGO_PKG_VERSION")).into();
    let other_build = dir.join("other-build.json");
    std::fs::write(&other_build, v.to_string()).unwrap();
    bad(&["fuzz", "merge", &a, other_build.to_str().unwrap()], "different versions");
    v["lanejit_version"] = "0.0.1".into();
    let old = dir.join("old.json");
    std::fs::write(&old, v.to_string()).unwrap();
    bad(&["fuzz", "merge", &a, old.to_str().unwrap()], "different versions");
    v["format_version"] = 99.into();
    std::fs::write(&old, v.to_string()).unwrap();
    bad(&["fuzz", "merge", &a, old.to_str().unwrap()], "newer");
    let junk = dir.join("junk.json");
    std::fs::write(&junk, "{\"programs\": 3}").unwrap();
    bad(&["fuzz", "merge", &a, junk.to_str().unwrap()], "not a fuzz report");
    std::fs::write(&junk, "{\"format\": \"lanejit-fuzz-report\", \"format_version\": 1, \"programs\": \"x\"}").unwrap();
    bad(&["fuzz", "merge", &a, junk.to_str().unwrap()], "malformed report");
    std::fs::write(&junk, "[1, 2").unwrap();
    bad(&["fuzz", "merge", junk.to_str().unwrap()], "not JSON");
    bad(&["fuzz", "merge", "/missing/report.json"], "/missing/report.json");
    bad(&["fuzz", "merge"], "required");
    for shard in ["0/4", "5/4", "1/0", "x/2", "2", "1/2/3"] {
        bad(&["fuzz", "--shard", shard], shard);
    }
    bad(&["fuzz", "--count", "3", "--shard", "1/4"], "cannot be split into 4 shards");
    bad(&["fuzz", "--time", "5", "--shard", "1/4"], "--count");
    bad(&["fuzz", "--report-lost", "died"], "--shard");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A shard whose worker died twice is recorded as lost (`--report-lost`, what the Ray driver writes): the merge
/// reports it as a finding with its programs and the command that reruns it, and exits 1.
#[test]
fn a_lost_shard_is_a_finding_of_the_merge() {
    let dir = temp("lost");
    let args = ["fuzz", "--seed", "9", "--count", "8", "--size", "6", "--states", "1", "--jobs", "2", "--json"];
    let write = |name: &str, extra: &[&str]| {
        let o = lanejit(&[&args[..], extra].concat());
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        let p = dir.join(name);
        std::fs::write(&p, &o.stdout).unwrap();
        p.to_str().unwrap().to_string()
    };
    let a = write("a.json", &["--shard", "1/2"]);
    let lost = write("lost.json", &["--shard", "2/2", "--report-lost", "worker died twice (SIGKILL)"]);
    let o = lanejit(&["fuzz", "merge", "--json", &a, &lost]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let m: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(m["lost"][0]["programs"], serde_json::json!([4, 8]));
    assert_eq!(m["not_run"], serde_json::json!([[4, 8]]));
    assert_eq!(m["complete"], false);
    let rerun = m["lost"][0]["rerun"].as_str().unwrap();
    assert!(rerun.contains("--seed 9 --count 8 --shard 2/2 --size 6 --states 1"), "{rerun}");
    assert!(text(&o).contains("LOST shard 2/2, programs 4..8: worker died twice"), "{}", text(&o));
    // A campaign with another share of users' register allocator reruns with it.
    let lost = write("lost3.json", &["--shard", "2/2", "--backtracking", "3", "--report-lost", "died"]);
    let o = lanejit(&["fuzz", "merge", "--json", &lost]);
    let m: Value = serde_json::from_slice(&o.stdout).unwrap();
    let rerun = m["lost"][0]["rerun"].as_str().unwrap();
    assert!(rerun.ends_with("--backtracking 3"), "{rerun}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--corpus DIR`: a campaign writes the cases that reached new coverage (the same ones whatever `--jobs`); the
/// same campaign run again from that corpus replays them first, starts from their coverage, and adds nothing;
/// the entries replay with `fuzz --replay`; an entry that does not assemble is bad input.
#[test]
fn a_corpus_keeps_new_coverage_for_the_next_campaign() {
    let dir = temp("corpus");
    let campaign = |corpus: &Path, jobs: &str| {
        let args = ["fuzz", "--seed", "11", "--count", "30", "--size", "8", "--states", "2", "--json", "--jobs", jobs];
        let o = lanejit(&[&args[..], &["--corpus", corpus.to_str().unwrap()]].concat());
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        let r: Value = serde_json::from_slice(&o.stdout).unwrap();
        r["corpus"].clone()
    };
    let listing = |d: &Path| {
        let mut v: Vec<String> =
            std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        v.sort();
        v
    };
    let (one, two) = (dir.join("one"), dir.join("two"));
    let first = campaign(&one, "1");
    let added = first["added"].as_u64().unwrap();
    assert!(added > 0 && first["replayed"] == 0, "{first}");
    assert_eq!(listing(&one).len() as u64, 2 * added, "a .s and a .json per entry");
    assert_eq!(campaign(&two, "2"), first, "which cases are kept does not depend on --jobs");
    assert_eq!(listing(&one), listing(&two));

    let again = campaign(&one, "2");
    assert_eq!(again, serde_json::json!({ "replayed": added, "added": 0, "divergent": [] }));
    let replay = lanejit(&["fuzz", "--replay", one.to_str().unwrap()]);
    assert_eq!(replay.status.code(), Some(0), "{}", text(&replay));
    assert!(text(&replay).contains(&format!("replayed={added} divergences=0")), "{}", text(&replay));

    std::fs::write(one.join("broken.s"), "v.nosuch v1\n").unwrap();
    std::fs::write(one.join("broken.json"), "{}").unwrap();
    bad(&["fuzz", "--count", "1", "--corpus", one.to_str().unwrap()], "broken.s");
    let _ = std::fs::remove_dir_all(&dir);
}
