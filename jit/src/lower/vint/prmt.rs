//! v.prmt (PTX prmt default mode) per slice with byte swizzles: the four selector nibbles of each lane are
//! spread into that lane's four bytes, and each result byte is fetched from s1 or s2 by pshufb-style swizzles
//! whose out-of-range indices (>= 16) give 0, so one swizzle per source and an or pick the byte; a set bit 3
//! of the nibble then replaces it with copies of its sign bit.

use super::super::Lowered;
use super::bits::{bytes_const, le};
use crate::fx::{Fx, Vec32};
use cranelift_codegen::ir::{condcodes::IntCC, types::*, ConstantData, InstBuilder, Value};
use lanejit_isa::VReg;

/// Byte (4j + k) of the result = nibble k of lane j of `s` (k = 0..3).
fn nibbles(fx: &mut Fx, s: Value) -> Value {
    let s8 = fx.b.ins().bitcast(I8X16, le(), s);
    // Each lane's bytes 0, 0, 1, 1: nibbles 0 and 1 live in byte 0, nibbles 2 and 3 in byte 1.
    let dup: [u8; 16] = std::array::from_fn(|i| (i / 4 * 4 + (i % 4) / 2) as u8);
    let dup = fx.b.func.dfg.immediates.push(ConstantData::from(&dup[..]));
    let t = fx.b.ins().shuffle(s8, s8, dup);
    let low_nib = bytes_const(fx, [0x0f; 16]);
    let lo = fx.b.ins().band(t, low_nib);
    let t32 = fx.b.ins().bitcast(I32X4, le(), t);
    let t32 = fx.b.ins().ushr_imm_u(t32, 4);
    let hi = fx.b.ins().bitcast(I8X16, le(), t32);
    let hi = fx.b.ins().band(hi, low_nib);
    let even = bytes_const(fx, std::array::from_fn(|i| if i % 2 == 0 { 0xff } else { 0 }));
    fx.b.ins().bitselect(even, lo, hi)
}

fn slice(fx: &mut Fx, x: Value, y: Value, s: Value) -> Value {
    let n = nibbles(fx, s);
    let (k3, k4, k8) = (bytes_const(fx, [3; 16]), bytes_const(fx, [4; 16]), bytes_const(fx, [8; 16]));
    let base = bytes_const(fx, std::array::from_fn(|i| (i / 4 * 4) as u8));
    let within = fx.b.ins().band(n, k3);
    let within = fx.b.ins().iadd(within, base);
    // 4 << 5 = 0x80 pushes the index out of range for the source the nibble does not name (no carry between
    // bytes: every byte is 0 or 4 before the shift): x's index moves out when bit 2 names y, and vice versa.
    let from_y = fx.b.ins().band(n, k4);
    let from_x = fx.b.ins().bxor(from_y, k4);
    let [off_x, off_y] = [from_y, from_x].map(|v| {
        let w = fx.b.ins().bitcast(I32X4, le(), v);
        let w = fx.b.ins().ishl_imm_u(w, 5);
        fx.b.ins().bitcast(I8X16, le(), w)
    });
    let ix = fx.b.ins().iadd(within, off_x);
    let iy = fx.b.ins().iadd(within, off_y);
    let (x8, y8) = (fx.b.ins().bitcast(I8X16, le(), x), fx.b.ins().bitcast(I8X16, le(), y));
    let bx = fx.b.ins().swizzle(x8, ix);
    let by = fx.b.ins().swizzle(y8, iy);
    let byte = fx.b.ins().bor(bx, by);
    // Mutant 21: selector bit 3 (sign replication) ignored: the byte is copied as is.
    if crate::mutants::active(21) {
        return fx.b.ins().bitcast(I32X4, le(), byte);
    }
    let zero = bytes_const(fx, [0; 16]);
    let sign = fx.b.ins().icmp(IntCC::SignedLessThan, byte, zero);
    let rep = fx.b.ins().band(n, k8);
    let rep = fx.b.ins().icmp(IntCC::Equal, rep, k8);
    let r = fx.b.ins().bitselect(rep, sign, byte);
    fx.b.ins().bitcast(I32X4, le(), r)
}

pub fn lower(fx: &mut Fx, rd: VReg, rs1: VReg, rs2: VReg, rs3: VReg) -> Lowered {
    let (a, b, c) = (fx.v(rs1), fx.v(rs2), fx.v(rs3));
    let d: Vec32 = std::array::from_fn(|k| slice(fx, a[k], b[k], c[k]));
    fx.set_v(rd, d);
    Lowered::Native
}
