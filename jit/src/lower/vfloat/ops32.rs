//! f32 emitters for the native paths of `vfloat` (the caller's guard has proved the mode they assume: see
//! vfloat.rs). Registers hold f32 as I32 bits; float ops bitcast I32X4 ↔ F32X4, which costs nothing (same
//! register). Each instruction is emitted slice-major (all of one 4-lane slice, then the next) so that few
//! vectors are live at once. Every source is read before rd is written, so rd may alias a source; rd is
//! written through `Fx::set_v` (EXEC). The rules mirror interp/src/vfloat.rs and interp/src/fp bit for bit:
//! modifiers on the sign bit, the IEEE op, then sat or the canonical NaN.

use crate::fx::{Fx, Vec32};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types::*, InstBuilder, MemFlagsData, Value};
use lanejit_interp::fp::F32_BELOW_ONE;
use lanejit_isa::{SignOp, VReg};

const SIGN: u32 = 0x8000_0000;
const MAG: u32 = 0x7fff_ffff;
const ONE: u32 = 0x3f80_0000;

/// The modifier operands of one instruction, decoded by `lanejit_isa::SrcMods` (which source each bit is for).
pub use lanejit_isa::SrcMods as Mods;

/// No modifiers (the literal forms and the rounding ops have none).
pub(super) const PLAIN: Mods = Mods::NONE;

#[derive(Clone, Copy)]
pub enum Bin {
    Add,
    Sub,
    Mul,
    Div,
    Min,
    Max,
}

/// Rounding to an integral value (exact, so mode-free once chosen).
#[derive(Clone, Copy)]
pub enum Unary {
    Nearest,
    Trunc,
    Floor,
    Ceil,
}

/// The integer type of a float → int conversion.
#[derive(Clone, Copy)]
pub enum ToInt {
    I32,
    U32,
}

pub(super) fn to_f(fx: &mut Fx, x: Value) -> Value {
    fx.b.ins().bitcast(F32X4, MemFlagsData::new(), x)
}

pub(super) fn to_i(fx: &mut Fx, x: Value) -> Value {
    fx.b.ins().bitcast(I32X4, MemFlagsData::new(), x)
}

/// The modifiers emitted on I32X4 bits: sources on the sign bit, results through sat or the canonical NaN.
pub(super) trait EmitMods {
    /// Source `i` (bits) with its modifiers on the sign bit only, so NaN and zeros are modified too. No input
    /// flush: the guard proved fcsr.ftz32 clear, or the result does not depend on it.
    fn src(self, fx: &mut Fx, i: u32, x: Value) -> Value;
    /// An F32X4 result to register bits: sat (which also turns NaN into +0), else NaN made canonical.
    fn finish(self, fx: &mut Fx, f: Value) -> Value;
}

impl EmitMods for Mods {
    fn src(self, fx: &mut Fx, i: u32, x: Value) -> Value {
        // Mutant 37: only source 1's neg bit is honoured (the bit of source i is not shifted down).
        let m = if crate::mutants::active(37) { Mods { neg: self.neg & 1, ..self } } else { self };
        match m.sign_op(i as usize) {
            SignOp::Keep => x,
            SignOp::Clear => {
                let k = fx.kvec(MAG);
                fx.b.ins().band(x, k)
            }
            SignOp::Set => {
                let k = fx.kvec(SIGN);
                fx.b.ins().bor(x, k)
            }
            SignOp::Flip => {
                let k = fx.kvec(SIGN);
                fx.b.ins().bxor(x, k)
            }
        }
    }

    fn finish(self, fx: &mut Fx, f: Value) -> Value {
        if self.sat {
            saturate(fx, f)
        } else {
            canon(fx, f)
        }
    }
}

/// Every NaN becomes 0x7fc00000 (the host keeps payloads and quiets signalling NaNs instead).
fn canon(fx: &mut Fx, f: Value) -> Value {
    let bits = to_i(fx, f);
    fx.canonical_nans(bits)
}

/// sat: NaN, negatives and -0 give +0, above 1.0 gives 1.0 (ordered compares are false on NaN, and -0 > +0 is
/// false, so one compare catches all three).
fn saturate(fx: &mut Fx, f: Value) -> Value {
    let (zero, one) = (fx.kvec(0), fx.kvec(ONE));
    let (zf, of) = (to_f(fx, zero), to_f(fx, one));
    let pos = fx.b.ins().fcmp(FloatCC::GreaterThan, f, zf);
    let below = fx.b.ins().fcmp(FloatCC::LessThan, f, of);
    let bits = to_i(fx, f);
    let x = fx.b.ins().bitselect(below, bits, one);
    // Mutant 38: only the upper clamp: negatives, -0 and NaN pass through sat.
    if crate::mutants::active(38) {
        return x;
    }
    fx.b.ins().bitselect(pos, x, zero)
}

/// rd = f(the k-th slice of every source) for f32 arithmetic (`f` gives the F32X4 result, a NaN whenever a
/// source is one): saturated with `sat`, else written with its NaNs as the host left them, to be made canonical
/// when something other than f32 arithmetic reads them (`Fx::set_v_float`).
fn arith<const N: usize>(fx: &mut Fx, rd: VReg, srcs: [Vec32; N], sat: bool, f: impl Fn(&mut Fx, [Value; N]) -> Value) {
    let d: Vec32 = std::array::from_fn(|k| {
        let r = f(fx, srcs.map(|s| s[k]));
        if sat {
            saturate(fx, r)
        } else {
            to_i(fx, r)
        }
    });
    if sat {
        fx.set_v(rd, d);
    } else {
        fx.set_v_float(rd, d);
    }
}

/// rd = f(the k-th slice of every source), one slice at a time.
pub(super) fn lanewise<const N: usize>(
    fx: &mut Fx,
    rd: VReg,
    srcs: [Vec32; N],
    f: impl Fn(&mut Fx, [Value; N]) -> Value,
) {
    let d: Vec32 = std::array::from_fn(|k| f(fx, srcs.map(|s| s[k])));
    fx.set_v(rd, d);
}

impl Bin {
    /// a op b on modified bits; an F32X4 result whose NaNs are not canonical yet.
    fn emit(self, fx: &mut Fx, a: Value, b: Value) -> Value {
        let (x, y) = (to_f(fx, a), to_f(fx, b));
        match self {
            Bin::Add => fx.b.ins().fadd(x, y),
            Bin::Sub => fx.b.ins().fsub(x, y),
            Bin::Mul => fx.b.ins().fmul(x, y),
            Bin::Div => fx.b.ins().fdiv(x, y),
            Bin::Min => min_max(fx, a, b, false),
            Bin::Max => min_max(fx, a, b, true),
        }
    }
}

/// Signed-order key of f32 bits: the numeric order with -0 < +0 (x for a clear sign, x ^ 0x7fffffff for a set
/// one: sign-magnitude to two's complement, the interpreter's `order_key`). Meaningless on NaN.
fn key(fx: &mut Fx, x: Value) -> Value {
    let s = fx.b.ins().sshr_imm_u(x, 31);
    let k = fx.kvec(MAG);
    let m = fx.b.ins().band(s, k);
    fx.b.ins().bxor(x, m)
}

/// IEEE 754-2019 minimumNumber / maximumNumber (not Cranelift's fmin/fmax, which propagate NaN): one NaN
/// operand gives the other operand bit for bit; two NaNs give a NaN, which `finish` makes canonical.
fn min_max(fx: &mut Fx, a: Value, b: Value, want_max: bool) -> Value {
    // Mutant 36: Cranelift's fmin/fmax, which propagate a NaN operand instead of returning the other one.
    if crate::mutants::active(36) {
        let (fa, fb) = (to_f(fx, a), to_f(fx, b));
        return if want_max { fx.b.ins().fmax(fa, fb) } else { fx.b.ins().fmin(fa, fb) };
    }
    let (ka, kb) = (key(fx, a), key(fx, b));
    let lt = fx.b.ins().icmp(IntCC::SignedLessThan, ka, kb);
    let r = if want_max { fx.b.ins().bitselect(lt, b, a) } else { fx.b.ins().bitselect(lt, a, b) };
    let (fa, fb) = (to_f(fx, a), to_f(fx, b));
    let na = fx.b.ins().fcmp(FloatCC::Unordered, fa, fa);
    let nb = fx.b.ins().fcmp(FloatCC::Unordered, fb, fb);
    let r = fx.b.ins().bitselect(na, b, r);
    let r = fx.b.ins().bitselect(nb, a, r);
    to_f(fx, r)
}

/// f.add/sub/mul/div/min/max.f32 with modifiers and sat. min and max return a source bit for bit, so they
/// read canonical NaNs; the others make any NaN canonical themselves (later, `arith`).
pub fn bin(fx: &mut Fx, rd: VReg, rs1: VReg, rs2: VReg, m: Mods, op: Bin) {
    if matches!(op, Bin::Min | Bin::Max) {
        let srcs = [fx.v(rs1), fx.v(rs2)];
        return lanewise(fx, rd, srcs, |fx, [a, b]| {
            let (a, b) = (m.src(fx, 0, a), m.src(fx, 1, b));
            let r = op.emit(fx, a, b);
            m.finish(fx, r)
        });
    }
    let srcs = [fx.v_float(rs1), fx.v_float(rs2)];
    arith(fx, rd, srcs, m.sat, |fx, [a, b]| {
        let (a, b) = (m.src(fx, 0, a), m.src(fx, 1, b));
        op.emit(fx, a, b)
    });
}

/// f.fma.f32: one rounding (vfmadd with has_fma; otherwise Cranelift calls libm fmaf, also correctly rounded).
pub fn fma(fx: &mut Fx, rd: VReg, rs: [VReg; 3], m: Mods) {
    let srcs = rs.map(|r| fx.v_float(r));
    arith(fx, rd, srcs, m.sat, |fx, [a, b, c]| {
        let (a, b, c) = (m.src(fx, 0, a), m.src(fx, 1, b), m.src(fx, 2, c));
        let (x, y, z) = (to_f(fx, a), to_f(fx, b), to_f(fx, c));
        fx.b.ins().fma(x, y, z)
    });
}

pub fn sqrt(fx: &mut Fx, rd: VReg, rs1: VReg, m: Mods) {
    let srcs = [fx.v_float(rs1)];
    arith(fx, rd, srcs, m.sat, |fx, [a]| {
        let a = m.src(fx, 0, a);
        let x = to_f(fx, a);
        fx.b.ins().sqrt(x)
    });
}

/// f.add.k / f.mul.k: s1 op literal.
pub fn bin_k(fx: &mut Fx, rd: VReg, rs1: VReg, imm: u32, op: Bin) {
    debug_assert!(matches!(op, Bin::Add | Bin::Mul), "the literal forms are add and mul");
    let k = fx.kvec(imm);
    let srcs = [fx.v_float(rs1)];
    arith(fx, rd, srcs, false, |fx, [a]| op.emit(fx, a, k));
}

/// f.fma.k: d = s1 * k + d; f.fma.ka (`horner`): d = d * s1 + k (d the old rd).
pub fn fma_k(fx: &mut Fx, rd: VReg, rs1: VReg, imm: u32, horner: bool) {
    let k = fx.kvec(imm);
    let srcs = [fx.v_float(rs1), fx.v_float(rd)];
    arith(fx, rd, srcs, false, |fx, [a, d]| {
        let (x, y, z) = if horner { (d, a, k) } else { (a, k, d) };
        let (x, y, z) = (to_f(fx, x), to_f(fx, y), to_f(fx, z));
        fx.b.ins().fma(x, y, z)
    });
}

/// f.cvt.f32.i32 / f.cvt.f32.u32 in rne: cvtdq2ps is correctly rounded; the unsigned form converts the two
/// 16-bit halves exactly and adds them once, so it is correctly rounded too. Never NaN.
pub fn from_int(fx: &mut Fx, rd: VReg, rs1: VReg, signed: bool) {
    let srcs = [fx.v(rs1)];
    lanewise(fx, rd, srcs, |fx, [x]| {
        let f = if signed { fx.b.ins().fcvt_from_sint(F32X4, x) } else { fx.b.ins().fcvt_from_uint(F32X4, x) };
        to_i(fx, f)
    });
}

impl Unary {
    fn emit(self, fx: &mut Fx, f: Value) -> Value {
        match self {
            Unary::Nearest => fx.b.ins().nearest(f),
            Unary::Trunc => fx.b.ins().trunc(f),
            Unary::Floor => fx.b.ins().floor(f),
            Unary::Ceil => fx.b.ins().ceil(f),
        }
    }
}

/// f.cvt.i32.f32 / f.cvt.u32.f32: round to an integral value (exact), then Cranelift's saturating conversion,
/// which truncates (a no-op on integral values), saturates and gives 0 for NaN, as the interpreter's `as`.
pub fn to_int(fx: &mut Fx, rd: VReg, rs1: VReg, m: Mods, round: Unary, ty: ToInt) {
    let srcs = [fx.v(rs1)];
    lanewise(fx, rd, srcs, |fx, [x]| {
        let x = m.src(fx, 0, x);
        let f = to_f(fx, x);
        // The conversion truncates by itself.
        let f = if let Unary::Trunc = round { f } else { round.emit(fx, f) };
        match ty {
            ToInt::I32 => fx.b.ins().fcvt_to_sint_sat(I32X4, f),
            // Mutant 39: the unsigned conversion through the signed one (2^31 and above saturate to INT_MAX).
            ToInt::U32 if crate::mutants::active(39) => fx.b.ins().fcvt_to_sint_sat(I32X4, f),
            ToInt::U32 => fx.b.ins().fcvt_to_uint_sat(I32X4, f),
        }
    });
}

/// f.floor/ceil/trunc/round.f32 (roundps: exact, sign kept).
pub fn round(fx: &mut Fx, rd: VReg, rs1: VReg, round: Unary) {
    let srcs = [fx.v(rs1)];
    lanewise(fx, rd, srcs, |fx, [x]| {
        let f = to_f(fx, x);
        let r = round.emit(fx, f);
        PLAIN.finish(fx, r)
    });
}

/// f.fract.f32: x - floor(x) (rne), clamped to the largest f32 below 1.0; NaN, and inf - inf, canonical.
pub fn fract(fx: &mut Fx, rd: VReg, rs1: VReg) {
    let lim = fx.kvec(F32_BELOW_ONE);
    let srcs = [fx.v(rs1)];
    lanewise(fx, rd, srcs, |fx, [x]| {
        let f = to_f(fx, x);
        let fl = fx.b.ins().floor(f);
        let d = fx.b.ins().fsub(f, fl);
        let limf = to_f(fx, lim);
        let over = fx.b.ins().fcmp(FloatCC::GreaterThan, d, limf);
        let bits = to_i(fx, d);
        let r = fx.b.ins().bitselect(over, lim, bits);
        let r = to_f(fx, r);
        canon(fx, r)
    });
}
