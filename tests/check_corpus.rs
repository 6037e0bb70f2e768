//! The mutation corpus of the static wait-hazard check (issue 15): every bundled example with one of its `wait`s
//! deleted. The check must flag at least 95% of the mutants; a deletion that changes nothing observable is
//! excused below, with the reason next to it, and must then really give no hazard (a stale excuse fails).
//! The unmutated examples give no hazard at all.

use lanejit::static_check::{check, hazard_count};
use lanejit_cli::examples;

/// Deletions that change nothing observable: (example, source line of the deleted `wait`, why).
/// Both reasons are the ISA text's: `barrier` "acts as fence wg: every memory access of the workgroup's waves
/// before the barrier is visible to every access after it" (7-ctrl.yaml), so a shared store needs no wait to be
/// seen by the other waves after it; and `end` says the wave's memory writes are all done.
const SHARED_STORE_BEFORE_BARRIER: &str = "wait ls=0 between a shared store and a barrier: the barrier makes the \
    store visible to every wave (fence wg), and the store's registers are not written again before a later wait";
const UNREAD_ATOMIC_BEFORE_END: &str =
    "wait vm=0 just before end after an atomic whose returned old value is never read: end completes the access";
const EXCUSED: &[(&str, usize, &str)] = &[
    ("reduce", 42, SHARED_STORE_BEFORE_BARRIER),
    ("reduce", 70, UNREAD_ATOMIC_BEFORE_END),
    ("scan", 49, SHARED_STORE_BEFORE_BARRIER),
    ("scan", 97, SHARED_STORE_BEFORE_BARRIER),
    ("histogram", 48, UNREAD_ATOMIC_BEFORE_END),
    ("matmul", 43, SHARED_STORE_BEFORE_BARRIER),
];

/// Hazards of every kernel of a source.
fn hazards(file: &str, src: &str) -> usize {
    let kernels = lanejit_isa::assemble_module_with_lines(file, src).expect("the examples and their mutants assemble");
    kernels.iter().map(|(p, lines)| hazard_count(&check(p, Some(lines.as_slice())))).sum()
}

/// Source lines (from 1) holding a `wait` instruction.
fn wait_lines(src: &str) -> Vec<usize> {
    let code = |l: &str| l.split(';').next().unwrap_or("").trim().to_string();
    let is_wait = |l: &str| {
        let c = code(l);
        let c = c.rsplit_once(':').map_or(c.as_str(), |(_, rest)| rest).trim();
        c == "wait" || c.starts_with("wait ")
    };
    src.lines().enumerate().filter(|(_, l)| is_wait(l)).map(|(i, _)| i + 1).collect()
}

/// `src` with the `wait` on `line` deleted (the line left blank, so later lines keep their numbers).
fn without(src: &str, line: usize) -> String {
    let mut lines: Vec<&str> = src.split('\n').collect();
    lines[line - 1] = "";
    lines.join("\n")
}

#[test]
fn unmutated_examples_have_no_hazard() {
    for ex in examples::all() {
        assert_eq!(hazards(ex.name, ex.source), 0, "{}: hazards on the bundled example", ex.name);
    }
}

#[test]
fn the_check_flags_at_least_95_percent_of_the_deleted_waits() {
    let (mut flagged, mut counted, mut missed) = (0, 0, Vec::new());
    for ex in examples::all() {
        for line in wait_lines(ex.source) {
            let n = hazards(ex.name, &without(ex.source, line));
            match EXCUSED.iter().find(|(e, l, _)| *e == ex.name && *l == line) {
                Some((_, _, why)) => {
                    assert_eq!(n, 0, "{}:{line} is excused ({why}) but its deletion is flagged", ex.name)
                }
                None if n > 0 => flagged += 1,
                None => missed.push(format!("{}:{line}", ex.name)),
            }
            counted += usize::from(!EXCUSED.iter().any(|(e, l, _)| *e == ex.name && *l == line));
        }
    }
    eprintln!("static check: {flagged} of {counted} mutants flagged ({} excused); missed: {missed:?}", EXCUSED.len());
    assert!(counted >= 30, "the corpus holds the examples' waits ({counted})");
    assert!(flagged * 100 >= counted * 95, "{flagged} of {counted} flagged, below 95%; missed: {missed:?}");
    for (e, l, _) in EXCUSED {
        assert!(
            examples::by_name(e).is_some_and(|ex| wait_lines(ex.source).contains(l)),
            "excuse {e}:{l} names no wait"
        );
    }
}
