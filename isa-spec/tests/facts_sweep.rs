//! Register and state facts over the whole instruction table: every instruction is decoded with many operand
//! values (the ends of every range, every enum value, every dmask) and its `reads()`, `writes()`,
//! `float_modes()`, `fcsr()` and `mem_space()` are checked against rules that do not come from the tables
//! under test: the operand kinds, the access size, the flags.

use lanejit_isa::{
    decode_raw, encode_values, flag, Dir, Flow, Insn, InsnInfo, KindClass, Reg, RegFile, RegSet, SpaceOf, UReg, VReg,
    INSNS, UREGS, VREGS,
};

fn mix(x: u64) -> u64 {
    // splitmix64 finaliser: a deterministic spread of the sample number.
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Sample `n` of an instruction's legal operand values: registers near 0 and near the end of the file (groups
/// that run past it), every enum value and dmask in turn, flags both ways.
fn sample(info: &InsnInfo, n: u64) -> Vec<i64> {
    info.operands
        .iter()
        .enumerate()
        .map(|(i, op)| {
            let k = op.kind();
            let r = mix(n * 31 + i as u64);
            let span = 1u64 << k.bits;
            let raw = match k.class {
                KindClass::Enum => k.values[((n + i as u64) % k.values.len() as u64) as usize].1,
                KindClass::DMask => 1 + ((n + r % 3) % 15) as u32,
                KindClass::Flag => ((n >> i) & 1) as u32,
                _ => match r % 4 {
                    0 => (span - 1).saturating_sub(r % 8) as u32,
                    1 => (r % 8 % span) as u32,
                    _ => (r % span) as u32,
                },
            };
            let raw = if k.pair { raw & !1 } else { raw };
            k.decode_value(raw)
        })
        .collect()
}

const SAMPLES: u64 = 400;

/// Every instruction, decoded from `SAMPLES` encodings.
fn each(mut f: impl FnMut(&InsnInfo, Insn)) {
    for info in INSNS.iter() {
        for n in 0..SAMPLES {
            let vals = sample(info, n);
            let e = encode_values(info, &vals).unwrap_or_else(|e| panic!("{}: {vals:?}: {e}", info.mnemonic));
            f(info, decode_raw(e.raw).unwrap());
        }
    }
}

fn reg(file: RegFile, r: usize) -> Option<Reg> {
    match file {
        RegFile::V if r < VREGS => Some(Reg::V(VReg(r as u8))),
        RegFile::U if r < UREGS => Some(Reg::U(UReg(r as u8))),
        _ => None,
    }
}

#[test]
fn writes_are_within_reads_or_writes_and_directions_hold() {
    each(|info, insn| {
        let (r, w) = (insn.reads(), insn.writes());
        // The brief's containment (true by construction; kept as the stated contract).
        assert!(w.is_subset(&r.union(w)), "{}", info.mnemonic);
        for u in insn.reg_uses().as_slice() {
            let op = &info.operands[u.operand as usize];
            assert_eq!(Some(u.dir), op.dir, "{} {}", info.mnemonic, op.name);
            let Some(first) = reg(u.file, u.first as usize) else { continue };
            if u.dir.reads() {
                assert!(r.has(first), "{} {}: first register not read", info.mnemonic, op.name);
            } else if r.has(first) {
                // An `out` register is read only when another operand names it (`v.add v1, v1, v2`).
                let other = insn.reg_uses().as_slice().iter().any(|o| {
                    o.operand != u.operand && o.file == u.file && (o.first..o.first + o.read).contains(&u.first)
                });
                assert!(other, "{} {}: an out register is read", info.mnemonic, op.name);
            }
            assert_eq!(u.dir.writes(), u.written > 0, "{} {}", info.mnemonic, op.name);
            assert_eq!(u.dir.reads(), u.read > 0, "{} {}", info.mnemonic, op.name);
            if u.dir.writes() {
                assert!(w.has(first), "{} {}: first register not written", info.mnemonic, op.name);
            }
            if u.dir == Dir::InOut {
                assert!(r.has(first) && w.has(first), "{} {}: inout not in both", info.mnemonic, op.name);
            }
        }
    });
}

/// Registers named by the operands, by kind alone: one register, or two for a pair kind.
fn named_by_kinds(info: &InsnInfo, insn: &Insn) -> RegSet {
    let mut s = RegSet::new();
    for (op, &v) in info.operands.iter().zip(insn.operand_values().as_slice()) {
        let k = op.kind();
        let n = 1 + k.pair as usize;
        match k.class {
            KindClass::VReg => s.insert_group(RegFile::V, v as usize, n),
            KindClass::UReg => s.insert_group(RegFile::U, v as usize, n),
            KindClass::VHalf => s.insert(RegFile::V, (v & 0x7f) as usize),
            _ => {}
        }
    }
    s
}

#[test]
fn widths_beyond_the_kinds_are_only_memory_groups() {
    // Outside memory instructions, the registers an instruction touches are exactly those its operand kinds
    // name; memory and image ops may name more (a b96/b128 group, an image's coordinates) or fewer (a
    // shared-memory base is one register of its pair) and are checked by the access and image tests.
    each(|info, insn| {
        let touched = insn.reads().union(insn.writes());
        let kinds = named_by_kinds(info, &insn);
        if info.has(flag::LD) || info.has(flag::ST) || info.operands.iter().any(|o| o.read.fixed().is_none()) {
            return;
        }
        if info.mnemonic == "img.query" {
            return; // rd is a pop(dmask) group; its descriptor 8 registers (checked in facts_table.rs)
        }
        assert_eq!(touched, kinds, "{}: {:?}", info.mnemonic, insn);
    });
}

#[test]
fn memory_data_width_matches_the_access_size() {
    let mut seen = 0;
    each(|info, insn| {
        let Some(a) = info.access else { return };
        seen += 1;
        let n = a.bytes.div_ceil(4);
        let u = insn.reg_uses();
        let data = u.as_slice().iter().find(|u| u.operand == a.data).expect("data operand is a register");
        let (ld, st) = (info.has(flag::LD), info.has(flag::ST));
        if ld {
            assert_eq!(data.written as u32, n, "{}: loads/atomics return ceil(bytes/4) registers", info.mnemonic);
        }
        if st && !ld {
            assert_eq!(data.read as u32, n, "{}: stores send ceil(bytes/4) registers", info.mnemonic);
        }
        if ld && st {
            let extra = (a.atomic == Some(lanejit_isa::AtomicOp::Cas)) as u32;
            assert_eq!(data.read as u32, n + extra, "{}: atomic data (+ cas compare)", info.mnemonic);
        }
        assert!(a.align.is_power_of_two() && a.align <= a.bytes, "{}", info.mnemonic);
        if a.bytes.is_power_of_two() {
            assert_eq!(a.align, a.bytes, "{}: natural alignment", info.mnemonic);
        }
        // The space is the sp operand's value, or global for uniform memory.
        let vals = insn.operand_values();
        let want = match a.space {
            SpaceOf::Operand(i) => lanejit_isa::Sp::from_raw(vals.as_slice()[i as usize] as u32),
            SpaceOf::Fixed(sp) => Some(sp),
        };
        assert_eq!(insn.mem_space(), want, "{}", info.mnemonic);
        assert!(insn.mem_space().is_some());
    });
    assert!(seen > 0);
}

#[test]
fn pairs_start_even_where_the_kind_says_so() {
    each(|info, insn| {
        for u in insn.reg_uses().as_slice() {
            let op = &info.operands[u.operand as usize];
            if op.kind().pair {
                assert_eq!(u.first % 2, 0, "{} {}: a pair kind decoded odd", info.mnemonic, op.name);
            }
            // Groups of an even number of registers from an even register split into valid pairs.
            if op.kind().pair && u.written >= 2 {
                assert_eq!(u.written % 2, 0, "{} {}", info.mnemonic, op.name);
            }
        }
    });
}

#[test]
fn uniform_writes_match_the_ur_flag_and_exec_use_the_flags() {
    each(|info, insn| {
        let writes_u = insn.writes().uregs().next().is_some()
            || insn.reg_uses().as_slice().iter().any(|u| u.file == RegFile::U && u.written > 0);
        assert_eq!(writes_u, info.has(flag::UR), "{}", info.mnemonic);
        let e = insn.exec();
        assert_eq!(e.reads, info.has(flag::RE), "{}", info.mnemonic);
        assert_eq!(e.writes, info.has(flag::WE), "{}", info.mnemonic);
        if info.has(flag::EI) {
            assert!(!e.masked, "{}", info.mnemonic);
        }
        if insn.writes().vregs().next().is_some() && !info.has(flag::EI) {
            assert!(e.masked, "{}: a vector write is masked by EXEC", info.mnemonic);
        }
    });
}

#[test]
fn evaluated_fcsr_facts_stay_within_the_static_ones() {
    each(|info, insn| {
        let m = insn.float_modes();
        assert!(info.float_modes.has(m), "{}", info.mnemonic);
        assert_eq!(
            m.is_empty() && info.fmode.iter().all(|t| t.when.is_none()),
            info.float_modes.is_empty(),
            "{}",
            info.mnemonic
        );
        let f = insn.fcsr();
        assert!(!f.reads || info.fcsr.reads, "{}", info.mnemonic);
        assert!(!f.writes || info.fcsr.writes, "{}", info.mnemonic);
        assert_eq!(
            f.reads,
            !m.is_empty()
                || info
                    .fcsr_terms
                    .iter()
                    .any(|t| t.use_.reads && t.when.is_none_or(|w| w.holds(insn.operand_values().as_slice()))),
            "{}",
            info.mnemonic
        );
        assert_eq!(info.float_modes.is_empty(), !info.has(flag::FM), "{}: fm flag and fmode", info.mnemonic);
    });
}

#[test]
fn flows_agree_with_the_flags() {
    for i in INSNS.iter() {
        let moves_pc = !matches!(i.flow, Flow::None | Flow::Trap | Flow::Barrier);
        assert_eq!(moves_pc, i.has(flag::BR), "{}", i.mnemonic);
        assert_eq!(matches!(i.flow, Flow::End | Flow::Barrier), i.has(flag::SY), "{}", i.mnemonic);
        if i.flow == Flow::Trap {
            assert!(i.has(flag::TR), "{}", i.mnemonic);
        }
        if i.group_name != "ctrl" {
            assert_eq!(i.flow, Flow::None, "{}", i.mnemonic);
        }
    }
}

#[test]
fn regset_basics() {
    let mut s = RegSet::new();
    assert!(s.is_empty());
    s.insert_group(RegFile::V, 126, 4); // v126, v127; v128 and v129 are past the file
    s.insert_group(RegFile::U, 62, 8); // u62, u63
    s.insert(RegFile::V, 3);
    assert_eq!(s.len(), 5);
    let all: Vec<Reg> = s.iter().collect();
    assert_eq!(all, vec![Reg::V(VReg(3)), Reg::V(VReg(126)), Reg::V(VReg(127)), Reg::U(UReg(62)), Reg::U(UReg(63))]);
    assert!(s.contains(RegFile::V, 127) && !s.contains(RegFile::V, 128) && !s.contains(RegFile::U, 64));
    let t: RegSet = [Reg::V(VReg(3)), Reg::U(UReg(63))].into_iter().collect();
    assert!(t.is_subset(&s) && !s.is_subset(&t));
    assert_eq!(s.difference(t).len(), 3);
    assert_eq!(s.intersection(t), t);
    assert_eq!(t | s, s);
    assert_eq!(s.vregs().map(|v| v.0).collect::<Vec<_>>(), vec![3, 126, 127]);
}
