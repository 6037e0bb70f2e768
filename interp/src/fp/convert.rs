//! Conversions among f32, f16, f64, i32 and u32.
//!
//! float → int: round to an integral value in the selected mode, then saturate; NaN gives 0
//! (RISC-V gives all ones for NaN; we follow the ISA text, "NaN → 0", as PTX `cvt.rzi.sat`
//! does). Rounding to integral is exact on the host (`floor`, `ceil`, `trunc`, `round`,
//! `round_ties_even`) and Rust's `as` saturates, so every mode takes the host path.
//! int → float and narrowing float → float round in the selected mode: host `as` for RNE,
//! apfloat otherwise. Widening is exact.

use super::binary16::{narrow_rne, widen16};
use super::{soft, Fmt, FpMode, Round, D, F64_QNAN, H, S};

/// Round to an integral value in mode `r` (exact host operations).
#[inline(always)]
fn round_int(x: f64, r: Round) -> f64 {
    match r {
        Round::Rne => x.round_ties_even(),
        Round::Rtz => x.trunc(),
        Round::Rdn => x.floor(),
        Round::Rup => x.ceil(),
        Round::Rmm => x.round(),
    }
}

/// An f32 input after input flush, as an exact f64.
#[inline(always)]
fn load32(a: u32, m: FpMode) -> f64 {
    f32::from_bits(S::daz(a as u64, m.flush32) as u32) as f64
}

/// f32 → i32: rounded per mode, saturating, NaN → 0.
#[inline]
pub fn f32_to_i32(a: u32, m: FpMode) -> i32 {
    round_int(load32(a, m), m.round) as i32
}

/// f32 → u32: rounded per mode, saturating (negative results give 0), NaN → 0.
#[inline]
pub fn f32_to_u32(a: u32, m: FpMode) -> u32 {
    round_int(load32(a, m), m.round) as u32
}

/// f64 → i32: rounded per mode, saturating, NaN → 0.
#[inline]
pub fn f64_to_i32(a: u64, m: FpMode) -> i32 {
    round_int(f64::from_bits(a), m.round) as i32
}

/// f64 → u32: rounded per mode, saturating (negative results give 0), NaN → 0.
#[inline]
pub fn f64_to_u32(a: u64, m: FpMode) -> u32 {
    round_int(f64::from_bits(a), m.round) as u32
}

/// i32 → f32, rounded per mode (|x| > 2^24 may be inexact). Never subnormal: no flush.
#[inline]
pub fn i32_to_f32(x: i32, m: FpMode) -> u32 {
    match m.round {
        Round::Rne => (x as f32).to_bits(),
        _ => soft::from_i64::<S>(x as i64, m) as u32,
    }
}

/// u32 → f32, rounded per mode.
#[inline]
pub fn u32_to_f32(x: u32, m: FpMode) -> u32 {
    match m.round {
        Round::Rne => (x as f32).to_bits(),
        _ => soft::from_i64::<S>(x as i64, m) as u32,
    }
}

/// i32 → f64 (always exact).
#[inline]
pub fn i32_to_f64(x: i32) -> u64 {
    (x as f64).to_bits()
}

/// u32 → f64 (always exact).
#[inline]
pub fn u32_to_f64(x: u32) -> u64 {
    (x as f64).to_bits()
}

/// f32 → f64: exact; f32 input flush applies; NaN → canonical f64 NaN.
#[inline]
pub fn f32_to_f64(a: u32, m: FpMode) -> u64 {
    let x = load32(a, m);
    if x.is_nan() {
        F64_QNAN
    } else {
        x.to_bits()
    }
}

/// f64 → f32, rounded per mode; f32 output flush applies.
#[inline]
pub fn f64_to_f32(a: u64, m: FpMode) -> u32 {
    match m.round {
        // `as` from f64 to f32 rounds to nearest even.
        Round::Rne => S::finish((f64::from_bits(a) as f32).to_bits() as u64, m.flush32) as u32,
        _ => soft::convert::<D, S>(a, m) as u32,
    }
}

/// f32 → f16, rounded per mode, directly (never via another rounding); f32 input flush and
/// f16 output flush apply.
#[inline]
pub fn f32_to_f16(a: u32, m: FpMode) -> u16 {
    match m.round {
        Round::Rne => H::finish(narrow_rne::<H>(load32(a, m).to_bits()), m.flush16) as u16,
        _ => soft::convert::<S, H>(a as u64, m) as u16,
    }
}

/// f16 → f32: exact; f16 input flush applies (every f16 is a normal f32, so no output flush).
#[inline]
pub fn f16_to_f32(a: u16, m: FpMode) -> u32 {
    let x = widen16(H::daz(a as u64, m.flush16) as u16);
    S::finish((x as f32).to_bits() as u64, false) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fp::oracle::{check, gen, is_finite, specials, val, Exact, Rng, Val};
    use crate::fp::soft::ap_round;
    use crate::fp::F32_QNAN;
    use rustc_apfloat::Float;

    const N: usize = 150_000;

    /// Float → float conversion `f` from A to B, checked in every mode against the oracle and
    /// against the apfloat path, plus the flush property. Returns the number of checks.
    fn check_conv<A: Fmt, B: Fmt>(f: impl Fn(u64, FpMode) -> u64, exact_always: bool) -> usize
    where
        A::Ap: rustc_apfloat::FloatConvert<B::Ap>,
    {
        let mut rng = Rng(7 + A::MAN as u64 * 100 + B::MAN as u64);
        let sp = specials::<A>();
        let mut xs = sp.clone();
        xs.extend((0..N).map(|_| gen::<A>(&mut rng, None, &sp)));
        // Values near B's range limits and ties: B's values, midpoints and neighbours, widened.
        if A::MAN > B::MAN {
            let shift = A::MAN - B::MAN;
            let rebias = ((A::BIAS - B::BIAS) as u64) << A::MAN;
            xs.extend((0..N / 4).map(|_| {
                let r = rng.next();
                let b = r & (B::EXP_MASK | B::FRAC_MASK);
                let sign = (r >> 63) * A::SIGN;
                sign | (((b << shift) + rebias) ^ ((r >> 20) & ((1 << (shift + 1)) - 1)))
            }));
        }
        let mut n = 0;
        for round in Round::ALL {
            let m = FpMode::with_round(round);
            let mf = FpMode { round, flush32: true, flush16: true };
            for &x in &xs {
                let y = f(x, m);
                assert_eq!(y, soft::convert::<A, B>(x, m), "{round:?} {x:#x}: fast vs soft");
                if !is_finite::<A>(x) {
                    let want =
                        if A::is_nan(x) { B::QNAN } else { (if x & A::SIGN != 0 { B::SIGN } else { 0 }) | B::EXP_MASK };
                    assert_eq!(y, want, "{x:#x}");
                } else {
                    let ex = Exact::Sum(vec![val::<A>(x)]);
                    if let Err(why) = check::<B>(y, round, &ex) {
                        panic!("{round:?} {x:#x} -> {y:#x}: {why}");
                    }
                    if exact_always {
                        assert!(check::<B>(y, round, &ex).is_ok() && ex.cmp(val::<B>(y)).is_eq());
                    }
                }
                let want = B::daz(f(A::daz(x, A::flushes(mf)), m), B::flushes(mf));
                assert_eq!(f(x, mf), want, "{round:?} flush {x:#x}");
                n += 2;
            }
        }
        n
    }

    #[test]
    fn f64_to_f32_vs_oracle() {
        let n = check_conv::<D, S>(|x, m| f64_to_f32(x, m) as u64, false);
        eprintln!("f64_to_f32: {n} checks");
    }

    #[test]
    fn f32_to_f16_vs_oracle() {
        let n = check_conv::<S, H>(|x, m| f32_to_f16(x as u32, m) as u64, false);
        eprintln!("f32_to_f16: {n} checks");
    }

    #[test]
    fn widening_is_exact() {
        let n = check_conv::<H, S>(|x, m| f16_to_f32(x as u16, m) as u64, true)
            + check_conv::<S, D>(|x, m| f32_to_f64(x as u32, m), true);
        eprintln!("f16_to_f32, f32_to_f64: {n} checks");
    }

    fn int_inputs(rng: &mut Rng) -> Vec<i64> {
        let mut v: Vec<i64> = vec![
            0,
            1,
            -1,
            2,
            i32::MAX as i64,
            i32::MIN as i64,
            u32::MAX as i64,
            (1 << 24) + 1,
            -(1 << 24) - 1,
            (1 << 24) + 3,
            (1 << 25) + 2,
            (1 << 31) + 128,
            (1 << 31) + 129,
        ];
        v.extend((0..N).map(|i| {
            let r = rng.next();
            // Uniform 32-bit values, and values just above 2^24 where rounding starts.
            if i % 2 == 0 {
                r as u32 as i64
            } else {
                ((r >> 40) as i64 + (1 << 24)) << (r % 8)
            }
        }));
        v
    }

    #[test]
    fn int_to_f32_vs_oracle() {
        let mut rng = Rng(99);
        let mut n = 0;
        for round in Round::ALL {
            let m = FpMode::with_round(round);
            for &x in &int_inputs(&mut rng) {
                let (xi, xu) = (x as i32, x as u32);
                let yi = i32_to_f32(xi, m) as u64;
                let yu = u32_to_f32(xu, m) as u64;
                assert_eq!(yi, soft::from_i64::<S>(xi as i64, m));
                assert_eq!(yu, soft::from_i64::<S>(xu as i64, m));
                check::<S>(yi, round, &Exact::Sum(vec![Val::int(xi as i64)])).unwrap();
                check::<S>(yu, round, &Exact::Sum(vec![Val::int(xu as i64)])).unwrap();
                assert_eq!(f64::from_bits(i32_to_f64(xi)), xi as f64);
                assert_eq!(f64::from_bits(u32_to_f64(xu)), xu as f64);
                n += 4;
            }
        }
        eprintln!("int_to_f32: {n} checks");
    }

    /// The apfloat reference for float → int (apfloat saturates and maps NaN to 0 as well).
    fn ap_to_int<F: Fmt>(a: u64, m: FpMode, signed: bool) -> i64 {
        let x = F::Ap::from_bits(F::daz(a, F::flushes(m)) as u128);
        if signed {
            x.to_i128_r(32, ap_round(m.round), &mut false).value as i64
        } else {
            x.to_u128_r(32, ap_round(m.round), &mut false).value as i64
        }
    }

    #[test]
    fn float_to_int_vs_apfloat() {
        let mut rng = Rng(5);
        let mut n = 0;
        let sp32 = specials::<S>();
        let sp64 = specials::<D>();
        for round in Round::ALL {
            for flush32 in [false, true] {
                let m = FpMode { round, flush32, flush16: false };
                for i in 0..N {
                    // Half the draws land in ±2^33, where the interesting rounding happens.
                    let r = rng.next();
                    let a32 = if i % 2 == 0 {
                        gen::<S>(&mut rng, None, &sp32) as u32
                    } else {
                        (r as u32 & 0x807f_ffff) | (((r >> 32) % 36 + 110) as u32) << 23
                    };
                    let a64 = if i % 2 == 0 {
                        gen::<D>(&mut rng, None, &sp64)
                    } else {
                        (r & 0x800f_ffff_ffff_ffff) | ((r >> 52) % 36 + 1010) << 52
                    };
                    assert_eq!(f32_to_i32(a32, m) as i64, ap_to_int::<S>(a32 as u64, m, true), "{m:?} {a32:#x}");
                    assert_eq!(f32_to_u32(a32, m) as i64, ap_to_int::<S>(a32 as u64, m, false), "{m:?} {a32:#x}");
                    assert_eq!(f64_to_i32(a64, m) as i64, ap_to_int::<D>(a64, m, true), "{m:?} {a64:#x}");
                    assert_eq!(f64_to_u32(a64, m) as i64, ap_to_int::<D>(a64, m, false), "{m:?} {a64:#x}");
                    n += 4;
                }
            }
        }
        eprintln!("float_to_int: {n} checks");
    }

    #[test]
    fn saturating_conversions() {
        use Round::*;
        let m = FpMode::with_round;
        let f = |x: f32| x.to_bits();
        let d = |x: f64| x.to_bits();
        for r in Round::ALL {
            assert_eq!(f32_to_i32(f(3e9), m(r)), i32::MAX);
            assert_eq!(f32_to_i32(f(-3e9), m(r)), i32::MIN);
            assert_eq!(f32_to_i32(F32_QNAN, m(r)), 0);
            assert_eq!(f32_to_i32(0xff80_0001, m(r)), 0);
            assert_eq!(f32_to_i32(f(f32::INFINITY), m(r)), i32::MAX);
            assert_eq!(f32_to_i32(f(f32::NEG_INFINITY), m(r)), i32::MIN);
            assert_eq!(f32_to_u32(f(-1.0), m(r)), 0);
            assert_eq!(f32_to_u32(f(5e9), m(r)), u32::MAX);
            assert_eq!(f32_to_u32(F32_QNAN, m(r)), 0);
            assert_eq!(f64_to_i32(F64_QNAN, m(r)), 0);
            assert_eq!(f64_to_u32(d(-1e300), m(r)), 0);
            assert_eq!(f32_to_i32(f(-2147483648.0), m(r)), i32::MIN);
        }
        let ties = [(Rne, 2, -2), (Rtz, 2, -2), (Rdn, 2, -3), (Rup, 3, -2), (Rmm, 3, -3)];
        for (r, p, q) in ties {
            assert_eq!(f32_to_i32(f(2.5), m(r)), p, "{r:?}");
            assert_eq!(f32_to_i32(f(-2.5), m(r)), q, "{r:?}");
        }
        assert_eq!(f32_to_u32(f(-0.4), m(Rne)), 0);
        assert_eq!(f32_to_u32(f(-0.7), m(Rdn)), 0);
        assert_eq!(f32_to_u32(f(0.2), m(Rup)), 1);
        assert_eq!(f64_to_u32(d(4294967295.5), m(Rne)), u32::MAX); // rounds to 2^32, saturates
        assert_eq!(f64_to_u32(d(4294967295.5), m(Rtz)), u32::MAX);
        assert_eq!(f64_to_u32(d(4294967294.5), m(Rne)), 4294967294);
        assert_eq!(f64_to_i32(d(-2147483648.5), m(Rne)), i32::MIN);
        assert_eq!(f64_to_i32(d(2147483647.5), m(Rtz)), i32::MAX);
        assert_eq!(f64_to_i32(d(2147483646.5), m(Rmm)), i32::MAX);
        // The smallest subnormal rounds up to 1 unless flushed.
        assert_eq!(f32_to_i32(1, m(Rup)), 1);
        assert_eq!(f32_to_i32(1, FpMode { round: Rup, flush32: true, flush16: false }), 0);
    }

    #[test]
    fn int_to_float_known_answers() {
        use Round::*;
        let m = FpMode::with_round;
        let p = 16_777_217; // 2^24 + 1: a tie between 2^24 and 2^24 + 2
        for (r, w) in
            [(Rne, 0x4b80_0000), (Rtz, 0x4b80_0000), (Rdn, 0x4b80_0000), (Rup, 0x4b80_0001), (Rmm, 0x4b80_0001)]
        {
            assert_eq!(i32_to_f32(p, m(r)), w, "{r:?}");
        }
        for (r, w) in
            [(Rne, 0xcb80_0000), (Rtz, 0xcb80_0000), (Rdn, 0xcb80_0001), (Rup, 0xcb80_0000), (Rmm, 0xcb80_0001)]
        {
            assert_eq!(i32_to_f32(-p, m(r)), w, "{r:?}");
        }
        assert_eq!(u32_to_f32(u32::MAX, m(Rne)), 0x4f80_0000);
        assert_eq!(u32_to_f32(u32::MAX, m(Rtz)), 0x4f7f_ffff);
        assert_eq!(i32_to_f32(i32::MIN, m(Rtz)), 0xcf00_0000);
        assert_eq!(f64::from_bits(u32_to_f64(u32::MAX)), 4294967295.0);
    }

    #[test]
    fn float_conversion_known_answers() {
        use Round::*;
        let m = FpMode::with_round;
        // 1 + 2^-11 is a binary16 tie; 65520 is the binary16 overflow threshold.
        let tie = (1.0f32 + 2f32.powi(-11)).to_bits();
        for (r, w) in [(Rne, 0x3c00), (Rtz, 0x3c00), (Rdn, 0x3c00), (Rup, 0x3c01), (Rmm, 0x3c01)] {
            assert_eq!(f32_to_f16(tie, m(r)), w, "{r:?}");
        }
        for (r, w) in [(Rne, 0x7c00), (Rtz, 0x7bff), (Rdn, 0x7bff), (Rup, 0x7c00), (Rmm, 0x7c00)] {
            assert_eq!(f32_to_f16(65520f32.to_bits(), m(r)), w, "{r:?}");
        }
        assert_eq!(f32_to_f16(F32_QNAN | 0x1234, m(Rne)), 0x7e00);
        assert_eq!(f32_to_f16(0x7f80_0001, m(Rtz)), 0x7e00);
        // 2^-25 is half the smallest binary16 subnormal: ties to 0 (RNE), away in RMM.
        assert_eq!(f32_to_f16(0x3300_0000, m(Rne)), 0);
        assert_eq!(f32_to_f16(0x3300_0000, m(Rmm)), 1);
        assert_eq!(f32_to_f16(0x3300_0000, FpMode { round: Rmm, flush32: false, flush16: true }), 0);
        assert_eq!(f16_to_f32(0x0001, m(Rne)), 0x3380_0000);
        assert_eq!(f16_to_f32(0x8001, FpMode { flush16: true, ..m(Rne) }), 0x8000_0000);
        assert_eq!(f16_to_f32(0x7c01, m(Rne)), F32_QNAN);
        assert_eq!(f32_to_f64(0xffc0_0001, m(Rne)), F64_QNAN);
        assert_eq!(f32_to_f64(1, FpMode { flush32: true, ..m(Rne) }), 0);
        assert_eq!(f32_to_f64(1, m(Rne)), (2f64.powi(-149)).to_bits());
        // f64 → f32: 1 + 2^-24 is a tie; 2^-150 is half the smallest subnormal.
        let t = (1.0 + 2f64.powi(-24)).to_bits();
        for (r, w) in
            [(Rne, 0x3f80_0000), (Rtz, 0x3f80_0000), (Rdn, 0x3f80_0000), (Rup, 0x3f80_0001), (Rmm, 0x3f80_0001)]
        {
            assert_eq!(f64_to_f32(t, m(r)), w, "{r:?}");
        }
        assert_eq!(f64_to_f32(2f64.powi(-150).to_bits(), m(Rmm)), 1);
        assert_eq!(f64_to_f32(2f64.powi(-150).to_bits(), FpMode { round: Rmm, flush32: true, flush16: false }), 0);
        assert_eq!(f64_to_f32(1e300f64.to_bits(), m(Rtz)), 0x7f7f_ffff);
        assert_eq!(f64_to_f32((-1e300f64).to_bits(), m(Rne)), 0xff80_0000);
        assert_eq!(f64_to_f32(F64_QNAN | 7, m(Rup)), F32_QNAN);
    }
}
