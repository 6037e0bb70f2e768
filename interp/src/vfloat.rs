//! Group 3, vector float ALU (isa-spec/groups/3-vfloat.yaml). Every float operation goes through the bit-exact
//! helpers in `crate::fp`; this file only adds what the YAML puts around them: the source modifiers (input
//! flush, then |x| per `abs` bit, then -x per `neg` bit, on the sign bit only), `sat`, f64 register pairs and
//! the f16 halves. Sources are read in every lane before rd is written; results go to EXEC-active lanes.
//! Odd pair registers and set bits of absent sources' modifiers are rejected by the decoder, so nothing here
//! traps.

use crate::ctx::{Ctx, Flow};
use crate::fp::{self, FpMode};
use crate::fpmode::{dyn_mode, mode};
use crate::state::Lanes;
use lanejit_isa::{Rm, SignOp, SrcMods, VReg, VfloatInsn, LANES};

/// Executes one vector float instruction on the active lanes of the wave in `cx`.
pub fn exec(cx: &mut Ctx, i: &VfloatInsn) -> Flow {
    use VfloatInsn::*;
    let fcsr = cx.w.fcsr;
    let dm = dyn_mode(fcsr);
    // The mode of an instruction's rm operand (dyn: fcsr.frm), with fcsr's flush bits.
    let rmode = |rm: Rm| mode(rm, fcsr);
    match *i {
        // --- f32 arithmetic
        FAddF32 { rd, rs1, rs2, neg, abs, sat, rm } => {
            bin32(cx, rd, rs1, rs2, mods(neg, abs, sat), rmode(rm), fp::f32_add)
        }
        FSubF32 { rd, rs1, rs2, neg, abs, sat, rm } => {
            bin32(cx, rd, rs1, rs2, mods(neg, abs, sat), rmode(rm), fp::f32_sub)
        }
        FMulF32 { rd, rs1, rs2, neg, abs, sat, rm } => {
            bin32(cx, rd, rs1, rs2, mods(neg, abs, sat), rmode(rm), fp::f32_mul)
        }
        FDivF32 { rd, rs1, rs2, neg, abs, sat, rm } => {
            bin32(cx, rd, rs1, rs2, mods(neg, abs, sat), rmode(rm), fp::f32_div)
        }
        FMinF32 { rd, rs1, rs2, neg, abs, sat } => bin32(cx, rd, rs1, rs2, mods(neg, abs, sat), dm, fp::f32_min),
        FMaxF32 { rd, rs1, rs2, neg, abs, sat } => bin32(cx, rd, rs1, rs2, mods(neg, abs, sat), dm, fp::f32_max),
        FSqrtF32 { rd, rs1, neg, abs, sat, rm } => {
            let (md, m) = (mods(neg, abs, sat), rmode(rm));
            cx.w.map1(rd, rs1, |a| md.sat32(fp::f32_sqrt(md.src32(0, a, m), m)));
            Flow::Next
        }
        FFmaF32 { rd, rs1, rs2, rs3, neg, abs, sat, rm } => {
            let (md, m) = (mods(neg, abs, sat), rmode(rm));
            cx.w.map3(rd, rs1, rs2, rs3, |a, b, c| {
                md.sat32(fp::f32_fma(md.src32(0, a, m), md.src32(1, b, m), md.src32(2, c, m), m))
            });
            Flow::Next
        }
        // --- f64 arithmetic on pairs
        FAddF64 { rd, rs1, rs2, neg, abs, sat, rm } => {
            bin64(cx, rd, rs1, rs2, mods(neg, abs, sat), rmode(rm), fp::f64_add)
        }
        FSubF64 { rd, rs1, rs2, neg, abs, sat, rm } => {
            bin64(cx, rd, rs1, rs2, mods(neg, abs, sat), rmode(rm), fp::f64_sub)
        }
        FMulF64 { rd, rs1, rs2, neg, abs, sat, rm } => {
            bin64(cx, rd, rs1, rs2, mods(neg, abs, sat), rmode(rm), fp::f64_mul)
        }
        FDivF64 { rd, rs1, rs2, neg, abs, sat, rm } => {
            bin64(cx, rd, rs1, rs2, mods(neg, abs, sat), rmode(rm), fp::f64_div)
        }
        FMinF64 { rd, rs1, rs2, neg, abs, sat } => bin64(cx, rd, rs1, rs2, mods(neg, abs, sat), dm, fp::f64_min),
        FMaxF64 { rd, rs1, rs2, neg, abs, sat } => bin64(cx, rd, rs1, rs2, mods(neg, abs, sat), dm, fp::f64_max),
        FSqrtF64 { rd, rs1, neg, abs, sat, rm } => {
            let (md, m) = (mods(neg, abs, sat), rmode(rm));
            let a = pairs(cx, rs1);
            write64(cx, rd, |l| md.sat64(fp::f64_sqrt(md.src64(0, a[l]), m)))
        }
        FFmaF64 { rd, rs1, rs2, rs3, neg, abs, sat, rm } => {
            let (md, m) = (mods(neg, abs, sat), rmode(rm));
            let (a, b, c) = (pairs(cx, rs1), pairs(cx, rs2), pairs(cx, rs3));
            write64(cx, rd, |l| md.sat64(fp::f64_fma(md.src64(0, a[l]), md.src64(1, b[l]), md.src64(2, c[l]), m)))
        }
        // --- conversions
        FCvtF32I32 { rd, rs1, rm } => conv(cx, rd, rs1, |x| fp::i32_to_f32(x as i32, rmode(rm))),
        FCvtF32U32 { rd, rs1, rm } => conv(cx, rd, rs1, |x| fp::u32_to_f32(x, rmode(rm))),
        FCvtI32F32 { rd, rs1, neg, abs, rm } => {
            let (md, m) = (mods(neg, abs, false), rmode(rm));
            conv(cx, rd, rs1, |x| fp::f32_to_i32(md.src32(0, x, m), m) as u32)
        }
        FCvtU32F32 { rd, rs1, neg, abs, rm } => {
            let (md, m) = (mods(neg, abs, false), rmode(rm));
            conv(cx, rd, rs1, |x| fp::f32_to_u32(md.src32(0, x, m), m))
        }
        FCvtF16F32 { rd, rs1, neg, abs, rm } => {
            let (md, m) = (mods(neg, abs, false), rmode(rm));
            conv(cx, rd, rs1, |x| fp::f32_to_f16(md.src32(0, x, m), m) as u32)
        }
        FCvtF32F16 { rd, rs1, neg, abs } => {
            let md = mods(neg, abs, false);
            conv(cx, rd, rs1, |x| fp::f16_to_f32(md.src16(0, x as u16, dm), dm))
        }
        FCvtPkF16F32 { rd, rs1, rs2, neg, abs, rm } => {
            let (md, m) = (mods(neg, abs, false), rmode(rm));
            cx.w.map2(rd, rs1, rs2, |a, b| {
                let lo = fp::f32_to_f16(md.src32(0, a, m), m) as u32;
                let hi = fp::f32_to_f16(md.src32(1, b, m), m) as u32;
                lo | hi << 16
            });
            Flow::Next
        }
        FCvtF64F32 { rd, rs1, neg, abs } => {
            let md = mods(neg, abs, false);
            let a = *cx.w.vr(rs1);
            write64(cx, rd, |l| fp::f32_to_f64(md.src32(0, a[l], dm), dm))
        }
        FCvtF64I32 { rd, rs1 } => {
            let a = *cx.w.vr(rs1);
            write64(cx, rd, |l| fp::i32_to_f64(a[l] as i32))
        }
        FCvtF64U32 { rd, rs1 } => {
            let a = *cx.w.vr(rs1);
            write64(cx, rd, |l| fp::u32_to_f64(a[l]))
        }
        FCvtF32F64 { rd, rs1, neg, abs, rm } => from64(cx, rd, rs1, mods(neg, abs, false), rmode(rm), fp::f64_to_f32),
        FCvtI32F64 { rd, rs1, neg, abs, rm } => {
            from64(cx, rd, rs1, mods(neg, abs, false), rmode(rm), |x, m| fp::f64_to_i32(x, m) as u32)
        }
        FCvtU32F64 { rd, rs1, neg, abs, rm } => from64(cx, rd, rs1, mods(neg, abs, false), rmode(rm), fp::f64_to_u32),
        FCvtF16F64 { rd, rs1, neg, abs, rm } => {
            from64(cx, rd, rs1, mods(neg, abs, false), rmode(rm), |x, m| fp::f64_to_f16(x, m) as u32)
        }
        // --- f32 with a literal: no modifiers, no rm (always fcsr.frm)
        FAddKF32 { rd, rs1, imm } => {
            cx.w.map2s(rd, rs1, imm, |a, k| fp::f32_add(a, k, dm));
            Flow::Next
        }
        FMulKF32 { rd, rs1, imm } => {
            cx.w.map2s(rd, rs1, imm, |a, k| fp::f32_mul(a, k, dm));
            Flow::Next
        }
        FFmaKF32 { rd, rs1, imm } => {
            // d = s1 * k + d: rd is also a source (old value), read in full by map2 before the write.
            cx.w.map2(rd, rs1, rd, |a, d| fp::f32_fma(a, imm, d, dm));
            Flow::Next
        }
        FFmaKaF32 { rd, rs1, imm } => {
            // d = d * s1 + k (a Horner step).
            cx.w.map2(rd, rd, rs1, |d, a| fp::f32_fma(d, a, imm, dm));
            Flow::Next
        }
        // --- transcendental (sfu): round to nearest even whatever fcsr.frm says; the flush bits apply
        FRcpF32 { rd, rs1 } => conv(cx, rd, rs1, |x| fp::f32_rcp(x, dm)),
        FRsqF32 { rd, rs1 } => conv(cx, rd, rs1, |x| fp::f32_rsq(x, dm)),
        FExp2F32 { rd, rs1 } => conv(cx, rd, rs1, |x| fp::f32_exp2(x, dm)),
        FLog2F32 { rd, rs1 } => conv(cx, rd, rs1, |x| fp::f32_log2(x, dm)),
        FSinF32 { rd, rs1 } => conv(cx, rd, rs1, |x| fp::f32_sin_turns(x, dm)),
        FCosF32 { rd, rs1 } => conv(cx, rd, rs1, |x| fp::f32_cos_turns(x, dm)),
        // --- rounding to an integral value (exact; only the input flush matters), fract
        FFloorF32 { rd, rs1 } => conv(cx, rd, rs1, |x| fp::f32_floor(x, dm)),
        FCeilF32 { rd, rs1 } => conv(cx, rd, rs1, |x| fp::f32_ceil(x, dm)),
        FTruncF32 { rd, rs1 } => conv(cx, rd, rs1, |x| fp::f32_trunc(x, dm)),
        FRoundF32 { rd, rs1 } => conv(cx, rd, rs1, |x| fp::f32_round_even(x, dm)),
        FFractF32 { rd, rs1 } => conv(cx, rd, rs1, |x| fp::f32_fract(x, dm)),
    }
}

const SIGN16: u16 = 1 << 15;
const EXP16: u16 = 0x7c00;
const SIGN32: u32 = 1 << 31;
const EXP32: u32 = 0x7f80_0000;
const ONE32: u32 = 0x3f80_0000;
const SIGN64: u64 = 1 << 63;
const EXP64: u64 = 0x7ff0_0000_0000_0000;
const ONE64: u64 = 0x3ff0_0000_0000_0000;

fn mods(neg: u8, abs: u8, sat: bool) -> Mods {
    Mods(SrcMods::new(neg, abs, sat))
}

/// The modifier operands of one instruction, decoded by `lanejit_isa::SrcMods`.
#[derive(Clone, Copy)]
struct Mods(SrcMods);

impl Mods {
    /// Source `i`'s modifiers applied to the sign bit `sign` (so NaN and zeros are modified too).
    fn sign_ops<T>(self, i: u32, x: T, sign: T) -> T
    where
        T: Copy
            + std::ops::BitAnd<Output = T>
            + std::ops::BitOr<Output = T>
            + std::ops::BitXor<Output = T>
            + std::ops::Not<Output = T>,
    {
        match self.0.sign_op(i as usize) {
            SignOp::Keep => x,
            SignOp::Clear => x & !sign,
            SignOp::Set => x | sign,
            SignOp::Flip => x ^ sign,
        }
    }

    /// f32 source i: fcsr.ftz32 input flush (a subnormal becomes its signed zero), then the modifiers.
    fn src32(self, i: u32, x: u32, m: FpMode) -> u32 {
        let x = if m.flush32 && x & EXP32 == 0 { x & SIGN32 } else { x };
        self.sign_ops(i, x, SIGN32)
    }

    /// f16 source i (low half of the register): fcsr.ftz16 input flush, then the modifiers.
    fn src16(self, i: u32, x: u16, m: FpMode) -> u16 {
        let x = if m.flush16 && x & EXP16 == 0 { x & SIGN16 } else { x };
        self.sign_ops(i, x, SIGN16)
    }

    /// f64 source i: never flushed, only the modifiers.
    fn src64(self, i: u32, x: u64) -> u64 {
        self.sign_ops(i, x, SIGN64)
    }

    /// sat on an f32 result, applied last: NaN and every negative (-0 included) give +0, above 1.0 gives 1.0.
    /// On non-negative non-NaN patterns the unsigned bit order is the numeric order.
    fn sat32(self, d: u32) -> u32 {
        let nan = d & !SIGN32 > EXP32;
        match self.0.sat {
            false => d,
            true if nan || d & SIGN32 != 0 => 0,
            true => d.min(ONE32),
        }
    }

    /// sat on an f64 result (as `sat32`).
    fn sat64(self, d: u64) -> u64 {
        let nan = d & !SIGN64 > EXP64;
        match self.0.sat {
            false => d,
            true if nan || d & SIGN64 != 0 => 0,
            true => d.min(ONE64),
        }
    }
}

/// A binary float operation of `fp` on raw bits.
type Op32 = fn(u32, u32, FpMode) -> u32;
type Op64 = fn(u64, u64, FpMode) -> u64;

/// Two-source f32 op with modifiers and sat.
fn bin32(cx: &mut Ctx, rd: VReg, rs1: VReg, rs2: VReg, md: Mods, m: FpMode, op: Op32) -> Flow {
    cx.w.map2(rd, rs1, rs2, |a, b| md.sat32(op(md.src32(0, a, m), md.src32(1, b, m), m)));
    Flow::Next
}

/// Two-source f64 op on register pairs with modifiers and sat.
fn bin64(cx: &mut Ctx, rd: VReg, rs1: VReg, rs2: VReg, md: Mods, m: FpMode, op: Op64) -> Flow {
    let (a, b) = (pairs(cx, rs1), pairs(cx, rs2));
    write64(cx, rd, |l| md.sat64(op(md.src64(0, a[l]), md.src64(1, b[l]), m)))
}

/// f64 source (pair) to a 32-bit result, with modifiers and the instruction's rounding mode.
fn from64(cx: &mut Ctx, rd: VReg, rs1: VReg, md: Mods, m: FpMode, op: impl Fn(u64, FpMode) -> u32) -> Flow {
    let a = pairs(cx, rs1);
    let out: Lanes = std::array::from_fn(|l| op(md.src64(0, a[l]), m));
    cx.w.write_v(rd, &out);
    Flow::Next
}

/// One 32-bit source to a 32-bit result, lane-wise.
fn conv(cx: &mut Ctx, rd: VReg, rs1: VReg, f: impl Fn(u32) -> u32) -> Flow {
    cx.w.map1(rd, rs1, f);
    Flow::Next
}

/// Every lane of the f64 pair starting at `r` (read before any write, so rd may alias it).
fn pairs(cx: &Ctx, r: VReg) -> [u64; LANES] {
    std::array::from_fn(|l| cx.w.v64(r, l))
}

/// Writes the 64-bit result `f(lane)` to the pair at `rd` in the EXEC-active lanes.
fn write64(cx: &mut Ctx, rd: VReg, f: impl Fn(usize) -> u64) -> Flow {
    let out: [u64; LANES] = std::array::from_fn(f);
    cx.w.write_v64(rd, &out);
    Flow::Next
}
