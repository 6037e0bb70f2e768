//! `.equ`, `.set`, `.reg` and constant expressions (issue 38): each source assembles to the very words of its
//! hand-written equivalent, and each misuse is an error at its line and column.

use lanejit_isa::{assemble, AsmError};

/// The words of `src`, which must assemble.
fn words(src: &str) -> Vec<u32> {
    assemble("t.s", src).unwrap_or_else(|e| panic!("{e}\n--\n{src}")).words
}

/// `src` assembles to the words of `plain`.
fn same(src: &str, plain: &str) {
    assert_eq!(words(src), words(plain), "\n{src}\n-- versus --\n{plain}");
}

/// The single error of `src`.
fn err(src: &str) -> AsmError {
    let e = assemble("t.s", src).expect_err(src);
    assert_eq!(e.errors.len(), 1, "expected one error for `{src}`, got:\n{e}");
    e.errors[0].clone()
}

fn check(src: &str, line: usize, col: usize, message: &str) -> AsmError {
    let e = err(src);
    assert_eq!((e.line, e.col, e.message.as_str()), (line, col, message), "for `{src}`");
    e
}

#[test]
fn constants_stand_wherever_an_immediate_or_offset_does() {
    same(
        ".equ ARG_X, 8\n.equ ARG_Y, ARG_X + 8\nu.ld.b64 u6, u0, ARG_X\nu.ld.b64 u8, u0, ARG_Y\nv.add.i v1, v1, -ARG_X\n",
        "u.ld.b64 u6, u0, 8\nu.ld.b64 u8, u0, 16\nv.add.i v1, v1, -8\n",
    );
    // Metadata directives and `.word` take expressions too.
    let src =
        ".equ SIDE, 16\n.workgroup SIDE, SIDE / 2\n.args 4 * 8\n.shared SIDE * SIDE * 4\n.word SIDE << 4, ~0, -SIDE\n";
    let p = assemble("t.s", src).unwrap();
    assert_eq!(p.meta.workgroup, [16, 8, 1]);
    assert_eq!((p.meta.arg_bytes, p.meta.shared_bytes), (32, 1024));
    assert_eq!(p.words, [256, u32::MAX, (-16i32) as u32]);
    // A 32-bit literal operand takes an expression whose text holds an `e` (not a float).
    same(".equ SIZE, 3\nv.mov.k v5, 2*SIZE\n", "v.mov.k v5, 6\n");
    same("v.mov.k v5, 1.5\n", &format!("v.mov.k v5, {:#x}\n", 1.5f32.to_bits()));
}

#[test]
fn expressions_follow_c_precedence() {
    for (expr, want) in [
        ("1 + 2 * 3", 7),
        ("(1 + 2) * 3", 9),
        ("1 << 2 + 1", 8),
        ("0x40 | 3 & 1", 0x41),
        ("7 % 4 ^ 1", 2),
        ("-(2 - 5)", 3),
        ("~-1", 0),
        ("-17 / 4", -4),
        ("-17 % 4", -1),
        ("-16 >> 2", -4),
        ("3 > 2 && 2 >= 2", 1),
        ("1 == 2 || 0 != 0", 0),
        ("!5", 0),
    ] {
        same(&format!("v.add.i v1, v1, {expr}\n"), &format!("v.add.i v1, v1, {want}\n"));
    }
}

#[test]
fn set_may_change_a_value_and_each_line_sees_its_own() {
    same(
        ".set i, 1\nv.add.i v1, v1, i\n.set i, i * 2\nv.add.i v1, v1, i\n.set i, i * 2\nv.add.i v1, v1, i\n",
        "v.add.i v1, v1, 1\nv.add.i v1, v1, 2\nv.add.i v1, v1, 4\n",
    );
}

#[test]
fn register_aliases_name_registers_pairs_and_halves() {
    same(
        ".reg acc, v12\n.reg base, u6:u7\n.reg lo, v3.l\nv.add acc, acc, v1\nu.ld.b64 u8, base, 0\nf.add.f32 acc, -acc, v1\nh.add.f16 lo, acc.h, -|lo|\n",
        "v.add v12, v12, v1\nu.ld.b64 u8, u6, 0\nf.add.f32 v12, -v12, v1\nh.add.f16 v3.l, v12.h, -|v3.l|\n",
    );
    // An alias of an alias, and an alias pointed elsewhere.
    same(".reg a, v1\n.reg b, a\n.reg a, v2\nv.add a, b, a\n", "v.add v2, v1, v2\n");
    // A pair alias where a pair operand is due; a pair written with aliases.
    same(".reg p, u6\n.reg q, u7\nu.ld.b64 u8, p:q, 0\n", "u.ld.b64 u8, u6:u7, 0\n");
    let e = check(".reg acc, u3\nv.add acc, v1, v2\n", 2, 7, "expected a vector register (v0..v127), found `u3`");
    assert_eq!(e.hint.as_deref(), Some("`acc` is an alias of `u3` (`.reg`)"));
    check(".reg acc, v200\n", 1, 11, "unknown register `v200` (registers are v0..v127)");
    check(".reg acc, v5:v6\n", 1, 11, "`v5:v6` is not a register pair (an even register and the next: v4:v5)");
    check(".reg v3, v4\n", 1, 6, "`v3` is a register name and cannot be redefined");
    check(
        ".equ N, 1\n.reg N, v4\n",
        2,
        6,
        "`N` is already defined (by `.equ` at t.s:1); only `.set` may set a `.set` name again",
    );
    check(".reg acc, v1\nv.add.i v1, v1, acc\n", 2, 17, "`acc` is a register alias, not a number");
    check(".equ N, 3\n.reg r, N\n", 2, 9, "`N` is a constant, not a register");
}

#[test]
fn names_undefined_or_defined_twice() {
    check(".equ A, B + 1\n", 1, 9, "undefined constant `B`");
    check("v.add.i v1, v1, COUNT * 2\n", 1, 17, "undefined constant `COUNT`");
    // A single unknown word keeps the message of a bad number, with a hint about constants.
    let e = check("v.add.i v1, v1, COUNT\n", 1, 17, "bad number `COUNT` for immediate `imm`");
    assert!(e.hint.unwrap().contains("no constant `COUNT` is defined"));
    check(
        ".equ A, 1\n.equ A, 2\n",
        2,
        6,
        "`A` is already defined (by `.equ` at t.s:1); only `.set` may set a `.set` name again",
    );
    check(
        ".set A, 1\n.equ A, 2\n",
        2,
        6,
        "`A` is already defined (by `.set` at t.s:1); only `.set` may set a `.set` name again",
    );
    check(
        ".equ A, 1\n.set A, 2\n",
        2,
        6,
        "`A` is already defined (by `.equ` at t.s:1); only `.set` may set a `.set` name again",
    );
    check(".equ 9A, 1\n", 1, 6, "bad name `9A`: a letter or `_`, then letters, digits, `_` or `.`");
    check(".equ A\n", 1, 6, "`.equ` takes a name and a value (`.equ NAME, …`), found 1 operands");
    check(".equ X, 4\nX: nop\n", 2, 1, "label `X` has the name of a constant or register alias");
}

#[test]
fn values_are_checked_after_evaluation() {
    check(".equ BIG, 100\nv.add.i v1, v1, BIG + 28\n", 2, 17, "immediate `BIG + 28` out of range -128..=127 (imm:s8)");
    check("readlane u5, v6, 200 + 56\n", 1, 18, "immediate `200 + 56` out of range 0..=255 (imm:u8)");
    check(".equ W, 64\n.workgroup W, W\n", 2, 12, "workgroup 64x64x1 has 4096 threads, more than 1024");
    check(".word 1 << 32\n", 1, 7, "`.word` value `1 << 32` out of range -2147483648..=4294967295");
    check(".args 2048 * 4\n", 1, 7, "argument block of 8192 bytes exceeds the limit of 4096 (MAX_ARG_BYTES)");
}

#[test]
fn arithmetic_failures_are_errors() {
    check(".equ Z, 0\nv.add.i v1, v1, 4 / Z\n", 2, 19, "division by zero: 4 / 0");
    check(".equ A, 5 % (2 - 2)\n", 1, 11, "division by zero: 5 % 0");
    check(".equ A, 0x7fffffffffffffff + 1\n", 1, 28, "overflow: 9223372036854775807 + 1 does not fit 64 bits");
    check(".equ A, 1 << 63\n", 1, 11, "overflow: 1 << 63 does not fit 64 bits");
    check(".equ A, -1 << 63 << 1\n", 1, 18, "overflow: -9223372036854775808 << 1 does not fit 64 bits");
    check(".equ A, 3 * 0x4000000000000000\n", 1, 11, "overflow: 3 * 4611686018427387904 does not fit 64 bits");
    check(".equ A, 1 << 64\n", 1, 11, "shift by 64 out of range 0..=63");
    check(".equ A, (1 + 2\n", 1, 9, "unclosed `(`");
    check(".equ A, 1 + 12x\n", 1, 13, "bad number `12x`");
    check(".equ A, 99999999999999999999 + 1\n", 1, 9, "number `99999999999999999999` is too large");
    let deep = format!(".equ A, {}1{}\n", "(".repeat(10_000), ")".repeat(10_000));
    assert!(err(&deep).message.contains("nested more than"));
}

#[test]
fn constants_in_branch_offsets_and_labels_beside_them() {
    // A constant is a byte offset; any other name is a label.
    same(".equ SKIP, 8\nj SKIP\nnop\nnop\n", "j 8\nnop\nnop\n");
    same("j next\nnop\nnext: nop\n", "j 8\nnop\nnop\n");
    same("j 4 + 4\nnop\nnop\n", "j 8\nnop\nnop\n");
}
