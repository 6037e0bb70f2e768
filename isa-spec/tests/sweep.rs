//! Decoder sweep: decoding never panics, every word that decodes re-encodes to itself and matches exactly
//! one table entry (no overlaps), and illegal words fail for the right reason.
//!
//! By default a sampled sweep (every 251st 32-bit word — an odd stride, so every opcode and bit pattern
//! is visited — about 17 M words, plus every instruction's fixed pattern with random operand and reserved
//! bits). `full_sweep` (ignored: run with `--ignored`) sweeps all 2^32 words in parallel. 64-bit opcodes are paired with fixed
//! high words (0, all ones) and one pseudo-random high word derived from the low word.

use lanejit_isa::{
    decode_at, decode_raw, encode, length_words, Illegal, InsnInfo, KindClass, BY_OPCODE, FORMATS, INSNS,
};
use rayon::prelude::*;
use std::time::Instant;

fn mix(x: u64) -> u64 {
    // splitmix64 finaliser: a cheap, well-spread pseudo-random function of the word.
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Checks one raw value; counts it under its format when legal.
fn check(raw: u64, counts: &mut [u64]) {
    match decode_raw(raw) {
        Ok(insn) => {
            let info = insn.id().info();
            let e = encode(&insn).unwrap_or_else(|e| panic!("{raw:#x} decodes to {insn:?} but does not encode: {e}"));
            assert_eq!(e.raw, raw, "{raw:#x} decodes to {insn:?} which encodes to {:#x}", e.raw);
            assert_eq!(e.words as usize, length_words(raw as u32));
            let matches = BY_OPCODE[(raw & 0x7f) as usize]
                .iter()
                .filter(|&&i| raw & INSNS[i as usize].mask == INSNS[i as usize].match_)
                .count();
            assert_eq!(matches, 1, "{raw:#x} matches {matches} entries (overlap) including {}", info.mnemonic);
            counts[info.format] += 1;
        }
        Err(_) => counts[FORMATS.len()] += 1,
    }
}

/// Checks a 32-bit word: alone for a 32-bit opcode, with several high words for a 64-bit one.
fn check_word(w: u32, counts: &mut [u64]) {
    if length_words(w) == 1 {
        check(w as u64, counts);
    } else {
        for hi in [0, u32::MAX, mix(w as u64) as u32] {
            check(w as u64 | (hi as u64) << 32, counts);
        }
    }
}

fn sweep(words: impl ParallelIterator<Item = u32>) -> Vec<u64> {
    words
        .fold(
            || vec![0u64; FORMATS.len() + 1],
            |mut c, w| {
                check_word(w, &mut c);
                c
            },
        )
        .reduce(|| vec![0u64; FORMATS.len() + 1], |a, b| a.iter().zip(&b).map(|(x, y)| x + y).collect())
}

fn report(what: &str, counts: &[u64], secs: f64) {
    println!("{what}: {secs:.2} s; legal values per format:");
    for (f, c) in FORMATS.iter().zip(counts) {
        println!("  {:4} {c}", f.name);
    }
    println!("  illegal {}", counts[FORMATS.len()]);
}

#[test]
fn sampled_sweep() {
    const STRIDE: u64 = 251;
    let t = Instant::now();
    let n = (1u64 << 32).div_ceil(STRIDE);
    assert!(n >= 1 << 24);
    let counts = sweep((0..n).into_par_iter().map(|i| (i * STRIDE) as u32));
    report(&format!("sampled sweep of {n} words (stride {STRIDE})"), &counts, t.elapsed().as_secs_f64());
}

#[test]
#[ignore = "all 2^32 words take minutes on 2 cores; the sampled sweep above runs in the suite: cargo test --release -p lanejit-isa --test sweep -- --ignored --nocapture"]
fn full_sweep() {
    let t = Instant::now();
    let counts = sweep((0..=u32::MAX).into_par_iter());
    report("full sweep of 2^32 words", &counts, t.elapsed().as_secs_f64());
}

/// Bits an instruction leaves to its operands, within its width.
fn operand_bits(info: &InsnInfo) -> u64 {
    let width = if info.words == 2 { u64::MAX } else { 0xffff_ffff };
    !info.mask & width
}

/// Scatters the low bits of `x` over the set bits of `mask` (like BMI2 `pdep`).
fn deposit(mut x: u64, mut mask: u64) -> u64 {
    let mut out = 0;
    while mask != 0 {
        let bit = mask & mask.wrapping_neg();
        if x & 1 != 0 {
            out |= bit;
        }
        x >>= 1;
        mask &= mask - 1;
    }
    out
}

/// The instruction's fixed pattern with legal operand fields (first enum value, even pairs).
fn legal_base(info: &InsnInfo) -> u64 {
    let mut raw = info.match_;
    for op in info.operands {
        let k = op.kind();
        let v = match k.class {
            KindClass::Enum => k.values[0].1,
            KindClass::DMask => 1,
            _ => 0,
        };
        raw |= (v as u64) << op.lsb;
    }
    raw
}

#[test]
fn every_pattern_with_random_operand_bits() {
    let t = Instant::now();
    let (mut legal, mut total) = (0u64, 0u64);
    for info in INSNS.iter() {
        let free = operand_bits(info);
        let n = free.count_ones();
        // Exhaustive when small, else 4096 random fillings.
        let cases: Box<dyn Iterator<Item = u64>> =
            if n <= 16 { Box::new(0..1u64 << n) } else { Box::new((0..4096u64).map(|i| mix(i ^ info.match_))) };
        for x in cases {
            let raw = info.match_ | deposit(x, free);
            total += 1;
            match decode_raw(raw) {
                Ok(insn) => {
                    assert_eq!(insn.id(), info.id, "{raw:#x}");
                    assert_eq!(encode(&insn).unwrap().raw, raw);
                    legal += 1;
                }
                Err(Illegal::BadEnum { mnemonic, .. }) | Err(Illegal::OddPair { mnemonic, .. }) => {
                    assert_eq!(mnemonic, info.mnemonic)
                }
                Err(e) => panic!("{}: {raw:#x}: {e}", info.mnemonic),
            }
            // The same with random reserved bits: illegal, for this instruction's reason.
            let junk = mix(x ^ 0x5555) & info.reserved;
            if junk != 0 && unique_fixed_match(raw | junk) {
                let r = decode_raw(raw | junk);
                assert_eq!(r, Err(Illegal::ReservedBits { mnemonic: info.mnemonic, bits: junk }), "{raw:#x}");
            }
        }
    }
    println!("{total} pattern words, {legal} legal, {:.2} s", t.elapsed().as_secs_f64());
}

/// Whether exactly one entry's fixed fields match (so a reserved-bit error names that entry).
fn unique_fixed_match(raw: u64) -> bool {
    BY_OPCODE[(raw & 0x7f) as usize]
        .iter()
        .filter(|&&i| raw & INSNS[i as usize].fixed_mask == INSNS[i as usize].match_)
        .count()
        == 1
}

#[test]
fn opcode_zero_and_unknown_opcodes() {
    assert_eq!(decode_raw(0), Err(Illegal::ZeroOpcode));
    assert_eq!(decode_raw(0xffff_ff80), Err(Illegal::ZeroOpcode));
    let mut unknown = 0;
    for op in 1..128u8 {
        if BY_OPCODE[op as usize].is_empty() {
            let raw = op as u64 | 0x1234_5600 | if op & 1 == 1 { 0xdead_beef << 32 } else { 0 };
            assert_eq!(decode_raw(raw), Err(Illegal::UnknownOpcode(op)));
            unknown += 1;
        }
    }
    println!("{unknown} unused opcodes decode as UnknownOpcode");
    assert!(unknown > 0, "the opcode map keeps 0x3c-0x3f and 0x70-0x7f free");
}

#[test]
fn unknown_function_values() {
    let mut tested = 0;
    for (op, cands) in BY_OPCODE.iter().enumerate().skip(1) {
        let Some(&first) = cands.first() else { continue };
        let info = &INSNS[first as usize];
        let fmt = &FORMATS[info.format];
        // Try each value of each function field until no entry of the opcode claims the word.
        'search: for (name, _) in info.fixed.iter().filter(|(n, _)| *n != "opcode") {
            let Some(f) = fmt.fields.iter().find(|f| f.name == *name) else { continue };
            let fmask = ((1u64 << f.width()) - 1) << f.lsb;
            for v in 0..(1u64 << f.width()).min(1 << 12) {
                let raw = (legal_base(info) & !fmask) | v << f.lsb;
                let claimed = cands.iter().any(|&i| raw & INSNS[i as usize].fixed_mask == INSNS[i as usize].match_);
                if !claimed {
                    assert_eq!(decode_raw(raw), Err(Illegal::UnknownFunction { opcode: op as u8 }), "{raw:#x}");
                    tested += 1;
                    break 'search;
                }
            }
        }
    }
    println!("{tested} opcodes have an unused function value that decodes as UnknownFunction");
    assert!(tested > 0);
}

#[test]
fn reserved_bits_bad_enums_odd_pairs_truncation() {
    let (mut reserved, mut enums, mut pairs) = (0, 0, 0);
    for info in INSNS.iter() {
        let base = legal_base(info);
        assert!(decode_raw(base).is_ok(), "{}: {base:#x}", info.mnemonic);
        let mut bits = info.reserved;
        while bits != 0 {
            let bit = bits & bits.wrapping_neg();
            bits &= bits - 1;
            if unique_fixed_match(base | bit) {
                assert_eq!(decode_raw(base | bit), Err(Illegal::ReservedBits { mnemonic: info.mnemonic, bits: bit }));
                reserved += 1;
            }
        }
        for op in info.operands {
            let k = op.kind();
            let field = |v: u64| (base & !(((1u64 << k.bits) - 1) << op.lsb)) | v << op.lsb;
            if k.class == KindClass::Enum {
                if let Some(bad) = (0..1u32 << k.bits.min(12)).find(|v| k.value_name(*v).is_none()) {
                    let want = Illegal::BadEnum { mnemonic: info.mnemonic, operand: op.name, value: bad };
                    assert_eq!(decode_raw(field(bad as u64)), Err(want));
                    enums += 1;
                }
            }
            if k.pair {
                let want = Illegal::OddPair { mnemonic: info.mnemonic, operand: op.name, reg: 1 };
                assert_eq!(decode_raw(field(1)), Err(want));
                pairs += 1;
            }
        }
    }
    println!("checked {reserved} reserved bits, {enums} bad enum values, {pairs} odd pairs");
    assert!(reserved > 0, "seed group 5 has reserved fields (format C's unused rs2)");
    // A 64-bit opcode in the last word of the code.
    let w = INSNS.iter().find(|i| i.words == 2).map_or(1, |i| i.match_ as u32);
    assert_eq!(decode_at(&[w], 0).unwrap_err().reason, Illegal::Truncated);
    assert_eq!(decode_at(&[0x2e, w], 1).unwrap_err().pc, 4);
}
