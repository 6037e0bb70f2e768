//! The assembler's error list is bounded (issue 39, item 5): the first 100 errors by line and then how many more,
//! each error's file name, message and hint clipped, so that no source makes a message of gigabytes (10,000 bad
//! lines under a 100 KB file name made 1 GB). Only `Display` and the public functions are used, so that this
//! file also builds (and fails) against an assembler without the bounds.

use lanejit_isa::{assemble, assemble_module, INSNS};

// The documented bounds, written out (see above).
const MAX_REPORTED_ERRORS: usize = 100;
const MAX_FILE_NAME_CHARS: usize = 200;
const MAX_MESSAGE_CHARS: usize = 400;

fn errors(file: &str, src: &str) -> String {
    match assemble(file, src) {
        Ok(_) => panic!("the source assembled"),
        Err(e) => e.to_string(),
    }
}

/// The lines of a report that start an error (`file:line:col: error: ...`), without hints and the summary.
fn error_lines<'a>(report: &'a str, file: &str) -> Vec<&'a str> {
    report.lines().filter(|l| l.starts_with(file) && l.contains(": error: ")).collect()
}

#[test]
fn ten_thousand_bad_lines_under_a_100_kb_file_name_make_a_short_report() {
    let name = format!("{}/k.s", "d".repeat(100 * 1024));
    let report = errors(&name, &"bogus\n".repeat(10_000));
    // 100 errors of at most a clipped name, a clipped message and a clipped hint each.
    let bound = MAX_REPORTED_ERRORS * (MAX_FILE_NAME_CHARS + 2 * MAX_MESSAGE_CHARS + 64) * 3;
    assert!(report.len() < bound, "a report of {} bytes", report.len());
    assert!(report.ends_with("\nand 9900 more errors"), "{}", &report[report.len().saturating_sub(200)..]);
    let shown: String = name.chars().take(20).collect();
    assert_eq!(report.lines().filter(|l| l.starts_with(&shown)).count(), MAX_REPORTED_ERRORS);
    // The name keeps its start and its end, so the file is still recognisable.
    let first = report.lines().next().unwrap();
    assert!(first.starts_with("ddd") && first.contains("…") && first.contains("d/k.s:1:1: error: unknown mnemonic"));
}

#[test]
fn the_first_errors_by_line_are_kept_whatever_pass_found_them() {
    // Undefined labels are found by the second pass, after every bad mnemonic of the first; the report still
    // shows the first 100 errors of the file in line order.
    let mut src = String::new();
    for i in 0..150 {
        src += &format!("    j nowhere{i}\n");
    }
    src += &"bogus\n".repeat(150);
    let report = errors("k.s", &src);
    let lines = error_lines(&report, "k.s:");
    assert_eq!(lines.len(), MAX_REPORTED_ERRORS);
    assert!(lines.iter().enumerate().all(|(i, l)| l.starts_with(&format!("k.s:{}:", i + 1))), "{report}");
    assert!(lines.iter().all(|l| l.contains("undefined label")), "{report}");
    assert!(report.ends_with("\nand 200 more errors"), "{report}");
}

#[test]
fn a_module_reports_its_first_errors_across_kernels() {
    let src: String = (0..30).map(|k| format!(".kernel k{k}\n{}", "bogus\n".repeat(10))).collect();
    let report = assemble_module("m.s", &src).unwrap_err().to_string();
    let lines = error_lines(&report, "m.s:");
    assert_eq!(lines.len(), MAX_REPORTED_ERRORS);
    assert!(lines[0].starts_with("m.s:2:1:") && lines[99].starts_with("m.s:110:1:"), "{report}");
    assert!(report.ends_with("\nand 200 more errors"), "{report}");
}

#[test]
fn a_600_kb_line_of_bad_labels_is_reported_briefly() {
    // `-:` rather than `1:`, which is a numeric local label since issue 38.
    let report = errors("k.s", &"-: ".repeat(200_000));
    assert!(report.len() < 20_000, "a report of {} bytes", report.len());
    assert!(report.starts_with("k.s:1:1: error: bad label name `-`\n"), "{}", &report[..200]);
    assert!(report.contains("\nk.s:1:298: error") && report.ends_with("\nand 199900 more errors"));
}

#[test]
fn a_message_quoting_long_text_is_clipped() {
    // A bad number of many words: each token is short, the whole is not.
    let report = errors("k.s", &format!(".args {}\n", "1 ".repeat(50_000)));
    assert_eq!(error_lines(&report, "k.s:").len(), 1);
    assert!(report.len() < 2 * MAX_MESSAGE_CHARS + 100, "a report of {} bytes", report.len());
}

#[test]
fn no_instruction_syntax_hint_is_clipped() {
    // The clip is for hostile text: every message and hint the tables make stays whole.
    let (mut hints, mut longest) = (0, 0);
    for info in INSNS.iter() {
        // Too few operands, then too many: the messages that list every operand and keyword.
        for ops in ["", " v0, v0, v0, v0, v0, v0, v0, v0, v0, v0, v0, v0"] {
            let Err(e) = assemble("k.s", &format!("{}{ops}\n", info.mnemonic)) else { continue };
            let report = e.to_string();
            hints += report.matches("hint: syntax:").count();
            for line in report.lines() {
                assert!(!line.contains('…'), "{}: `{line}` is clipped", info.mnemonic);
                longest = longest.max(line.chars().count());
            }
        }
    }
    assert!(hints > INSNS.len(), "only {hints} syntax hints were tried");
    assert!(longest < MAX_MESSAGE_CHARS, "a line of {longest} characters");
}
