//! Assembler: arbitrary UTF-8 text assembles or fails with errors; what assembles round-trips through the
//! disassembler.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else { return };
    if let Ok(p) = lanejit_isa::assemble("fuzz.s", src) {
        let text = lanejit_isa::disassemble(&p);
        let back = lanejit_isa::assemble("disasm.s", &text).expect("a disassembly reassembles");
        assert_eq!(back.words, p.words);
        assert_eq!(back.meta, p.meta);
    }
});
