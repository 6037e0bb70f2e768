//! The static check on large kernels (issue 39, item 4): indirect jumps reach their possible targets through one
//! shared node (an edge from each `jr` to each label made 20,000 of them take a minute and 3.2 GB), `wait`
//! notes are searched incrementally, and a deadline stops a check that would still take too long.

use lanejit::static_check::{
    check, check_limited, reg_name, render_text, CheckLimits, DeadlineExceeded, Finding, MAX_PRODUCERS,
};
use std::time::{Duration, Instant};

fn findings(src: &str) -> Vec<Finding> {
    let (p, lines) = lanejit_isa::assemble_with_lines("k.s", src).unwrap_or_else(|e| panic!("{e}"));
    check(&p, Some(lines.as_slice()))
}

/// `(kind, line, register, producer lines)` of every finding.
fn summary(f: &[Finding]) -> Vec<(&'static str, usize, String, Vec<usize>)> {
    f.iter()
        .map(|f| {
            let producers = f.producers.iter().map(|p| p.line.unwrap()).collect();
            (f.kind.name(), f.at.line.unwrap(), f.reg.map(reg_name).unwrap_or_default(), producers)
        })
        .collect()
}

#[test]
fn every_indirect_target_sees_every_indirect_jump() {
    // Two paths load u2 and jump through a register; the labelled targets may be reached from either.
    let src = "\
    b.nz u8, other
    u.ld.b64 u2, u0, 0
    jr u4, 0
other:
    u.ld.b64 u2, u0, 8
    jr u4, 0
use:
    u.add u5, u2, u2
    end
safe:
    wait sm=0
    u.add u5, u2, u2
    end
";
    let f = findings(src);
    assert_eq!(summary(&f), [("read_before_wait", 8, "u2".to_string(), vec![2, 5])], "{f:#?}");
}

#[test]
fn calls_through_registers_return_to_every_return_point() {
    // `jalr` may return (through `jr`) after any call; a load before one call is outstanding after the other.
    let src = "\
    jal u12, sub
    u.add u5, u2, u2
    end
sub:
    u.ld.b64 u2, u0, 0
    jr u12, 0
";
    let f = findings(src);
    assert_eq!(summary(&f), [("read_before_wait", 2, "u2".to_string(), vec![5])], "{f:#?}");
}

#[test]
fn twenty_thousand_indirect_jumps_among_as_many_labels_check_in_linear_time() {
    // The reproducer: 54 s and 3.2 GB with an edge from every `jr` to every label, 0.04 s through the
    // shared node. The guard only catches a return to quadratic time.
    let src: String = (0..20_000).map(|i| format!("L{i}: jr u0, 0\n")).collect::<String>() + "end\n";
    let start = Instant::now();
    assert!(findings(&src).is_empty());
    let took = start.elapsed();
    assert!(took < Duration::from_secs(15), "the check took {took:?}");
}

#[test]
fn notes_of_4000_waits_are_found_in_linear_time() {
    // Each `wait` here is needed but for one field: every note search tries a few values. A whole analysis per
    // value made 2,000 waits take 17 s; stepping the change to the next `wait` takes milliseconds.
    let src = "    u.ld.b64 u2, u0, 0\n    ld.b32 v1, v4, u6, 0\n    wait sm=0, vm=0\n    u.add u3, u2, u2\n";
    let src = src.repeat(4000) + "    v.add v2, v1, v1\n    end\n";
    let start = Instant::now();
    let f = findings(&src);
    let took = start.elapsed();
    assert_eq!(f.len(), 3999, "every vm=0 but the last could be vm=63");
    assert!(f.iter().all(|f| !f.kind.is_hazard() && f.field == Some((0, 63))));
    assert!(took < Duration::from_secs(15), "the check took {took:?}");
}

#[test]
fn a_hazard_names_its_lowest_producers_and_says_there_are_more() {
    // Each load reaches every return point through the indirect calls: a state held a pc per block (22 s and
    // 1.6 GB for 8,000 blocks). The sets keep the lowest pcs, so the states and the report stay linear.
    let block = "    u.ld.b64 u2, u0, 0\n    jalr u12, u10, 0\n    u.add u5, u3, u3\n";
    let start = Instant::now();
    let f = findings(&block.repeat(20_000));
    let took = start.elapsed();
    assert_eq!(f.len(), 20_000);
    assert!(f.iter().all(|f| f.producers.len() == MAX_PRODUCERS && f.more_producers));
    let lines: Vec<usize> = f[5].producers.iter().map(|p| p.line.unwrap()).collect();
    assert_eq!(lines, (0..MAX_PRODUCERS).map(|i| 3 * i + 1).collect::<Vec<_>>());
    assert!(render_text("k.s", "main", &f[..1]).contains("(line 46), and more\n"));
    assert!(took < Duration::from_secs(15), "the check took {took:?}");
    // As many producers as are kept: all named, none more.
    let f = findings(&block.repeat(MAX_PRODUCERS));
    assert!(f.iter().all(|f| f.producers.len() == MAX_PRODUCERS && !f.more_producers), "{f:#?}");
}

#[test]
fn a_deadline_stops_the_check() {
    let src: String =
        (0..200).map(|i| format!("L{i}:\n    u.ld.b64 u2, u0, 0\n    wait sm=0\n    jr u0, 0\n")).collect();
    let (p, lines) = lanejit_isa::assemble_with_lines("k.s", &src).unwrap();
    let limit = Duration::from_nanos(1);
    let r = check_limited(&p, Some(lines.as_slice()), CheckLimits { deadline: Some(limit) });
    let e = r.expect_err("1 ns is over before the analysis starts");
    assert_eq!(e, DeadlineExceeded { limit });
    assert_eq!(e.to_string(), "the static check passed its wall-clock deadline of 0.000000001 s");
    // A generous deadline, or none, gives the same findings.
    let limits = CheckLimits { deadline: Some(Duration::from_secs(600)) };
    assert_eq!(check_limited(&p, Some(lines.as_slice()), limits).unwrap(), check(&p, Some(lines.as_slice())));
}
