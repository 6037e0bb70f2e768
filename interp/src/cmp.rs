//! Group 4, compare and half (isa-spec/groups/4-cmp.yaml). Compares write a uniform lane mask: bit i is the
//! result in lane i when lane i is in EXEC, 0 otherwise. Sources are copied out whole (every lane) first.
//!
//! Every compare is "an ordering, then a condition on it": `Cond::holds(Option<Ordering>)`, with `None` for
//! unordered (a NaN operand). Float orderings and classes work on bit patterns only (no host floats, no
//! fcsr: compares never flush), so every engine can reproduce them exactly. The f16 arithmetic goes through
//! the shared bit-exact helpers in `crate::fp`.

use crate::ctx::{Ctx, Flow};
use crate::fp::{self, Fmt, D, H, S};
use crate::fpmode::{dyn_mode, mode};
use crate::state::{lane_on, Lanes};
use lanejit_isa::{CmpInsn, SignOp, SrcMods as Mods, UReg, VHalf, VReg, LANES};
use std::cmp::Ordering;

/// Compare condition (the low three bits of the C/CU function field, in the same order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cond {
    /// Equal (false when unordered).
    Eq,
    /// Not equal (true when unordered).
    Ne,
    /// Less than.
    Lt,
    /// Less than or equal.
    Le,
    /// Greater than.
    Gt,
    /// Greater than or equal.
    Ge,
    /// Ordered: neither operand is NaN.
    O,
    /// Unordered: at least one operand is NaN.
    U,
}

impl Cond {
    /// Whether the condition holds for an ordering (`None` = unordered). `ne` and `u` are the only conditions
    /// true when unordered, like C's `!=` and RISC-V's NaN-false `flt`/`fle`/`feq`.
    pub fn holds(self, ord: Option<Ordering>) -> bool {
        use Ordering::*;
        match self {
            Cond::Eq => ord == Some(Equal),
            Cond::Ne => ord != Some(Equal),
            Cond::Lt => ord == Some(Less),
            Cond::Le => matches!(ord, Some(Less | Equal)),
            Cond::Gt => ord == Some(Greater),
            Cond::Ge => matches!(ord, Some(Greater | Equal)),
            Cond::O => ord.is_some(),
            Cond::U => ord.is_none(),
        }
    }
}

/// Order of two words read as signed 32-bit integers (always ordered).
pub fn ord_i32(a: u32, b: u32) -> Option<Ordering> {
    Some((a as i32).cmp(&(b as i32)))
}

/// Order of two words read as unsigned 32-bit integers (always ordered).
pub fn ord_u32(a: u32, b: u32) -> Option<Ordering> {
    Some(a.cmp(&b))
}

/// IEEE order of two float bit patterns: `None` if either is NaN (signaling or quiet alike), -0 == +0,
/// subnormals exact. Sign-magnitude → signed integer whose order is the numeric order, both zeros at 0.
fn ord_float<F: Fmt>(a: u64, b: u64) -> Option<Ordering> {
    if F::is_nan(a) || F::is_nan(b) {
        return None;
    }
    let key = |x: u64| {
        let mag = (x & !F::SIGN) as i64;
        if x & F::SIGN != 0 {
            -mag
        } else {
            mag
        }
    };
    Some(key(a).cmp(&key(b)))
}

/// IEEE order of two f16 bit patterns (`None` if either is NaN; -0 == +0).
pub fn ord_f16(a: u16, b: u16) -> Option<Ordering> {
    ord_float::<H>(a as u64, b as u64)
}

/// IEEE order of two f32 bit patterns (`None` if either is NaN; -0 == +0).
pub fn ord_f32(a: u32, b: u32) -> Option<Ordering> {
    ord_float::<S>(a as u64, b as u64)
}

/// IEEE order of two f64 bit patterns (`None` if either is NaN; -0 == +0).
pub fn ord_f64(a: u64, b: u64) -> Option<Ordering> {
    ord_float::<D>(a, b)
}

/// RISC-V fclass number of a float bit pattern: 0 -inf, 1 negative normal, 2 negative subnormal, 3 -0, 4 +0,
/// 5 positive subnormal, 6 positive normal, 7 +inf, 8 signaling NaN, 9 quiet NaN (top fraction bit set).
fn class_of<F: Fmt>(x: u64) -> u32 {
    let neg = x & F::SIGN != 0;
    let (exp, frac) = (x & F::EXP_MASK, x & F::FRAC_MASK);
    let signed = |negative: u32, positive: u32| if neg { negative } else { positive };
    if exp == F::EXP_MASK {
        match (frac, frac >> (F::MAN - 1)) {
            (0, _) => signed(0, 7),
            (_, 0) => 8,
            _ => 9,
        }
    } else if exp == 0 {
        if frac == 0 {
            signed(3, 4)
        } else {
            signed(2, 5)
        }
    } else {
        signed(1, 6)
    }
}

/// RISC-V fclass number (0..=9) of an f16 bit pattern; see `class_of` for the numbering.
pub fn class_f16(x: u16) -> u32 {
    class_of::<H>(x as u64)
}

/// RISC-V fclass number (0..=9) of an f32 bit pattern; see `class_of` for the numbering.
pub fn class_f32(x: u32) -> u32 {
    class_of::<S>(x as u64)
}

/// RISC-V fclass number (0..=9) of an f64 bit pattern; see `class_of` for the numbering.
pub fn class_f64(x: u64) -> u32 {
    class_of::<D>(x)
}

/// The CI class forms hold classes 0-7 only; `classn` adds both NaN classes (8, 9).
const NAN_CLASSES: u32 = 0x300;

/// Executes one compare-group instruction on the wave in `cx` (a compare writes its uniform lane mask; a half
/// operation writes vector lanes under EXEC).
pub fn exec(cx: &mut Ctx, i: &CmpInsn) -> Flow {
    use CmpInsn::*;
    use Cond::*;
    match *i {
        // --- C, opcode 0x40: vector-vector, 32-bit types
        CmpEqI32 { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, Eq, ord_u32),
        CmpNeI32 { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, Ne, ord_u32),
        CmpLtI32 { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, Lt, ord_i32),
        CmpLeI32 { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, Le, ord_i32),
        CmpGtI32 { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, Gt, ord_i32),
        CmpGeI32 { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, Ge, ord_i32),
        CmpLtU32 { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, Lt, ord_u32),
        CmpLeU32 { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, Le, ord_u32),
        CmpGtU32 { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, Gt, ord_u32),
        CmpGeU32 { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, Ge, ord_u32),
        CmpEqF32 { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, Eq, ord_f32),
        CmpNeF32 { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, Ne, ord_f32),
        CmpLtF32 { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, Lt, ord_f32),
        CmpLeF32 { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, Le, ord_f32),
        CmpGtF32 { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, Gt, ord_f32),
        CmpGeF32 { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, Ge, ord_f32),
        CmpOF32 { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, O, ord_f32),
        CmpUF32 { rd, rs1, rs2 } => vv(cx, rd, rs1, rs2, U, ord_f32),
        CmpClassF32 { rd, rs1, rs2 } => {
            let (c, m) = (classes32(cx, rs1), *cx.w.vr(rs2));
            class_test(cx, rd, &c, |l| m[l])
        }
        // --- C, opcode 0x42: f64 on register pairs
        CmpEqF64 { rd, rs1, rs2 } => vv64(cx, rd, rs1, rs2, Eq),
        CmpNeF64 { rd, rs1, rs2 } => vv64(cx, rd, rs1, rs2, Ne),
        CmpLtF64 { rd, rs1, rs2 } => vv64(cx, rd, rs1, rs2, Lt),
        CmpLeF64 { rd, rs1, rs2 } => vv64(cx, rd, rs1, rs2, Le),
        CmpGtF64 { rd, rs1, rs2 } => vv64(cx, rd, rs1, rs2, Gt),
        CmpGeF64 { rd, rs1, rs2 } => vv64(cx, rd, rs1, rs2, Ge),
        CmpOF64 { rd, rs1, rs2 } => vv64(cx, rd, rs1, rs2, O),
        CmpUF64 { rd, rs1, rs2 } => vv64(cx, rd, rs1, rs2, U),
        CmpClassF64 { rd, rs1, rs2 } => {
            // The mask is the single register v[rs2], not a pair.
            let (c, m) = (classes64(cx, rs1), *cx.w.vr(rs2));
            class_test(cx, rd, &c, |l| m[l])
        }
        // --- CU, opcode 0x44: vector-uniform
        CmpEqI32Vu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, Eq, ord_u32),
        CmpNeI32Vu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, Ne, ord_u32),
        CmpLtI32Vu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, Lt, ord_i32),
        CmpLeI32Vu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, Le, ord_i32),
        CmpGtI32Vu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, Gt, ord_i32),
        CmpGeI32Vu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, Ge, ord_i32),
        CmpLtU32Vu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, Lt, ord_u32),
        CmpLeU32Vu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, Le, ord_u32),
        CmpGtU32Vu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, Gt, ord_u32),
        CmpGeU32Vu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, Ge, ord_u32),
        CmpEqF32Vu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, Eq, ord_f32),
        CmpNeF32Vu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, Ne, ord_f32),
        CmpLtF32Vu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, Lt, ord_f32),
        CmpLeF32Vu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, Le, ord_f32),
        CmpGtF32Vu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, Gt, ord_f32),
        CmpGeF32Vu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, Ge, ord_f32),
        CmpOF32Vu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, O, ord_f32),
        CmpUF32Vu { rd, rs1, rs2 } => vu(cx, rd, rs1, rs2, U, ord_f32),
        CmpClassF32Vu { rd, rs1, rs2 } => {
            let (c, m) = (classes32(cx, rs1), cx.w.ur(rs2));
            class_test(cx, rd, &c, |_| m)
        }
        CmpEqF64Vu { rd, rs1, rs2 } => vu64(cx, rd, rs1, rs2, Eq),
        CmpNeF64Vu { rd, rs1, rs2 } => vu64(cx, rd, rs1, rs2, Ne),
        CmpLtF64Vu { rd, rs1, rs2 } => vu64(cx, rd, rs1, rs2, Lt),
        CmpLeF64Vu { rd, rs1, rs2 } => vu64(cx, rd, rs1, rs2, Le),
        CmpGtF64Vu { rd, rs1, rs2 } => vu64(cx, rd, rs1, rs2, Gt),
        CmpGeF64Vu { rd, rs1, rs2 } => vu64(cx, rd, rs1, rs2, Ge),
        CmpOF64Vu { rd, rs1, rs2 } => vu64(cx, rd, rs1, rs2, O),
        CmpUF64Vu { rd, rs1, rs2 } => vu64(cx, rd, rs1, rs2, U),
        CmpClassF64Vu { rd, rs1, rs2 } => {
            // The mask is the single uniform U[rs2], not a pair.
            let (c, m) = (classes64(cx, rs1), cx.w.ur(rs2));
            class_test(cx, rd, &c, |_| m)
        }
        // --- CI, opcode 0x46: signed forms get imm sign-extended (i32), unsigned ones zero-extended (u32)
        CmpEqI32Vi { rd, rs1, imm } => vi(cx, rd, rs1, imm as u32, Eq, ord_u32),
        CmpNeI32Vi { rd, rs1, imm } => vi(cx, rd, rs1, imm as u32, Ne, ord_u32),
        CmpLtI32Vi { rd, rs1, imm } => vi(cx, rd, rs1, imm as u32, Lt, ord_i32),
        CmpLeI32Vi { rd, rs1, imm } => vi(cx, rd, rs1, imm as u32, Le, ord_i32),
        CmpGtI32Vi { rd, rs1, imm } => vi(cx, rd, rs1, imm as u32, Gt, ord_i32),
        CmpGeI32Vi { rd, rs1, imm } => vi(cx, rd, rs1, imm as u32, Ge, ord_i32),
        CmpLtU32Vi { rd, rs1, imm } => vi(cx, rd, rs1, imm, Lt, ord_u32),
        CmpLeU32Vi { rd, rs1, imm } => vi(cx, rd, rs1, imm, Le, ord_u32),
        CmpGtU32Vi { rd, rs1, imm } => vi(cx, rd, rs1, imm, Gt, ord_u32),
        CmpGeU32Vi { rd, rs1, imm } => vi(cx, rd, rs1, imm, Ge, ord_u32),
        CmpClassF32Vi { rd, rs1, imm } => class_test(cx, rd, &classes32(cx, rs1), |_| imm),
        CmpClassnF32Vi { rd, rs1, imm } => class_test(cx, rd, &classes32(cx, rs1), |_| imm | NAN_CLASSES),
        CmpClassF64Vi { rd, rs1, imm } => class_test(cx, rd, &classes64(cx, rs1), |_| imm),
        CmpClassnF64Vi { rd, rs1, imm } => class_test(cx, rd, &classes64(cx, rs1), |_| imm | NAN_CLASSES),
        // --- H, opcode 0x41: f16 scalar-half (rd:vh*) and packed-pair (rd:v) arithmetic
        HAddF16 { rd, rs1, rs2, neg, abs, sat, rm } => {
            let m = mode(rm, cx.w.fcsr);
            scalar(cx, rd, &[rs1, rs2], Mods { neg, abs, sat }, |x| fp::f16_add(x[0], x[1], m))
        }
        HSubF16 { rd, rs1, rs2, neg, abs, sat, rm } => {
            let m = mode(rm, cx.w.fcsr);
            scalar(cx, rd, &[rs1, rs2], Mods { neg, abs, sat }, |x| fp::f16_sub(x[0], x[1], m))
        }
        HMulF16 { rd, rs1, rs2, neg, abs, sat, rm } => {
            let m = mode(rm, cx.w.fcsr);
            scalar(cx, rd, &[rs1, rs2], Mods { neg, abs, sat }, |x| fp::f16_mul(x[0], x[1], m))
        }
        HFmaF16 { rd, rs1, rs2, rs3, neg, abs, sat, rm } => {
            let m = mode(rm, cx.w.fcsr);
            scalar(cx, rd, &[rs1, rs2, rs3], Mods { neg, abs, sat }, |x| fp::f16_fma(x[0], x[1], x[2], m))
        }
        HMinF16 { rd, rs1, rs2, neg, abs, sat } => {
            let m = dyn_mode(cx.w.fcsr); // exact: only the flush bit matters
            scalar(cx, rd, &[rs1, rs2], Mods { neg, abs, sat }, |x| fp::f16_min(x[0], x[1], m))
        }
        HMaxF16 { rd, rs1, rs2, neg, abs, sat } => {
            let m = dyn_mode(cx.w.fcsr);
            scalar(cx, rd, &[rs1, rs2], Mods { neg, abs, sat }, |x| fp::f16_max(x[0], x[1], m))
        }
        HPkAddF16 { rd, rs1, rs2, neg, abs, sat, rm } => {
            let m = mode(rm, cx.w.fcsr);
            packed(cx, rd, &[rs1, rs2], Mods { neg, abs, sat }, |x| fp::f16_add(x[0], x[1], m))
        }
        HPkSubF16 { rd, rs1, rs2, neg, abs, sat, rm } => {
            let m = mode(rm, cx.w.fcsr);
            packed(cx, rd, &[rs1, rs2], Mods { neg, abs, sat }, |x| fp::f16_sub(x[0], x[1], m))
        }
        HPkMulF16 { rd, rs1, rs2, neg, abs, sat, rm } => {
            let m = mode(rm, cx.w.fcsr);
            packed(cx, rd, &[rs1, rs2], Mods { neg, abs, sat }, |x| fp::f16_mul(x[0], x[1], m))
        }
        HPkFmaF16 { rd, rs1, rs2, rs3, neg, abs, sat, rm } => {
            let m = mode(rm, cx.w.fcsr);
            packed(cx, rd, &[rs1, rs2, rs3], Mods { neg, abs, sat }, |x| fp::f16_fma(x[0], x[1], x[2], m))
        }
        HPkMinF16 { rd, rs1, rs2, neg, abs, sat } => {
            let m = dyn_mode(cx.w.fcsr);
            packed(cx, rd, &[rs1, rs2], Mods { neg, abs, sat }, |x| fp::f16_min(x[0], x[1], m))
        }
        HPkMaxF16 { rd, rs1, rs2, neg, abs, sat } => {
            let m = dyn_mode(cx.w.fcsr);
            packed(cx, rd, &[rs1, rs2], Mods { neg, abs, sat }, |x| fp::f16_max(x[0], x[1], m))
        }
        // --- HC, opcode 0x43: f16 compares of selected halves
        HcmpEqF16 { rd, rs1, rs2 } => hcmp(cx, rd, rs1, rs2, Eq),
        HcmpNeF16 { rd, rs1, rs2 } => hcmp(cx, rd, rs1, rs2, Ne),
        HcmpLtF16 { rd, rs1, rs2 } => hcmp(cx, rd, rs1, rs2, Lt),
        HcmpLeF16 { rd, rs1, rs2 } => hcmp(cx, rd, rs1, rs2, Le),
        HcmpGtF16 { rd, rs1, rs2 } => hcmp(cx, rd, rs1, rs2, Gt),
        HcmpGeF16 { rd, rs1, rs2 } => hcmp(cx, rd, rs1, rs2, Ge),
        HcmpOF16 { rd, rs1, rs2 } => hcmp(cx, rd, rs1, rs2, O),
        HcmpUF16 { rd, rs1, rs2 } => hcmp(cx, rd, rs1, rs2, U),
        HcmpClassF16 { rd, rs1, rs2 } => {
            let (a, m) = (halves(cx, rs1), halves(cx, rs2));
            let c: [u32; LANES] = std::array::from_fn(|l| class_f16(a[l]));
            // Only mask bits 9:0 can be selected (classes are 0..=9), so bits 15:10 are ignored.
            class_test(cx, rd, &c, |l| m[l] as u32)
        }
    }
}

// ---------------------------------------------------------------------------------------------------------
// Compares

/// U[rd] = the lanes in EXEC where `p(lane)` holds; lanes outside EXEC give 0.
fn set_mask(cx: &mut Ctx, rd: UReg, p: impl Fn(usize) -> bool) -> Flow {
    let exec = cx.w.exec;
    let mask = (0..LANES).filter(|&l| lane_on(exec, l) && p(l)).fold(0u32, |m, l| m | 1 << l);
    cx.w.set_u(rd, mask);
    Flow::Next
}

type Ord32 = fn(u32, u32) -> Option<Ordering>;

/// s1[i] `c` s2[i] under the ordering `ord` (integer signed/unsigned or f32).
fn vv(cx: &mut Ctx, rd: UReg, rs1: VReg, rs2: VReg, c: Cond, ord: Ord32) -> Flow {
    let (a, b) = (*cx.w.vr(rs1), *cx.w.vr(rs2));
    set_mask(cx, rd, |l| c.holds(ord(a[l], b[l])))
}

/// s1[i] `c` U[rs2].
fn vu(cx: &mut Ctx, rd: UReg, rs1: VReg, rs2: UReg, c: Cond, ord: Ord32) -> Flow {
    let u = cx.w.ur(rs2);
    vi(cx, rd, rs1, u, c, ord)
}

/// s1[i] `c` k, k the same value in every lane (an immediate, already extended, or a uniform).
fn vi(cx: &mut Ctx, rd: UReg, rs1: VReg, k: u32, c: Cond, ord: Ord32) -> Flow {
    let a = *cx.w.vr(rs1);
    set_mask(cx, rd, |l| c.holds(ord(a[l], k)))
}

/// The f64 of pair v[r]:v[r+1] in every lane (the decoder has rejected odd r).
fn pair(cx: &Ctx, r: VReg) -> [u64; LANES] {
    std::array::from_fn(|l| cx.w.v64(r, l))
}

fn vv64(cx: &mut Ctx, rd: UReg, rs1: VReg, rs2: VReg, c: Cond) -> Flow {
    let (a, b) = (pair(cx, rs1), pair(cx, rs2));
    set_mask(cx, rd, |l| c.holds(ord_f64(a[l], b[l])))
}

fn vu64(cx: &mut Ctx, rd: UReg, rs1: VReg, rs2: UReg, c: Cond) -> Flow {
    let (a, u) = (pair(cx, rs1), cx.w.u64_pair(rs2));
    set_mask(cx, rd, |l| c.holds(ord_f64(a[l], u)))
}

fn classes32(cx: &Ctx, rs1: VReg) -> [u32; LANES] {
    let a = cx.w.vr(rs1);
    std::array::from_fn(|l| class_f32(a[l]))
}

fn classes64(cx: &Ctx, rs1: VReg) -> [u32; LANES] {
    let a = pair(cx, rs1);
    std::array::from_fn(|l| class_f64(a[l]))
}

/// Lane i passes when bit class[i] of mask(i) is set; classes are 0..=9, so mask bits above 9 never count.
fn class_test(cx: &mut Ctx, rd: UReg, class: &[u32; LANES], mask: impl Fn(usize) -> u32) -> Flow {
    set_mask(cx, rd, |l| mask(l) >> class[l] & 1 != 0)
}

/// The selected 16-bit half of a register in every lane (.l = bits 15:0, .h = bits 31:16).
fn halves(cx: &Ctx, h: VHalf) -> [u16; LANES] {
    let r = cx.w.vr(VReg(h.reg));
    std::array::from_fn(|l| half(r[l], h.hi))
}

fn hcmp(cx: &mut Ctx, rd: UReg, rs1: VHalf, rs2: VHalf, c: Cond) -> Flow {
    let (a, b) = (halves(cx, rs1), halves(cx, rs2));
    set_mask(cx, rd, |l| c.holds(ord_f16(a[l], b[l])))
}

// ---------------------------------------------------------------------------------------------------------
// f16 arithmetic

fn half(word: u32, hi: bool) -> u16 {
    (if hi { word >> 16 } else { word }) as u16
}

/// Source modifiers and saturation of an H-format instruction (`lanejit_isa::SrcMods` decodes which source each
/// bit belongs to), applied to f16 bits.
trait HalfMods {
    fn operand(self, x: u16, k: usize) -> u16;
    fn finish(self, d: u16) -> u16;
}

impl HalfMods for Mods {
    /// Operand k as the op sees it: its modifiers on the sign bit (NaNs too).
    fn operand(self, x: u16, k: usize) -> u16 {
        match self.sign_op(k) {
            SignOp::Keep => x,
            SignOp::Clear => x & 0x7fff,
            SignOp::Set => x | 0x8000,
            SignOp::Flip => x ^ 0x8000,
        }
    }

    /// The result, clamped to [+0.0, 1.0] when sat is set: NaN and anything with the sign bit (-0, negatives)
    /// give +0, anything above 1.0 (+inf included) gives 1.0.
    fn finish(self, d: u16) -> u16 {
        const ONE: u16 = 0x3c00;
        if !self.sat {
            d
        } else if d & 0x8000 != 0 || d & 0x7fff > 0x7c00 {
            0
        } else {
            d.min(ONE) // positive patterns order like their values
        }
    }
}

/// Applies `op` to the modified operands of lane `l`: `regs` are the source registers and `hi(k)` names the
/// half of source k to read. Unused trailing operands are 0.
fn lane_op(regs: &[Lanes], l: usize, hi: impl Fn(usize) -> bool, md: Mods, op: &impl Fn([u16; 3]) -> u16) -> u16 {
    let x: [u16; 3] = std::array::from_fn(|k| regs.get(k).map_or(0, |r| md.operand(half(r[l], hi(k)), k)));
    md.finish(op(x))
}

/// The source registers, copied whole before rd is written (rd may alias a source).
fn sources(cx: &Ctx, src: &[VHalf]) -> Vec<Lanes> {
    src.iter().map(|h| *cx.w.vr(VReg(h.reg))).collect()
}

/// Scalar-half op: d from the selected halves, written to rd's selected half; rd's other half is kept.
fn scalar(cx: &mut Ctx, rd: VHalf, src: &[VHalf], md: Mods, op: impl Fn([u16; 3]) -> u16) -> Flow {
    let regs = sources(cx, src);
    let old = *cx.w.vr(VReg(rd.reg));
    let out: Lanes = std::array::from_fn(|l| {
        let d = lane_op(&regs, l, |k| src[k].hi, md, &op) as u32;
        if rd.hi {
            old[l] & 0xffff | d << 16
        } else {
            old[l] & 0xffff_0000 | d
        }
    });
    cx.w.write_v(VReg(rd.reg), &out);
    Flow::Next
}

/// Packed-pair op: result half k (0 = lo, 1 = hi) reads half k of each source, or the other one when the
/// source is written `.h` (the selector swaps the source's halves).
fn packed(cx: &mut Ctx, rd: VReg, src: &[VHalf], md: Mods, op: impl Fn([u16; 3]) -> u16) -> Flow {
    let regs = sources(cx, src);
    let out: Lanes = std::array::from_fn(|l| {
        let lo = lane_op(&regs, l, |k| src[k].hi, md, &op) as u32;
        let hi = lane_op(&regs, l, |k| !src[k].hi, md, &op) as u32;
        hi << 16 | lo
    });
    cx.w.write_v(rd, &out);
    Flow::Next
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes() {
        let f32s = [
            0xff80_0000,
            0xbf80_0000,
            0x8000_0001,
            0x8000_0000,
            0,
            0x007f_ffff,
            0x3f80_0000,
            0x7f80_0000,
            0x7f80_0001,
            0x7fc0_0000,
        ];
        for (c, &x) in f32s.iter().enumerate() {
            assert_eq!(class_f32(x), c as u32, "{x:#x}");
        }
        let f16s = [0xfc00, 0xbc00, 0x83ff, 0x8000, 0, 0x0001, 0x7bff, 0x7c00, 0x7d00, 0xfe00];
        for (c, &x) in f16s.iter().enumerate() {
            assert_eq!(class_f16(x), c as u32, "{x:#x}");
        }
        assert_eq!(class_f64(0x7ff0_0000_0000_0001), 8);
        assert_eq!(class_f64(0x000f_ffff_ffff_ffff), 5);
        assert_eq!(class_f64(0x7ff8_0000_0000_0000), 9);
    }

    #[test]
    fn float_order() {
        assert_eq!(ord_f32(0x8000_0000, 0), Some(Ordering::Equal));
        assert_eq!(ord_f32(0xbf80_0000, 0x8000_0001), Some(Ordering::Less));
        assert_eq!(ord_f32(0xff80_0000, 0x7f80_0000), Some(Ordering::Less));
        assert_eq!(ord_f32(0x7f80_0001, 0x7f80_0001), None);
        assert!(Cond::Ne.holds(None) && Cond::U.holds(None) && !Cond::Eq.holds(None) && !Cond::Ge.holds(None));
        assert_eq!(ord_f16(0x0001, 0x0000), Some(Ordering::Greater));
        assert_eq!(ord_f64(0x8000_0000_0000_0000, 0), Some(Ordering::Equal));
    }

    #[test]
    fn saturation() {
        let md = Mods { neg: 0, abs: 0, sat: true };
        assert_eq!(md.finish(0x7e00), 0);
        assert_eq!(md.finish(0x8000), 0);
        assert_eq!(md.finish(0xbc00), 0);
        assert_eq!(md.finish(0x7c00), 0x3c00);
        assert_eq!(md.finish(0x3c01), 0x3c00);
        assert_eq!(md.finish(0x3bff), 0x3bff);
        assert_eq!(md.finish(0x0001), 0x0001);
    }
}
