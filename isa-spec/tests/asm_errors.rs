//! Assembler diagnostics: message text, line and column of each error, hints, several errors per file,
//! and no panic on any input. Seed group 5 mnemonics are used where a fixed instruction is needed; other
//! cases find a suitable instruction in the tables (first one with a pair, a half, a branch, …).

use lanejit_isa::{assemble, disassemble, AsmError, InsnInfo, KindClass, OperandInfo, INSNS};
use proptest::prelude::*;

/// The single error of `src`.
fn err(src: &str) -> AsmError {
    match assemble("t.s", src) {
        Ok(p) => panic!("`{src}` assembled: {p:?}"),
        Err(e) => {
            assert_eq!(e.errors.len(), 1, "expected one error for `{src}`, got:\n{e}");
            e.errors[0].clone()
        }
    }
}

fn check(src: &str, line: usize, col: usize, message: &str) -> AsmError {
    let e = err(src);
    assert_eq!((e.line, e.col, e.message.as_str()), (line, col, message), "for `{src}`");
    e
}

/// A legal text for an operand of this kind.
fn sample(op: &OperandInfo) -> String {
    let k = op.kind();
    match k.class {
        KindClass::VReg if k.pair => "v2:v3".into(),
        KindClass::VReg => "v1".into(),
        KindClass::UReg if k.pair => "u2:u3".into(),
        KindClass::UReg => "u1".into(),
        KindClass::VHalf => "v1.h".into(),
        KindClass::Enum => k.values[0].0.into(),
        KindClass::Flag => op.name.into(),
        KindClass::DMask => "r".into(),
        _ => "0".into(),
    }
}

fn positional(info: &InsnInfo) -> Vec<usize> {
    (0..info.operands.len()).filter(|&i| info.operands[i].kind().default.is_none()).collect()
}

/// A line for `info` with operand `over` replaced by `text`; returns the line and the 1-based column of
/// the replaced operand (or of the end of the line).
fn line_with(info: &InsnInfo, over: Option<(usize, &str)>, extra: &[&str]) -> (String, usize) {
    let mut s = info.mnemonic.to_string();
    let mut col = 0;
    for (n, i) in positional(info).into_iter().enumerate() {
        s += if n == 0 { " " } else { ", " };
        let t = match over {
            Some((j, t)) if j == i => {
                col = s.chars().count() + 1;
                t.to_string()
            }
            _ => sample(&info.operands[i]),
        };
        s += &t;
    }
    for e in extra {
        s += if positional(info).is_empty() && s == info.mnemonic { " " } else { ", " };
        if col == 0 {
            col = s.chars().count() + 1;
        }
        s += e;
    }
    (s, col)
}

fn find(what: &str, pred: impl Fn(&InsnInfo, usize, &OperandInfo) -> bool) -> Option<(&'static InsnInfo, usize)> {
    let hit =
        INSNS.iter().find_map(|i| i.operands.iter().enumerate().find(|(n, o)| pred(i, *n, o)).map(|(n, _)| (i, n)));
    if hit.is_none() {
        println!("skip: no instruction with {what} in the tables");
    }
    hit
}

#[test]
fn sample_lines_assemble() {
    for info in INSNS.iter() {
        let (l, _) = line_with(info, None, &[]);
        assemble("t.s", &l).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn unknown_mnemonic_with_hint() {
    let e = check("  shfl.upp v1, v2, v3", 1, 3, "unknown mnemonic `shfl.upp`");
    assert_eq!(e.hint.as_deref(), Some("did you mean `shfl.up`?"));
    assert_eq!(e.text, "shfl.upp");
    assert_eq!(e.to_string(), "t.s:1:3: error: unknown mnemonic `shfl.upp`\n  hint: did you mean `shfl.up`?");
    let e = check("frobnicate", 1, 1, "unknown mnemonic `frobnicate`");
    assert_eq!(e.hint, None);
}

#[test]
fn unknown_register() {
    let e = check("nop\n\nshfl.idx v1, v200, v3", 3, 14, "unknown register `v200` (registers are v0..v127)");
    assert_eq!(e.to_string(), "t.s:3:14: error: unknown register `v200` (registers are v0..v127)");
    check("shfl.idx v1, r3, v3", 1, 14, "unknown register `r3` (registers are v0..v127)");
    check("shfl.idx v1, foo, v3", 1, 14, "expected a vector register (v0..v127), found `foo`");
}

#[test]
fn register_out_of_range_and_wrong_file() {
    check("readlane u64, v1, 3", 1, 10, "unknown register `u64` (registers are u0..u63)");
    check("readlane v1, v1, 3", 1, 10, "expected a uniform register (u0..u63), found `v1`");
    check("writelane v1, v2, 3", 1, 15, "expected a uniform register (u0..u63), found `v2`");
    check("shfl.idx v128, v1, v3", 1, 10, "unknown register `v128` (registers are v0..v127)");
}

#[test]
fn wrong_operand_count() {
    let e = check("shfl.idx v1, v2", 1, 10, "wrong operand count: `shfl.idx` takes 3 operands (rd, rs1, rs2), found 2");
    assert_eq!(e.hint.as_deref(), Some("syntax: shfl.idx rd:v, rs1:v, rs2:v"));
    check("shfl.idx", 1, 1, "wrong operand count: `shfl.idx` takes 3 operands (rd, rs1, rs2), found 0");
    check("xred.add.u32 u1, v2, v3", 1, 22, "too many operands: `xred.add.u32` takes 2 operands (rd, rs1), found 3");
    check("shfl.idx v1,, v3", 1, 13, "missing operand (empty between commas)");
}

#[test]
fn bad_immediate() {
    let e = check("shfl.up.vi v3, v4, abc", 1, 20, "bad number `abc` for immediate `imm`");
    assert!(e.hint.is_some());
    check("shfl.up.vi v3, v4, 1.5", 1, 20, "`1.5` is not an integer (operand `imm` is signed 8-bit immediate)");
    check("shfl.up.vi v3, v4, 0x", 1, 20, "bad number `0x` for immediate `imm`");
    check("shfl.up.vi v3, v4, 99999999999999999999", 1, 20, "number `99999999999999999999` is too large");
}

#[test]
fn immediate_out_of_range() {
    check("shfl.up.vi v3, v4, 128", 1, 20, "immediate `128` out of range -128..=127 (imm:s8)");
    check("shfl.up.vi v3, v4, -129", 1, 20, "immediate `-129` out of range -128..=127 (imm:s8)");
    check("readlane u5, v6, 256", 1, 18, "immediate `256` out of range 0..=255 (imm:u8)");
    check("readlane u5, v6, -1", 1, 18, "immediate `-1` out of range 0..=255 (imm:u8)");
    check("writelane v1, u2, 0x80", 1, 19, "immediate `0x80` out of range 0..=127 (rs1:ln7)");
    // Hex and binary are accepted in range.
    assemble("t.s", "readlane u5, v6, 0xff\nreadlane u5, v6, 0b101\nshfl.up.vi v3, v4, -0x80").unwrap();
}

#[test]
fn labels_undefined_duplicate_bad() {
    check("a:\nnop\n a: nop", 3, 2, "duplicate label `a` (first defined at line 1)");
    check("1abc: nop", 1, 1, "bad label name `1abc`");
    let Some((b, n)) = find("a pc-relative operand", |_, _, o| o.kind().class == KindClass::PcRel) else { return };
    let (l, col) = line_with(b, Some((n, "lopp")), &[]);
    let e = check(&format!("loop:\n{l}"), 2, col, "undefined label `lopp`");
    assert_eq!(e.hint.as_deref(), Some("did you mean `loop`?"));
}

#[test]
fn branch_out_of_range() {
    // The pc-relative kind with the smallest range.
    let Some((b, n)) = INSNS
        .iter()
        .flat_map(|i| i.operands.iter().enumerate().map(move |(n, o)| (i, n, o)))
        .filter(|(_, _, o)| o.kind().class == KindClass::PcRel)
        .min_by_key(|(_, _, o)| o.kind().bits)
        .map(|(i, n, _)| (i, n))
    else {
        println!("skip: no pc-relative operand");
        return;
    };
    let k = b.operands[n].kind();
    let (lo, hi) = k.encoded_range();
    let (lo, hi) = (lo * 4, hi * 4);
    let name = b.operands[n].name;
    let (l, col) = line_with(b, Some((n, &(hi + 4).to_string())), &[]);
    check(&l, 1, col, &format!("branch offset `{}` out of range {lo}..={hi} ({name}:{})", hi + 4, k.name));
    let (l, col) = line_with(b, Some((n, "6")), &[]);
    check(&l, 1, col, &format!("branch offset `6` is not a multiple of 4 ({name}:{})", k.name));
    // A label just past the range: pad with words.
    let pad = (hi as usize + 4) / 4 - b.words as usize;
    let (l, col) = line_with(b, Some((n, "far")), &[]);
    let src = format!("{l}\n.word {}\nfar:", vec!["0"; pad].join(","));
    let off = hi + 4;
    check(
        &src,
        1,
        col,
        &format!("branch target `far` out of range: offset {off} not in {lo}..={hi} ({name}:{})", k.name),
    );
    let src = format!("{l}\n.word {}\nfar:", vec!["0"; pad - 1].join(","));
    assemble("t.s", &src).unwrap();
}

#[test]
fn odd_pair() {
    let Some((i, n)) = find("a register pair", |_, _, o| o.kind().pair) else { return };
    let k = i.operands[n].kind();
    let p = if k.class == KindClass::VReg { "v" } else { "u" };
    let (l, col) = line_with(i, Some((n, &format!("{p}5"))), &[]);
    let e = check(&l, 1, col, &format!("register pair must start at an even register, found `{p}5`"));
    assert_eq!(e.hint, Some(format!("use {p}4:{p}5 or {p}6:{p}7")));
    let (l, col) = line_with(i, Some((n, &format!("{p}5:{p}6"))), &[]);
    check(&l, 1, col, &format!("odd register pair `{p}5:{p}6`: a pair starts at an even register"));
    let (l, _) = line_with(i, Some((n, &format!("{p}4:{p}6"))), &[]);
    check(&l, 1, col + 3, &format!("register pair `{p}4:{p}6` is not consecutive"));
    let (l, _) = line_with(i, Some((n, &format!("{p}4"))), &[]);
    assemble("t.s", &l).unwrap();
}

#[test]
fn bad_half_selector() {
    let Some((i, n)) = find("a register half", |_, _, o| o.kind().class == KindClass::VHalf) else { return };
    let (l, col) = line_with(i, Some((n, "v3.x")), &[]);
    check(&l, 1, col, "bad half selector `.x` in `v3.x` (use .l or .h)");
    let (l, col) = line_with(i, Some((n, "v3")), &[]);
    check(&l, 1, col, "expected a register half like v3.l or v3.h, found `v3`");
}

#[test]
fn keywords_unknown_duplicate_bad_value() {
    let (l, col) = line_with(&INSNS[0], None, &["foo=1"]);
    let e = check(&l, 1, col, "unknown keyword `foo`");
    assert_eq!(e.hint, Some(format!("`{}` has no keyword operands", INSNS[0].mnemonic)));
    let Some((i, n)) =
        find("an enum keyword operand", |_, _, o| o.kind().class == KindClass::Enum && o.kind().default.is_some())
    else {
        return;
    };
    let op = &i.operands[n];
    let v = op.kind().values[0].0;
    let kw = format!("{}={v}", op.name);
    let (l, col) = line_with(i, None, &[&kw, &kw]);
    check(&l, 1, col + kw.len() + 2, &format!("duplicate keyword `{}`", op.name));
    let bad = format!("{}=zzz", op.name);
    let (l, col) = line_with(i, None, &[&bad]);
    let names: Vec<&str> = op.kind().values.iter().map(|(n, _)| *n).collect();
    let m = format!("unknown value `zzz` for `{}` (one of {})", op.name, names.join(", "));
    check(&l, 1, col + op.name.len() + 1, &m);
    // A bare value is accepted and means the same as name=value.
    let a = assemble("t.s", &line_with(i, None, &[v]).0).unwrap();
    let b = assemble("t.s", &line_with(i, None, &[&kw]).0).unwrap();
    assert_eq!(a.words, b.words);
    // A keyword in a positional slot: operands missing, or keywords written too early.
    if let Some(&last) = positional(i).last() {
        let (l, col) = line_with(i, Some((last, v)), &[]);
        let found = positional(i).len() - 1;
        let e = err(&l);
        assert!(e.message.starts_with("wrong operand count") && e.message.ends_with(&format!("found {found}")), "{e}");
        assert!(e.col < col);
        if positional(i).len() >= 2 {
            let first = positional(i)[0];
            let (l, col) = line_with(i, Some((first, &kw)), &[]);
            let m =
                format!("keyword `{kw}` before positional operand `{}`: keywords come last", i.operands[first].name);
            check(&l, 1, col, &m);
        }
    }
    let (l, col) = line_with(i, None, &["bogus"]);
    let e = check(&l, 1, col, "unknown keyword operand `bogus`");
    assert!(e.hint.is_some());
}

#[test]
fn source_modifiers() {
    check("shfl.idx v1, -v2, v3", 1, 14, "`shfl.idx` has no negation - source modifier");
    check("shfl.idx -v1, v2, v3", 1, 10, "operand `rd` of `shfl.idx` takes no source modifier");
    let Some((i, n)) = find("a negatable source", |i, _, o| {
        o.name == "rs1" && i.operands.iter().any(|m| m.kind().class == KindClass::SrcMod)
    }) else {
        return;
    };
    let base = sample(&i.operands[n]);
    let (l, col) = line_with(i, Some((n, &format!("|{base}"))), &[]);
    check(&l, 1, col, &format!("unmatched `|` in `|{base}`"));
    let (l, col) = line_with(i, Some((n, &format!("|-{base}|"))), &[]);
    check(&l, 1, col, &format!("write `-|x|` rather than `|-{base}|`"));
    let (l, _) = line_with(i, Some((n, &format!("-|{base}|"))), &[]);
    let p = assemble("t.s", &l).unwrap();
    assert!(disassemble(&p).contains(&format!("-|{base}|")));
}

#[test]
fn directives() {
    let e = check(".kernal foo", 1, 1, "unknown directive `.kernal`");
    assert_eq!(e.hint.as_deref(), Some("did you mean `.kernel`?"));
    check(".shared 12x", 1, 9, "bad number `12x` for shared memory size");
    check(".shared 65537", 1, 9, "shared memory of 65537 bytes exceeds 65536");
    check(".workgroup 64, 32", 1, 12, "workgroup 64x32x1 has 2048 threads, more than 1024");
    check(".workgroup 1, 0", 1, 15, "workgroup dimension must be at least 1");
    check(".workgroup", 1, 1, "`.workgroup` takes 1 to 3 values (X[, Y[, Z]]), found 0");
    check(".kernel a\n.kernel b", 2, 1, "duplicate `.kernel` directive (first at line 1)");
    check(".kernel \"abc", 1, 9, "unterminated string \"abc");
    check(".kernel a b", 1, 9, "bad kernel name `a b`");
    check(".word 0x100000000", 1, 7, "`.word` value `0x100000000` out of range -2147483648..=4294967295");
    check(".word 1e40", 1, 7, "float literal `1e40` is out of the f32 range");
    check(".args -4", 1, 7, "argument size `-4` out of range 0..=4294967295");
    let p = assemble("t.s", ".kernel \"k\\u{e9} \\\"q\\\"\" ; c\n.word -1, 2.5, 0b11 // c").unwrap();
    assert_eq!(p.meta.name, "ké \"q\"");
    assert_eq!(p.words, vec![u32::MAX, 2.5f32.to_bits(), 3]);
}

#[test]
fn several_errors_in_one_file() {
    let src = "shfl.idx v1, v2, v999\n  nop\nbogus v1\nreadlane u1, v2, 300\nx: .word zz\n";
    let e = assemble("many.s", src).unwrap_err();
    let at: Vec<(usize, usize)> = e.errors.iter().map(|e| (e.line, e.col)).collect();
    let nop_ok = INSNS.iter().any(|i| i.mnemonic == "nop");
    let mut want = vec![(1, 18), (3, 1), (4, 18), (5, 10)];
    if !nop_ok {
        want.insert(1, (2, 3));
    }
    assert_eq!(at, want, "{e}");
    assert_eq!(e.to_string().lines().filter(|l| l.starts_with("many.s:")).count(), want.len());
}

#[test]
fn empty_and_comment_only_inputs() {
    for src in ["", "\n\n", "; only a comment\n// another\n   \t\n", "lbl:\n"] {
        let p = assemble("t.s", src).unwrap();
        assert!(p.words.is_empty());
        assert_eq!(p.meta, lanejit_isa::KernelMeta::default());
    }
}

#[test]
fn columns_count_characters() {
    // `é` is two bytes, one column.
    check("; é\n\té: nop", 2, 2, "bad label name `é`");
    check("shfl.idx v1, v2, v3 ; é\r\nshfl.idx v1, v2, vé", 2, 18, "expected a vector register (v0..v127), found `vé`");
}

#[test]
fn garbage_does_not_panic() {
    let inputs = [
        "\0\u{1}\u{7f}\u{fffd}::,,||--==\"\\",
        "-|",
        "|",
        "||",
        "-",
        "v",
        "v:",
        ":",
        "a::",
        ".word",
        ".word ,",
        ".kernel \"\\u{110000}\"",
        ".kernel \"\\",
        "shfl.idx |v1|, -|v2|, --v3",
        "shfl.up.vi v1, v2, -",
        "shfl.up.vi v1, v2, +",
        "readlane u1, v1, 0b",
        "x: y: z:",
        "\u{feff}nop",
        &"a".repeat(10_000),
        &"v1, ".repeat(5000),
    ];
    for src in inputs {
        let _ = assemble("g.s", src);
    }
}

fn token() -> impl Strategy<Value = String> {
    let mnemonic = (0..INSNS.len()).prop_map(|i| INSNS[i].mnemonic.to_string());
    prop_oneof![
        3 => mnemonic,
        2 => (0..140u32).prop_map(|n| format!("v{n}")),
        2 => (0..70u32).prop_map(|n| format!("u{n}")),
        1 => (0..140u32, any::<bool>()).prop_map(|(n, h)| format!("v{n}.{}", if h { 'h' } else { 'l' })),
        1 => (0..140u32).prop_map(|n| format!("v{n}:v{}", n + 1)),
        2 => any::<i64>().prop_map(|n| n.to_string()),
        1 => any::<u32>().prop_map(|n| format!("{n:#x}")),
        1 => proptest::sample::select(vec![
            ",", ", ", ":", "\n", "-", "|", "=", ".kernel", ".word", ".workgroup", ".shared", ";", "//", "\"",
            "lbl:", "lbl", "rm=", "sat", "rtz", "shared", "1.5", "-0.0", "nan", "dmask=rgba", "neg=1",
        ]).prop_map(str::to_string),
        1 => "[ -~]{0,6}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10_000, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn arbitrary_strings_never_panic(s in any::<String>()) {
        let _ = assemble("fuzz.s", &s);
    }

    /// Token soup reaches deep into the operand parser; whatever assembles must also round-trip.
    #[test]
    fn token_soup_never_panics(toks in proptest::collection::vec(token(), 0..24), seps in proptest::collection::vec(0..4u8, 24)) {
        let mut s = String::new();
        for (t, sep) in toks.iter().zip(&seps) {
            s += t;
            s += [" ", ", ", "\n", ""][*sep as usize];
        }
        if let Ok(p) = assemble("soup.s", &s) {
            let text = disassemble(&p);
            let q = assemble("again.s", &text).unwrap_or_else(|e| panic!("{e}\n{text}"));
            prop_assert_eq!(q.words, p.words);
        }
    }
}
