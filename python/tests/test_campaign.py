"""The Ray campaign driver (``python -m lanejit.campaign``): its merged report equals the shards run one by one
and merged by ``lanejit fuzz merge``, also when a shard's worker died once and was retried; a shard whose worker
dies twice is a finding of the merged report (exit 1), never dropped; the module imports without Ray.

The driver runs the ``lanejit`` binary: ``LANEJIT_BIN``, else ``$CARGO_TARGET_DIR/release/lanejit``, else the
workspace's ``target/release/lanejit`` (``.ci/run`` builds it before pytest). Ray starts locally with 2 CPUs
and no dashboard, on a 40-program campaign, so each driver run takes seconds.
"""

import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SETTINGS = ["--seed", "5", "--size", "10", "--states", "2"]
PROGRAMS, SHARDS = 40, 4


def lanejit_bin():
    target = os.environ.get("CARGO_TARGET_DIR", str(ROOT / "target"))
    path = os.environ.get("LANEJIT_BIN", os.path.join(target, "release", "lanejit"))
    if not os.access(path, os.X_OK):
        pytest.fail(f"no lanejit binary at {path}: cargo build --release -p lanejit-cli (or set LANEJIT_BIN)")
    return path


def driver(out, *extra, crash=None):
    env = dict(os.environ)
    env.pop("LANEJIT_CAMPAIGN_TEST_CRASH", None)
    if crash:
        env["LANEJIT_CAMPAIGN_TEST_CRASH"] = crash
    cmd = [sys.executable, "-m", "lanejit.campaign", "--programs", str(PROGRAMS), "--shards", str(SHARDS),
           "--num-cpus", "2", "--out", str(out), "--lanejit", lanejit_bin(), *SETTINGS, *extra]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)


def comparable(r):
    """What must agree: everything but the run times and where the reproducers were written."""
    r = dict(r)
    for k in ("elapsed_s", "programs_per_s"):
        r.pop(k)
    for d in r["divergences"]:
        d.pop("reproducer"), d.pop("record")
    for s in r["signatures"]:
        s.pop("reproducers"), s.pop("records")
    return r


def shards_one_by_one(tmp):
    """The same campaign's shards run one after another by the CLI, then merged."""
    reports = []
    for k in range(1, SHARDS + 1):
        p = subprocess.run([lanejit_bin(), "fuzz", "--count", str(PROGRAMS), "--shard", f"{k}/{SHARDS}", *SETTINGS,
                            "--json", "--jobs", "1", "--out", str(tmp / f"one{k}")], capture_output=True)
        assert p.returncode == 0, p.stderr.decode()
        path = tmp / f"one{k}.json"
        path.write_bytes(p.stdout)
        reports.append(str(path))
    m = subprocess.run([lanejit_bin(), "fuzz", "merge", "--json", *reports], capture_output=True)
    assert m.returncode == 0, m.stderr.decode()
    return json.loads(m.stdout), reports


def test_the_module_imports_without_ray():
    code = ("import sys; sys.modules['ray'] = None\n"
            "import lanejit.campaign as c\n"
            f"sys.exit(c.main(['--programs', '4', '--lanejit', {lanejit_bin()!r}]))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode == 2 and "pip install './python[ray]'" in p.stderr, p.stderr


def test_bad_arguments_exit_2(tmp_path):
    for args, wanted in [(["--programs", "0"], "at least 1"), (["--programs", "4", "--shards", "5"], "--shards"),
                         (["--programs", "4", "--lanejit", "/missing/lanejit"], "/missing/lanejit"),
                         (["--programs", "4", "--size", "1", "--lanejit", lanejit_bin()], "MAX_FUZZ_SIZE"),
                         (["--programs", "4", "--ignore", "nosuch", "--lanejit", lanejit_bin()], "nosuch")]:
        p = subprocess.run([sys.executable, "-m", "lanejit.campaign", "--out", str(tmp_path), *args],
                           capture_output=True, text=True)
        assert p.returncode == 2 and wanted in p.stderr, (args, p.stderr)


def test_the_merged_report_equals_the_shards_run_one_by_one_also_after_a_retry(tmp_path, monkeypatch):
    # Shard 2's worker dies on its first attempt: the retry runs it, and nothing of it is lost.
    p = driver(tmp_path / "ray", crash="2:1")
    assert p.returncode == 0, p.stderr
    assert "shard 2/4 failed" in p.stderr and "retrying" in p.stderr, p.stderr
    assert f"campaign: {SHARDS}/{SHARDS} shards, {PROGRAMS} programs" in p.stderr, p.stderr
    merged = json.loads((tmp_path / "ray" / "merged.json").read_text())
    assert json.loads((tmp_path / "ray" / "driver.json").read_text())["retried"] == 1
    want, reports = shards_one_by_one(tmp_path)
    assert merged["programs"] == PROGRAMS and merged["complete"] and not merged["lost"]
    assert comparable(merged) == comparable(want)
    # Merged in groups (as a campaign of thousands of shards is): the same report.
    from lanejit import campaign
    monkeypatch.setattr(campaign, "MERGE_GROUP", 3)
    (tmp_path / "grouped").mkdir()
    assert campaign.merge(lanejit_bin(), reports, str(tmp_path / "grouped")) == 0
    assert (tmp_path / "grouped" / "merge-0-0001.json").exists()
    assert comparable(json.loads((tmp_path / "grouped" / "merged.json").read_text())) == comparable(want)


def test_a_shard_whose_worker_dies_twice_is_reported_lost(tmp_path):
    p = driver(tmp_path, crash="3")
    assert p.returncode == 1, p.stderr
    merged = json.loads((tmp_path / "merged.json").read_text())
    assert [(l["shard"], l["programs"]) for l in merged["lost"]] == [({"index": 3, "of": 4}, [20, 30])]
    assert "failed 2 times" in merged["lost"][0]["reason"]
    assert "--shard 3/4" in merged["lost"][0]["rerun"]
    assert merged["not_run"] == [[20, 30]] and not merged["complete"]
    assert merged["programs"] == PROGRAMS - 10
    assert "LOST shard 3/4, programs 20..30" in p.stderr, p.stderr


def test_a_child_killed_by_a_signal_is_retried_then_reported_lost(tmp_path):
    # A lanejit that crashes (SIGSEGV, as an engine bug in compiled code would) whenever it runs shard 2 of 4;
    # recording the shard as lost (--report-lost) and the merge still work.
    wrapper = tmp_path / "lanejit"
    wrapper.write_text("#!/bin/sh\n"
                       'case "$*" in *--report-lost*) ;; *"--shard 2/4 "*) kill -SEGV $$ ;; esac\n'
                       f'exec {lanejit_bin()} "$@"\n')
    wrapper.chmod(0o755)
    p = driver(tmp_path / "out", "--lanejit", str(wrapper))
    assert p.returncode == 1, p.stderr
    merged = json.loads((tmp_path / "out" / "merged.json").read_text())
    assert [(l["shard"]["index"], l["programs"]) for l in merged["lost"]] == [(2, [10, 20])]
    assert "killed by signal 11" in merged["lost"][0]["reason"], merged["lost"][0]
    assert "shard 2/4 failed (lanejit was killed by signal 11" in p.stderr, p.stderr
