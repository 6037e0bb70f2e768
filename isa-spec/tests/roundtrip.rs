//! Round trips through every representation, over the whole instruction table:
//! operand values → encode → decode (same values) → format → assemble (same words), and whole programs
//! (labels, raw and illegal words, metadata) → container bytes → disassemble → assemble → same bytes.

use lanejit_isa::{
    assemble, container, decode_raw, disassemble, elf_kernel, encode, encode_values, format_insn, KernelMeta,
    KindClass, OperandInfo, Program, INSNS,
};
use proptest::prelude::*;
use std::collections::BTreeMap;

/// A legal operand value from a random number, biased to the ends of the range.
fn legal_value(op: &OperandInfo, r: u64) -> i64 {
    let k = op.kind();
    let span = 1u64 << k.bits;
    let raw = match r >> 61 {
        0 => 0,
        1 => span - 1,
        2 => span / 2,
        _ => r % span,
    } as u32;
    let raw = match k.class {
        KindClass::Enum => k.values[(r % k.values.len() as u64) as usize].1,
        KindClass::DMask => 1 + (r % 15) as u32,
        _ if k.pair => raw & !1,
        _ => raw,
    };
    k.decode_value(raw)
}

fn legal_values(idx: usize, seeds: &[u64]) -> Vec<i64> {
    INSNS[idx].operands.iter().zip(seeds).map(|(op, &r)| legal_value(op, r)).collect()
}

fn words_of(e: lanejit_isa::Encoded) -> Vec<u32> {
    let mut v = Vec::new();
    e.push_to(&mut v);
    v
}

/// One instruction through every representation.
fn one_insn(idx: usize, seeds: &[u64]) {
    let info = &INSNS[idx];
    let vals = legal_values(idx, seeds);
    let enc = encode_values(info, &vals).unwrap_or_else(|e| panic!("{}: {vals:?}: {e}", info.mnemonic));
    let insn = decode_raw(enc.raw).unwrap_or_else(|e| panic!("{} {vals:?} {:#x}: {e}", info.mnemonic, enc.raw));
    assert_eq!(insn.id(), info.id, "{}", info.mnemonic);
    assert_eq!(insn.operand_values().as_slice(), &vals[..], "{}", info.mnemonic);
    assert_eq!(encode(&insn).unwrap(), enc);
    let text = format_insn(&insn, 0x100, &BTreeMap::new());
    let p = assemble("rt.s", &text).unwrap_or_else(|e| panic!("`{text}` ({vals:?}) does not assemble:\n{e}"));
    assert_eq!(p.words, words_of(enc), "`{text}` ({vals:?})");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 20_000, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn every_instruction_round_trips(idx in 0..INSNS.len(), seeds in any::<[u64; 16]>()) {
        one_insn(idx, &seeds);
    }
}

/// Deterministic coverage: every instruction with many values, whatever proptest happens to pick.
#[test]
fn every_instruction_is_covered() {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for idx in 0..INSNS.len() {
        for _ in 0..64 {
            let seeds: Vec<u64> = (0..16).map(|_| next()).collect();
            one_insn(idx, &seeds);
        }
    }
    println!("{} instructions x 64 value sets round-tripped", INSNS.len());
}

/// A program item before layout: an instruction with seeds for its operands, or a raw word.
#[derive(Clone, Debug)]
enum Item {
    Insn {
        idx: usize,
        seeds: [u64; 16],
        target: Option<usize>,
    },
    Word(u32),
    /// An instruction's fixed bits with random operand (and maybe reserved) bits: often illegal.
    Pattern {
        idx: usize,
        bits: u64,
    },
}

fn item() -> impl Strategy<Value = Item> {
    prop_oneof![
        6 => (0..INSNS.len(), any::<[u64; 16]>(), proptest::option::of(0..64usize))
            .prop_map(|(idx, seeds, target)| Item::Insn { idx, seeds, target }),
        1 => any::<u32>().prop_map(Item::Word),
        1 => (0..INSNS.len(), any::<u64>()).prop_map(|(idx, bits)| Item::Pattern { idx, bits }),
    ]
}

/// Metadata within the documented limits (`MAX_ARG_BYTES`, `MAX_PRIVATE_BYTES`), which the loader enforces.
fn meta() -> impl Strategy<Value = KernelMeta> {
    let (args, private) = (lanejit_isa::asm::MAX_ARG_BYTES, lanejit_isa::asm::MAX_PRIVATE_BYTES);
    ("[a-zA-Z0-9_.$ \"\\\\;é\n-]{0,12}", (1u32..=32, 1u32..=4, 1u32..=8), 0u32..=65536, 0u32..=args, 0u32..=private)
        .prop_map(|(name, (x, y, z), shared_bytes, arg_bytes, private_bytes)| KernelMeta {
            name,
            workgroup: [x, y, z],
            shared_bytes,
            arg_bytes,
            private_bytes,
        })
}

/// Lays the items out; pc-relative operands with a `target` point at an item boundary (or the end).
fn build(items: &[Item], meta: KernelMeta) -> Program {
    let size = |it: &Item| match it {
        Item::Insn { idx, .. } => INSNS[*idx].words as usize,
        Item::Word(_) => 1,
        Item::Pattern { idx, .. } => INSNS[*idx].words as usize,
    };
    let mut starts = vec![0usize];
    for it in items {
        starts.push(starts.last().unwrap() + size(it));
    }
    let mut words = Vec::new();
    for (n, it) in items.iter().enumerate() {
        match it {
            Item::Insn { idx, seeds, target } => {
                let info = &INSNS[*idx];
                let mut vals = legal_values(*idx, seeds);
                for (i, op) in info.operands.iter().enumerate() {
                    if let (KindClass::PcRel, Some(t)) = (op.kind().class, target) {
                        vals[i] = (starts[t % starts.len()] as i64 - starts[n] as i64) * 4;
                    }
                }
                encode_values(info, &vals).unwrap().push_to(&mut words);
            }
            Item::Word(w) => words.push(*w),
            Item::Pattern { idx, bits } => {
                let info = &INSNS[*idx];
                let width = if info.words == 2 { u64::MAX } else { 0xffff_ffff };
                let noise = if bits & 1 == 0 { bits & !info.mask } else { *bits & !info.fixed_mask };
                let raw = (info.match_ | noise) & width;
                words.push(raw as u32);
                if info.words == 2 {
                    words.push((raw >> 32) as u32);
                }
            }
        }
    }
    Program { words, labels: BTreeMap::new(), meta }
}

fn program_round_trip(p: &Program) {
    let bytes = container::write(p);
    let read = container::read(&bytes).expect("container reads back");
    assert_eq!(&read, p);
    let text = disassemble(&read);
    let again = assemble("rt.s", &text).unwrap_or_else(|e| panic!("disassembly does not assemble:\n{e}\n---\n{text}"));
    assert_eq!(again.words, p.words, "words differ; disassembly:\n{text}");
    assert_eq!(container::write(&again), bytes, "container bytes differ");
    // The reassembled program carries the generated labels, which print the same text again.
    assert_eq!(disassemble(&again), text);
    let elf = elf_kernel::write(p);
    assert_eq!(&elf_kernel::read(&elf).expect("ELF reads back"), p);
    assert_eq!(&container::read_any(&elf).expect("read_any takes ELF"), p);
    assert_eq!(elf_kernel::write(&again), elf, "ELF bytes differ");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn programs_round_trip(items in proptest::collection::vec(item(), 0..48), meta in meta()) {
        program_round_trip(&build(&items, meta));
    }

    #[test]
    fn raw_words_round_trip(words in proptest::collection::vec(any::<u32>(), 0..64)) {
        program_round_trip(&Program { words, ..Program::default() });
    }
}

#[test]
fn seed_examples_assemble() {
    // Seed 000 (group 5) is fixed: these encodings follow from formats R/I8/RU/C/CI by hand.
    let src = "shfl.up.vi v3, v4, -2\nwritelane v1, u2, 40\nreadlane u5, v6, 31\nxred.add.u32 u1, v2\n";
    let p = assemble("seed.s", src).unwrap();
    // shfl.up.vi: imm[31:24]=0xfe f3=0 rs1=4 rd=3 opcode 0x30.
    assert_eq!(p.words[0], 0xfe00_0000 | 4 << 14 | 3 << 7 | 0x30);
    // writelane (RU, f5=5): rs2 = u2 in [26:21], ln7 = 40 in rs1 [20:14], rd = v1.
    assert_eq!(p.words[1], 5 << 27 | 2 << 21 | 40 << 14 | 1 << 7 | 0x32);
    // readlane (CI, f4=0): imm = 31 in [31:24], rs1 = v6 in [19:13], rd = u5 in [12:7].
    assert_eq!(p.words[2], 31 << 24 | 6 << 13 | 5 << 7 | 0x38);
    // xred.add.u32 (C, f5=5): rs1 = v2 in [19:13], rd = u1.
    assert_eq!(p.words[3], 5 << 27 | 2 << 13 | 1 << 7 | 0x36);
    let text = disassemble(&p);
    for line in src.lines() {
        assert!(text.contains(line), "`{line}` missing from\n{text}");
    }
}

#[test]
fn labels_metadata_and_user_names() {
    let branch = INSNS.iter().find(|i| {
        i.operands.iter().any(|o| o.kind().class == KindClass::PcRel)
            && i.operands.iter().filter(|o| o.kind().default.is_none()).count() <= 2
    });
    let Some(b) = branch else {
        println!("skip: no pc-relative instruction in the tables");
        return;
    };
    let ops: Vec<String> = b
        .operands
        .iter()
        .filter(|o| o.kind().default.is_none())
        .map(|o| match o.kind().class {
            KindClass::PcRel => "done".to_string(),
            KindClass::UReg => "u4".to_string(),
            KindClass::VReg => "v4".to_string(),
            _ => "0".to_string(),
        })
        .collect();
    let src = format!(
        ".kernel \"my kernel\"\n.workgroup 8, 4\n.shared 1024\n.args 16\n.private 64\n\
         top: {m} {ops}  ; forward reference\n.word 1.5, -1, 0x7fffffff\nloop:\n{m} {back}\ndone:\n",
        m = b.mnemonic,
        ops = ops.join(", "),
        back = ops.join(", ").replace("done", "loop"),
    );
    let p = assemble("labels.s", &src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let w = b.words * 4;
    assert_eq!(p.labels["top"], 0);
    assert_eq!(p.labels["loop"], w + 12);
    assert_eq!(p.labels["done"], 2 * w + 12);
    assert_eq!(p.words[b.words as usize], 1.5f32.to_bits());
    assert_eq!(p.words[b.words as usize + 1], u32::MAX);
    assert_eq!(
        p.meta,
        KernelMeta {
            name: "my kernel".into(),
            workgroup: [8, 4, 1],
            shared_bytes: 1024,
            arg_bytes: 16,
            private_bytes: 64
        }
    );
    let text = disassemble(&p);
    assert!(
        text.starts_with(".kernel \"my kernel\"\n.workgroup 8, 4, 1\n.shared 1024\n.args 16\n.private 64\n"),
        "{text}"
    );
    assert!(text.contains("\ndone:\n") && text.contains("\nloop:\n") && text.contains("\ntop:\n"), "{text}");
    assert_eq!(assemble("again.s", &text).unwrap(), p);
    // Without the program's own labels, targets get generated names.
    let bare = Program { labels: BTreeMap::new(), ..p.clone() };
    let text = disassemble(&bare);
    assert!(text.contains(&format!("L_{:04x}:", 2 * w + 12)), "{text}");
    assert_eq!(assemble("again.s", &text).unwrap().words, p.words);
}

/// What `readelf` shows of an ELF kernel, and the reader's refusals: another machine, a missing or malformed
/// metadata section, a code section of a partial word, limits the `LJK1` reader also enforces.
#[test]
fn elf_kernels_and_their_refusals() {
    use container::ContainerError as E;
    let p = assemble("e.s", ".kernel vscale\n.workgroup 64\n.args 12\n.word 1, 2, 3\n").unwrap();
    let elf = elf_kernel::write(&p);
    assert_eq!(&elf[..4], b"\x7fELF");
    assert_eq!(u16::from_le_bytes([elf[18], elf[19]]), elf_kernel::ELF_MACHINE);
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    assert!(text(&elf).contains(".text.vscale") && text(&elf).contains(".lanejit.meta"));
    assert!(text(&elf).contains(r#""name":"vscale","workgroup":[64,1,1],"shared_bytes":0,"arg_bytes":12"#));
    let edited = |from: &str, to: &str| {
        assert_eq!(from.len(), to.len(), "same length keeps the layout");
        let at =
            elf.windows(from.len()).position(|w| w == from.as_bytes()).unwrap_or_else(|| panic!("{from} in the file"));
        let mut b = elf.clone();
        b[at..at + from.len()].copy_from_slice(to.as_bytes());
        elf_kernel::read(&b)
    };
    let msg = |r: Result<Program, E>| r.expect_err("refused").to_string();
    assert!(msg(edited(".lanejit.meta", ".lanejit.mexa")).contains("no .lanejit.meta section"));
    assert!(msg(edited(".text.vscale", ".text.vscalf")).contains("no .text.vscale section"));
    assert!(msg(edited(r#""format":1"#, r#""format":9"#)).contains("format 9"));
    assert!(msg(edited(r#""workgroup":[64,"#, r#""workgroup":[ 0,"#)).contains("workgroup"));
    assert!(msg(edited(r#""name""#, r#""nome""#)).contains(".lanejit.meta"));
    let mut other = elf.clone();
    other[18] = 0x3e; // EM_X86_64
    other[19] = 0;
    assert!(msg(elf_kernel::read(&other)).contains("ELF machine 0x3e"));
    for cut in [4, 5, 63, elf.len() / 2, elf.len() - 1] {
        assert!(container::read_any(&elf[..cut]).is_err(), "cut at {cut}");
    }
}

/// Several kernels in one ELF file (a module) read back in order; a file of two is refused where one kernel is
/// expected, and metadata naming one kernel twice is refused.
#[test]
fn elf_modules_hold_several_kernels() {
    let ps = lanejit_isa::assemble_module("m.s", ".kernel a\n.word 1\n.kernel b\n.workgroup 64\n.word 2, 3\n").unwrap();
    let elf = elf_kernel::write_all(&ps);
    assert_eq!(elf_kernel::read_all(&elf).unwrap(), ps);
    let msg = elf_kernel::read(&elf).unwrap_err().to_string();
    assert!(msg.contains("2 kernels (a, b)") && msg.contains("module"), "{msg}");
    let at = elf.windows(10).position(|w| w == br#""name":"b""#).unwrap();
    let mut twice = elf.clone();
    twice[at..at + 10].copy_from_slice(br#""name":"a""#);
    let msg = elf_kernel::read_all(&twice).unwrap_err().to_string();
    assert!(msg.contains("kernel `a` twice"), "{msg}");
}

#[test]
fn container_and_raw_files() {
    let p = assemble("c.s", ".kernel k\n.word 1, 2, 3\n").unwrap();
    let bytes = container::write(&p);
    assert_eq!(&bytes[..4], b"LJK1");
    assert_eq!(bytes.len(), 40 + 1 + 12);
    assert_eq!(container::read_any(&bytes).unwrap().words, vec![1, 2, 3]);
    let raw: Vec<u8> = [7u32, 8].iter().flat_map(|w| w.to_le_bytes()).collect();
    let q = container::read_any(&raw).unwrap();
    assert_eq!(q.words, vec![7, 8]);
    assert_eq!(q.meta, KernelMeta::default());
    use container::ContainerError as E;
    assert!(matches!(container::read_any(&raw[..5]), Err(E::NotWords { len: 5 })));
    assert!(matches!(container::read(b"ELF\x7f...."), Err(E::BadMagic { .. })));
    assert!(matches!(container::read(b"LJ"), Err(E::Truncated { what: "magic", .. })));
    assert!(matches!(container::read(&bytes[..20]), Err(E::Truncated { what: "header", .. })));
    assert!(matches!(container::read(&bytes[..41]), Err(E::Truncated { what: "code", .. })));
    assert!(matches!(container::read(&bytes[..40]), Err(E::Truncated { what: "kernel name", .. })));
    let mut long = bytes.clone();
    long.push(0);
    assert!(matches!(container::read(&long), Err(E::SizeMismatch { expected: 53, got: 54 })));
    let mut bad = bytes.clone();
    bad[4] = 44;
    assert!(matches!(container::read(&bad), Err(E::HeaderSize { declared: 44 })));
    let mut bad = bytes.clone();
    bad[40] = 0xff;
    assert!(matches!(container::read(&bad), Err(E::NameNotUtf8 { valid_up_to: 0 })));
    let mut bad = bytes.clone();
    bad[36..40].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(container::read(&bad), Err(E::TooLarge { .. })));
    let mut bad = bytes.clone();
    bad[8..12].copy_from_slice(&0u32.to_le_bytes());
    assert!(matches!(container::read(&bad), Err(E::BadMeta(_))));
    let msg = container::read(&bytes[..41]).unwrap_err().to_string();
    assert_eq!(msg, "truncated code: needs 53 bytes, the file has 41");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10_000, failure_persistence: None, ..ProptestConfig::default() })]
    /// The container reader never panics, and what it accepts writes back to the same bytes.
    #[test]
    fn container_reader_never_panics(mut bytes in proptest::collection::vec(any::<u8>(), 0..96), magic in any::<bool>()) {
        if magic && bytes.len() >= 40 {
            bytes[..4].copy_from_slice(b"LJK1");
            bytes[4..8].copy_from_slice(&40u32.to_le_bytes());
        }
        if let Ok(p) = container::read(&bytes) {
            prop_assert_eq!(container::write(&p), bytes.clone());
        }
        let _ = container::read_any(&bytes);
    }
}

/// The first instruction with an operand of `class`, and the operand's index.
fn with_class(class: KindClass) -> Option<(&'static lanejit_isa::InsnInfo, usize)> {
    let hit = INSNS.iter().find_map(|i| i.operands.iter().position(|o| o.kind().class == class).map(|n| (i, n)));
    if hit.is_none() {
        println!("skip: no {class:?} operand in the tables");
    }
    hit
}

/// A line for `info` with positional operand `n` written as `text`, others as simple legal values.
fn line(info: &lanejit_isa::InsnInfo, n: usize, text: &str) -> String {
    let ops: Vec<String> = (0..info.operands.len())
        .filter(|&i| info.operands[i].kind().default.is_none())
        .map(|i| {
            let k = info.operands[i].kind();
            match k.class {
                _ if i == n => text.to_string(),
                KindClass::VReg => if k.pair { "v2:v3" } else { "v1" }.to_string(),
                KindClass::UReg => if k.pair { "u2:u3" } else { "u1" }.to_string(),
                KindClass::VHalf => "v1.l".to_string(),
                KindClass::Enum => k.values[0].0.to_string(),
                _ => "0".to_string(),
            }
        })
        .collect();
    format!("{} {}", info.mnemonic, ops.join(", "))
}

fn operand_after(src: &str, n: usize) -> i64 {
    let p = assemble("t.s", src).unwrap_or_else(|e| panic!("{e}"));
    let raw = p.words[0] as u64 | p.words.get(1).map_or(0, |&w| (w as u64) << 32);
    decode_raw(raw).unwrap().operand_values().as_slice()[n]
}

#[test]
fn float_and_negative_literals() {
    let Some((info, n)) = with_class(KindClass::Bits) else { return };
    let v = |t: &str| operand_after(&line(info, n, t), n) as u32;
    assert_eq!(v("1.5"), 1.5f32.to_bits());
    assert_eq!(v("-2.0e3"), (-2000.0f32).to_bits());
    assert_eq!(v("-0.0"), 0x8000_0000);
    assert_eq!(v("-inf"), f32::NEG_INFINITY.to_bits());
    assert_eq!(v("nan"), f32::NAN.to_bits());
    assert_eq!(v("-1"), u32::MAX);
    assert_eq!(v("-2147483648"), 0x8000_0000);
    assert_eq!(v("0xdeadbeef"), 0xdead_beef);
    assert_eq!(v("4294967295"), u32::MAX);
    let e = assemble("t.s", &line(info, n, "4294967296")).unwrap_err();
    assert!(e.errors[0].message.contains("out of range -2147483648..=4294967295"), "{e}");
    let e = assemble("t.s", &line(info, n, "1e39")).unwrap_err();
    assert_eq!(e.errors[0].message, "float literal `1e39` is out of the f32 range");
}

#[test]
fn source_modifiers_set_their_bits() {
    let found = INSNS.iter().find(|i| {
        let has = |name: &str| i.operands.iter().any(|o| o.name == name && o.kind().class == KindClass::SrcMod);
        has("neg") && has("abs") && i.operands.iter().any(|o| o.name == "rs2")
    });
    let Some(info) = found else {
        println!("skip: no instruction with neg, abs and rs2");
        return;
    };
    let idx = |name: &str| info.operands.iter().position(|o| o.name == name).unwrap();
    let (neg, abs) = (idx("neg"), idx("abs"));
    let ops: Vec<String> = info
        .operands
        .iter()
        .filter(|o| o.kind().default.is_none())
        .map(|o| {
            let k = o.kind();
            let reg = match k.class {
                KindClass::VHalf => "v4.h",
                KindClass::UReg if k.pair => "u4:u5",
                KindClass::UReg => "u4",
                KindClass::VReg if k.pair => "v4:v5",
                KindClass::VReg => "v4",
                _ => "0",
            };
            match o.name {
                "rs1" => format!("-{reg}"),
                "rs2" => format!("-|{reg}|"),
                _ => reg.to_string(),
            }
        })
        .collect();
    let src = format!("{} {}", info.mnemonic, ops.join(", "));
    let p = assemble("t.s", &src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let raw = p.words[0] as u64 | p.words.get(1).map_or(0, |&w| (w as u64) << 32);
    let insn = decode_raw(raw).unwrap();
    let vals = insn.operand_values();
    assert_eq!(vals.as_slice()[neg], 0b11, "{src}");
    assert_eq!(vals.as_slice()[abs], 0b10, "{src}");
    // The disassembler prints the modifiers on the registers, as written.
    let text = format_insn(&insn, 0, &BTreeMap::new());
    assert!(text.starts_with(&src), "`{text}` vs `{src}`");
    // An explicit mask is the same as modifiers.
    let src2 = format!("{} {}, neg=3, abs=0b10", info.mnemonic, ops.join(", ").replace(['-', '|'], ""));
    assert_eq!(assemble("t.s", &src2).unwrap().words, p.words, "{src2}");
}

#[test]
fn empty_dmask_prints_as_word() {
    // operand_kinds.yaml: "dmask … 0 is illegal". The assembler refuses it, so the disassembler must not
    // print such a word as an instruction even if the decoder accepts it.
    let Some((info, n)) = with_class(KindClass::DMask) else { return };
    let mut vals: Vec<i64> = info.operands.iter().map(|o| legal_value(o, 0)).collect();
    vals[n] = 0;
    let e = encode_values(info, &vals).unwrap();
    let p = Program { words: words_of(e), ..Program::default() };
    let text = disassemble(&p);
    assert!(text.contains(".word") && text.contains("illegal"), "{text}");
    assert_eq!(assemble("t.s", &text).unwrap().words, p.words);
}
