//! 64-bit uniform pairs (low word in the even register) as I64: read both words, compute, write both back.
//! Sources are read before either destination word is written, so pairs may overlap.

use super::super::Lowered;
use crate::fx::Fx;
use cranelift_codegen::ir::{types::*, InstBuilder, Value};
use lanejit_isa::UReg;

fn hi(r: UReg) -> UReg {
    UReg(r.0 + 1)
}

fn get(fx: &mut Fx, r: UReg) -> Value {
    let (lo, h) = (fx.u(r), fx.u(hi(r)));
    let lo = fx.b.ins().uextend(I64, lo);
    let h = fx.b.ins().uextend(I64, h);
    let h = fx.b.ins().ishl_imm_u(h, 32);
    fx.b.ins().bor(lo, h)
}

fn put(fx: &mut Fx, rd: UReg, x: Value) -> Lowered {
    let lo = fx.b.ins().ireduce(I32, x);
    let h = fx.b.ins().ushr_imm_u(x, 32);
    let h = fx.b.ins().ireduce(I32, h);
    fx.set_u(rd, lo);
    fx.set_u(hi(rd), h);
    Lowered::Native
}

/// u.add.u64 / u.sub.u64.
pub fn pp(fx: &mut Fx, rd: UReg, rs1: UReg, rs2: UReg, sub: bool) -> Lowered {
    let (a, b) = (get(fx, rs1), get(fx, rs2));
    let d = if sub { fx.b.ins().isub(a, b) } else { fx.b.ins().iadd(a, b) };
    put(fx, rd, d)
}

/// u.add.u64.u32 / .i32: pair + zero- or sign-extended word.
pub fn add_ext(fx: &mut Fx, rd: UReg, rs1: UReg, rs2: UReg, signed: bool) -> Lowered {
    let a = get(fx, rs1);
    let x = fx.u(rs2);
    let x = if signed { fx.b.ins().sextend(I64, x) } else { fx.b.ins().uextend(I64, x) };
    let d = fx.b.ins().iadd(a, x);
    put(fx, rd, d)
}

/// u.add.u64.k: pair + sign-extended literal.
pub fn add_k(fx: &mut Fx, rd: UReg, rs1: UReg, k: u32) -> Lowered {
    let a = get(fx, rs1);
    let d = fx.b.ins().iadd_imm_s(a, k as i32 as i64);
    put(fx, rd, d)
}

/// u.shl.u64 / u.shr.u64 by u[rs2] & 63.
pub fn shift(fx: &mut Fx, rd: UReg, rs1: UReg, rs2: UReg, right: bool) -> Lowered {
    let a = get(fx, rs1);
    let n = fx.u(rs2);
    // Mutant 29: the 64-bit shift amount masked to 5 bits (the 32-bit rule) instead of 6.
    let n = fx.b.ins().band_imm_u(n, if crate::mutants::active(29) { 31 } else { 63 });
    let d = if right { fx.b.ins().ushr(a, n) } else { fx.b.ins().ishl(a, n) };
    put(fx, rd, d)
}

/// u.mul.wide.u32 / .i32: the exact 64-bit product of two extended words.
pub fn mul_wide(fx: &mut Fx, rd: UReg, rs1: UReg, rs2: UReg, signed: bool) -> Lowered {
    let (a, b) = (fx.u(rs1), fx.u(rs2));
    let [a, b] = [a, b].map(|x| if signed { fx.b.ins().sextend(I64, x) } else { fx.b.ins().uextend(I64, x) });
    let d = fx.b.ins().imul(a, b);
    put(fx, rd, d)
}

/// u.mov.u64.
pub fn mov(fx: &mut Fx, rd: UReg, rs1: UReg) -> Lowered {
    let (lo, h) = (fx.u(rs1), fx.u(hi(rs1)));
    fx.set_u(rd, lo);
    fx.set_u(hi(rd), h);
    Lowered::Native
}
