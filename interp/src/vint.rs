//! Group 2, vector integer ALU. Each handler is the YAML `en` formula for one lane, applied through the
//! `WaveState::map*` helpers: sources are read whole (in every lane) before rd is written under EXEC, so rd may
//! alias a source (pairs included). Lane functions are plain `fn`s or closures so that the compiler inlines them
//! into the lane loop (no per-lane dispatch).

use crate::ctx::{Ctx, Flow};
use crate::state::Lanes;
use lanejit_isa::{UReg, VReg, VintInsn, LANES};

/// Executes one vector integer instruction on the active lanes of the wave in `cx`.
pub fn exec(cx: &mut Ctx, i: &VintInsn) -> Flow {
    use VintInsn::*;
    match *i {
        // --- R, opcode 0x10
        VAdd { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, u32::wrapping_add),
        VSub { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, u32::wrapping_sub),
        VMul { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, u32::wrapping_mul),
        VMulhi { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, mulhi_s),
        VMulhiU { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, mulhi_u),
        VAnd { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, |a, b| a & b),
        VOr { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, |a, b| a | b),
        VXor { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, |a, b| a ^ b),
        VAndn { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, |a, b| a & !b),
        VOrn { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, |a, b| a | !b),
        VShl { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, shl),
        VShr { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, shr),
        VSra { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, sra),
        VBfeU { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, bfe_u),
        VBfeS { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, bfe_s),
        // --- R, opcode 0x12
        VMin { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, min_s),
        VMax { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, max_s),
        VMinU { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, u32::min),
        VMaxU { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, u32::max),
        VAbsdiff { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, absdiff_s),
        VAbsdiffU { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, u32::abs_diff),
        VAddU64 { rd, rs1, rs2 } => {
            let (a, b) = (pair(cx, rs1), pair(cx, rs2));
            wide(cx, rd, |l| a[l].wrapping_add(b[l]))
        }
        VSubU64 { rd, rs1, rs2 } => {
            let (a, b) = (pair(cx, rs1), pair(cx, rs2));
            wide(cx, rd, |l| a[l].wrapping_sub(b[l]))
        }
        VAddU64U32 { rd, rs1, rs2 } => {
            let (a, b) = (pair(cx, rs1), *cx.w.vr(rs2));
            wide(cx, rd, |l| a[l].wrapping_add(zext(b[l])))
        }
        VAddU64I32 { rd, rs1, rs2 } => {
            let (a, b) = (pair(cx, rs1), *cx.w.vr(rs2));
            wide(cx, rd, |l| a[l].wrapping_add(sext(b[l])))
        }
        VMulWideU32 { rd, rs1, rs2 } => {
            let (a, b) = (*cx.w.vr(rs1), *cx.w.vr(rs2));
            wide(cx, rd, |l| zext(a[l]) * zext(b[l]))
        }
        VMulWideI32 { rd, rs1, rs2 } => {
            let (a, b) = (*cx.w.vr(rs1), *cx.w.vr(rs2));
            wide(cx, rd, |l| sext(a[l]).wrapping_mul(sext(b[l])))
        }
        // --- RU, opcode 0x14: the uniform is always source 2
        VAddVu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, u32::wrapping_add),
        VSubVu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, u32::wrapping_sub),
        VMulVu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, u32::wrapping_mul),
        VMulhiVu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, mulhi_s),
        VMulhiUVu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, mulhi_u),
        VAndVu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, |a, b| a & b),
        VOrVu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, |a, b| a | b),
        VXorVu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, |a, b| a ^ b),
        VAndnVu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, |a, b| a & !b),
        VOrnVu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, |a, b| a | !b),
        VShlVu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, shl),
        VShrVu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, shr),
        VSraVu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, sra),
        VBfeUVu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, bfe_u),
        VBfeSVu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, bfe_s),
        VRsubVu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, |a, u| u.wrapping_sub(a)),
        VMinVu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, min_s),
        VMaxVu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, max_s),
        VMinUVu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, u32::min),
        VMaxUVu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, u32::max),
        VAbsdiffVu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, absdiff_s),
        VAbsdiffUVu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, u32::abs_diff),
        VCndmask { rd, rs1, rs2 } => {
            // rd:v* — lanes whose mask bit is 0 keep rd, exactly like EXEC-inactive lanes.
            let (s, mask) = (*cx.w.vr(rs1), cx.w.ur(rs2) & cx.w.exec);
            cx.w.write_masked(rd, &s, mask);
            Flow::Next
        }
        // --- I8, opcode 0x16: imm arrives sign-extended from 8 bits
        VAddI { rd, rs1, imm } => vk(cx, rd, rs1, imm as u32, u32::wrapping_add),
        VMulI { rd, rs1, imm } => vk(cx, rd, rs1, imm as u32, u32::wrapping_mul),
        VAndI { rd, rs1, imm } => vk(cx, rd, rs1, imm as u32, |a, b| a & b),
        VOrI { rd, rs1, imm } => vk(cx, rd, rs1, imm as u32, |a, b| a | b),
        VXorI { rd, rs1, imm } => vk(cx, rd, rs1, imm as u32, |a, b| a ^ b),
        VShlI { rd, rs1, imm } => vk(cx, rd, rs1, imm as u32, shl),
        VShrI { rd, rs1, imm } => vk(cx, rd, rs1, imm as u32, shr),
        VSraI { rd, rs1, imm } => vk(cx, rd, rs1, imm as u32, sra),
        // --- R1, opcode 0x18
        VMov { rd, rs1 } => un(cx, rd, rs1, |a| a),
        VNot { rd, rs1 } => un(cx, rd, rs1, |a| !a),
        VNeg { rd, rs1 } => un(cx, rd, rs1, u32::wrapping_neg),
        VAbs { rd, rs1 } => un(cx, rd, rs1, |a| (a as i32).wrapping_abs() as u32),
        VPopc { rd, rs1 } => un(cx, rd, rs1, u32::count_ones),
        VClz { rd, rs1 } => un(cx, rd, rs1, u32::leading_zeros),
        VCtz { rd, rs1 } => un(cx, rd, rs1, u32::trailing_zeros),
        VBrev { rd, rs1 } => un(cx, rd, rs1, u32::reverse_bits),
        VSextB { rd, rs1 } => un(cx, rd, rs1, |a| a as u8 as i8 as i32 as u32),
        VSextH { rd, rs1 } => un(cx, rd, rs1, |a| a as u16 as i16 as i32 as u32),
        VZextB { rd, rs1 } => un(cx, rd, rs1, |a| a & 0xff),
        VZextH { rd, rs1 } => un(cx, rd, rs1, |a| a & 0xffff),
        VLaneid { rd } => per_lane(cx, rd, |l| l as u32),
        // --- R1U, opcode 0x1a
        VMovU { rd, rs1 } => {
            let u = cx.w.ur(rs1);
            per_lane(cx, rd, |_| u)
        }
        VMovUB64 { rd, rs1 } => {
            let u = cx.w.u64_pair(rs1);
            wide(cx, rd, |_| u)
        }
        VLanebitU { rd, rs1 } => {
            let u = cx.w.ur(rs1);
            per_lane(cx, rd, |l| u >> l & 1)
        }
        VMbcntU { rd, rs1 } => {
            let u = cx.w.ur(rs1);
            // Computed on 64 bits so that the mask of lanes below lane 31 needs no special case.
            per_lane(cx, rd, |l| (u as u64 & ((1u64 << l) - 1)).count_ones())
        }
        // --- LI, opcodes 0x1c / 0x1e: v.li's imm arrives sign-extended from 18 bits, v.lui's raw
        VLi { rd, imm } => per_lane(cx, rd, |_| imm as u32),
        VLui { rd, imm } => per_lane(cx, rd, |_| imm << 14),
        // --- XL, opcode 0x11: 32-bit literal
        VAddK { rd, rs1, imm } => vk(cx, rd, rs1, imm, u32::wrapping_add),
        VMulK { rd, rs1, imm } => vk(cx, rd, rs1, imm, u32::wrapping_mul),
        VAndK { rd, rs1, imm } => vk(cx, rd, rs1, imm, |a, b| a & b),
        VOrK { rd, rs1, imm } => vk(cx, rd, rs1, imm, |a, b| a | b),
        VXorK { rd, rs1, imm } => vk(cx, rd, rs1, imm, |a, b| a ^ b),
        VMinK { rd, rs1, imm } => vk(cx, rd, rs1, imm, min_s),
        VMaxK { rd, rs1, imm } => vk(cx, rd, rs1, imm, max_s),
        VMinUK { rd, rs1, imm } => vk(cx, rd, rs1, imm, u32::min),
        VMaxUK { rd, rs1, imm } => vk(cx, rd, rs1, imm, u32::max),
        VMovK { rd, imm } => per_lane(cx, rd, |_| imm),
        VRsubK { rd, rs1, imm } => vk(cx, rd, rs1, imm, |a, k| k.wrapping_sub(a)),
        VMulhiK { rd, rs1, imm } => vk(cx, rd, rs1, imm, mulhi_s),
        VMulhiUK { rd, rs1, imm } => vk(cx, rd, rs1, imm, mulhi_u),
        VBfeUK { rd, rs1, imm } => vk(cx, rd, rs1, imm, bfe_u),
        VBfeSK { rd, rs1, imm } => vk(cx, rd, rs1, imm, bfe_s),
        // --- X, opcode 0x13: three sources
        VMadU32 { rd, rs1, rs2, rs3 } => v3(cx, rd, rs1, rs2, rs3, |a, b, c| a.wrapping_mul(b).wrapping_add(c)),
        VMadHiU32 { rd, rs1, rs2, rs3 } => v3(cx, rd, rs1, rs2, rs3, |a, b, c| mulhi_u(a, b).wrapping_add(c)),
        VMadHiI32 { rd, rs1, rs2, rs3 } => v3(cx, rd, rs1, rs2, rs3, |a, b, c| mulhi_s(a, b).wrapping_add(c)),
        VAdd3 { rd, rs1, rs2, rs3 } => v3(cx, rd, rs1, rs2, rs3, |a, b, c| a.wrapping_add(b).wrapping_add(c)),
        VBfi { rd, rs1, rs2, rs3 } => v3(cx, rd, rs1, rs2, rs3, bfi),
        VPrmt { rd, rs1, rs2, rs3 } => v3(cx, rd, rs1, rs2, rs3, prmt),
        VLea { rd, rs1, rs2, sh } => vv(cx, rd, rs1, rs2, |a, b| (a << sh).wrapping_add(b)),
        VLeaU64U32 { rd, rs1, rs2, sh } => {
            let (a, b) = (*cx.w.vr(rs1), pair(cx, rs2));
            wide(cx, rd, |l| b[l].wrapping_add(zext(a[l]) << sh))
        }
        VLeaU64I32 { rd, rs1, rs2, sh } => {
            let (a, b) = (*cx.w.vr(rs1), pair(cx, rs2));
            wide(cx, rd, |l| b[l].wrapping_add(sext(a[l]) << sh))
        }
        VMadWideU32 { rd, rs1, rs2, rs3 } => {
            let (a, b, c) = (*cx.w.vr(rs1), *cx.w.vr(rs2), pair(cx, rs3));
            wide(cx, rd, |l| (zext(a[l]) * zext(b[l])).wrapping_add(c[l]))
        }
        VMadWideI32 { rd, rs1, rs2, rs3 } => {
            let (a, b, c) = (*cx.w.vr(rs1), *cx.w.vr(rs2), pair(cx, rs3));
            wide(cx, rd, |l| sext(a[l]).wrapping_mul(sext(b[l])).wrapping_add(c[l]))
        }
        // --- X, opcode 0x15: v.shf; the const parameter is the entry's f10 (see `shf`)
        VShfLS64 { rd, rs1, rs2, rs3 } => shf::<{ L | S64 }>(cx, rd, rs1, rs2, rs3),
        VShfRS64 { rd, rs1, rs2, rs3 } => shf::<{ R | S64 }>(cx, rd, rs1, rs2, rs3),
        VShfLU64 { rd, rs1, rs2, rs3 } => shf::<{ L | U64 }>(cx, rd, rs1, rs2, rs3),
        VShfRU64 { rd, rs1, rs2, rs3 } => shf::<{ R | U64 }>(cx, rd, rs1, rs2, rs3),
        VShfLS32 { rd, rs1, rs2, rs3 } => shf::<{ L | S32 }>(cx, rd, rs1, rs2, rs3),
        VShfRS32 { rd, rs1, rs2, rs3 } => shf::<{ R | S32 }>(cx, rd, rs1, rs2, rs3),
        VShfLU32 { rd, rs1, rs2, rs3 } => shf::<{ L | U32 }>(cx, rd, rs1, rs2, rs3),
        VShfRU32 { rd, rs1, rs2, rs3 } => shf::<{ R | U32 }>(cx, rd, rs1, rs2, rs3),
        VShfLS64W { rd, rs1, rs2, rs3 } => shf::<{ L | S64 | W }>(cx, rd, rs1, rs2, rs3),
        VShfRS64W { rd, rs1, rs2, rs3 } => shf::<{ R | S64 | W }>(cx, rd, rs1, rs2, rs3),
        VShfLU64W { rd, rs1, rs2, rs3 } => shf::<{ L | U64 | W }>(cx, rd, rs1, rs2, rs3),
        VShfRU64W { rd, rs1, rs2, rs3 } => shf::<{ R | U64 | W }>(cx, rd, rs1, rs2, rs3),
        VShfLS32W { rd, rs1, rs2, rs3 } => shf::<{ L | S32 | W }>(cx, rd, rs1, rs2, rs3),
        VShfRS32W { rd, rs1, rs2, rs3 } => shf::<{ R | S32 | W }>(cx, rd, rs1, rs2, rs3),
        VShfLU32W { rd, rs1, rs2, rs3 } => shf::<{ L | U32 | W }>(cx, rd, rs1, rs2, rs3),
        VShfRU32W { rd, rs1, rs2, rs3 } => shf::<{ R | U32 | W }>(cx, rd, rs1, rs2, rs3),
        VShfLS64Hi { rd, rs1, rs2, rs3 } => shf::<{ L | S64 | HI }>(cx, rd, rs1, rs2, rs3),
        VShfRS64Hi { rd, rs1, rs2, rs3 } => shf::<{ R | S64 | HI }>(cx, rd, rs1, rs2, rs3),
        VShfLU64Hi { rd, rs1, rs2, rs3 } => shf::<{ L | U64 | HI }>(cx, rd, rs1, rs2, rs3),
        VShfRU64Hi { rd, rs1, rs2, rs3 } => shf::<{ R | U64 | HI }>(cx, rd, rs1, rs2, rs3),
        VShfLS32Hi { rd, rs1, rs2, rs3 } => shf::<{ L | S32 | HI }>(cx, rd, rs1, rs2, rs3),
        VShfRS32Hi { rd, rs1, rs2, rs3 } => shf::<{ R | S32 | HI }>(cx, rd, rs1, rs2, rs3),
        VShfLU32Hi { rd, rs1, rs2, rs3 } => shf::<{ L | U32 | HI }>(cx, rd, rs1, rs2, rs3),
        VShfRU32Hi { rd, rs1, rs2, rs3 } => shf::<{ R | U32 | HI }>(cx, rd, rs1, rs2, rs3),
        VShfLS64WHi { rd, rs1, rs2, rs3 } => shf::<{ L | S64 | W | HI }>(cx, rd, rs1, rs2, rs3),
        VShfRS64WHi { rd, rs1, rs2, rs3 } => shf::<{ R | S64 | W | HI }>(cx, rd, rs1, rs2, rs3),
        VShfLU64WHi { rd, rs1, rs2, rs3 } => shf::<{ L | U64 | W | HI }>(cx, rd, rs1, rs2, rs3),
        VShfRU64WHi { rd, rs1, rs2, rs3 } => shf::<{ R | U64 | W | HI }>(cx, rd, rs1, rs2, rs3),
        VShfLS32WHi { rd, rs1, rs2, rs3 } => shf::<{ L | S32 | W | HI }>(cx, rd, rs1, rs2, rs3),
        VShfRS32WHi { rd, rs1, rs2, rs3 } => shf::<{ R | S32 | W | HI }>(cx, rd, rs1, rs2, rs3),
        VShfLU32WHi { rd, rs1, rs2, rs3 } => shf::<{ L | U32 | W | HI }>(cx, rd, rs1, rs2, rs3),
        VShfRU32WHi { rd, rs1, rs2, rs3 } => shf::<{ R | U32 | W | HI }>(cx, rd, rs1, rs2, rs3),
        // --- X, opcode 0x17
        VLop3 { rd, rs1, rs2, rs3, lut } => v3(cx, rd, rs1, rs2, rs3, |a, b, c| lop3(a, b, c, lut)),
    }
}

// ---------------------------------------------------------------------------------------------------------
// Shapes: read the sources whole, compute every lane, write under EXEC.

/// d = f(s1, s2).
#[inline]
fn vv(cx: &mut Ctx, rd: VReg, rs1: VReg, rs2: VReg, f: impl Fn(u32, u32) -> u32) -> Flow {
    cx.w.map2(rd, rs1, rs2, f);
    Flow::Next
}

/// d = f(s1, u2) with a uniform source 2.
#[inline]
fn vu(cx: &mut Ctx, rd: VReg, rs1: VReg, rs2: UReg, f: impl Fn(u32, u32) -> u32) -> Flow {
    let u = cx.w.ur(rs2);
    cx.w.map2s(rd, rs1, u, f);
    Flow::Next
}

/// d = f(s1, k) with an immediate k.
#[inline]
fn vk(cx: &mut Ctx, rd: VReg, rs1: VReg, k: u32, f: impl Fn(u32, u32) -> u32) -> Flow {
    cx.w.map2s(rd, rs1, k, f);
    Flow::Next
}

/// d = f(s1).
#[inline]
fn un(cx: &mut Ctx, rd: VReg, rs1: VReg, f: impl Fn(u32) -> u32) -> Flow {
    cx.w.map1(rd, rs1, f);
    Flow::Next
}

/// d = f(s1, s2, s3).
#[inline]
fn v3(cx: &mut Ctx, rd: VReg, rs1: VReg, rs2: VReg, rs3: VReg, f: impl Fn(u32, u32, u32) -> u32) -> Flow {
    cx.w.map3(rd, rs1, rs2, rs3, f);
    Flow::Next
}

/// d = f(lane), for results that depend only on the lane index and uniform values.
#[inline]
fn per_lane(cx: &mut Ctx, rd: VReg, f: impl Fn(usize) -> u32) -> Flow {
    let out: Lanes = std::array::from_fn(f);
    cx.w.write_v(rd, &out);
    Flow::Next
}

/// The 64-bit values of the even pair starting at `r` (the decoder has rejected odd pairs).
#[inline]
fn pair(cx: &Ctx, r: VReg) -> [u64; LANES] {
    std::array::from_fn(|l| cx.w.v64(r, l))
}

/// Pair result d = f(lane); callers have copied their sources out first, so rd may overlap them.
#[inline]
fn wide(cx: &mut Ctx, rd: VReg, f: impl Fn(usize) -> u64) -> Flow {
    let out: [u64; LANES] = std::array::from_fn(f);
    cx.w.write_v64(rd, &out);
    Flow::Next
}

// ---------------------------------------------------------------------------------------------------------
// Lane functions, one per `en` formula.

#[inline]
fn zext(a: u32) -> u64 {
    a as u64
}

/// Sign-extension to 64 bits, as an unsigned bit pattern (wrapping arithmetic follows).
#[inline]
fn sext(a: u32) -> u64 {
    a as i32 as i64 as u64
}

/// 32-bit shifts use the low 5 bits of the amount.
#[inline]
fn shl(a: u32, n: u32) -> u32 {
    a << (n & 31)
}

#[inline]
fn shr(a: u32, n: u32) -> u32 {
    a >> (n & 31)
}

#[inline]
fn sra(a: u32, n: u32) -> u32 {
    ((a as i32) >> (n & 31)) as u32
}

#[inline]
fn min_s(a: u32, b: u32) -> u32 {
    (a as i32).min(b as i32) as u32
}

#[inline]
fn max_s(a: u32, b: u32) -> u32 {
    (a as i32).max(b as i32) as u32
}

/// Bits 63:32 of the signed 64-bit product.
#[inline]
fn mulhi_s(a: u32, b: u32) -> u32 {
    ((a as i32 as i64 * b as i32 as i64) >> 32) as u32
}

/// Bits 63:32 of the unsigned 64-bit product.
#[inline]
fn mulhi_u(a: u32, b: u32) -> u32 {
    ((a as u64 * b as u64) >> 32) as u32
}

/// |a - b| of the signed values, exact as an unsigned value (absdiff(INT_MAX, INT_MIN) = 0xffffffff).
#[inline]
fn absdiff_s(a: u32, b: u32) -> u32 {
    (a as i32).abs_diff(b as i32)
}

/// The packed bit-field descriptor of bfe/bfi: off = p[4:0], w = p[12:8]; other bits ignored.
#[inline]
fn field(p: u32) -> (u32, u32) {
    (p & 31, p >> 8 & 31)
}

/// Unsigned extract: w <= 31 so the mask fits; bits above 31 read as 0 through the logical shift.
#[inline]
fn bfe_u(a: u32, p: u32) -> u32 {
    let (off, w) = field(p);
    if w == 0 {
        0
    } else {
        (a >> off) & ((1u32 << w) - 1)
    }
}

/// Signed extract: t = a >> off (arithmetic), then sign-extended from bit w-1.
#[inline]
fn bfe_s(a: u32, p: u32) -> u32 {
    let (off, w) = field(p);
    if w == 0 {
        return 0;
    }
    let t = (a as i32) >> off;
    ((t << (32 - w)) >> (32 - w)) as u32
}

/// Insert s1's low w bits into s2 at off; the mask is built on 64 bits and truncated, which drops field
/// bits that would land above bit 31.
#[inline]
fn bfi(field_bits: u32, base: u32, p: u32) -> u32 {
    let (off, w) = field(p);
    let m = (((1u64 << w) - 1) << off) as u32;
    (base & !m) | ((field_bits << off) & m)
}

/// PTX prmt default mode: selector nibble k picks byte n & 7 of s2:s1; n[3] replicates that byte's sign bit.
#[inline]
fn prmt(a: u32, b: u32, sel: u32) -> u32 {
    let bytes = (b as u64) << 32 | a as u64;
    let mut d = 0;
    for k in 0..4 {
        let n = sel >> (4 * k) & 15;
        let byte = (bytes >> (8 * (n & 7))) as u32 & 0xff;
        let byte = if n & 8 == 0 {
            byte
        } else if byte & 0x80 != 0 {
            0xff
        } else {
            0
        };
        d |= byte << (8 * k);
    }
    d
}

/// d[i] = lut[s1[i] s2[i] s3[i]]: the OR of the minterms whose table bit is set (index bit 2 = s1).
#[inline]
fn lop3(a: u32, b: u32, c: u32, lut: u32) -> u32 {
    let pick = |x: u32, on: bool| if on { x } else { !x };
    (0..8)
        .filter(|&k| lut >> k & 1 != 0)
        .fold(0, |d, k| d | pick(a, k & 4 != 0) & pick(b, k & 2 != 0) & pick(c, k & 1 != 0))
}

// v.shf modifier bits, exactly the entries' f10 codes: dir | type << 1 | w << 3 | hi << 4.
const L: u8 = 0;
const R: u8 = 1;
const S64: u8 = 0 << 1;
const U64: u8 = 1 << 1;
const S32: u8 = 2 << 1;
const U32: u8 = 3 << 1;
const W: u8 = 1 << 3;
const HI: u8 = 1 << 4;

/// Funnel shift (seed 004): const-generic over the modifiers so each variant gets its own inlined lane loop.
#[inline]
fn shf<const F: u8>(cx: &mut Ctx, rd: VReg, rs1: VReg, rs2: VReg, rs3: VReg) -> Flow {
    v3(cx, rd, rs1, rs2, rs3, funnel::<F>)
}

/// x = s2:s1; the amount n is clamped (min(s3, 32 or 64)) or wrapped (.w: s3 mod 32 or 64) by the type's
/// width; y = x shifted left, or right (arithmetic for .s32/.s64: copies of s2[31]); d = y[31:0], or y[63:32]
/// for .hi. Shifting by 64 gives 0 (left, logical right) or all sign copies (arithmetic right).
#[inline]
fn funnel<const F: u8>(lo: u32, hi: u32, amount: u32) -> u32 {
    let (right, ty) = (F & R != 0, F & (3 << 1));
    let width: u32 = if ty == S64 || ty == U64 { 64 } else { 32 };
    let n = if F & W != 0 { amount & (width - 1) } else { amount.min(width) };
    let x = (hi as u64) << 32 | lo as u64;
    let y = match (right, ty == S64 || ty == S32) {
        (false, _) => {
            if n >= 64 {
                0
            } else {
                x << n
            }
        }
        (true, false) => {
            if n >= 64 {
                0
            } else {
                x >> n
            }
        }
        (true, true) => ((x as i64) >> n.min(63)) as u64,
    };
    if F & HI != 0 {
        (y >> 32) as u32
    } else {
        y as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lop3_reproduces_its_inputs_and_the_named_tables() {
        let (a, b, c) = (0x1234_5678, 0x9abc_def0, 0x0f0f_3c3c);
        assert_eq!(lop3(a, b, c, 0xf0), a);
        assert_eq!(lop3(a, b, c, 0xcc), b);
        assert_eq!(lop3(a, b, c, 0xaa), c);
        assert_eq!(lop3(a, b, c, 0x96), a ^ b ^ c);
        assert_eq!(lop3(a, b, c, 0xe8), (a & b) | (a & c) | (b & c));
        assert_eq!(lop3(a, b, c, 0x00), 0);
        assert_eq!(lop3(a, b, c, 0xff), u32::MAX);
    }

    #[test]
    fn funnel_rotate_and_limits() {
        // Rotate left of x by n: v.shf.l.w.u32.hi d, x, x, n.
        assert_eq!(funnel::<{ L | U32 | W | HI }>(0x8000_0001, 0x8000_0001, 33), 0x0000_0003);
        assert_eq!(funnel::<{ R | S64 }>(0, 0x8000_0000, 64), u32::MAX);
        assert_eq!(funnel::<{ R | S64 | HI }>(0, 0x8000_0000, 1000), u32::MAX);
        assert_eq!(funnel::<{ L | U64 | HI }>(1, 0, 64), 0);
        assert_eq!(funnel::<{ R | U32 }>(0x1111_1111, 0x2222_2222, 1000), 0x2222_2222);
    }
}
