//! Sensitivity of the fuzzer: every planted JIT bug (`jit/src/mutants.rs`) must be caught by a short campaign,
//! and its first finding must shrink to a reproducer a reader takes in at a glance.
//!
//! A test binary of its own because the mutant switch is process-wide: any other JIT test running in the same
//! process (the CI campaign in tests/fuzz.rs, say) would compile the planted bug too. Cargo runs test binaries
//! one after another, so nothing else compiles kernels while this runs. Within the binary there is one test,
//! which runs each mutant in a child process (this binary again, `CHILD_ENV` naming the mutant): a planted bug
//! that weakens a bounds check makes the JIT touch host memory, and a crash then fails one row of the table
//! instead of the whole run.

use lanejit_cli::fuzz::campaign::{reproducer_source, Options};
use lanejit_cli::fuzz::watchdog::Hang;
use lanejit_cli::fuzz::{campaign, GenConfig};
use lanejit_jit::mutants::{self, CATALOGUE};
use std::time::Instant;

/// The CI campaign's program shape (tests/fuzz.rs), so that what is measured here is what CI runs.
const GEN: GenConfig = GenConfig { max_len: 10, states: 2, group_pct: 10 };
/// A mutant counts as missed if none of this many programs diverges.
const PROGRAMS: u64 = 2_000;
/// Mutants given a longer campaign than `PROGRAMS`, the budget, and why.
const LONGER_CAMPAIGN: &[(u32, u64, &str)] = &[(
    144,
    10_000,
    "needs a block whose full-EXEC and masked variants leave different registers changed, after an EXEC write, \
       taken with a full EXEC: since one-register accesses under a partial EXEC run inline (lower/mem/masked.rs) \
       only 8- and 16-byte and image accesses still differ; the campaign's first such finding is program 7,797",
)];
/// Campaign seed of mutant `id`: `SEED_BASE + id`.
const SEED_BASE: u64 = 0x0bad_0000;
/// Planted bugs the short campaign is known not to catch, and why. Every other one must be caught (memory and
/// EXEC ones included), at least 95% of all (`ABSORBED` aside) must be, and one listed here that starts being
/// caught fails the test so that the list stays true.
const KNOWN_MISSES: &[(u32, &str)] = &[
    (
        148,
        "needs a 32-bit access whose 4-lane slices start contiguous and then break, in a block hot enough for \
           the optimising tier; the dropped-stride-bit offsets make that shape, but the image ops' stream moved \
           the one program of the 2,000 that had it. tests/cases/jit/slices.yaml (\"ld.b32 whose slices start \
           contiguous and then repeat ...\") catches it on jit-opt",
    ),
    (
        140,
        "needs an atomic on a region's last word, then in the same run one word past it: the generator's \
           out-of-bounds lanes land further out. tests/cases/mem/traps.yaml (\"an atomic one word past its \
           allocation ...\") catches it on every JIT mode",
    ),
    (
        142,
        "needs a scattered access that first runs aligned (caching its region) and later has one lane \
           misaligned; the generator's misaligned accesses are misaligned from the start. \
           tests/cases/mem/traps.yaml (\"a scattered load traps Misaligned ...\") catches it",
    ),
    (
        150,
        "needs an inline image access whose first trip is aligned and whose sliding row is misaligned (8- or \
           16-byte texels, a pitch padded by 4, every lane on row 0 first): the generator makes that combination \
           rarely. tests/cases/jit/images.yaml (\"rgba32f pitch 36 ...\") catches it (checked by replaying \
           it with the bug compiled in)",
    ),
];
/// Planted errors that a safety net must absorb, so that every answer stays right: the campaign must not catch
/// them (if it does, the safety net failed), and they do not count towards the share of planted bugs caught.
const ABSORBED: &[(u32, &str)] = &[(
    163,
    "the lowering reads a register its block left unloaded, and the function is built again loading every \
       register (jit/src/runtime/mod.rs define_function). tests/lazy_loads.rs checks that the second build \
       happens (matmul) and that every example stays exact",
)];
/// Largest acceptable shrunk reproducer, in rendered instructions (structures, `end` and returns included).
const MAX_SHRUNK: usize = 10;
/// Mutants whose reproducers may be a little longer, the limit, and why.
const LONGER: &[(u32, usize, &str)] = &[
    (
        43,
        16,
        "the run must stop inside a block with one step too few; deleting code before the stop moves it, and \
              the shrinker re-aims the cut budget only for the plain instructions it removes, not across loops",
    ),
    (
        125,
        12,
        "needs a block whose budget check fails after the block before it changed registers; since EXEC writes \
              no longer end blocks, the generator's conditional structure (exec.and.save, j.execz, body, exec.set) \
              gives blocks of 6 or more instructions around it",
    ),
    (
        144,
        12,
        "needs a loop (counter, exec.get, two branches, exec.set: 6 instructions) whose body has an access done \
              inline in one EXEC variant and through the runtime in the other, followed by an EXEC write",
    ),
];

fn max_shrunk(id: u32) -> usize {
    LONGER.iter().find(|l| l.0 == id).map_or(MAX_SHRUNK, |l| l.1)
}

struct Row {
    id: u32,
    site: &'static str,
    what: &'static str,
    /// Programs run up to and including the first divergent one.
    first: Option<u64>,
    /// Rendered instructions of the shrunk first finding (None: not caught, or the shrink lost the failure).
    shrunk: Option<usize>,
    /// The first finding is a program the JIT ran without end (caught, but nothing to shrink).
    hang: bool,
    reproducer: String,
}

/// One campaign per mutant, stopped at the first finding (by seed), which is then shrunk.
fn run(id: u32, site: &'static str, what: &'static str) -> Row {
    mutants::set(Some(id)).expect("the test suite builds the planted bugs");
    let opts = Options {
        seed: SEED_BASE + id as u64,
        count: Some(LONGER_CAMPAIGN.iter().find(|l| l.0 == id).map_or(PROGRAMS, |l| l.1)),
        gen: GEN,
        stop_after: Some(1),
        max_shrinks: 1,
        hang_after: Some(HANG_AFTER),
        on_hang: hang_kills,
        ..Options::default()
    };
    let sum = campaign(&opts).expect("campaign runs");
    mutants::set(None).expect("deselecting always works");
    assert!(sum.errors.is_empty(), "mutant {id}: harness errors: {:?}", sum.errors);
    let f = sum.findings.first();
    let shrunk = f.and_then(|f| f.shrunk.as_ref());
    let reproducer = match (f, shrunk) {
        (Some(f), Some((p, _, d))) => reproducer_source(f, p, d).unwrap_or_default(),
        _ => String::new(),
    };
    Row {
        id,
        site,
        what,
        first: f.map(|f| f.index + 1),
        shrunk: shrunk.map(|s| s.0.insn_count()),
        hang: false,
        reproducer,
    }
}

/// A program runs this long without end under a planted bug: far above any program's run (milliseconds).
const HANG_AFTER: std::time::Duration = std::time::Duration::from_secs(30);

/// In the child: a program the mutant's JIT runs without end (a budget bug) is a kill. The hung thread cannot
/// be stopped, so the child reports the kill line with `hang` for the shrunk size and exits at once.
fn hang_kills(h: &Hang) -> ! {
    let id = std::env::var(CHILD_ENV).unwrap_or_default();
    println!("KILL {id} {} hang", h.index + 1);
    println!("REPRODUCER\n; {h}");
    std::process::exit(0)
}

/// Set in a child process: the mutant it runs.
const CHILD_ENV: &str = "LANEJIT_MUTANT_CHILD";

/// Runs mutant `id` in a child process; parses its `KILL` line (a crash leaves `first` and `shrunk` empty and
/// says how the child ended).
fn run_isolated(id: u32, site: &'static str, what: &'static str) -> (Row, Option<String>) {
    let out = std::process::Command::new(std::env::current_exe().expect("test binary path"))
        .args(["mutants_are_caught_and_shrink", "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, id.to_string())
        .output()
        .expect("spawn the child test process");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut row = Row { id, site, what, first: None, shrunk: None, hang: false, reproducer: String::new() };
    // libtest may print `test NAME ... ` on the same line before the child's own output.
    let kill = stdout.lines().find_map(|l| l.split_once("KILL ").map(|x| x.1));
    let Some(kill) = kill.filter(|_| out.status.success()) else {
        let err = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = err.lines().rev().take(5).collect();
        return (row, Some(format!("child for mutant {id} ended with {}: {}", out.status, tail.join(" | "))));
    };
    let f: Vec<&str> = kill.split_whitespace().collect();
    row.first = f.get(1).and_then(|x| x.parse().ok());
    row.shrunk = f.get(2).and_then(|x| x.parse().ok());
    row.hang = f.get(2) == Some(&"hang");
    row.reproducer = stdout.split_once("REPRODUCER\n").map_or(String::new(), |(_, r)| r.to_string());
    (row, None)
}

#[test]
fn mutants_are_caught_and_shrink() {
    if let Ok(id) = std::env::var(CHILD_ENV) {
        let id: u32 = id.parse().expect("mutant id");
        let &(_, site, what) = CATALOGUE.iter().find(|m| m.0 == id).expect("catalogued mutant");
        let r = run(id, site, what);
        let opt = |x: Option<u64>| x.map_or("-".to_string(), |n| n.to_string());
        println!("KILL {id} {} {}", opt(r.first), opt(r.shrunk.map(|n| n as u64)));
        println!("REPRODUCER\n{}", r.reproducer);
        return;
    }
    let t0 = Instant::now();
    println!("{:>3}  {:<36} {:<6} {:>8} {:>6}  what", "id", "site", "caught", "programs", "shrunk");
    let (mut rows, mut crashed, mut crashed_ids) = (Vec::new(), Vec::new(), Vec::new());
    for &(id, site, what) in CATALOGUE {
        let (r, crash) = run_isolated(id, site, what);
        let opt = |x: Option<u64>| x.map_or("-".to_string(), |n| n.to_string());
        let caught = if crash.is_some() {
            "CRASH"
        } else if r.first.is_some() {
            "yes"
        } else {
            "NO"
        };
        println!(
            "{:>3}  {:<36} {:<6} {:>8} {:>6}  {}",
            r.id,
            r.site,
            caught,
            opt(r.first),
            if r.hang { "hang".to_string() } else { opt(r.shrunk.map(|n| n as u64)) },
            r.what
        );
        if let Some(c) = crash {
            crashed.push(c);
            crashed_ids.push(id);
        }
        rows.push(r);
    }
    let known = |id: u32| KNOWN_MISSES.iter().any(|k| k.0 == id);
    let absorbed = |id: u32| ABSORBED.iter().any(|k| k.0 == id);
    let missed: Vec<String> = rows
        .iter()
        .filter(|r| r.first.is_none() && !crashed_ids.contains(&r.id) && !known(r.id) && !absorbed(r.id))
        .map(|r| format!("{} {}: {}", r.id, r.site, r.what))
        .collect();
    let now_caught: Vec<u32> = rows.iter().filter(|r| r.first.is_some() && known(r.id)).map(|r| r.id).collect();
    let not_absorbed: Vec<u32> = rows.iter().filter(|r| r.first.is_some() && absorbed(r.id)).map(|r| r.id).collect();
    let bugs = rows.len() - ABSORBED.len();
    let caught = rows.iter().filter(|r| r.first.is_some() && !absorbed(r.id)).count();
    let big: Vec<String> = rows
        .iter()
        .filter(|r| r.first.is_some() && !r.hang && r.shrunk.is_none_or(|n| n > max_shrunk(r.id)))
        .map(|r| format!("mutant {} ({}): {:?} instructions\n{}", r.id, r.what, r.shrunk, r.reproducer))
        .collect();
    println!("{bugs} planted bugs, {caught} caught ({:.1}%), {} missed unexpectedly, {} known misses, {} crashed, {} over their shrink limit (<= {MAX_SHRUNK}, or as LONGER says) \
              instructions; {} absorbed by a safety net ({:.1} s)", 100.0 * caught as f64 / bugs as f64, missed.len(), KNOWN_MISSES.len(),
             crashed.len(), big.len(), ABSORBED.len(), t0.elapsed().as_secs_f64());
    assert!(caught * 100 >= bugs * 95, "only {caught} of {bugs} planted bugs caught (at least 95% must be)");
    assert!(
        not_absorbed.is_empty(),
        "planted errors {not_absorbed:?} changed answers: the safety net that absorbs them (ABSORBED) failed"
    );
    assert!(now_caught.is_empty(), "known misses {now_caught:?} are caught now: take them out of KNOWN_MISSES");
    assert!(crashed.is_empty(), "the fuzzer process crashed (no reproducer):\n{}", crashed.join("\n"));
    assert!(missed.is_empty(), "mutants not caught in {PROGRAMS} programs:\n{}", missed.join("\n"));
    assert!(big.is_empty(), "shrunk reproducers over {MAX_SHRUNK} instructions:\n{}", big.join("\n"));
}
