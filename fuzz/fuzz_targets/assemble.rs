//! Assembler: arbitrary UTF-8 text assembles or fails with errors; what assembles round-trips through the
//! disassembler. The text is assembled twice: alone (as before the preprocessor existed), and as a module after a
//! fixed prelude of constants, aliases and macros, its NUL-separated parts after the first being the files
//! `a.inc`, `dir/b.inc` and `dir/c.inc` that `.include` reads from memory, so that the fuzzer reaches macro
//! calls, repetitions, conditionals, includes and their limits. Small expansion limits keep each run short.
#![no_main]

use lanejit_isa::asm::{assemble_module_with_config, AsmConfig, AsmLimits};
use libfuzzer_sys::fuzz_target;
use std::collections::HashMap;

/// Definitions the fuzzer's text can use without discovering them.
const PRELUDE: &str = "\
.equ ARG_X, 8
.set i, -3
.reg acc, v12
.reg pair, u6:u7
.macro tap dst, src=v1, n=4, rest:vararg
  v.add.i \\dst, \\src, \\n
.endm
.macro down n
  .if \\n > 0
  1: nop
  j.execz 1b
  down \\n - 1
  .endif
.endm
.macro skip
  j.execz over\\@
over\\@:
.endm
";

const INCLUDED: [&str; 3] = ["a.inc", "dir/b.inc", "dir/c.inc"];

/// `text` reassembles from its disassembly to the same words and metadata.
fn round_trip(p: &lanejit_isa::Program) {
    let text = lanejit_isa::disassemble(p);
    let back = lanejit_isa::assemble("disasm.s", &text).expect("a disassembly reassembles");
    assert_eq!(back.words, p.words);
    assert_eq!(back.meta, p.meta);
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut parts = text.split('\0');
    let main = parts.next().unwrap_or("");
    if let Ok(p) = lanejit_isa::assemble("fuzz.s", main) {
        round_trip(&p);
    }
    let files: HashMap<String, String> =
        INCLUDED.iter().zip(parts).map(|(n, t)| (n.to_string(), t.to_string())).collect();
    let config = AsmConfig {
        includes: Some(&files),
        limits: AsmLimits { max_expanded_lines: 20_000, max_expanded_bytes: 1 << 20 },
    };
    let src = format!("{PRELUDE}{main}");
    if let Ok(ps) = assemble_module_with_config("dir/fuzz.s", &src, &config) {
        for (p, lines) in &ps {
            assert_eq!(lines.len(), p.words.len());
            round_trip(p);
        }
    }
});
