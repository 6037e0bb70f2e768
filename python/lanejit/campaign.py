"""A fuzz campaign on Ray: ``python -m lanejit.campaign --programs N [--address ADDR] [--out DIR] [--shards S]``.

The campaign (``lanejit fuzz --seed SEED --count N`` with the given program settings) is split into S shards,
each a Ray task that runs the ``lanejit`` binary as a subprocess with ``--shard K/S --json`` (a crash of the
child is then a failed task, not a dead driver). With no ``--address`` Ray starts on this machine (the
embedded default, ``ray.init()``); with one the driver joins that cluster (``ray.init(address=ADDR)``, e.g.
``auto`` or ``ray://head:10001``). A shard whose worker dies (or whose child crashes or prints no report) is
run once more; if that fails too it is recorded as lost (``lanejit fuzz --report-lost``) and the merged report
names it, with its programs and the command that reruns it: a campaign never drops programs silently.
Reproducers come back with each shard's report into ``OUT/shard-K-of-S/``; the shards' reports are merged by
``lanejit fuzz merge`` (one implementation) into ``OUT/merged.json``. Exit code: that of the merge (0 clean, 1
divergences or lost shards), 2 for bad input.

Ray is an optional extra (``pip install ./python[ray]``): this module imports without it and only
``main`` needs it. docs/fuzzing.md describes the campaign, its files and how to read a finding.
"""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

# The test-only switch of the driver (never read by the library or the lanejit binary): a comma-separated list
# of `K` (shard K's worker dies on every attempt) or `K:T` (it dies on its first T attempts).
CRASH_ENV = "LANEJIT_CAMPAIGN_TEST_CRASH"
# Attempts per shard: the first, and one retry.
ATTEMPTS = 2


def shard_command(lanejit, a, k, n):
    """The ``lanejit fuzz`` command line of shard k (1-based) of n."""
    cmd = [lanejit, "fuzz", "--seed", str(a.seed), "--count", str(a.programs), "--shard", f"{k}/{n}",
           "--jobs", str(a.jobs_per_shard), "--json"]
    for flag, value in (("--size", a.size), ("--states", a.states), ("--groups", a.groups)):
        if value is not None:
            cmd += [flag, str(value)]
    for field in a.ignore:
        cmd += ["--ignore", field]
    if a.mutant is not None:
        cmd += ["--mutant", str(a.mutant)]
    return cmd


def run_shard(cmd, crash):
    """Runs one shard (in a Ray task): its report, and its reproducer files as {relative path: bytes}.

    Returns ``{"report": ...}`` or ``{"failed": reason}``; a child that says the input is bad (exit 2) is
    ``{"bad_input": message}``, which ends the campaign.
    """
    if crash:
        os.kill(os.getpid(), signal.SIGKILL)  # the test-only switch: this worker dies
    with tempfile.TemporaryDirectory(prefix="lanejit-shard-") as out:
        try:
            p = subprocess.run(cmd + ["--out", out], capture_output=True)
        except OSError as e:
            return {"failed": f"could not run {cmd[0]}: {e}"}
        err = p.stderr.decode(errors="replace").strip()
        if p.returncode == 2:
            return {"bad_input": err}
        if p.returncode < 0:
            return {"failed": f"lanejit was killed by signal {-p.returncode}: {err[-400:]}"}
        try:
            report = json.loads(p.stdout)
        except ValueError:
            return {"failed": f"lanejit exited {p.returncode} without a report: {err[-400:]}"}
        files = {}
        for root, _, names in os.walk(out):
            for name in names:
                path = os.path.join(root, name)
                with open(path, "rb") as f:
                    files[os.path.relpath(path, out)] = f.read()
        return {"report": report, "out": out, "files": files}


def crash_plan(text):
    """Parses ``CRASH_ENV``: {shard: attempts that crash}."""
    plan = {}
    for item in filter(None, (text or "").split(",")):
        k, _, times = item.partition(":")
        plan[int(k)] = int(times) if times else ATTEMPTS
    return plan


def relocate(report, old, new):
    """Points a shard report's reproducer paths at where the driver wrote the files."""
    def move(p):
        return os.path.join(new, os.path.relpath(p, old)) if p else p

    for d in report["divergences"]:
        d["reproducer"], d["record"] = move(d["reproducer"]), move(d["record"])
    for s in report["signatures"]:
        s["reproducers"] = [move(p) for p in s["reproducers"]]
        s["records"] = [move(p) for p in s["records"]]
    return report


class Progress:
    """Shards done of the total, programs, divergences, retries: one line on standard error (redrawn in place
    on a terminal)."""

    def __init__(self, shards):
        self.shards, self.done, self.programs, self.divergences, self.retried, self.lost = shards, 0, 0, 0, 0, 0
        self.t0, self.tty = time.monotonic(), sys.stderr.isatty()

    def show(self):
        line = (f"campaign: {self.done}/{self.shards} shards, {self.programs} programs, "
                f"{self.divergences} divergences, {self.retried} retried, {self.lost} lost "
                f"[{time.monotonic() - self.t0:.0f} s]")
        sys.stderr.write(("\r" + line) if self.tty else (line + "\n"))
        sys.stderr.flush()

    def end(self):
        if self.tty:
            sys.stderr.write("\n")


def write_shard(out, k, n, result):
    """Writes a finished shard's files and report under ``out``; returns the report's path."""
    name = f"shard-{k:04}-of-{n:04}"
    files_dir = os.path.join(out, name)
    for rel, data in result["files"].items():
        path = os.path.join(files_dir, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    report = relocate(result["report"], result["out"], files_dir)
    path = os.path.join(out, name + ".json")
    with open(path, "w") as f:
        json.dump(report, f, indent=2)
    return path


def write_lost(lanejit, a, out, k, n, reason):
    """Records shard k as lost (``lanejit fuzz --report-lost``); returns the report's path."""
    cmd = shard_command(lanejit, a, k, n) + ["--report-lost", reason]
    p = subprocess.run(cmd, capture_output=True, check=False)
    if p.returncode != 0:
        print(f"lanejit.campaign: could not record lost shard {k}/{n}: {p.stderr.decode()}", file=sys.stderr)
        raise SystemExit(2)
    path = os.path.join(out, f"shard-{k:04}-of-{n:04}.lost.json")
    with open(path, "wb") as f:
        f.write(p.stdout)
    return path


def check_settings(lanejit, a):
    """Has lanejit check the campaign's settings (without running anything: ``--report-lost`` of a 1-shard
    split), so that bad ones are refused before Ray starts; the error, or None."""
    p = subprocess.run(shard_command(lanejit, a, 1, 1) + ["--report-lost", "settings check"], capture_output=True)
    return None if p.returncode == 0 else p.stderr.decode(errors="replace").strip()


def run_campaign(ray, lanejit, a, n):
    """Runs the n shards as Ray tasks, retrying a failed one once; returns the reports' paths and retries."""
    task = ray.remote(num_cpus=a.jobs_per_shard, max_retries=0)(run_shard)
    crashes = crash_plan(os.environ.get(CRASH_ENV))
    attempts, pending, reports = {}, {}, []
    progress = Progress(n)

    def submit(k):
        attempts[k] = attempts.get(k, 0) + 1
        crash = attempts[k] <= crashes.get(k, 0)
        pending[task.remote(shard_command(lanejit, a, k, n), crash)] = k

    for k in range(1, n + 1):
        submit(k)
    progress.show()
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        k = pending.pop(ready[0])
        try:
            result = ray.get(ready[0])
        except ray.exceptions.RayError as e:  # the worker died, or the task raised
            result = {"failed": f"the Ray worker failed: {type(e).__name__}: {str(e).splitlines()[0][:300]}"}
        if "bad_input" in result:
            progress.end()
            print(f"lanejit.campaign: shard {k}/{n}: {result['bad_input']}", file=sys.stderr)
            raise SystemExit(2)
        if "failed" in result and attempts[k] < ATTEMPTS:
            progress.retried += 1
            print(f"\nshard {k}/{n} failed ({result['failed']}): retrying", file=sys.stderr)
            submit(k)
            continue
        if "failed" in result:
            progress.lost += 1
            reason = f"failed {attempts[k]} times, last: {result['failed']}"
            reports.append(write_lost(lanejit, a, a.out, k, n, reason))
        else:
            reports.append(write_shard(a.out, k, n, result))
            progress.programs += result["report"]["programs"]
            progress.divergences += len(result["report"]["divergences"])
        progress.done += 1
        progress.show()
    progress.end()
    return sorted(reports), progress.retried


# Reports per `lanejit fuzz merge` call: a campaign of many shards is merged in groups, then the groups' merges
# (merged reports merge again), which keeps each command line far below the system's argument limit.
MERGE_GROUP = 500


def merge(lanejit, reports, out):
    """``lanejit fuzz merge --json`` of the shards' reports into ``out/merged.json``: the merge's exit code."""
    level = 0
    while len(reports) > MERGE_GROUP:
        groups = [reports[i:i + MERGE_GROUP] for i in range(0, len(reports), MERGE_GROUP)]
        reports = []
        for i, group in enumerate(groups):
            p = subprocess.run([lanejit, "fuzz", "merge", "--json", *group], capture_output=True)
            if p.returncode == 2:
                sys.stderr.write(p.stderr.decode(errors="replace"))
                return 2
            path = os.path.join(out, f"merge-{level}-{i:04}.json")
            with open(path, "wb") as f:
                f.write(p.stdout)
            reports.append(path)
        level += 1
    p = subprocess.run([lanejit, "fuzz", "merge", "--json", *reports], capture_output=True)
    sys.stderr.write(p.stderr.decode(errors="replace"))
    if p.returncode == 2:
        return 2
    with open(os.path.join(out, "merged.json"), "wb") as f:
        f.write(p.stdout)
    return p.returncode


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="python -m lanejit.campaign", description=__doc__.split("\n\n")[0])
    ap.add_argument("--programs", type=int, required=True, help="programs in the campaign (lanejit fuzz --count)")
    ap.add_argument("--address", help="join this Ray cluster (auto, ray://host:10001); default: start Ray here")
    ap.add_argument("--out", default="fuzz-campaign", help="where reports and reproducers go (default fuzz-campaign)")
    ap.add_argument("--shards", type=int, help="shards (default: 4 per CPU of the cluster, or more so that each has at most 1,000 programs)")
    ap.add_argument("--seed", type=int, default=0, help="the campaign seed (lanejit fuzz --seed)")
    ap.add_argument("--size", type=int, help="lanejit fuzz --size (default: lanejit's)")
    ap.add_argument("--states", type=int, help="lanejit fuzz --states (default: lanejit's)")
    ap.add_argument("--groups", type=int, help="lanejit fuzz --groups (default: lanejit's)")
    ap.add_argument("--ignore", action="append", default=[], help="lanejit fuzz --ignore (repeatable)")
    ap.add_argument("--mutant", type=int, help="lanejit fuzz --mutant (a build with planted bugs)")
    ap.add_argument("--jobs-per-shard", type=int, default=1, help="threads (and Ray CPUs) per shard (default 1)")
    ap.add_argument("--num-cpus", type=int, help="CPUs of a Ray started here (default: every core)")
    ap.add_argument("--lanejit", help="the lanejit binary (default: lanejit on PATH)")
    ap.add_argument("--json", action="store_true", help="print the merged report on standard output")
    a = ap.parse_args(argv)
    if a.programs < 1:
        ap.error("--programs must be at least 1")
    if a.shards is not None and not 1 <= a.shards <= a.programs:
        ap.error(f"--shards must be in 1..={a.programs} (at most one shard per program)")
    if a.jobs_per_shard < 1:
        ap.error("--jobs-per-shard must be at least 1")
    return a


def main(argv=None):
    a = parse_args(argv)
    lanejit = a.lanejit or shutil.which("lanejit")
    if not lanejit or not os.access(lanejit, os.X_OK):
        print(f"lanejit.campaign: no lanejit binary ({a.lanejit or 'none on PATH'}): pass --lanejit PATH",
              file=sys.stderr)
        return 2
    lanejit = os.path.abspath(lanejit)
    bad = check_settings(lanejit, a)
    if bad:
        print(f"lanejit.campaign: {bad}", file=sys.stderr)
        return 2
    try:
        import ray
    except ImportError:
        print("lanejit.campaign: Ray is not installed: pip install './python[ray]' (or pip install 'ray>=2.9')",
              file=sys.stderr)
        return 2
    os.makedirs(a.out, exist_ok=True)
    t0 = time.monotonic()
    if a.address:
        ray.init(address=a.address, logging_level="warning")
    else:
        ray.init(num_cpus=a.num_cpus, include_dashboard=False, logging_level="warning")
    try:
        cpus = int(ray.cluster_resources().get("CPU", 1))
        # At least 4 shards per CPU (an even finish), and at most about 1,000 programs each (frequent progress,
        # and little lost with a shard).
        n = a.shards or min(a.programs, max(4 * cpus // a.jobs_per_shard, -(-a.programs // 1000), 1))
        print(f"campaign: {a.programs} programs in {n} shards on {cpus} CPUs", file=sys.stderr)
        reports, retried = run_campaign(ray, lanejit, a, n)
    finally:
        ray.shutdown()
    code = merge(lanejit, reports, a.out)
    wall = time.monotonic() - t0
    merged_path = os.path.join(a.out, "merged.json")
    if code != 2:
        merged = json.load(open(merged_path))
        print(f"programs={merged['programs']} divergences={len(merged['divergences'])} "
              f"signatures={len(merged['signatures'])} coverage={merged['coverage_percent']:.1f}% "
              f"lost={len(merged['lost'])} shards={n} retried={retried} wall_s={wall:.1f} "
              f"programs_per_s={merged['programs'] / wall:.1f} report={merged_path}", file=sys.stderr)
        if a.json:
            print(json.dumps(merged, indent=2))
    with open(os.path.join(a.out, "driver.json"), "w") as f:
        json.dump({"programs": a.programs, "shards": n, "cpus": cpus, "address": a.address, "retried": retried,
                   "wall_s": wall, "merge_exit": code}, f, indent=2)
    return code


if __name__ == "__main__":
    sys.exit(main())
