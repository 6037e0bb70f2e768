//! `.include` (issue 38): files come from the configured resolver (here a map, as a library user without a file
//! system would give), relative to the including file; cycles, depth, missing files and a missing resolver are
//! errors; an error in an included file names that file and the line that included it.

use lanejit_isa::asm::{assemble_module_with_config, assemble_with_config, AsmConfig, AsmLimits, MAX_INCLUDE_DEPTH};
use lanejit_isa::{assemble, AsmErrors};
use std::collections::HashMap;

fn files(list: &[(&str, &str)]) -> HashMap<String, String> {
    list.iter().map(|(n, t)| (n.to_string(), t.to_string())).collect()
}

fn with(files: &HashMap<String, String>, main: &str, src: &str) -> Result<Vec<u32>, AsmErrors> {
    let cfg = AsmConfig { includes: Some(files), ..AsmConfig::default() };
    assemble_with_config(main, src, &cfg).map(|(p, _)| p.words)
}

fn words(src: &str) -> Vec<u32> {
    assemble("t.s", src).unwrap().words
}

#[test]
fn included_files_share_constants_and_macros() {
    let fs = files(&[
        ("dir/lib.inc", ".equ ARG_X, 8\n.include \"sub/tap.inc\"\n"),
        ("dir/sub/tap.inc", ".macro tap r\n  v.add.i \\r, \\r, ARG_X\n.endm\n.include \"../more.inc\"\n"),
        ("dir/more.inc", "nop\n"),
    ]);
    let got = with(&fs, "dir/k.s", ".include \"lib.inc\"\ntap v3\nu.ld.b64 u6, u0, ARG_X\n").unwrap();
    assert_eq!(got, words("nop\nv.add.i v3, v3, 8\nu.ld.b64 u6, u0, 8\n"));
    // The same file twice in a row is no cycle.
    let got = with(&fs, "dir/k.s", ".include \"more.inc\"\n.include \"./more.inc\"\n").unwrap();
    assert_eq!(got, words("nop\nnop\n"));
    // A closure resolves too.
    let read = |path: &str, _max: usize| -> Result<String, String> {
        if path == "x.inc" {
            Ok("end\n".into())
        } else {
            Err(format!("no {path}"))
        }
    };
    let cfg = AsmConfig { includes: Some(&read), ..AsmConfig::default() };
    assert_eq!(assemble_with_config("k.s", ".include \"x.inc\"\n", &cfg).unwrap().0.words, words("end\n"));
}

#[test]
fn a_module_may_take_kernels_from_includes() {
    let fs = files(&[("b.s", ".kernel b\n  end\n")]);
    let cfg = AsmConfig { includes: Some(&fs), ..AsmConfig::default() };
    let ps = assemble_module_with_config("m.s", ".kernel a\n  end\n.include \"b.s\"\n", &cfg).unwrap();
    let names: Vec<&str> = ps.iter().map(|(p, _)| p.meta.name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    // The pc → line map of the included kernel names the `.include` line of the main file.
    assert_eq!(ps[1].1, [3]);
}

#[test]
fn errors_in_included_files_name_them() {
    let fs = files(&[("inc/a.inc", "nop\n  bogus\n")]);
    let e = with(&fs, "k.s", "nop\n.include \"inc/a.inc\"\n").unwrap_err();
    let x = &e.errors[0];
    assert_eq!((x.file.as_str(), x.line, x.col), ("inc/a.inc", 2, 3));
    assert_eq!(x.notes, ["included from k.s:2:1"]);
    assert_eq!(e.to_string(), "inc/a.inc:2:3: error: unknown mnemonic `bogus`\n  note: included from k.s:2:1");
}

#[test]
fn cycles_depth_and_missing_files_are_errors() {
    let fs = files(&[("a.s", ".include \"b.inc\"\n"), ("b.inc", "nop\n.include \"a.s\"\n")]);
    let e = with(&fs, "a.s", ".include \"b.inc\"\n").unwrap_err();
    assert_eq!(e.errors.len(), 1, "{e}");
    let x = &e.errors[0];
    assert_eq!((x.file.as_str(), x.line, x.col), ("b.inc", 2, 10));
    assert_eq!(x.message, "include cycle: a.s → b.inc → a.s");
    let e = with(&fs, "self.s", ".include \"self.s\"\n").unwrap_err();
    assert_eq!(e.errors[0].message, "include cycle: self.s → self.s");
    // A chain of distinct files deeper than the limit.
    let chain: HashMap<String, String> =
        (0..40).map(|i| (format!("f{i}.inc"), format!("nop\n.include \"f{}.inc\"\n", i + 1))).collect();
    let e = with(&chain, "k.s", ".include \"f0.inc\"\n").unwrap_err();
    assert_eq!(e.errors.len(), 1, "{e}");
    assert_eq!(e.errors[0].message, format!("`.include` nested more than {MAX_INCLUDE_DEPTH} deep"));
    let e = with(&fs, "k.s", "  .include \"none.inc\"\n").unwrap_err();
    let x = &e.errors[0];
    assert_eq!((x.line, x.col, x.message.as_str()), (1, 12, "cannot include `none.inc`: no file `none.inc`"));
    let e = with(&fs, "k.s", ".include none.inc\n").unwrap_err();
    assert_eq!(e.errors[0].message, "`.include` takes a quoted file name");
}

#[test]
fn without_a_resolver_include_is_refused() {
    let e = assemble("k.s", ".include \"lib.inc\"\n").unwrap_err();
    assert_eq!(
        e.errors[0].message,
        "cannot include `lib.inc`: this assembly reads no files (no AsmConfig::includes resolver)"
    );
}

#[test]
fn included_text_counts_against_the_limits() {
    let fs = files(&[("big.inc", &"nop\n".repeat(1000))]);
    let limits = AsmLimits { max_expanded_lines: 100_000, max_expanded_bytes: 1000 };
    let cfg = AsmConfig { includes: Some(&fs), limits };
    let e = assemble_with_config("k.s", ".include \"big.inc\"\n", &cfg).unwrap_err();
    assert_eq!(e.errors[0].message, "cannot include `big.inc`: `big.inc` is larger than the 1000 bytes left");
    let limits = AsmLimits { max_expanded_lines: 10, max_expanded_bytes: 1 << 20 };
    let cfg = AsmConfig { includes: Some(&fs), limits };
    let e = assemble_with_config("k.s", ".include \"big.inc\"\n", &cfg).unwrap_err();
    assert_eq!(e.errors.len(), 1, "{e}");
    assert_eq!(e.errors[0].message, "the expansion passes 10 lines (AsmLimits::max_expanded_lines)");
}
