"""Schedules and exploration from Python: ``launch(..., schedule=...)`` and ``Device.explore`` on a planted
order dependence (tests/schedules/scan_assume.s: wave w reads the prefix wave w-1 wrote, assuming it has run)
and its race-free twin; bad schedules and policies are ``ValueError``."""

import pathlib

import numpy as np
import pytest

import lanejit

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCAN = (ROOT / "tests" / "schedules" / "scan_assume.s").read_text()
SCAN_FIXED = (ROOT / "tests" / "schedules" / "scan_assume_fixed.s").read_text()
# The inclusive scan of the waves' sums: wave w's threads add 32w+1 ... 32w+32.
EXPECTED = np.cumsum([32 * 32 * w + 528 for w in range(4)]).astype(np.uint32)


def run(kernel, **kw):
    prefix = np.zeros(4, dtype=np.uint32)
    lanejit.Device().launch(kernel, args=[prefix], **kw)
    return prefix


def test_the_fixed_order_is_right_and_a_seed_gives_the_same_bytes_on_every_engine():
    k = lanejit.assemble(SCAN, "scan_assume.s")
    assert (run(k) == EXPECTED).all()
    assert (run(k, schedule="fixed", engine="jit") == EXPECTED).all()
    for seed in range(8):
        first = run(k, schedule=f"random:{seed}", engine="interp")
        for engine in ["jit", "auto"]:
            assert (run(k, schedule=f"random:{seed}", engine=engine, threads=2) == first).all(), (seed, engine)


def test_explore_finds_the_order_dependence_and_its_schedule_replays_it():
    k = lanejit.assemble(SCAN, "scan_assume.s")
    prefix = np.zeros(4, dtype=np.uint32)
    report = lanejit.Device().explore(k, args=[prefix], schedules=100, engine="interp")
    assert report["differ"] is True and report["differing"] == 1
    assert report["explore"] == "random:0" and report["fixed"]["result"]["outcome"] == "finished"
    first = report["first_difference"]
    assert first["schedule"].startswith("random:") and first["differing_bytes"] >= 1 and first["bytes"]
    assert (prefix == EXPECTED).all(), "the array holds the fixed run's results"
    assert not (run(k, schedule=first["schedule"]) == EXPECTED).all(), first["schedule"]

    pct = lanejit.Device().explore(k, args=[np.zeros(4, dtype=np.uint32)], policy="pct:0", engine="interp")
    assert pct["explore"] == "pct:0,3" and pct["differ"] and pct["first_difference"]["schedule"].startswith("pct:")


def test_the_race_free_twin_matches_under_every_schedule():
    k = lanejit.assemble(SCAN_FIXED, "scan_assume_fixed.s")
    buf = np.zeros(8, dtype=np.uint32)  # the prefixes, then the waves' sums
    report = lanejit.Device().explore(k, args=[buf], schedules=200, stop_at_first=False, engine="interp")
    assert report == {**report, "differ": False, "differing": 0, "schedules": 200, "first_difference": None}
    assert (buf[:4] == EXPECTED).all()


@pytest.mark.parametrize("schedule, message", [
    ("random:18446744073709551616", "0..=18446744073709551615"),
    ("random:-1", "SEED `-1`"),
    ("pct:1,65", "DEPTH must be in 1..=64"),
    ("sometimes", "unknown schedule"),
])
def test_a_bad_schedule_is_a_value_error(schedule, message):
    k = lanejit.assemble(SCAN)
    with pytest.raises(ValueError, match="schedule") as e:
        run(k, schedule=schedule)
    assert message in str(e.value)


@pytest.mark.parametrize("policy, message", [
    ("rr:4", "exploration takes random"),
    ("random:99999999999999999999", "the first seed"),
    ("pct:0,0", "DEPTH 0 must be in 1..=64"),
])
def test_a_bad_policy_is_a_value_error(policy, message):
    k = lanejit.assemble(SCAN)
    with pytest.raises(ValueError, match="policy") as e:
        lanejit.Device().explore(k, args=[np.zeros(4, dtype=np.uint32)], policy=policy)
    assert message in str(e.value)
