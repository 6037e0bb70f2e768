//! Hand-picked register and state facts, each taken from an entry's `en` text (or ISA.md), that a wrong
//! generator or a wrong YAML fact would break. Instructions are written in assembly, so the table reads as
//! the ISA does and does not depend on the generated tables it checks.

use lanejit_isa::{
    assemble, decode_raw, float_mode, AtomicOp, Dim, FcsrUse, FloatModes, Flow, Insn, MemInsn, Reg, RegSet, Sp,
    SpaceOf, UReg, VReg,
};

/// The first instruction of `src`.
fn asm(src: &str) -> Insn {
    let p = assemble("t.s", &format!("{src}\nnext:\n  end\n")).unwrap_or_else(|e| panic!("`{src}`:\n{e}"));
    let raw = if p.words[0] & 1 != 0 { p.words[0] as u64 | (p.words[1] as u64) << 32 } else { p.words[0] as u64 };
    decode_raw(raw).unwrap()
}

/// `"v1 v2 u3"` as a register set.
fn set(s: &str) -> RegSet {
    s.split_whitespace()
        .map(|r| match r.split_at(1) {
            ("v", n) => Reg::V(VReg(n.parse().unwrap())),
            ("u", n) => Reg::U(UReg(n.parse().unwrap())),
            _ => panic!("bad register `{r}`"),
        })
        .collect()
}

fn show(s: RegSet) -> String {
    s.iter()
        .map(|r| match r {
            Reg::V(v) => format!("v{}", v.0),
            Reg::U(u) => format!("u{}", u.0),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// (assembly, registers read, registers written)
const REGS: &[(&str, &str, &str)] = &[
    // Plain ALU: the destination is not read.
    ("v.add v1, v2, v3", "v2 v3", "v1"),
    ("v.mad.u32 v1, v2, v3, v4", "v2 v3 v4", "v1"),
    ("v.add.u64 v2:v3, v4:v5, v6:v7", "v4 v5 v6 v7", "v2 v3"),
    ("u.mul.wide.u32 u2:u3, u4, u5", "u4 u5", "u2 u3"),
    // Store data is read, not written (`en`: "rd is the data" / "rd is a source").
    ("st.b32 v5, v6, u8:u9, 0", "v5 v6 u8 u9", ""),
    ("st.b64 v4:v5, v6, u8:u9, 0", "v4 v5 v6 u8 u9", ""),
    ("st.b96 v5, v9, u8:u9, 0", "v5 v6 v7 v9 u8 u9", ""),
    ("st.b128 v8, v2, u4:u5, 0", "v8 v9 v10 v11 v2 u4 u5", ""),
    ("st.a64.b32 v5, v6:v7, 0", "v5 v6 v7", ""),
    ("u.st.b32 u5, u2:u3, 0", "u5 u2 u3", ""),
    ("u.st.b64 u4:u5, u2:u3, 0", "u4 u5 u2 u3", ""),
    // Shared/private: A = u[rs2] + v[rs1] + imm, "u[rs2+1] unread".
    ("st.b32 v5, v6, u8, 0, sp=shared", "v5 v6 u8", ""),
    ("ld.b32 v5, v6, u8, 0, sp=private", "v6 u8", "v5"),
    // Multi-register loads: ld.b96 writes 3 registers, ld.b128 4, u.ld.b256 8.
    ("ld.b96 v5, v1, u2:u3, 0", "v1 u2 u3", "v5 v6 v7"),
    ("ld.b128 v4, v1, u2:u3, 0", "v1 u2 u3", "v4 v5 v6 v7"),
    ("ld.a64.b128 v4, v2:v3, 0", "v2 v3", "v4 v5 v6 v7"),
    ("ld.b64 v4:v5, v1, u2:u3, 0", "v1 u2 u3", "v4 v5"),
    ("ld.u8 v1, v1, u2:u3, 0", "v1 u2 u3", "v1"),
    ("u.ld.b128 u8, u2:u3, 0", "u2 u3", "u8 u9 u10 u11"),
    ("u.ld.b256 u8, u2:u3, 0", "u2 u3", "u8 u9 u10 u11 u12 u13 u14 u15"),
    // A group running past the file keeps the registers inside it (engines trap on the rest).
    ("ld.b96 v126, v1, u2:u3, 0", "v1 u2 u3", "v126 v127"),
    ("u.ld.b256 u60, u2:u3, 0", "u2 u3", "u60 u61 u62 u63"),
    // Atomics return the old value in rd and take their data from rd; cas compares with rd+1, not written.
    ("atom.add.u32 v3, v1, u2:u3, 0", "v3 v1 u2 u3", "v3"),
    ("atom.xchg.b32 v3, v1, u2, 0, sp=shared", "v3 v1 u2", "v3"),
    ("atom.cas.b32 v4:v5, v2, u56:u57, 16", "v4 v5 v2 u56 u57", "v4"),
    ("atom.a64.cas.b32 v4:v5, v2:v3, 0", "v4 v5 v2 v3", "v4"),
    ("atom.a64.fadd.f32 v9, v2:v3, 0", "v9 v2 v3", "v9"),
    // Partial writes read their destination: writelane (other lanes kept), halves (other half kept),
    // v.cndmask (lanes with a 0 mask bit kept), the fma-with-literal accumulators.
    ("writelane v7, u3, 5", "v7 u3", "v7"),
    ("h.add.f16 v1.h, v2.l, v3.h", "v1 v2 v3", "v1"),
    ("h.fma.f16 v1.l, v2.l, v3.h, v4.l", "v1 v2 v3 v4", "v1"),
    ("h.pk.add.f16 v1, v2.l, v3.h", "v2 v3", "v1"),
    ("v.cndmask v1, v2, u3", "v1 v2 u3", "v1"),
    ("f.fma.k.f32 v1, v2, 1.5", "v1 v2", "v1"),
    ("f.fma.ka.f32 v1, v2, 1.5", "v1 v2", "v1"),
    // Compares and reductions write a uniform mask; readlane reads one vector register.
    ("cmp.lt.f64 u4, v2:v3, v6:v7", "v2 v3 v6 v7", "u4"),
    ("cmp.eq.f64.vu u4, v2:v3, u6:u7", "v2 v3 u6 u7", "u4"),
    ("readlane u1, v9, 3", "v9", "u1"),
    // EXEC control and branches.
    ("exec.set u4", "u4", ""),
    ("exec.and.save u1, u2", "u2", "u1"),
    ("exec.wqm", "", ""),
    ("b.nz u7, next", "u7", ""),
    ("jal u10, next", "", "u10"),
    ("jalr u10, u12, 0", "u12", "u10"),
    ("jr u12, 0", "u12", ""),
    ("csr.rw u1, fcsr, u2", "u2", "u1"),
];

#[test]
fn registers_read_and_written() {
    for &(src, r, w) in REGS {
        let i = asm(src);
        assert_eq!(show(i.reads()), show(set(r)), "reads of `{src}`");
        assert_eq!(show(i.writes()), show(set(w)), "writes of `{src}`");
    }
}

const F_RM: FloatModes = float_mode::FRM;
const F32: FloatModes = float_mode::FTZ32;
const F16: FloatModes = float_mode::FTZ16;
const NONE: FloatModes = FloatModes::NONE;

/// (assembly, float modes the result depends on): `en` names fcsr.frm for rm = dyn (the default) and for the
/// literal forms, and the flush bits of the formats read or produced.
const MODES: &[(&str, FloatModes)] = &[
    ("f.add.f32 v1, v2, v3", FloatModes(F_RM.0 | F32.0)),
    ("f.add.f32 v1, v2, v3, rm=rtz", F32),
    ("f.fma.f32 v1, v2, v3, v4, rm=dyn", FloatModes(F_RM.0 | F32.0)),
    ("f.div.f64 v2:v3, v4:v5, v6:v7", F_RM),
    ("f.div.f64 v2:v3, v4:v5, v6:v7, rm=rne", NONE),
    ("f.min.f32 v1, v2, v3", F32),
    ("f.min.f64 v2:v3, v4:v5, v6:v7", NONE),
    ("f.add.k.f32 v1, v2, 2.0", FloatModes(F_RM.0 | F32.0)),
    ("f.cvt.f32.i32 v1, v2", F_RM),
    ("f.cvt.f32.i32 v1, v2, rm=rtz", NONE),
    ("f.cvt.f64.i32 v2:v3, v4", NONE),
    ("f.cvt.i32.f32 v1, v2, rm=rtz", F32),
    ("f.cvt.f16.f32 v1, v2", FloatModes(F_RM.0 | F32.0 | F16.0)),
    ("f.cvt.f32.f16 v1, v2", F16),
    ("f.cvt.f16.f64 v1, v2:v3, rm=rne", F16),
    ("f.cvt.i32.f64 v1, v2:v3", F_RM),
    ("f.rcp.f32 v1, v2", F32),
    ("f.sin.f32 v1, v2", F32),
    ("h.add.f16 v1.l, v2.l, v3.l", FloatModes(F_RM.0 | F16.0)),
    ("h.pk.mul.f16 v1, v2.l, v3.l, rm=rup", F16),
    ("h.max.f16 v1.l, v2.l, v3.l", F16),
    ("fddx.fine.f32 v1, v2", FloatModes(F_RM.0 | F32.0)),
    // "whatever fcsr" / "fcsr is not consulted" / "No conversion depends on fcsr".
    ("atom.fadd.f32 v9, v1, u2:u3, 0", NONE),
    ("cmp.lt.f32 u1, v2, v3", NONE),
    ("hcmp.lt.f16 u1, v2.l, v3.h", NONE),
    ("v.add v1, v2, v3", NONE),
];

#[test]
fn float_modes_and_fcsr_reads() {
    for &(src, want) in MODES {
        let i = asm(src);
        assert_eq!(i.float_modes(), want, "float modes of `{src}`");
        assert_eq!(i.fcsr(), FcsrUse { reads: !want.is_empty(), writes: false }, "fcsr of `{src}`");
    }
    // The fcsr layout of group 1: rm in bits 2:0, f32 flush bit 3, f16 flush bit 4.
    assert_eq!(asm("f.add.f32 v1, v2, v3").float_modes().fcsr_mask(), 0x0f);
    assert_eq!(asm("h.add.f16 v1.l, v2.l, v3.l, rm=rne").float_modes().fcsr_mask(), 0x10);
}

#[test]
fn csr_instructions_touch_fcsr_only_when_they_name_it() {
    let rw = FcsrUse { reads: true, writes: true };
    let r = FcsrUse { reads: true, writes: false };
    let none = FcsrUse::default();
    for (src, want) in [
        ("csr.rw u1, fcsr, u2", rw),
        ("csr.rs u1, fcsr, u2", rw),
        ("csr.rc u1, fcsr, u2", rw),
        ("csr.rwi u1, fcsr, 3", rw),
        ("csr.rsi u1, fcsr, 8", rw),
        ("csr.rci u1, fcsr, 16", rw),
        ("csr.r u1, fcsr", r),
        ("csr.r u1, cycle", none),
        ("csr.rw u1, wave_id, u2", none), // traps: read-only CSR
        ("u.add u1, u2, u3", none),
    ] {
        assert_eq!(asm(src).fcsr(), want, "fcsr of `{src}`");
    }
}

#[test]
fn exec_reads_and_writes() {
    for (src, masked, reads, writes) in [
        ("exec.set u4", false, false, true),
        ("exec.and.save u1, u2", false, true, true),
        ("exec.andn.save u1, u2", false, true, true),
        ("exec.or.save u1, u2", false, true, true),
        ("exec.wqm", false, true, true),
        ("exec.elect u1", false, true, true),
        ("exec.get u1", false, true, false),
        ("j.execz next", false, true, false),
        ("cmp.lt.i32 u1, v2, v3", false, true, false),
        ("ballot u1, v2", false, true, false),
        ("xscan.add.u32 v1, v2", true, true, false),
        ("v.add v1, v2, v3", true, false, false),
        ("st.b32 v5, v6, u8:u9, 0", true, false, false),
        ("writelane v7, u3, 5", false, false, false), // ignores EXEC
        ("readlane u1, v9, 3", false, false, false),
        ("u.ld.b32 u1, u2:u3, 0", false, false, false), // once per wave whatever EXEC
        ("u.add u1, u2, u3", false, false, false),
    ] {
        let e = asm(src).exec();
        assert_eq!((e.masked, e.reads, e.writes), (masked, reads, writes), "EXEC use of `{src}`");
    }
}

/// Which EXEC writers only ever remove lanes (`exec: shrinks`), read from each entry's `en` formula.
#[test]
fn exec_writers_that_only_shrink() {
    for (src, shrinks) in [
        ("exec.set u4", false),          // EXEC = u[rs1]
        ("exec.and.save u1, u2", true),  // old & m
        ("exec.andn.save u1, u2", true), // old & ~m
        ("exec.or.save u1, u2", false),  // old | m
        ("exec.wqm", false),             // whole quads join
        ("exec.elect u1", true),         // old & -old
        ("exec.get u1", false),          // no write
    ] {
        assert_eq!(asm(src).exec().shrinks, shrinks, "`{src}`");
    }
}

/// Which instructions read their vector sources only in active lanes (`lanes: active`), from each `en` text.
#[test]
fn instructions_that_read_only_active_lanes() {
    for (src, active) in [
        ("xred.add.u32 u1, v2", true),      // over active lanes
        ("xscan.add.u32 v1, v2", true),     // over active j <= lane
        ("ballot u1, v2", true),            // lanes in EXEC
        ("vote.eq u1, v2", true),           // equal in all active lanes
        ("cmp.lt.u32.vu u1, v2, u3", true), // bit i: lane i in EXEC and ...
        ("readfirst u1, v2", false),        // lane 0 when EXEC = 0
        ("shfl.idx v1, v2, v3", false),     // any source lane
        ("v.add v1, v2, v3", false),        // masked lane-wise: no need to say
    ] {
        assert_eq!(asm(src).exec().active_reads, active, "`{src}`");
    }
}

#[test]
fn control_flow_kinds() {
    for (src, want) in [
        ("end", Flow::End),
        ("j next", Flow::Jump),
        ("barrier", Flow::Barrier),
        ("j.execnz next", Flow::Branch),
        ("b.lt u1, next", Flow::Branch),
        ("jal u10, next", Flow::Call),
        ("jr u10, 0", Flow::JumpIndirect),
        ("jalr u10, u12, 0", Flow::CallIndirect),
        ("trap 7", Flow::Trap),
        ("brk", Flow::Trap),
        ("nop", Flow::None),
        ("wait vm=0", Flow::None),
        ("fence scope=device", Flow::None),
        ("exec.set u4", Flow::None),
        ("st.b32 v5, v6, u8:u9, 0", Flow::None),
    ] {
        assert_eq!(asm(src).flow(), want, "flow of `{src}`");
    }
}

#[test]
fn access_descriptors() {
    let acc = |src: &str| asm(src).id().info().access.unwrap_or_else(|| panic!("`{src}` has no access"));
    let a = acc("ld.s16 v1, v2, u2:u3, 0");
    assert_eq!((a.bytes, a.signed, a.align, a.data, a.atomic), (2, true, 2, 0, None));
    let a = acc("ld.b96 v5, v1, u2:u3, 0");
    assert_eq!((a.bytes, a.align), (12, 4), "b96 is 4-aligned (tightly packed 12-byte elements)");
    assert_eq!(acc("atom.cas.b32 v4:v5, v2, u56:u57, 16").atomic, Some(AtomicOp::Cas));
    assert_eq!(acc("atom.a64.min.i32 v4, v2:v3, 0").atomic, Some(AtomicOp::MinI32));
    assert_eq!(acc("atom.fadd.f32 v4, v2, u2:u3, 0").atomic, Some(AtomicOp::FaddF32));
    assert_eq!(acc("u.ld.b32 u1, u2:u3, 0").space, SpaceOf::Fixed(Sp::Global));
    assert_eq!(acc("ld.u8 v1, v2, u4, 0, sp=shared").space, SpaceOf::Operand(4));
    assert_eq!(asm("ld.u8 v1, v2, u4, 0, sp=shared").mem_space(), Some(Sp::Shared));
    assert_eq!(asm("st.a64.b8 v1, v2:v3, 0").mem_space(), Some(Sp::Global));
    assert_eq!(asm("v.add v1, v2, v3").mem_space(), None);
    let img = asm("img.load v1, v2, u8, 2d").id().info();
    assert!(img.access.is_none() && img.image.is_some_and(|i| i.space == SpaceOf::Fixed(Sp::Global) && i.data == 0));
    assert!(asm("img.query v1, u8, 2d").id().info().image.is_none(), "img.query reads no memory");
}

/// Coordinates per dim, from the image entries' `en`: nc = 1 (1d), 2 (2d), 3 (3d), 2 (1d_array), 3 (2d_array).
fn coords(dim: Dim) -> usize {
    match dim {
        Dim::D1d => 1,
        Dim::D2d | Dim::D1dArray => 2,
        Dim::D3d | Dim::D2dArray => 3,
    }
}

fn group(first: usize, n: usize, v: bool) -> Vec<Reg> {
    (first..first + n).map(|r| if v { Reg::V(VReg(r as u8)) } else { Reg::U(UReg(r as u8)) }).collect()
}

/// Every dim, dmask and flag combination of the image ops against the `en` text's register counts:
/// data nr = n or ceil(n/2) with d16, + 1 status register with rsd (img.load); coordinates ncr = nc or
/// ceil(nc/2) with a16, + 1 offset register with voff; descriptor u[rs3..rs3+7].
#[test]
fn image_groups_follow_dmask_d16_a16_rsd_voff_and_dim() {
    let (rd, rs1, rs3) = (VReg(20), VReg(40), UReg(8));
    for dim in Dim::ALL {
        for dmask in 1u8..16 {
            for bits in 0..16u32 {
                let [d16, a16, rsd, voff] = std::array::from_fn(|k| bits >> k & 1 != 0);
                let n = dmask.count_ones() as usize;
                let nr = if d16 { n.div_ceil(2) } else { n };
                let nc = coords(dim);
                let ncr = if a16 { nc.div_ceil(2) } else { nc } + voff as usize;
                let desc = group(8, 8, false);
                let coords_g = group(40, ncr, true);
                let cases = [
                    (
                        Insn::Mem(MemInsn::ImgLoad { rd, rs1, rs3, dim, toff: 0, dmask, d16, a16, rsd, voff }),
                        nr + rsd as usize,
                        false,
                    ),
                    (Insn::Mem(MemInsn::ImgSample { rd, rs1, rs3, dim, toff: 0, dmask, d16, a16, voff }), nr, false),
                    (Insn::Mem(MemInsn::ImgStore { rd, rs1, rs3, dim, toff: 0, dmask, d16, a16, voff }), nr, true),
                ];
                for (insn, data, store) in cases {
                    let mut reads: RegSet = coords_g.iter().chain(&desc).copied().collect();
                    let data_g: RegSet = group(20, data, true).into_iter().collect();
                    let writes = if store { RegSet::new() } else { data_g };
                    if store {
                        reads |= data_g;
                    }
                    assert_eq!(show(insn.reads()), show(reads), "reads of {insn:?}");
                    assert_eq!(show(insn.writes()), show(writes), "writes of {insn:?}");
                }
            }
            let q = Insn::Mem(MemInsn::ImgQuery { rd, rs3, dim, dmask });
            assert_eq!(show(q.writes()), show(group(20, dmask.count_ones() as usize, true).into_iter().collect()));
            assert_eq!(show(q.reads()), show(group(8, 8, false).into_iter().collect()));
        }
    }
}

#[test]
fn a_few_image_widths_by_hand() {
    // rgba, 32-bit: 4 registers; rgba with d16: 2; rg b with d16: 2 (the last one half used); r with rsd: 2.
    for (src, want) in [
        ("img.load v10, v2, u8, 2d, dmask=rgba", "v10 v11 v12 v13"),
        ("img.load v10, v2, u8, 2d, dmask=rgba, d16", "v10 v11"),
        ("img.load v10, v2, u8, 2d, dmask=rgb, d16", "v10 v11"),
        ("img.load v10, v2, u8, 2d, dmask=r, rsd", "v10 v11"),
        ("img.load v10, v2, u8, 1d, dmask=g", "v10"),
        ("img.sample v10, v2, u8, 3d, dmask=ra", "v10 v11"),
    ] {
        assert_eq!(show(asm(src).writes()), want, "writes of `{src}`");
    }
    // 3d coordinates: 3 registers, 2 with a16, one more with voff.
    assert_eq!(show(asm("img.load v10, v2, u8, 3d").reads()), "v2 v3 v4 u8 u9 u10 u11 u12 u13 u14 u15");
    assert_eq!(show(asm("img.load v10, v2, u8, 3d, a16, voff").reads()), "v2 v3 v4 u8 u9 u10 u11 u12 u13 u14 u15");
    assert_eq!(show(asm("img.load v10, v2, u8, 2d_array, a16").reads()), "v2 v3 u8 u9 u10 u11 u12 u13 u14 u15");
}

/// The wait counter each access raises (`Insn::counter`): the latency's, or `ls` for shared memory, as every
/// M-format `en` text says ("Raises vm (ls instead if sp = shared)") and the latency term states.
#[test]
fn the_counter_follows_the_memory_space() {
    use lanejit_isa::Counter::{Ls, Sfu, Sm, Vm, Vst};
    let cases = [
        ("ld.b32 v1, v2, u4, 0", Some(Vm)),
        ("ld.b32 v1, v2, u4, 0, sp=shared", Some(Ls)),
        ("ld.b32 v1, v2, u4, 0, sp=private", Some(Vm)),
        ("ld.b32 v1, v2, u4, 0, sp=constant", Some(Vm)),
        ("st.b32 v1, v2, u4, 0", Some(Vst)),
        ("st.b64 v2, v1, u4, 0, sp=shared", Some(Ls)),
        ("atom.add.u32 v1, v2, u4, 0", Some(Vm)),
        ("atom.add.u32 v1, v2, u4, 0, sp=shared", Some(Ls)),
        ("ld.a64.b32 v1, v2, 0", Some(Vm)),
        ("st.a64.b32 v1, v2, 0", Some(Vst)),
        ("u.ld.b32 u1, u2, 0", Some(Sm)),
        ("f.rcp.f32 v1, v2", Some(Sfu)),
        ("v.add v1, v2, v3", None),
        ("wait vm=0", None),
    ];
    for (src, want) in cases {
        assert_eq!(asm(src).counter(), want, "`{src}`");
    }
}
