//! v.lop3 with its truth table known at compile time: Shannon expansion on s1 into two functions of (s2, s3),
//! each one of the 16 two-input functions (at most two instructions), joined by a single and/or/xor when one
//! half is constant or the complement of the other, else by a bitselect on s1.

use super::super::Lowered;
use crate::fx::{Fx, Vec32};
use cranelift_codegen::ir::{InstBuilder, Value};
use lanejit_isa::VReg;

/// The function of (y, z) whose table `t` has bit (y << 1 | z) set where the result bit is 1.
fn two(fx: &mut Fx, t: u32, y: Value, z: Value) -> Value {
    match t & 15 {
        0x0 => fx.kvec(0),
        0xf => fx.kvec(u32::MAX),
        0xc => y,
        0xa => z,
        0x3 => fx.b.ins().bnot(y),
        0x5 => fx.b.ins().bnot(z),
        0x8 => fx.b.ins().band(y, z),
        0xe => fx.b.ins().bor(y, z),
        0x6 => fx.b.ins().bxor(y, z),
        0x4 => fx.b.ins().band_not(y, z),
        0x2 => fx.b.ins().band_not(z, y),
        0xd => fx.b.ins().bor_not(y, z),
        0xb => fx.b.ins().bor_not(z, y),
        0x7 => {
            let a = fx.b.ins().band(y, z);
            fx.b.ins().bnot(a)
        }
        0x1 => {
            let o = fx.b.ins().bor(y, z);
            fx.b.ins().bnot(o)
        }
        // 0x9: equivalence.
        _ => {
            let x = fx.b.ins().bxor(y, z);
            fx.b.ins().bnot(x)
        }
    }
}

/// One slice: d = lut[(x << 2) | (y << 1) | z] per bit.
fn slice(fx: &mut Fx, lut: u32, x: Value, y: Value, z: Value) -> Value {
    // Mutant 20: the truth table's halves taken in the wrong order (the low nibble read as s1 = 1).
    let (t1, t0) = if crate::mutants::active(20) { (lut & 15, (lut >> 4) & 15) } else { ((lut >> 4) & 15, lut & 15) };
    if t1 == t0 {
        return two(fx, t0, y, z);
    }
    match (t1, t0) {
        (_, 0) => {
            let f = two(fx, t1, y, z);
            fx.b.ins().band(x, f)
        }
        (0, _) => {
            let f = two(fx, t0, y, z);
            fx.b.ins().band_not(f, x)
        }
        (15, _) => {
            let f = two(fx, t0, y, z);
            fx.b.ins().bor(x, f)
        }
        (_, 15) => {
            let f = two(fx, t1, y, z);
            fx.b.ins().bor_not(f, x)
        }
        _ if t1 == !t0 & 15 => {
            let f = two(fx, t0, y, z);
            fx.b.ins().bxor(x, f)
        }
        _ => {
            let (f1, f0) = (two(fx, t1, y, z), two(fx, t0, y, z));
            fx.b.ins().bitselect(x, f1, f0)
        }
    }
}

pub fn lower(fx: &mut Fx, rd: VReg, rs1: VReg, rs2: VReg, rs3: VReg, lut: u32) -> Lowered {
    let (a, b, c) = (fx.v(rs1), fx.v(rs2), fx.v(rs3));
    let d: Vec32 = std::array::from_fn(|k| slice(fx, lut, a[k], b[k], c[k]));
    fx.set_v(rd, d);
    Lowered::Native
}
