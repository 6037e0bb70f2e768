//! Hostile input for the preprocessor (issue 38): no source panics, overflows the stack or expands without
//! bound. Token soup over the new directives, and the amplifiers one would try first.

use lanejit_isa::asm::{assemble_module_with_config, AsmConfig, AsmLimits};
use lanejit_isa::{assemble, disassemble};
use proptest::prelude::*;
use std::collections::HashMap;

fn token() -> impl Strategy<Value = String> {
    let words = vec![
        ".equ",
        ".set",
        ".reg",
        ".macro",
        ".endm",
        ".exitm",
        ".rept",
        ".irp",
        ".endr",
        ".if",
        ".ifdef",
        ".ifndef",
        ".elseif",
        ".else",
        ".endif",
        ".include",
        ".error",
        ".kernel",
        ".word",
        "m",
        "n",
        "A",
        "\\a",
        "\\n",
        "\\@",
        "\\()",
        "a",
        "b=",
        "n=2",
        ":vararg",
        ":req",
        "1:",
        "1b",
        "1f",
        "2",
        "-1",
        "0x7fffffffffffffff",
        "<<",
        ">>",
        "(",
        ")",
        "/",
        "%",
        "*",
        "+",
        "-",
        "~",
        "!",
        "==",
        "&&",
        "\"a.inc\"",
        "\"m.s\"",
        "v1",
        "u2:u3",
        "v3.l",
        "nop",
        "end",
        "j",
        "v.add.i",
        "v.add",
        "u.ld.b64",
        "lbl:",
        "lbl",
        ",",
        ", ",
        "\n",
        " ",
        ";",
    ];
    prop_oneof![
        8 => proptest::sample::select(words).prop_map(str::to_string),
        1 => (0..300i64).prop_map(|n| n.to_string()),
        1 => "[ -~]{0,4}",
    ]
}

fn config(files: &HashMap<String, String>) -> AsmConfig<'_> {
    AsmConfig { includes: Some(files), limits: AsmLimits { max_expanded_lines: 5_000, max_expanded_bytes: 200_000 } }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3_000, failure_persistence: None, ..ProptestConfig::default() })]
    /// Whatever assembles round-trips; nothing panics.
    #[test]
    fn directive_soup_never_panics(toks in proptest::collection::vec(token(), 0..40), inc in proptest::collection::vec(token(), 0..12)) {
        let src: String = toks.concat();
        let files: HashMap<String, String> = [("a.inc".to_string(), inc.concat()), ("m.s".to_string(), src.clone())].into();
        if let Ok(ps) = assemble_module_with_config("m.s", &src, &config(&files)) {
            for (p, lines) in &ps {
                prop_assert_eq!(lines.len(), p.words.len());
                let text = disassemble(p);
                let back = assemble("d.s", &text).unwrap_or_else(|e| panic!("{e}\n{text}"));
                prop_assert_eq!(&back.words, &p.words);
            }
        }
    }
}

#[test]
fn amplifiers_are_refused_quickly() {
    let start = std::time::Instant::now();
    let cases = [
        // Nested repetitions: refused before expanding.
        ".rept 100000\n.rept 100000\n.rept 100000\nnop\n.endr\n.endr\n.endr\n".to_string(),
        // A repetition of an empty body, and of a comment.
        ".rept 0x7fffffffffffffff\n.endr\n".to_string(),
        ".rept 0x7fffffffffffffff\n; c\n.endr\n".to_string(),
        // Exponential macros: stopped by a limit.
        ".macro x\n x\n x\n.endm\nx\n".to_string(),
        ".macro d n\n.if \\n\n d \\n-1\n d \\n-1\n.endif\n.endm\nd 60\n".to_string(),
        // A long argument substituted many times on one line.
        format!(".macro w a\n{}\n.endm\n.rept 1000\nw {}\n.endr\n", "\\a ".repeat(2000), "x".repeat(5000)),
        // Deep parentheses, deep conditionals, many irp items.
        format!(".equ A, {}1{}\n", "(".repeat(100_000), ")".repeat(100_000)),
        format!("{}{}", ".if 1\n".repeat(50_000), ".endif\n".repeat(50_000)),
        format!(".irp r{}\nnop\n.endr\n", ", v1".repeat(20_000)),
    ];
    // Which of them assemble: an empty body repeats nothing, deep `.if`s and many `.irp` items are fine.
    let assembles = [false, true, false, false, false, false, false, true, true];
    for (src, ok) in cases.iter().zip(assembles) {
        let r = assemble("h.s", src);
        assert_eq!(r.is_ok(), ok, "{}: {:?}", &src[..src.len().min(80)], r.err().map(|e| e.to_string()));
    }
    // Generous: the whole list takes well under a second in release builds.
    assert!(start.elapsed().as_secs() < 30, "{:?}", start.elapsed());
}

#[test]
fn a_string_argument_with_commas_and_semicolons_is_kept_whole() {
    let p = assemble("t.s", ".macro k name\n.kernel \\name\n.endm\nk \"a;b\"\nend\n").unwrap();
    assert_eq!(p.meta.name, "a;b");
}
