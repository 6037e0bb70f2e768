//! 64-bit lane values on even register pairs (low word in the even register), as two 32-bit halves: a 64-bit
//! add is an add of the low words, the carry out of it (lo < addend, unsigned, a -1/0 mask) and an add of the
//! high words minus that mask. Sources are read whole before either half of rd is written.

use super::super::Lowered;
use crate::fx::{Fx, Vec32};
use cranelift_codegen::ir::{condcodes::IntCC, InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;
use lanejit_isa::{UReg, VReg};

/// One slice of a 64-bit value: (low word, high word).
pub type Half2 = (Value, Value);

pub fn add64(b: &mut FunctionBuilder, (al, ah): Half2, (bl, bh): Half2) -> Half2 {
    let lo = b.ins().iadd(al, bl);
    // Mutant 24: the carry out of the low word is detected with a signed compare.
    let cc = if crate::mutants::active(24) { IntCC::SignedLessThan } else { IntCC::UnsignedLessThan };
    let carry = b.ins().icmp(cc, lo, al);
    let hi = b.ins().iadd(ah, bh);
    (lo, b.ins().isub(hi, carry))
}

fn sub64(b: &mut FunctionBuilder, (al, ah): Half2, (bl, bh): Half2) -> Half2 {
    let lo = b.ins().isub(al, bl);
    let borrow = b.ins().icmp(IntCC::UnsignedLessThan, al, bl);
    let hi = b.ins().isub(ah, bh);
    (lo, b.ins().iadd(hi, borrow))
}

fn next(r: VReg) -> VReg {
    VReg(r.0 + 1)
}

pub fn pair(fx: &mut Fx, r: VReg) -> (Vec32, Vec32) {
    (fx.v(r), fx.v(next(r)))
}

pub fn set_pair(fx: &mut Fx, rd: VReg, lo: Vec32, hi: Vec32) -> Lowered {
    fx.set_v(rd, lo);
    fx.set_v(next(rd), hi);
    Lowered::Native
}

/// d = f(a, b) on 64-bit values, slice by slice.
pub fn map64(
    fx: &mut Fx,
    rd: VReg,
    a: (Vec32, Vec32),
    c: (Vec32, Vec32),
    f: fn(&mut FunctionBuilder, Half2, Half2) -> Half2,
) -> Lowered {
    let d: [Half2; 8] = std::array::from_fn(|k| f(&mut fx.b, (a.0[k], a.1[k]), (c.0[k], c.1[k])));
    set_pair(fx, rd, d.map(|x| x.0), d.map(|x| x.1))
}

/// v.add.u64 / v.sub.u64.
pub fn add_sub(fx: &mut Fx, rd: VReg, rs1: VReg, rs2: VReg, sub: bool) -> Lowered {
    let (a, c) = (pair(fx, rs1), pair(fx, rs2));
    map64(fx, rd, a, c, if sub { sub64 } else { add64 })
}

/// The 32-bit lanes of `x` extended to 64 bits: (x, 0) or (x, x >> 31 arithmetic).
fn extend(fx: &mut Fx, x: Vec32, signed: bool) -> (Vec32, Vec32) {
    let hi = if signed { x.map(|s| fx.b.ins().sshr_imm_u(s, 31)) } else { [fx.kvec(0); 8] };
    (x, hi)
}

/// v.add.u64.u32 / v.add.u64.i32: pair + extended 32-bit lane.
pub fn add_ext(fx: &mut Fx, rd: VReg, rs1: VReg, rs2: VReg, signed: bool) -> Lowered {
    let a = pair(fx, rs1);
    let x = fx.v(rs2);
    let c = extend(fx, x, signed);
    map64(fx, rd, a, c, add64)
}

/// v.lea.u64.u32 / v.lea.u64.i32: d = s2 + (extended s1 << sh), sh = 0..31.
pub fn lea(fx: &mut Fx, rd: VReg, rs1: VReg, rs2: VReg, sh: u32, signed: bool) -> Lowered {
    let x = fx.v(rs1);
    let c = pair(fx, rs2);
    let (lo, hi) = extend(fx, x, signed);
    let sh = sh & 31;
    let shifted = if sh == 0 {
        (lo, hi)
    } else {
        // The high word takes the bits shifted out of the low word: (hi:lo) << sh on 64 bits.
        let l = lo.map(|s| fx.b.ins().ishl_imm_u(s, sh as i64));
        let h = lo.map(|s| {
            if signed {
                fx.b.ins().sshr_imm_u(s, 32 - sh as i64)
            } else {
                fx.b.ins().ushr_imm_u(s, 32 - sh as i64)
            }
        });
        (l, h)
    };
    map64(fx, rd, c, shifted, add64)
}

/// v.mov.u.b64: the uniform pair in every active lane.
pub fn mov_u_b64(fx: &mut Fx, rd: VReg, rs1: UReg) -> Lowered {
    let (lo, hi) = (fx.u(rs1), fx.u(UReg(rs1.0 + 1)));
    let (lo, hi) = (fx.splat32(lo), fx.splat32(hi));
    set_pair(fx, rd, lo, hi)
}
