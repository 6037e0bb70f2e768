//! Bit counts and bit reversal per 32-bit lane. Cranelift 0.135 has no vector clz/ctz and popcnt only on I8X16,
//! so everything goes through a byte popcount: the four byte counts of a lane summed by a multiply with
//! 0x01010101 (the sum, at most 32, lands in the top byte without carries), clz as 32 - popc of the value with
//! its leading one smeared right, ctz as popc((x - 1) & !x) (32 for x = 0). brev swaps the bytes of each lane
//! (one shuffle) and reverses each byte's bits through two 16-entry nibble tables (swizzle = pshufb).

use super::super::Lowered;
use crate::fx::{Fx, Vec32};
use cranelift_codegen::ir::{types::*, ConstantData, Endianness, InstBuilder, MemFlagsData, Value};
use lanejit_isa::{UReg, VReg};

/// Lane-count-changing bitcasts need an explicit byte order (x64 is little-endian).
pub fn le() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

pub fn bytes_const(fx: &mut Fx, bytes: [u8; 16]) -> Value {
    let c = fx.b.func.dfg.constants.insert(ConstantData::from(&bytes[..]));
    fx.b.ins().vconst(I8X16, c)
}

/// Number of 1 bits in each lane of one slice.
pub fn popc(fx: &mut Fx, x: Value) -> Value {
    let b = fx.b.ins().bitcast(I8X16, le(), x);
    let p = fx.b.ins().popcnt(b);
    let p = fx.b.ins().bitcast(I32X4, le(), p);
    let spread = fx.kvec(0x0101_0101);
    let sum = fx.b.ins().imul(p, spread);
    fx.b.ins().ushr_imm_u(sum, 24)
}

pub fn clz(fx: &mut Fx, x: Value) -> Value {
    let mut s = x;
    for sh in [1, 2, 4, 8, 16] {
        let t = fx.b.ins().ushr_imm_u(s, sh);
        s = fx.b.ins().bor(s, t);
    }
    let ones = popc(fx, s);
    let k32 = fx.kvec(32);
    fx.b.ins().isub(k32, ones)
}

pub fn ctz(fx: &mut Fx, x: Value) -> Value {
    let one = fx.kvec(1);
    let m1 = fx.b.ins().isub(x, one);
    let below = fx.b.ins().band_not(m1, x);
    popc(fx, below)
}

pub fn brev(fx: &mut Fx, x: Value) -> Value {
    let b = fx.b.ins().bitcast(I8X16, le(), x);
    let order: [u8; 16] = std::array::from_fn(|i| (i / 4 * 4 + 3 - i % 4) as u8);
    let order = fx.b.func.dfg.immediates.push(ConstantData::from(&order[..]));
    let swapped = fx.b.ins().shuffle(b, b, order);
    let rev4 = |n: u8| (0..4).fold(0u8, |r, i| r | (n >> i & 1) << (3 - i));
    let hi_tab = bytes_const(fx, std::array::from_fn(|n| rev4(n as u8) << 4));
    let lo_tab = bytes_const(fx, std::array::from_fn(|n| rev4(n as u8)));
    let nib = bytes_const(fx, [0x0f; 16]);
    let low = fx.b.ins().band(swapped, nib);
    let w = fx.b.ins().bitcast(I32X4, le(), swapped);
    let w = fx.b.ins().ushr_imm_u(w, 4);
    let high = fx.b.ins().bitcast(I8X16, le(), w);
    let high = fx.b.ins().band(high, nib);
    let a = fx.b.ins().swizzle(hi_tab, low);
    let c = fx.b.ins().swizzle(lo_tab, high);
    let r = fx.b.ins().bor(a, c);
    fx.b.ins().bitcast(I32X4, le(), r)
}

/// d = f(s1) for one of the functions above.
pub fn un(fx: &mut Fx, rd: VReg, rs1: VReg, f: fn(&mut Fx, Value) -> Value) -> Lowered {
    let a = fx.v(rs1);
    let d: Vec32 = std::array::from_fn(|k| f(fx, a[k]));
    fx.set_v(rd, d);
    Lowered::Native
}

/// v.mbcnt.u: popc(u1 & ((1 << lane) - 1)), the lane's rank among the set lanes below it.
pub fn mbcnt(fx: &mut Fx, rd: VReg, rs1: UReg) -> Lowered {
    let u = fx.u(rs1);
    let s = fx.b.ins().splat(I32X4, u);
    let d: Vec32 = std::array::from_fn(|k| {
        let below = fx.const_vec(std::array::from_fn(|j| ((1u64 << (4 * k + j)) - 1) as u32));
        let m = fx.b.ins().band(s, below);
        popc(fx, m)
    });
    fx.set_v(rd, d);
    Lowered::Native
}
