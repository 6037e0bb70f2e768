//! Robustness of everything that reads untrusted input, on stable Rust (proptest; the cargo-fuzz targets in
//! `fuzz/` cover the same entry points with coverage guidance, see fuzz/README.md):
//! - the decoder: arbitrary words decode (at every word offset, as `Code` does) and disassemble without
//!   panicking, and the disassembly reassembles to the same words;
//! - the assembler: arbitrary text, token soup and mutated valid sources assemble or fail with errors, never
//!   panic, and what assembles survives a disassemble/assemble round trip;
//! - the container loader: arbitrary and mutated containers load or fail cleanly; what loads writes back to
//!   the same bytes.
//!
//! Each property runs 100,000 cases (`LANEJIT_ROBUSTNESS_CASES` overrides), a few seconds in a release build.

use lanejit::Kernel;
use lanejit_interp::Code;
use lanejit_isa::asm::Program;
use lanejit_isa::{assemble, container, decode_raw, disassemble, INSNS};
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("LANEJIT_ROBUSTNESS_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(100_000)
}

fn config() -> ProptestConfig {
    ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() }
}

fn words_of(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(w)
        })
        .collect()
}

/// Words biased toward legal instructions: random bits, or an instruction's fixed pattern with random operand
/// (and occasionally reserved) bits, so that decoding gets past the opcode check most of the time.
fn word_strategy() -> impl Strategy<Value = u64> {
    prop_oneof![
        any::<u64>(),
        (0..INSNS.len(), any::<u64>(), any::<u64>()).prop_map(|(i, bits, noise)| {
            let info = &INSNS[i];
            let free = !info.mask & if info.words == 2 { u64::MAX } else { 0xffff_ffff };
            let mut raw = info.match_ | (bits & free);
            if noise % 8 == 0 {
                raw ^= 1 << ((noise >> 8) % (32 * info.words as u64));
            }
            raw
        }),
    ]
}

fn program_words() -> impl Strategy<Value = Vec<u32>> {
    proptest::collection::vec(word_strategy(), 0..24).prop_map(|ws| {
        let mut out = Vec::new();
        for w in ws {
            out.push(w as u32);
            if w as u32 & 1 == 1 {
                out.push((w >> 32) as u32);
            }
        }
        out
    })
}

/// Decoding at every offset never panics; the disassembly reassembles to the same words.
fn decode_property(words: Vec<u32>) -> Result<(), TestCaseError> {
    let code = Code::new(words.clone());
    prop_assert_eq!(code.decoded.len(), words.len());
    for pair in words.windows(2) {
        let _ = decode_raw(pair[0] as u64 | (pair[1] as u64) << 32);
    }
    let p = Program { words, ..Program::default() };
    let text = disassemble(&p);
    let back = assemble("disasm.s", &text)
        .map_err(|e| TestCaseError::fail(format!("disassembly does not assemble: {e}\n{text}")))?;
    prop_assert_eq!(back.words, p.words);
    Ok(())
}

proptest! {
    #![proptest_config(config())]
    #[test]
    fn decoder_never_panics_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..96)) {
        decode_property(words_of(&bytes))?;
    }

    #[test]
    fn decoder_never_panics_on_near_instructions(words in program_words()) {
        decode_property(words)?;
    }
}

const TOKENS: &[&str] = &[
    "v0",
    "v1",
    "v127",
    "v128",
    "v3:v4",
    "v4:v5",
    "v2.l",
    "v9.h",
    "u0",
    "u63",
    "u64",
    "u2:u3",
    "-v1",
    "|v2|",
    "-|v3|",
    "0",
    "1",
    "-1",
    "0x7fffffff",
    "0xffffffff",
    "4294967296",
    "-2147483649",
    "1.5",
    "-0.0",
    "inf",
    "nan",
    "1e40",
    "0b101",
    "1_000",
    "rne",
    "dyn",
    "global",
    "shared",
    "constant",
    "fcsr",
    "retired",
    "rgba",
    "r",
    "d16",
    "sat",
    "neg=3",
    "abs=1",
    "rm=rtz",
    "sp=private",
    "vm=0",
    "scope=device",
    "label",
    "L1",
    "L1:",
    "_x.y:",
    ",",
    ", ",
    ":",
    ";",
    "//",
    "\"",
    "\\",
    ".kernel",
    ".workgroup",
    ".shared",
    ".args",
    ".private",
    ".word",
    "64, 1, 1",
    "1024, 2",
    "65537",
    "é",
    "\u{0}",
    "\t",
];

/// A line of tokens: a mnemonic from the tables or a directive, then operands and punctuation.
fn line_strategy() -> impl Strategy<Value = String> {
    let head = prop_oneof![
        (0..INSNS.len()).prop_map(|i| INSNS[i].mnemonic.to_string()),
        proptest::sample::select(TOKENS).prop_map(str::to_string),
    ];
    let tail = proptest::collection::vec(proptest::sample::select(TOKENS), 0..6);
    (head, tail, any::<bool>()).prop_map(|(h, t, commas)| {
        let sep = if commas { ", " } else { " " };
        format!("{h} {}", t.join(sep))
    })
}

/// A valid source (the disassembly of near-instructions) with a few characters replaced, removed or inserted.
fn mutated_source() -> impl Strategy<Value = String> {
    let edits = proptest::collection::vec((any::<usize>(), any::<u8>(), 0..3u8), 1..4);
    (program_words(), edits).prop_map(|(words, edits)| {
        let mut text: Vec<char> = disassemble(&Program { words, ..Program::default() }).chars().collect();
        for (at, c, kind) in edits {
            let i = at % (text.len() + 1);
            let ch = (c % 95 + 32) as char;
            match kind {
                0 if i < text.len() => text[i] = ch,
                1 if i < text.len() => {
                    text.remove(i);
                }
                _ => text.insert(i, ch),
            }
        }
        text.into_iter().collect()
    })
}

/// Assembling never panics; what assembles disassembles and reassembles to the same words and metadata.
fn asm_property(src: &str) -> Result<(), TestCaseError> {
    if let Ok(p) = assemble("fuzz.s", src) {
        let text = disassemble(&p);
        let back =
            assemble("disasm.s", &text).map_err(|e| TestCaseError::fail(format!("round trip fails: {e}\n{text}")))?;
        prop_assert_eq!(&back.words, &p.words);
        prop_assert_eq!(&back.meta, &p.meta);
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]
    #[test]
    fn assembler_never_panics_on_text(src in "(?s).{0,200}") {
        asm_property(&src)?;
    }

    #[test]
    fn assembler_never_panics_on_token_soup(lines in proptest::collection::vec(line_strategy(), 0..8)) {
        asm_property(&lines.join("\n"))?;
    }

    #[test]
    fn assembler_never_panics_on_mutated_sources(src in mutated_source()) {
        asm_property(&src)?;
    }
}

/// A container with plausible header fields, then some of its bytes changed, truncated or extended.
fn container_strategy() -> impl Strategy<Value = Vec<u8>> {
    let fields = proptest::collection::vec(
        prop_oneof![0u32..4, 0u32..2000, any::<u32>(), Just(40u32), Just(1024u32), Just(65536u32)],
        9,
    );
    let name = proptest::collection::vec(any::<u8>(), 0..12);
    let code = proptest::collection::vec(any::<u32>(), 0..8);
    let edits = proptest::collection::vec((any::<usize>(), any::<u8>()), 0..3);
    (fields, name, code, edits, any::<bool>(), 0..8usize).prop_map(|(mut f, name, code, edits, consistent, cut)| {
        if consistent {
            f[0] = 40;
            f[7] = name.len() as u32;
            f[8] = code.len() as u32;
        }
        let mut b = b"LJK1".to_vec();
        f.iter().for_each(|x| b.extend_from_slice(&x.to_le_bytes()));
        b.extend_from_slice(&name);
        code.iter().for_each(|w| b.extend_from_slice(&w.to_le_bytes()));
        for (at, v) in edits {
            let i = at % b.len();
            b[i] = v;
        }
        b.truncate(b.len() - cut.min(b.len()));
        b
    })
}

/// An ELF kernel of random code and metadata, then some of its bytes changed, the file cut short, or both.
fn elf_strategy() -> impl Strategy<Value = Vec<u8>> {
    let code = proptest::collection::vec(any::<u32>(), 0..8);
    let name = "[a-z_]{1,8}";
    let wg = prop_oneof![Just([32u32, 1, 1]), Just([64, 2, 1]), Just([0, 1, 1]), Just([4096, 1, 1])];
    let edits = proptest::collection::vec((any::<usize>(), any::<u8>()), 0..3);
    (code, name, wg, edits, 0..600usize).prop_map(|(words, name, workgroup, edits, cut)| {
        let meta = lanejit_isa::KernelMeta { name, workgroup, ..Default::default() };
        let mut b = lanejit_isa::elf_kernel::write(&Program { words, meta, ..Program::default() });
        for (at, v) in edits {
            let i = at % b.len();
            b[i] = v;
        }
        b.truncate(b.len() - cut.min(b.len()));
        b
    })
}

fn container_property(bytes: &[u8]) -> Result<(), TestCaseError> {
    match container::read_any(bytes) {
        Ok(p) if bytes.starts_with(&container::MAGIC) => prop_assert_eq!(container::write(&p), bytes.to_vec()),
        // An ELF that loads (intact, or changed where it does not matter) writes a file that loads the same.
        Ok(p) if bytes.starts_with(&lanejit_isa::elf_kernel::ELF_MAGIC) => {
            prop_assert_eq!(lanejit_isa::elf_kernel::read(&lanejit_isa::elf_kernel::write(&p)), Ok(p))
        }
        Ok(p) => prop_assert_eq!(p.words.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>(), bytes.to_vec()),
        Err(e) => prop_assert!(!e.to_string().is_empty()),
    }
    // The runtime's loader wraps the same reader and decodes the code: it must not panic either.
    let _ = Kernel::from_bytes(bytes);
    Ok(())
}

proptest! {
    #![proptest_config(config())]
    #[test]
    fn container_loader_never_panics_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..80)) {
        container_property(&bytes)?;
    }

    #[test]
    fn container_loader_never_panics_on_mutated_containers(bytes in container_strategy()) {
        container_property(&bytes)?;
    }

    #[test]
    fn elf_loader_never_panics_on_mutated_elf_kernels(bytes in elf_strategy()) {
        container_property(&bytes)?;
    }
}
