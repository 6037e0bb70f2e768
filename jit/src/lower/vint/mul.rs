//! High-half and widening multiplies. Each slice's lanes are widened to I64X2 (lanes 0-1 and 2-3) and
//! multiplied exactly: Cranelift turns imul of two uwiden/swiden halves into pshufd + pmuludq (pmuldq for the
//! signed form with SSE4.1; without it, its generic I64X2 multiply, still exact). The 32-bit words of the two
//! products are then picked with one two-input shuffle (shufps): odd words are the high halves.

use super::super::Lowered;
use super::wide;
use crate::fx::{Fx, Vec32};
use cranelift_codegen::ir::{types::*, ConstantData, Endianness, InstBuilder, MemFlagsData, Value};
use lanejit_isa::{UReg, VReg};

fn le() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

/// Exact 64-bit products of the lanes of x and y: (lanes 0 and 1, lanes 2 and 3) as I64X2.
fn products(fx: &mut Fx, x: Value, y: Value, signed: bool) -> (Value, Value) {
    let b = &mut fx.b;
    let (xl, yl, xh, yh) = if signed {
        (b.ins().swiden_low(x), b.ins().swiden_low(y), b.ins().swiden_high(x), b.ins().swiden_high(y))
    } else {
        (b.ins().uwiden_low(x), b.ins().uwiden_low(y), b.ins().uwiden_high(x), b.ins().uwiden_high(y))
    };
    (b.ins().imul(xl, yl), b.ins().imul(xh, yh))
}

/// Words `sel` (0..8, little-endian word order) of the two I64X2 values seen as eight 32-bit words.
fn words(fx: &mut Fx, p: Value, q: Value, sel: [u8; 4]) -> Value {
    let mask: Vec<u8> = sel.iter().flat_map(|&w| (0..4).map(move |byte| w * 4 + byte)).collect();
    let imm = fx.b.func.dfg.immediates.push(ConstantData::from(mask));
    let (p8, q8) = (fx.b.ins().bitcast(I8X16, le(), p), fx.b.ins().bitcast(I8X16, le(), q));
    let s = fx.b.ins().shuffle(p8, q8, imm);
    fx.b.ins().bitcast(I32X4, le(), s)
}

const LOW_WORDS: [u8; 4] = [0, 2, 4, 6];
const HIGH_WORDS: [u8; 4] = [1, 3, 5, 7];

/// Bits 63:32 of the products of one slice.
fn hi_slice(fx: &mut Fx, x: Value, y: Value, signed: bool) -> Value {
    // Mutant 18: the signed high half is taken from zero-extended operands (sign extension dropped).
    let signed = signed && !crate::mutants::active(18);
    let (p, q) = products(fx, x, y, signed);
    words(fx, p, q, HIGH_WORDS)
}

/// d = mulhi(s1, y), y a register's slices or one splat value repeated.
fn mulhi(fx: &mut Fx, rd: VReg, a: Vec32, y: Vec32, signed: bool) -> Lowered {
    let d: Vec32 = std::array::from_fn(|k| hi_slice(fx, a[k], y[k], signed));
    fx.set_v(rd, d);
    Lowered::Native
}

pub fn vv(fx: &mut Fx, rd: VReg, rs1: VReg, rs2: VReg, signed: bool) -> Lowered {
    let (a, b) = (fx.v(rs1), fx.v(rs2));
    mulhi(fx, rd, a, b, signed)
}

pub fn vu(fx: &mut Fx, rd: VReg, rs1: VReg, rs2: UReg, signed: bool) -> Lowered {
    let a = fx.v(rs1);
    let u = fx.u(rs2);
    let y = fx.splat32(u);
    mulhi(fx, rd, a, y, signed)
}

pub fn vk(fx: &mut Fx, rd: VReg, rs1: VReg, k: u32, signed: bool) -> Lowered {
    let a = fx.v(rs1);
    let y = [fx.kvec(k); crate::fx::VECS];
    mulhi(fx, rd, a, y, signed)
}

/// v.mad.hi.u32 / .i32: mulhi(s1, s2) + s3, 32-bit wrapping.
pub fn mad_hi(fx: &mut Fx, rd: VReg, rs1: VReg, rs2: VReg, rs3: VReg, signed: bool) -> Lowered {
    let (a, b, c) = (fx.v(rs1), fx.v(rs2), fx.v(rs3));
    let d: Vec32 = std::array::from_fn(|k| {
        let h = hi_slice(fx, a[k], b[k], signed);
        fx.b.ins().iadd(h, c[k])
    });
    fx.set_v(rd, d);
    Lowered::Native
}

/// The full products of s1 and s2 as (low words, high words).
fn wide_products(fx: &mut Fx, rs1: VReg, rs2: VReg, signed: bool) -> (Vec32, Vec32) {
    let (a, b) = (fx.v(rs1), fx.v(rs2));
    let p: [(Value, Value); 8] = std::array::from_fn(|k| {
        let (p, q) = products(fx, a[k], b[k], signed);
        (words(fx, p, q, LOW_WORDS), words(fx, p, q, HIGH_WORDS))
    });
    (p.map(|x| x.0), p.map(|x| x.1))
}

/// v.mul.wide.u32 / .i32: the pair rd = the full 64-bit product.
pub fn mul_wide(fx: &mut Fx, rd: VReg, rs1: VReg, rs2: VReg, signed: bool) -> Lowered {
    let (lo, hi) = wide_products(fx, rs1, rs2, signed);
    wide::set_pair(fx, rd, lo, hi)
}

/// v.mad.wide.u32 / .i32: the pair rd = full product + the pair s3 (mod 2^64).
pub fn mad_wide(fx: &mut Fx, rd: VReg, rs1: VReg, rs2: VReg, rs3: VReg, signed: bool) -> Lowered {
    let prod = wide_products(fx, rs1, rs2, signed);
    let c = wide::pair(fx, rs3);
    wide::map64(fx, rd, prod, c, wide::add64)
}
