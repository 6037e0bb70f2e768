//! Decoder: arbitrary bytes as little-endian words, decoded at every offset and disassembled; the
//! disassembly must reassemble to the same words.
#![no_main]

use lanejit_isa::asm::Program;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let words: Vec<u32> = data.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    let code = lanejit_interp::Code::new(words.clone());
    assert_eq!(code.decoded.len(), words.len());
    let p = Program { words, ..Program::default() };
    let text = lanejit_isa::disassemble(&p);
    let back = lanejit_isa::assemble("disasm.s", &text).expect("a disassembly reassembles");
    assert_eq!(back.words, p.words);
});
