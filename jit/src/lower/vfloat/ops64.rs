//! f64 emitters for the native paths of `vfloat`: arithmetic on register pairs, the exact conversions between
//! f32/i32/u32 and f64, and the two f32 operations the ISA defines through f64 (rcp, rsq). A pair holds lane
//! l's low word in register r and its high word in r+1, so a 4-lane slice of a pair becomes two F64X2 by
//! interleaving the two words (two shuffles in, two out). Modifiers act on bit 63, which is bit 31 of the
//! high word: they are applied to it before the interleave. f64 has no flush control, so an f64 result only
//! depends on the rounding mode.

use super::ops32::{self, EmitMods, Mods, PLAIN};
use crate::fx::{Fx, Vec32};
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{types::*, ConstantData, Endianness, InstBuilder, MemFlagsData, Value};
use lanejit_interp::fp::F64_QNAN;
use lanejit_isa::VReg;

const ONE64: u64 = 0x3ff0_0000_0000_0000;
const TWO31: u64 = 0x41e0_0000_0000_0000;

/// The same operations as f32's.
pub use super::ops32::Bin;

/// Lane-changing bitcasts need a byte order (x64: little-endian; they emit nothing).
fn le() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

/// An I64X2 constant.
fn k64(fx: &mut Fx, c: u64) -> Value {
    let bytes: Vec<u8> = [c, c].iter().flat_map(|x| x.to_le_bytes()).collect();
    let k = fx.b.func.dfg.constants.insert(ConstantData::from(bytes));
    fx.b.ins().vconst(I64X2, k)
}

/// An F64X2 constant from its bits.
fn f64k(fx: &mut Fx, c: u64) -> Value {
    let k = k64(fx, c);
    fx.b.ins().bitcast(F64X2, MemFlagsData::new(), k)
}

fn bits64(fx: &mut Fx, f: Value) -> Value {
    fx.b.ins().bitcast(I64X2, MemFlagsData::new(), f)
}

/// I32X4 lane j = lane sel[j] of concat(a, b) (0..8).
fn shuffle32(fx: &mut Fx, a: Value, b: Value, sel: [u8; 4]) -> Value {
    let mask: Vec<u8> = sel.iter().flat_map(|&l| (0..4).map(move |byte| l * 4 + byte)).collect();
    let imm = fx.b.func.dfg.immediates.push(ConstantData::from(mask));
    let (a8, b8) = (fx.b.ins().bitcast(I8X16, le(), a), fx.b.ins().bitcast(I8X16, le(), b));
    let s = fx.b.ins().shuffle(a8, b8, imm);
    fx.b.ins().bitcast(I32X4, le(), s)
}

/// Lanes 2h, 2h+1 of a slice of a pair (low words `lo`, high words `hi`) as an F64X2.
fn join(fx: &mut Fx, lo: Value, hi: Value, h: usize) -> Value {
    let s = shuffle32(fx, lo, hi, if h == 0 { [0, 4, 1, 5] } else { [2, 6, 3, 7] });
    fx.b.ins().bitcast(F64X2, le(), s)
}

/// Two I64X2 results (lanes 0-1 and 2-3 of a slice) back to the slice's low and high words.
fn split(fx: &mut Fx, r: [Value; 2]) -> (Value, Value) {
    let (a, b) = (fx.b.ins().bitcast(I32X4, le(), r[0]), fx.b.ins().bitcast(I32X4, le(), r[1]));
    (shuffle32(fx, a, b, [0, 2, 4, 6]), shuffle32(fx, a, b, [1, 3, 5, 7]))
}

/// Lanes 0-1 and 2-3 of an F32X4 slice (bits `x`), widened exactly to F64X2.
fn widen(fx: &mut Fx, x: Value) -> [Value; 2] {
    let up = shuffle32(fx, x, x, [2, 3, 2, 3]);
    [x, up].map(|v| {
        let f = ops32::to_f(fx, v);
        fx.b.ins().fvpromote_low(f)
    })
}

/// Two F64X2 rounded (rne) to f32 and packed into one F32X4 slice (lanes 0-1 from `r[0]`).
fn narrow(fx: &mut Fx, r: [Value; 2]) -> Value {
    let d = r.map(|v| {
        let n = fx.b.ins().fvdemote(v);
        ops32::to_i(fx, n)
    });
    let s = shuffle32(fx, d[0], d[1], [0, 1, 4, 5]);
    ops32::to_f(fx, s)
}

/// sat (NaN, negatives, -0 → +0; above 1.0 → 1.0) or the canonical f64 NaN, as I64X2 bits.
fn finish(fx: &mut Fx, m: Mods, f: Value) -> Value {
    let bits = bits64(fx, f);
    if m.sat {
        let (zero, one) = (k64(fx, 0), k64(fx, ONE64));
        let (zf, of) = (f64k(fx, 0), f64k(fx, ONE64));
        let pos = fx.b.ins().fcmp(FloatCC::GreaterThan, f, zf);
        let below = fx.b.ins().fcmp(FloatCC::LessThan, f, of);
        let x = fx.b.ins().bitselect(below, bits, one);
        fx.b.ins().bitselect(pos, x, zero)
    } else {
        let nan = fx.b.ins().fcmp(FloatCC::Unordered, f, f);
        let q = k64(fx, F64_QNAN);
        fx.b.ins().bitselect(nan, q, bits)
    }
}

/// A source pair's (low, high) words with modifier `i` applied to the sign (bit 31 of the high word).
fn pair(fx: &mut Fx, r: VReg, m: Mods, i: u32) -> (Vec32, Vec32) {
    let (lo, hi) = (fx.v(r), fx.v(VReg(r.0 + 1)));
    // Mutant 40: the modifiers flip or clear bit 31 of the low word (a mantissa bit) instead of the sign.
    if crate::mutants::active(40) {
        return (lo.map(|x| m.src(fx, i, x)), hi);
    }
    (lo, hi.map(|x| m.src(fx, i, x)))
}

/// rd:rd+1 = f(the F64X2 halves of every source), slice by slice; `f` returns finished I64X2 bits.
fn pairwise<const N: usize>(
    fx: &mut Fx,
    rd: VReg,
    srcs: [(Vec32, Vec32); N],
    f: impl Fn(&mut Fx, [Value; N]) -> Value,
) {
    let mut out_lo: Vec32 = srcs[0].0;
    let mut out_hi: Vec32 = srcs[0].0;
    for k in 0..out_lo.len() {
        let r: [Value; 2] = std::array::from_fn(|h| {
            let x = srcs.map(|(lo, hi)| join(fx, lo[k], hi[k], h));
            f(fx, x)
        });
        (out_lo[k], out_hi[k]) = split(fx, r);
    }
    fx.set_v(rd, out_lo);
    fx.set_v(VReg(rd.0 + 1), out_hi);
}

/// IEEE 754-2019 minimumNumber / maximumNumber on F64X2 (compares are false on NaN): the smaller (larger)
/// operand; equal operands give a | b (min) or a & b (max), which orders -0 < +0 and is a itself otherwise; one
/// NaN gives the other operand; two NaNs a NaN (made canonical by `finish`).
fn min_max(fx: &mut Fx, a: Value, b: Value, want_max: bool) -> Value {
    let pick_a =
        if want_max { fx.b.ins().fcmp(FloatCC::LessThan, b, a) } else { fx.b.ins().fcmp(FloatCC::LessThan, a, b) };
    let (ia, ib) = (bits64(fx, a), bits64(fx, b));
    let r = fx.b.ins().bitselect(pick_a, ia, ib);
    let eq = fx.b.ins().fcmp(FloatCC::Equal, a, b);
    let z = if want_max { fx.b.ins().band(ia, ib) } else { fx.b.ins().bor(ia, ib) };
    let r = fx.b.ins().bitselect(eq, z, r);
    let na = fx.b.ins().fcmp(FloatCC::Unordered, a, a);
    let nb = fx.b.ins().fcmp(FloatCC::Unordered, b, b);
    let r = fx.b.ins().bitselect(na, ib, r);
    let r = fx.b.ins().bitselect(nb, ia, r);
    fx.b.ins().bitcast(F64X2, MemFlagsData::new(), r)
}

/// f.add/sub/mul/div/min/max.f64 with modifiers and sat.
pub fn bin(fx: &mut Fx, rd: VReg, rs1: VReg, rs2: VReg, m: Mods, op: Bin) {
    let srcs = [pair(fx, rs1, m, 0), pair(fx, rs2, m, 1)];
    pairwise(fx, rd, srcs, |fx, [a, b]| {
        let r = match op {
            Bin::Add => fx.b.ins().fadd(a, b),
            Bin::Sub => fx.b.ins().fsub(a, b),
            Bin::Mul => fx.b.ins().fmul(a, b),
            Bin::Div => fx.b.ins().fdiv(a, b),
            Bin::Min => min_max(fx, a, b, false),
            Bin::Max => min_max(fx, a, b, true),
        };
        finish(fx, m, r)
    });
}

pub fn fma(fx: &mut Fx, rd: VReg, rs: [VReg; 3], m: Mods) {
    let srcs = [pair(fx, rs[0], m, 0), pair(fx, rs[1], m, 1), pair(fx, rs[2], m, 2)];
    pairwise(fx, rd, srcs, |fx, [a, b, c]| {
        let r = fx.b.ins().fma(a, b, c);
        finish(fx, m, r)
    });
}

pub fn sqrt(fx: &mut Fx, rd: VReg, rs1: VReg, m: Mods) {
    let srcs = [pair(fx, rs1, m, 0)];
    pairwise(fx, rd, srcs, |fx, [a]| {
        let r = fx.b.ins().sqrt(a);
        finish(fx, m, r)
    });
}

/// Writes 32 f64 results given per slice as two I64X2 (lanes 0-1, 2-3) to the pair rd:rd+1.
fn write_pairs(fx: &mut Fx, rd: VReg, src: Vec32, f: impl Fn(&mut Fx, Value) -> [Value; 2]) {
    let (mut lo, mut hi) = (src, src);
    for k in 0..src.len() {
        let r = f(fx, src[k]);
        (lo[k], hi[k]) = split(fx, r);
    }
    fx.set_v(rd, lo);
    fx.set_v(VReg(rd.0 + 1), hi);
}

/// f.cvt.f64.f32: exact widening (cvtps2pd); NaN becomes the canonical f64 NaN.
pub fn from_f32(fx: &mut Fx, rd: VReg, rs1: VReg, m: Mods) {
    let src = fx.v(rs1);
    write_pairs(fx, rd, src, |fx, x| {
        let x = m.src(fx, 0, x);
        widen(fx, x).map(|f| finish(fx, PLAIN, f))
    });
}

/// f.cvt.f64.i32 / f.cvt.f64.u32: exact. The unsigned form is Cranelift's exact 2^52 trick; a signed x is
/// converted as the unsigned x + 2^31 (flip the sign bit), then 2^31 is subtracted exactly.
pub fn from_int(fx: &mut Fx, rd: VReg, rs1: VReg, signed: bool) {
    let src = fx.v(rs1);
    write_pairs(fx, rd, src, |fx, x| {
        let u = if signed {
            let k = fx.kvec(0x8000_0000);
            fx.b.ins().bxor(x, k)
        } else {
            x
        };
        let up = shuffle32(fx, u, u, [2, 3, 2, 3]);
        [u, up].map(|v| {
            let w = fx.b.ins().uwiden_low(v);
            let d = fx.b.ins().fcvt_from_uint(F64X2, w);
            // Mutant 41: the signed form flips the sign bit but forgets to subtract 2^31 again.
            let d = if signed && !crate::mutants::active(41) {
                let off = f64k(fx, TWO31);
                fx.b.ins().fsub(d, off)
            } else {
                d
            };
            bits64(fx, d)
        })
    });
}

/// f.cvt.f32.f64 in rne: cvtpd2ps rounds once; NaN canonical.
pub fn to_f32(fx: &mut Fx, rd: VReg, rs1: VReg, m: Mods) {
    let (lo, hi) = pair(fx, rs1, m, 0);
    ops32::lanewise(fx, rd, [lo, hi], |fx, [l, h]| {
        let r = [0, 1].map(|half| join(fx, l, h, half));
        let f = narrow(fx, r);
        PLAIN.finish(fx, f)
    });
}

/// f.rcp.f32 / f.rsq.f32 exactly as the shared reference: the f32 widened to f64, 1/x or 1/sqrt(x) in f64
/// (IEEE, rne), rounded once to f32, NaN canonical.
pub fn recip(fx: &mut Fx, rd: VReg, rs1: VReg, root: bool) {
    let src = [fx.v(rs1)];
    ops32::lanewise(fx, rd, src, |fx, [x]| {
        let one = f64k(fx, ONE64);
        let r = widen(fx, x).map(|d| {
            let d = if root { fx.b.ins().sqrt(d) } else { d };
            fx.b.ins().fdiv(one, d)
        });
        let f = narrow(fx, r);
        PLAIN.finish(fx, f)
    });
}
