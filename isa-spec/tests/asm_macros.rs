//! Macros, repetitions, conditionals and numeric local labels (issue 38): each source assembles to the words of
//! its hand expansion, each misuse is an error at its line and column, and an error inside an expansion names
//! the body's line and the line that expanded it.

use lanejit_isa::{assemble, assemble_with_lines, disassemble, AsmError, AsmErrors};

fn words(src: &str) -> Vec<u32> {
    assemble("t.s", src).unwrap_or_else(|e| panic!("{e}\n--\n{src}")).words
}

fn same(src: &str, plain: &str) {
    assert_eq!(words(src), words(plain), "\n{src}\n-- versus --\n{plain}");
}

fn errors(src: &str) -> AsmErrors {
    assemble("t.s", src).expect_err(src)
}

fn err(src: &str) -> AsmError {
    let e = errors(src);
    assert_eq!(e.errors.len(), 1, "expected one error for `{src}`, got:\n{e}");
    e.errors[0].clone()
}

fn check(src: &str, line: usize, col: usize, message: &str) -> AsmError {
    let e = err(src);
    assert_eq!((e.line, e.col, e.message.as_str()), (line, col, message), "for `{src}`\n{e}");
    e
}

const TAP: &str = ".macro tap dst, src=v1, n=4\n  v.add.i \\dst, \\src, \\n\n.endm\n";

#[test]
fn macro_arguments_positional_named_and_defaulted() {
    same(
        &format!("{TAP}tap v2\ntap v3, v4\ntap v5, n=8\ntap n=-1, dst=v6\ntap v7,,9\n"),
        "v.add.i v2, v1, 4\nv.add.i v3, v4, 4\nv.add.i v5, v1, 8\nv.add.i v6, v1, -1\nv.add.i v7, v1, 9\n",
    );
    // `\()` separates a parameter from the text after it; `:vararg` takes the rest, keywords included.
    same(
        ".macro op kind, rest:vararg\n  f.\\kind\\().f32 \\rest\n.endm\nop add, v1, v2, v3, rm=rtz\n",
        "f.add.f32 v1, v2, v3, rm=rtz\n",
    );
    // A macro may call another, and labels before a call stay where they are.
    same(
        &format!("{TAP}.macro twice r\n  tap \\r\n  tap \\r, n=1\n.endm\nhere: twice v9\nj here\n"),
        "here: v.add.i v9, v1, 4\nv.add.i v9, v1, 1\nj here\n",
    );
}

#[test]
fn macro_call_errors() {
    check(&format!("{TAP}tap v2, v3, 4, 5\n"), 4, 16, "too many arguments: macro `tap` takes 3 (dst, src=v1, n=4)");
    check(&format!("{TAP}tap v2, k=1\n"), 4, 9, "macro `tap` has no parameter `k` (dst, src=v1, n=4)");
    check(&format!("{TAP}tap\n"), 4, 1, "macro `tap` needs an argument for `dst` (dst, src=v1, n=4)");
    check(&format!("{TAP}tap v1, dst=v2\n"), 4, 9, "argument `dst` of macro `tap` given twice");
    check(&format!("{TAP}{TAP}"), 4, 1, "macro `tap` is already defined");
    check(".macro nop\n.endm\n", 1, 8, "macro `nop` would hide the instruction of that name");
    check(".macro m a, a\n.endm\n", 1, 13, "parameter `a` given twice");
    check(".macro m\n nop\n", 1, 1, "`.macro` without `.endm`");
    check(".endm\n", 1, 1, "`.endm` without `.macro`");
    check(".macro m\n j \\x\n.endm\nm\n", 2, 4, "unknown macro parameter or `.irp` symbol `\\x`");
}

#[test]
fn an_error_in_a_macro_names_the_body_line_and_the_call() {
    let src = format!("{TAP}nop\n  tap v2, n=500\n");
    let e = check(&src, 2, 19, "immediate `500` out of range -128..=127 (imm:s8)");
    assert_eq!(e.notes, ["in macro `tap` called at t.s:5:3"]);
    assert_eq!(
        e.to_string(),
        "t.s:2:19: error: immediate `500` out of range -128..=127 (imm:s8)\n  note: in macro `tap` called at t.s:5:3"
    );
    // Through two macros and a repetition, innermost first.
    let src = format!("{TAP}.macro outer\n  .rept 2\n    tap v2, n=500\n  .endr\n.endm\nouter\n");
    let e = errors(&src);
    assert_eq!(e.errors.len(), 2, "{e}");
    assert_eq!(
        e.errors[1].notes,
        [
            "in macro `tap` called at t.s:6:5",
            "in repetition 2 of `.rept` at t.s:5:3",
            "in macro `outer` called at t.s:9:1"
        ]
    );
    // The pc → line map names the main file's line of the call.
    let (_, lines) = assemble_with_lines("t.s", &format!("{TAP}nop\ntap v2\n")).unwrap();
    assert_eq!(lines, [4, 5]);
}

#[test]
fn unique_labels_per_expansion() {
    let src = ".macro skip\n  j.execz over\\@\n  nop\nover\\@:\n.endm\nskip\nskip\n";
    same(src, "j.execz over0\nnop\nover0:\nj.execz over1\nnop\nover1:\n");
    check(".macro m\nl: nop\n.endm\nm\nm\n", 2, 1, "duplicate label `l` (first defined at line 2)");
    check("nop\nj l\\@\n", 2, 4, "`\\@` outside a macro");
    let e = check(".rept 1\nj l\\@\n.endr\n", 2, 4, "`\\@` outside a macro");
    assert_eq!(e.notes, ["in repetition 1 of `.rept` at t.s:1:1"]);
}

#[test]
fn recursion_stops_at_the_depth_limit() {
    let e = check(
        ".macro r\n  nop\n  r\n  r\n.endm\nr\n",
        3,
        3,
        "macro `r` nested more than 100 deep (a recursion without end?)",
    );
    assert!(e.notes.len() <= 9 && e.notes.last().unwrap().contains("outer expansions"), "{:?}", e.notes);
    // A recursion that ends (through `.if` or `.exitm`) is fine.
    let src = ".macro down n\n  .if \\n\n    v.add.i v1, v1, \\n\n    down \\n - 1\n  .endif\n.endm\ndown 3\n";
    same(src, "v.add.i v1, v1, 3\nv.add.i v1, v1, 3 - 1\nv.add.i v1, v1, 3 - 1 - 1\n");
    let src = ".macro down n\n  .if \\n == 0\n    .exitm\n  .endif\n  nop\n  down \\n - 1\n.endm\ndown 2\n";
    same(src, "nop\nnop\n");
    check(".exitm\n", 1, 1, "`.exitm` outside a macro");
}

#[test]
fn rept_and_irp_repeat_their_bodies() {
    same(".rept 3\n  nop\n.endr\n", "nop\nnop\nnop\n");
    same(".rept 0\n  bogus\n.endr\n", "");
    same(
        ".set i, 0\n.rept 3\n  v.add.i v1, v1, i\n  .set i, i + 1\n.endr\n",
        "v.add.i v1, v1, 0\nv.add.i v1, v1, 1\nv.add.i v1, v1, 2\n",
    );
    same(".irp r, v1, v2, v3\n  v.add \\r, \\r, v0\n.endr\n", "v.add v1, v1, v0\nv.add v2, v2, v0\nv.add v3, v3, v0\n");
    // Nested: the outer symbol is substituted in the inner body.
    same(
        ".irp dy, -1, 1\n.irp dx, -1, 1\n  v.mov.k v5, ((\\dy & 0x3f) << 8) | (\\dx & 0x3f)\n.endr\n.endr\n",
        "v.mov.k v5, 0x3f3f\nv.mov.k v5, 0x3f01\nv.mov.k v5, 0x13f\nv.mov.k v5, 0x101\n",
    );
    check(".rept -1\nnop\n.endr\n", 1, 7, "`.rept` count -1 is negative");
    check(".rept 2\nnop\n", 1, 1, "repetition without `.endr`");
    check(".endr\n", 1, 1, "`.endr` without `.rept` or `.irp`");
    check(".irp\n.endr\n", 1, 1, "`.irp` needs a symbol name (`.irp r, v1, v2`)");
}

#[test]
fn rept_past_the_limits_is_refused_before_expanding() {
    // 2^30 lines: refused at once (expanding would take minutes and gigabytes).
    let e = check(
        ".rept 1 << 30\n  nop\n.endr\n",
        1,
        1,
        "`.rept` would expand to 1073741824 lines, more than the 1048576 left (AsmLimits::max_expanded_lines)",
    );
    assert!(e.notes.is_empty());
    // Nested repetitions multiply: refused before the outer one starts.
    check(
        ".rept 4096\n.rept 4096\n  nop\n.endr\n.endr\n",
        1,
        1,
        "`.rept` would expand to 16785408 lines, more than the 1048576 left (AsmLimits::max_expanded_lines)",
    );
    // More than the code limit.
    let n = lanejit_isa::asm::MAX_CODE_WORDS + 1;
    assert!(err(&format!(".rept {n}\nnop\n.endr\n")).message.contains("would expand to"));
    // A macro that doubles at each level is stopped by a limit, with one error.
    let src = ".macro d n\n.if \\n\n d \\n-1\n d \\n-1\n.endif\n.endm\nd 40\n";
    let e = err(src);
    assert!(e.message.starts_with("the expansion passes "), "{e}");
    assert!(
        e.message.ends_with("(AsmLimits::max_expanded_lines)")
            || e.message.ends_with("(AsmLimits::max_expanded_bytes)")
    );
}

#[test]
fn conditionals() {
    let src = ".equ N, 2\n.if N == 1\n  bogus\n.elseif N == 2\n  nop\n.else\n  bogus\n.endif\n";
    same(src, "nop\n");
    same(".if 0\n.if 1\nbogus\n.else\nbogus\n.endif\n.else\nend\n.endif\n", "end\n");
    same(".ifdef N\nbogus\n.endif\n.equ N, 1\n.ifdef N\nnop\n.endif\n.ifndef N\nbogus\n.endif\n", "nop\n");
    same(".macro m\n.endm\n.ifdef m\nnop\n.endif\n", "nop\n");
    // Names in a branch not taken are not evaluated.
    same(".if 1\nnop\n.elseif UNDEFINED / 0\n.endif\n", "nop\n");
    check(".if 1\nnop\n", 1, 1, "`.if` without `.endif`");
    check(".endif\n", 1, 1, "`.endif` without `.if`");
    check(".else\n", 1, 1, "`.else` without `.if`");
    check(".if 1\n.else\n.else\n.endif\n", 3, 1, "`.else` after `.else`");
    check(".if 1\n.else\n.elseif 1\n.endif\n", 3, 1, "`.elseif` after `.else`");
    check(".if X\n.endif\n", 1, 5, "undefined constant `X`");
    check(".if 1 / 0\n.endif\n", 1, 7, "division by zero: 1 / 0");
    check(".ifdef\n.endif\n", 1, 1, "`.ifdef` takes one name");
    check(".if 1\n.error \"unsupported width\"\n.endif\n", 2, 1, "unsupported width");
}

#[test]
fn numeric_local_labels() {
    same("1: nop\nj 1b\nj 1f\n1: nop\nj 1b\n", "a: nop\nj a\nj b\nb: nop\nj b\n");
    // A label on the same line as the branch is "before" it.
    same("2: j 2b\n", "x: j x\n");
    same(
        ".macro spin\n1: j.execz 1f\n  j 1b\n1:\n.endm\nspin\nspin\n",
        "a: j.execz b\nj a\nb: c: j.execz d\nj c\nd:\n",
    );
    check("j 1b\n", 1, 3, "no local label `1:` before `1b`");
    check("1: j 1f\n", 1, 6, "no local label `1:` after `1f`");
}

#[test]
fn expanded_programs_round_trip_through_the_disassembler() {
    let src = format!(
        "{TAP}.equ ARG, 16\n.kernel k\n.args ARG + 8\n1: tap v2\n.rept 2\n j.execz 1f\n.endr\n1: u.ld.b64 u6, u0, ARG\n j 1b\nend\n"
    );
    let p = assemble("t.s", &src).unwrap();
    let text = disassemble(&p);
    let back = assemble("d.s", &text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!((back.words, back.meta), (p.words, p.meta));
}

#[test]
fn unknown_directives_suggest_the_new_ones() {
    let e = check(".equs A, 1\n", 1, 1, "unknown directive `.equs`");
    assert_eq!(e.hint.as_deref(), Some("did you mean `.equ`?"));
}
