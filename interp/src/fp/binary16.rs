//! binary16 arithmetic: add sub mul fma min max, each rounded once, directly to binary16.
//!
//! The host has no binary16 arithmetic, so the RNE fast path computes in f64 and rounds once to
//! binary16 with [`narrow_rne`]. That is a single rounding because the f64 step is exact for
//! add, sub and mul (see each function) and, for fma, rounds to odd, which preserves enough
//! information for the final rounding (53 ≥ 11 + 2 bits). Computing fma in f32 and rounding
//! again would be wrong (double rounding; see the tests). Other modes go to [`soft`], which
//! rounds binary16 directly.

use super::{min_max, soft, Fmt, FpMode, Round, H};

/// 2^k as an f64, for k in the normal range.
#[inline(always)]
fn pow2(k: i32) -> f64 {
    f64::from_bits(((1023 + k) as u64) << 52)
}

/// The exact value of a binary16 pattern as an f64 (NaN stays a NaN, payload not kept).
#[inline]
pub(crate) fn widen16(b: u16) -> f64 {
    let e = ((b >> 10) & 0x1f) as i32;
    let f = (b & 0x3ff) as f64;
    let mag = match e {
        0 => f * pow2(-24),
        31 if f == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1024.0 + f) * pow2(e - 25),
    };
    if b & 0x8000 != 0 {
        -mag
    } else {
        mag
    }
}

/// Round the f64 with bits `x` to format F (binary16 or binary32), ties to even. NaN gives F's
/// canonical NaN. Integer arithmetic only, so the host's F16C (or lack of it) plays no part.
pub(crate) fn narrow_rne<F: Fmt>(x: u64) -> u64 {
    let sign = (x >> 63) << (F::MAN + F::EXP);
    let exp = ((x >> 52) & 0x7ff) as i32;
    let frac = x & ((1 << 52) - 1);
    if exp == 0x7ff {
        return if frac != 0 { F::QNAN } else { sign | F::EXP_MASK };
    }
    // f64 subnormals (< 2^-1022) are far below half of F's smallest subnormal.
    if exp == 0 {
        return sign;
    }
    let e = exp - 1023; // x = mant · 2^(e - 52)
    if e > F::BIAS {
        return sign | F::EXP_MASK; // ≥ 2^(emax+1): overflows whatever the fraction
    }
    let mant = frac | 1 << 52;
    // Keep MAN+1 bits for a normal result; below F's normal range, one bit fewer per binade.
    let shift = (52 - F::MAN as i32 + (1 - F::BIAS - e).max(0)) as u32;
    if shift > 53 {
        return sign; // below half the smallest subnormal
    }
    let q = mant >> shift;
    let rem = mant & ((1 << shift) - 1);
    let half = 1 << (shift - 1);
    let q = q + (rem > half || (rem == half && q & 1 == 1)) as u64;
    // For a normal result q carries the implicit bit, which adds 1 to the exponent field; a
    // rounding carry (q = 2^(MAN+1)) ripples into the exponent, up to infinity if need be, and
    // a subnormal that rounds up to 2^MAN becomes the smallest normal the same way.
    let biased = if e >= 1 - F::BIAS { (e + F::BIAS - 1) as u64 } else { 0 };
    sign | ((biased << F::MAN) + q)
}

/// Host path for RNE: flush inputs, compute in f64 (exact or round-to-odd), narrow once.
#[inline(always)]
fn host(a: u16, b: u16, m: FpMode, op: impl Fn(f64, f64) -> f64) -> u16 {
    let fl = m.flush16;
    let x = widen16(H::daz(a as u64, fl) as u16);
    let y = widen16(H::daz(b as u64, fl) as u16);
    H::finish(narrow_rne::<H>(op(x, y).to_bits()), fl) as u16
}

/// p + z rounded to odd in f64: if the f64 sum is inexact and even, step to the odd neighbour
/// on the side of the exact value (its sign comes from the TwoSum error term).
#[inline(always)]
fn add_round_odd(p: f64, z: f64) -> f64 {
    let s = p + z;
    if !s.is_finite() {
        return s;
    }
    let bb = s - p;
    let err = (p - (s - bb)) + (z - bb);
    if err == 0.0 || s.to_bits() & 1 == 1 {
        return s;
    }
    // s ≠ 0 here (an exact zero sum has no error). Same sign as s: the exact value is larger.
    let bits = s.to_bits();
    f64::from_bits(if (err > 0.0) == (s > 0.0) { bits + 1 } else { bits - 1 })
}

/// a + b. In f64 the sum is exact: both are multiples of 2^-24 below 2^16 (41 bits).
#[inline]
pub fn f16_add(a: u16, b: u16, m: FpMode) -> u16 {
    match m.round {
        Round::Rne => host(a, b, m, |x, y| x + y),
        _ => soft::add::<H>(a as u64, b as u64, m) as u16,
    }
}

/// a - b (exact in f64, as for add).
#[inline]
pub fn f16_sub(a: u16, b: u16, m: FpMode) -> u16 {
    match m.round {
        Round::Rne => host(a, b, m, |x, y| x - y),
        _ => soft::sub::<H>(a as u64, b as u64, m) as u16,
    }
}

/// a * b (exact in f64: 11 × 11 significant bits).
#[inline]
pub fn f16_mul(a: u16, b: u16, m: FpMode) -> u16 {
    match m.round {
        Round::Rne => host(a, b, m, |x, y| x * y),
        _ => soft::mul::<H>(a as u64, b as u64, m) as u16,
    }
}

/// a * b + c with one rounding to binary16: the product is exact in f64, the sum is rounded to
/// odd, and only the final narrowing rounds to nearest even. (Within binary16's small exponent
/// range a plain f64 sum would also happen to round correctly, since it is only inexact when c
/// dwarfs the product, far from any binary16 tie; round-to-odd makes that argument unnecessary,
/// and the tests cannot tell the two apart.)
#[inline]
pub fn f16_fma(a: u16, b: u16, c: u16, m: FpMode) -> u16 {
    match m.round {
        Round::Rne => {
            let z = widen16(H::daz(c as u64, m.flush16) as u16);
            host(a, b, m, |x, y| add_round_odd(x * y, z))
        }
        _ => soft::fma::<H>(a as u64, b as u64, c as u64, m) as u16,
    }
}

/// IEEE 754-2019 minimumNumber (NaN ignored unless both are NaN; -0 < +0).
#[inline]
pub fn f16_min(a: u16, b: u16, m: FpMode) -> u16 {
    min_max::<H>(a as u64, b as u64, m, false) as u16
}

/// IEEE 754-2019 maximumNumber (NaN ignored unless both are NaN; -0 < +0).
#[inline]
pub fn f16_max(a: u16, b: u16, m: FpMode) -> u16 {
    min_max::<H>(a as u64, b as u64, m, true) as u16
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fp::oracle::{run_arith, ArOp, Rng};
    use crate::fp::{D, F16_QNAN, S};

    const N: usize = 200_000;

    #[test]
    fn add_vs_soft_and_oracle() {
        let n = run_arith::<H>(
            ArOp::Add,
            2,
            N,
            &|x, m| f16_add(x[0] as u16, x[1] as u16, m) as u64,
            Some(&|x, m| soft::add::<H>(x[0], x[1], m)),
        );
        eprintln!("f16_add: {n} checks");
    }

    #[test]
    fn sub_vs_soft_and_oracle() {
        let n = run_arith::<H>(
            ArOp::Sub,
            2,
            N,
            &|x, m| f16_sub(x[0] as u16, x[1] as u16, m) as u64,
            Some(&|x, m| soft::sub::<H>(x[0], x[1], m)),
        );
        eprintln!("f16_sub: {n} checks");
    }

    #[test]
    fn mul_vs_soft_and_oracle() {
        let n = run_arith::<H>(
            ArOp::Mul,
            2,
            N,
            &|x, m| f16_mul(x[0] as u16, x[1] as u16, m) as u64,
            Some(&|x, m| soft::mul::<H>(x[0], x[1], m)),
        );
        eprintln!("f16_mul: {n} checks");
    }

    #[test]
    fn fma_vs_soft_and_oracle() {
        let f = |x: &[u64], m| f16_fma(x[0] as u16, x[1] as u16, x[2] as u16, m) as u64;
        let n = run_arith::<H>(ArOp::Fma, 3, N, &f, Some(&|x, m| soft::fma::<H>(x[0], x[1], x[2], m)));
        eprintln!("f16_fma: {n} checks");
    }

    #[test]
    fn fma_is_not_double_rounded() {
        // 1.5 · (1366/2048) = 1 + 2^-11, the midpoint between 1 and 1 + 2^-10; adding 2^-24
        // puts the exact result just above it, so binary16 must round up to 0x3c01. An f32 fma
        // lands exactly on the midpoint (the 2^-24 is a tie in f32, lost to even), and rounding
        // that to binary16 ties to even: 0x3c00. That is the double-rounding bug to avoid.
        let (a, b, c) = (0x3e00u16, 0x3956u16, 0x0001u16);
        for r in [Round::Rne, Round::Rup, Round::Rmm] {
            assert_eq!(f16_fma(a, b, c, FpMode::with_round(r)), 0x3c01, "{r:?}");
        }
        assert_eq!(f16_fma(a, b, c, FpMode::with_round(Round::Rtz)), 0x3c00);
        let to32 = |h: u16| (widen16(h) as f32).to_bits() as u64;
        let f32_route = soft::fma::<S>(to32(a), to32(b), to32(c), FpMode::RNE);
        let double_rounded = soft::convert::<S, H>(f32_route, FpMode::RNE);
        assert_eq!(double_rounded, 0x3c00, "the f32 route must show the bug this test guards");
        // Same trap with the sign flipped.
        assert_eq!(f16_fma(a | 0x8000, b, c | 0x8000, FpMode::RNE), 0xbc01);
    }

    #[test]
    fn known_answers_per_mode() {
        use Round::*;
        let m = FpMode::with_round;
        // 1 + 2^-11 is the midpoint between 1 and 1 + 2^-10.
        for (r, w) in [(Rne, 0x3c00), (Rtz, 0x3c00), (Rdn, 0x3c00), (Rup, 0x3c01), (Rmm, 0x3c01)] {
            assert_eq!(f16_add(0x3c00, 0x1000, m(r)), w, "{r:?}");
        }
        for (r, w) in [(Rne, 0x7c00), (Rtz, 0x7bff), (Rdn, 0x7bff), (Rup, 0x7c00), (Rmm, 0x7c00)] {
            assert_eq!(f16_mul(0x7bff, 0x4000, m(r)), w, "{r:?}");
        }
        // 65504 + 16 is exactly the overflow threshold (a tie): RNE and RMM overflow.
        assert_eq!(f16_add(0x7bff, 0x4c00, m(Rne)), 0x7c00);
        assert_eq!(f16_add(0x7bff, 0x4bff, m(Rne)), 0x7bff);
        for r in Round::ALL {
            assert_eq!(f16_sub(0x3c00, 0x3c00, m(r)), if r == Rdn { 0x8000 } else { 0 });
        }
        assert_eq!(f16_add(0x7c00, 0xfc00, m(Rne)), F16_QNAN);
        assert_eq!(f16_mul(0x7d00, 0x3c00, m(Rtz)), F16_QNAN);
        assert_eq!(f16_fma(0x7c00, 0, 0x3c00, m(Rne)), F16_QNAN);
    }

    #[test]
    fn flush_and_min_max() {
        let fz = FpMode { flush16: true, ..FpMode::RNE };
        assert_eq!(f16_add(0x0001, 0, fz), 0);
        assert_eq!(f16_add(0x0001, 0, FpMode { flush32: true, ..FpMode::RNE }), 1);
        assert_eq!(f16_mul(0x0400, 0x3800, fz), 0); // 2^-14 · 0.5 is subnormal
        assert_eq!(f16_mul(0x8400, 0x3800, FpMode { round: Round::Rup, ..fz }), 0x8000);
        assert_eq!(f16_min(0x8001, 0, fz), 0x8000);
        assert_eq!(f16_min(0, 0x8000, FpMode::RNE), 0x8000);
        assert_eq!(f16_max(0x8000, 0, FpMode::RNE), 0);
        assert_eq!(f16_max(F16_QNAN, 0xbc00, FpMode::RNE), 0xbc00);
        assert_eq!(f16_min(0x7c01, 0x7e00, FpMode::RNE), F16_QNAN);
    }

    #[test]
    fn narrow_matches_apfloat() {
        let mut rng = Rng(42);
        let mut n = 0;
        for i in 0..400_000u64 {
            // Mix uniform f64 bits with values near the binary16/binary32 ranges and ties.
            let r = rng.next();
            let x = match i % 4 {
                0 => r,
                1 => (r & 0x800f_ffff_ffff_ffff) | (((r >> 52) % 60 + 1023 - 30) & 0x7ff) << 52,
                2 => (r & 0x800f_fc00_0000_0000) | (((r >> 52) % 300 + 1023 - 160) & 0x7ff) << 52,
                _ => (r & 0x8000_07ff_ffff_ffff) | (0x3f00_0000_0000_0000 + ((r % 64) << 52)),
            };
            assert_eq!(narrow_rne::<H>(x), soft::convert::<D, H>(x, FpMode::RNE), "{x:#x}");
            assert_eq!(narrow_rne::<S>(x), soft::convert::<D, S>(x, FpMode::RNE), "{x:#x}");
            assert_eq!(narrow_rne::<S>(x), S::finish((f64::from_bits(x) as f32).to_bits() as u64, false));
            n += 3;
        }
        // Every binary16 pattern survives widen + narrow.
        for b in 0..=u16::MAX {
            let back = narrow_rne::<H>(widen16(b).to_bits()) as u16;
            assert_eq!(back, if H::is_nan(b as u64) { F16_QNAN } else { b });
            n += 1;
        }
        eprintln!("narrow_rne: {n} checks");
    }
}
