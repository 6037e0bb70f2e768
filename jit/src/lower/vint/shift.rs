//! Shifts and bit-field extracts. The guest shifts a 32-bit lane by the low 5 bits of its amount. A uniform or
//! immediate amount is one scalar shift per slice (Cranelift also masks it mod 32; it is masked here anyway, so
//! nothing relies on that). Cranelift has no shift by a vector, so a per-lane amount is applied bit by bit:
//! shifts compose additively, and bit j of the amount selects (bitselect on an icmp mask: one pblendvb) a shift
//! by 2^j, five stages of four SIMD instructions, no lane extraction.

use super::super::Lowered;
use super::ops::map;
use crate::fx::{Fx, Vec32};
use cranelift_codegen::ir::{condcodes::IntCC, types::*, InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;
use lanejit_isa::{UReg, VReg};

#[derive(Clone, Copy, Debug)]
pub enum Shift {
    Shl,
    /// Logical right shift.
    Shr,
    /// Arithmetic right shift.
    Sra,
}

impl Shift {
    /// `x` (scalar or vector) shifted by the scalar I32 `n`, which the caller has reduced to 0..31.
    pub fn by(self, b: &mut FunctionBuilder, x: Value, n: Value) -> Value {
        match self {
            Shift::Shl => b.ins().ishl(x, n),
            Shift::Shr => b.ins().ushr(x, n),
            Shift::Sra => b.ins().sshr(x, n),
        }
    }

    /// `x` shifted by the constant `n & 31`.
    pub fn by_imm(self, b: &mut FunctionBuilder, x: Value, n: u32) -> Value {
        let n = b.ins().iconst(I32, (n & 31) as i64);
        self.by(b, x, n)
    }
}

/// The five single-bit amount masks 1, 2, 4, 8, 16 as vectors, made once per instruction.
pub fn amount_bits(fx: &mut Fx) -> [Value; 5] {
    std::array::from_fn(|j| fx.kvec(1 << j))
}

/// The stage masks of one slice of amounts `n`: stage j is -1 in the lanes whose amount has bit j set.
pub fn stages(fx: &mut Fx, bits: &[Value; 5], n: Value) -> [Value; 5] {
    bits.map(|bit| {
        let t = fx.b.ins().band(n, bit);
        fx.b.ins().icmp(IntCC::Equal, t, bit)
    })
}

/// One slice `x` shifted lane by lane by the amounts whose stage masks are `on`.
pub fn apply(fx: &mut Fx, on: &[Value; 5], kind: Shift, x: Value) -> Value {
    let mut x = x;
    for (j, &m) in on.iter().enumerate() {
        let shifted = kind.by_imm(&mut fx.b, x, 1 << j);
        x = fx.b.ins().bitselect(m, shifted, x);
    }
    x
}

/// One slice `x` shifted lane by lane by the low 5 bits of the lanes of `n` (other bits ignored).
pub fn per_lane(fx: &mut Fx, bits: &[Value; 5], kind: Shift, x: Value, n: Value) -> Value {
    let on = stages(fx, bits, n);
    apply(fx, &on, kind, x)
}

/// d = s1 shifted by s2 & 31, per lane.
pub fn vv(fx: &mut Fx, rd: VReg, rs1: VReg, rs2: VReg, kind: Shift) -> Lowered {
    let (a, n) = (fx.v(rs1), fx.v(rs2));
    let bits = amount_bits(fx);
    let d: Vec32 = std::array::from_fn(|k| per_lane(fx, &bits, kind, a[k], n[k]));
    fx.set_v(rd, d);
    Lowered::Native
}

/// d = s1 shifted by the scalar I32 `n` & 31.
pub fn by_scalar(fx: &mut Fx, rd: VReg, rs1: VReg, n: Value, kind: Shift) -> Lowered {
    // Mutant 15: the amount is not reduced to 5 bits but given x86 psll/psrl/psra count semantics: a count of
    // 32 or more shifts everything out (0, or copies of the sign bit for sra).
    if crate::mutants::active(15) {
        return by_scalar_unmasked(fx, rd, rs1, n, kind);
    }
    let n = fx.b.ins().band_imm_u(n, 31);
    let a = fx.v(rs1);
    let d = map(fx, a, |fx, x| kind.by(&mut fx.b, x, n));
    fx.set_v(rd, d);
    Lowered::Native
}

/// Mutant 15's wrong shift: counts >= 32 saturate (the x86 vector-shift rule) instead of wrapping mod 32.
fn by_scalar_unmasked(fx: &mut Fx, rd: VReg, rs1: VReg, n: Value, kind: Shift) -> Lowered {
    let big = fx.b.ins().icmp_imm_u(IntCC::UnsignedGreaterThan, n, 31);
    let k = fx.b.ins().band_imm_u(n, 31);
    let a = fx.v(rs1);
    let d = map(fx, a, |fx, x| {
        let shifted = kind.by(&mut fx.b, x, k);
        let out = match kind {
            Shift::Sra => fx.b.ins().sshr_imm_u(x, 31),
            Shift::Shl | Shift::Shr => fx.kvec(0),
        };
        fx.b.ins().select(big, out, shifted)
    });
    fx.set_v(rd, d);
    Lowered::Native
}

/// d = s1 shifted by u2 & 31.
pub fn vu(fx: &mut Fx, rd: VReg, rs1: VReg, rs2: UReg, kind: Shift) -> Lowered {
    let n = fx.u(rs2);
    by_scalar(fx, rd, rs1, n, kind)
}

/// d = s1 shifted by imm[4:0].
pub fn vi(fx: &mut Fx, rd: VReg, rs1: VReg, imm: i32, kind: Shift) -> Lowered {
    let a = fx.v(rs1);
    let d = map(fx, a, |fx, x| kind.by_imm(&mut fx.b, x, imm as u32));
    fx.set_v(rd, d);
    Lowered::Native
}

// --- bit-field extract -----------------------------------------------------------------------------------------
//
// off = p[4:0], w = p[12:8]. With pw = 1 << w (w <= 31, so it fits), mask = pw - 1 and m = pw >> 1 (= the field's
// sign bit 1 << (w-1), or 0 when w = 0):
//   bfe.u = (s1 >> off, logical) & mask          (w = 0: mask 0 gives 0; bits above 31 read as 0)
//   bfe.s = (((s1 >> off, arithmetic) & mask) ^ m) - m
// the xor/sub pair sign-extends from bit w-1; with off + w > 32 that bit is a copy of s1[31], so the result is
// s1 >> off (arithmetic) as the YAML says, and w = 0 gives 0.

/// The per-lane form: three (two for .u) per-lane shifts.
pub fn bfe_vv(fx: &mut Fx, rd: VReg, rs1: VReg, rs2: VReg, signed: bool) -> Lowered {
    let (a, p) = (fx.v(rs1), fx.v(rs2));
    let bits = amount_bits(fx);
    let one = fx.kvec(1);
    let d: Vec32 = std::array::from_fn(|k| {
        let t = per_lane(fx, &bits, if signed { Shift::Sra } else { Shift::Shr }, a[k], p[k]);
        let w = fx.b.ins().ushr_imm_u(p[k], 8);
        let pw = per_lane(fx, &bits, Shift::Shl, one, w);
        let mask = fx.b.ins().isub(pw, one);
        let u = fx.b.ins().band(t, mask);
        if !signed {
            return u;
        }
        let m = fx.b.ins().ushr_imm_u(pw, 1);
        let x = fx.b.ins().bxor(u, m);
        fx.b.ins().isub(x, m)
    });
    fx.set_v(rd, d);
    Lowered::Native
}

/// The uniform-descriptor form (.vu, .k): `p` a scalar I32.
pub fn bfe_scalar(fx: &mut Fx, rd: VReg, rs1: VReg, p: Value, signed: bool) -> Lowered {
    let off = fx.b.ins().band_imm_u(p, 31);
    let w = fx.b.ins().ushr_imm_u(p, 8);
    let w = fx.b.ins().band_imm_u(w, 31);
    let one = fx.b.ins().iconst(I32, 1);
    let pw = fx.b.ins().ishl(one, w);
    let mask = fx.b.ins().iadd_imm_s(pw, -1);
    let mask = fx.b.ins().splat(I32X4, mask);
    let m = fx.b.ins().ushr_imm_u(pw, 1);
    let m = fx.b.ins().splat(I32X4, m);
    let kind = if signed { Shift::Sra } else { Shift::Shr };
    let a = fx.v(rs1);
    let d: Vec32 = std::array::from_fn(|k| {
        let t = kind.by(&mut fx.b, a[k], off);
        let u = fx.b.ins().band(t, mask);
        // Mutant 17: bfe.s (.vu/.k) without the sign extension of the field (the arithmetic shift alone only
        // sign-fills fields that reach bit 31).
        if !signed || crate::mutants::active(17) {
            return u;
        }
        let x = fx.b.ins().bxor(u, m);
        fx.b.ins().isub(x, m)
    });
    fx.set_v(rd, d);
    Lowered::Native
}

// --- bit-field insert ------------------------------------------------------------------------------------------

/// v.bfi: off = s3[4:0], w = s3[12:8]; m = ((1 << w) - 1) << off (bits past 31 dropped by the 32-bit shift);
/// d = (s2 & ~m) | ((s1 << off) & m). The mask and the field share the stage masks of `off`.
pub fn bfi(fx: &mut Fx, rd: VReg, rs1: VReg, rs2: VReg, rs3: VReg) -> Lowered {
    let (f, base, p) = (fx.v(rs1), fx.v(rs2), fx.v(rs3));
    let bits = amount_bits(fx);
    let one = fx.kvec(1);
    let d: Vec32 = std::array::from_fn(|k| {
        let w = fx.b.ins().ushr_imm_u(p[k], 8);
        let pw = per_lane(fx, &bits, Shift::Shl, one, w);
        let ones = fx.b.ins().isub(pw, one);
        let at_off = stages(fx, &bits, p[k]);
        let m = apply(fx, &at_off, Shift::Shl, ones);
        let field = apply(fx, &at_off, Shift::Shl, f[k]);
        fx.b.ins().bitselect(m, field, base[k])
    });
    fx.set_v(rd, d);
    Lowered::Native
}
