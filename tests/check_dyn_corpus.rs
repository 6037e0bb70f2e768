//! The mutation corpus of the dynamic wait checker (issue 15): for every bundled example and every `wait` in
//! it, the kernel with that one `wait` deleted, launched with `Checks { waits }` on its bundled inputs (small
//! size). At least 95% of the mutants must be flagged, except those whose deletion changes nothing observable,
//! each excused below with its reason; the unmutated examples must give no finding at all.

use lanejit::check::{Checks, Finding};
use lanejit::{Device, Kernel, LaunchError, LaunchStats};
use lanejit_cli::examples::{self, Size};

/// (example, 1-based source line of the deleted `wait`, why its deletion cannot be observed). A line that no
/// longer holds a `wait` (the example was edited) fails the test, so the table cannot silently excuse another.
const EXCUSED: &[(&str, usize, &str)] = &[
    // The atomic's returned old value lands in a register nothing reads afterwards, and the wave ends next:
    // `end` completes the wave's accesses (its en text), so no instruction can meet the pending result.
    ("reduce", 70, "atomic result never read; the wave ends"),
    ("histogram", 48, "atomic result never read; the wave ends"),
    // A shared store, then `barrier`: the barrier acts as `fence wg` ("every memory access of the
    // workgroup's waves before the barrier is visible to every access after it", its en text), so other waves
    // see the value without the wait, and the store's source register is not written again before a later
    // `wait ls=0` retires the store. Only register uses of pending results are observable in this ISA.
    ("reduce", 42, "shared store before a barrier; its source is not rewritten"),
    ("scan", 49, "shared store before a barrier; its source is not rewritten"),
    ("scan", 97, "shared store before a barrier; its source is not rewritten"),
    ("matmul", 43, "shared stores before a barrier; their sources are rewritten only after a later wait ls=0"),
];

/// The source with line `line` (0-based) removed.
fn without_line(src: &str, line: usize) -> String {
    src.lines().enumerate().filter(|&(i, _)| i != line).map(|(_, l)| l).collect::<Vec<_>>().join("\n") + "\n"
}

/// 0-based lines of `src` holding a `wait` instruction.
fn wait_lines(src: &str) -> Vec<usize> {
    let body = |l: &str| l.split(';').next().unwrap_or("").trim().to_string();
    src.lines().enumerate().filter(|(_, l)| body(l).starts_with("wait ")).map(|(i, _)| i).collect()
}

/// The findings of one launch of `src` with `checks` on the example's small inputs (a trap still gives them).
fn findings(ex: &examples::Example, src: &str, checks: Checks) -> Vec<Finding> {
    let kernel = Kernel::from_asm(&format!("{}.s", ex.name), src).expect("the mutant assembles");
    let device = Device::new().unwrap();
    if checks.buffers {
        device.track_uninit_memory().unwrap();
    }
    let setup = (ex.setup)(&device, Size::Small).unwrap();
    let cfg = lanejit::LaunchConfig { check: checks, ..setup.cfg };
    match device.launch(&kernel, &cfg) {
        Ok(LaunchStats { findings, .. }) => findings,
        Err(LaunchError::Trap { stats, .. }) => stats.findings,
        Err(e) => panic!("{}: {e}", ex.name),
    }
}

/// Why deleting the `wait` at 0-based `line` of example `ex` is excused, if it is.
fn excused(ex: &examples::Example, line: usize) -> Option<&'static str> {
    EXCUSED.iter().find(|(name, l, _)| *name == ex.name && *l == line + 1).map(|(_, _, why)| *why)
}

#[test]
fn every_excused_line_is_a_wait() {
    for (name, line, _) in EXCUSED {
        let ex = examples::by_name(name).unwrap();
        assert!(wait_lines(ex.source).contains(&(line - 1)), "{name} line {line} is no longer a `wait`");
    }
}

/// Only the wait checker, as the corpus asks.
const WAITS: Checks = Checks { waits: true, races: false, barriers: false, uninit: false, buffers: false };

/// Every checker and the opt-in watch of device buffers: the examples' setups write every word a kernel reads
/// (accumulators included), as a GPU harness must.
#[test]
fn unmutated_examples_give_no_finding_of_any_checker() {
    for ex in examples::all() {
        let f = findings(ex, ex.source, Checks { buffers: true, ..Checks::ALL });
        assert!(f.is_empty(), "{}: {}", ex.name, lanejit::check::render_text(&f));
    }
}

#[test]
fn deleting_any_wait_of_an_example_is_flagged() {
    let (mut total, mut flagged, mut excuses) = (0, 0, Vec::new());
    let mut missed = Vec::new();
    for ex in examples::all() {
        let waits = wait_lines(ex.source);
        for &line in &waits {
            let f = findings(ex, &without_line(ex.source, line), WAITS);
            if let Some(why) = excused(ex, line) {
                assert!(f.is_empty(), "{} line {}: excused ({why}) but flagged", ex.name, line + 1);
                excuses.push(format!("{} line {}: {why}", ex.name, line + 1));
                continue;
            }
            total += 1;
            if f.is_empty() {
                missed.push(format!(
                    "{} line {}: `{}`",
                    ex.name,
                    line + 1,
                    ex.source.lines().nth(line).unwrap().trim()
                ));
            } else {
                flagged += 1;
            }
        }
    }
    println!("{flagged} of {total} mutants flagged; excused: {excuses:?}; missed: {missed:?}");
    assert!(total >= 40, "the corpus shrank to {total} mutants");
    assert!(flagged * 100 >= total * 95, "{flagged} of {total} flagged, missed: {missed:#?}");
}
