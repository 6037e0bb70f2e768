//! f32 unary operations: rounding to integral, fract, and the transcendental unit.
//!
//! floor/ceil/trunc/round_even are exact, so they ignore the rounding mode; fract ignores it too
//! (see `f32_fract`). The transcendentals `rcp rsq exp2 log2 sin cos` are the one shared
//! reference implementation of the ISA: evaluate in f64 with the pure-Rust `libm` crate (pinned)
//! and round once to nearest f32. They are approximations (≤ 2 ulp; in practice ≤ 0.5 ulp + 2^-29 ulp), so, like
//! GPU transcendental units, they ignore `FpMode::round`; only the flush bits apply. `libm` is
//! pure Rust, so results are identical for every engine and on every host.

use super::{Fmt, FpMode, S};

/// Input flush, host op, canonical NaN, output flush.
#[inline(always)]
fn unary32(a: u32, m: FpMode, op: impl Fn(f32) -> f32) -> u32 {
    let fl = m.flush32;
    let x = f32::from_bits(S::daz(a as u64, fl) as u32);
    S::finish(op(x).to_bits() as u64, fl) as u32
}

/// As [`unary32`], evaluated in f64 and rounded once to nearest f32.
#[inline(always)]
fn transc32(a: u32, m: FpMode, op: impl Fn(f64) -> f64) -> u32 {
    unary32(a, m, |x| op(x as f64) as f32)
}

/// Largest f32 below 1.0 (1 - 2^-24): the upper clamp of `fract`.
pub const F32_BELOW_ONE: u32 = 0x3f7f_ffff;

/// Round toward -inf to an integral value (exact; floor(-0) = -0).
#[inline]
pub fn f32_floor(a: u32, m: FpMode) -> u32 {
    unary32(a, m, f32::floor)
}

/// Round toward +inf to an integral value (exact; ceil(-0.5) = -0).
#[inline]
pub fn f32_ceil(a: u32, m: FpMode) -> u32 {
    unary32(a, m, f32::ceil)
}

/// Round toward zero to an integral value (exact).
#[inline]
pub fn f32_trunc(a: u32, m: FpMode) -> u32 {
    unary32(a, m, f32::trunc)
}

/// Round to the nearest integral value, ties to even (exact; round_even(-0.5) = -0).
#[inline]
pub fn f32_round_even(a: u32, m: FpMode) -> u32 {
    unary32(a, m, f32::round_ties_even)
}

/// x - floor(x), in [0, 1). The subtraction is exact except for small negative x, where it
/// rounds (to nearest even, whatever the mode, so that fract has one definition) and may reach
/// 1.0; the result is then clamped to the largest f32 below 1, as AMD's V_FRACT does. Integers
/// (±0 included) give +0; ±inf gives NaN (inf - inf); NaN gives NaN.
#[inline]
pub fn f32_fract(a: u32, m: FpMode) -> u32 {
    unary32(a, m, |x| {
        let r = x - x.floor();
        // A comparison, not f32::min, so that NaN stays NaN.
        if r > f32::from_bits(F32_BELOW_ONE) {
            f32::from_bits(F32_BELOW_ONE)
        } else {
            r
        }
    })
}

/// 1/x. The f64 quotient rounded to f32 is the correctly rounded RNE result (a double rounding
/// from 53 to 24 bits is harmless for division). rcp(±0) = ±inf, rcp(±inf) = ±0.
#[inline]
pub fn f32_rcp(a: u32, m: FpMode) -> u32 {
    transc32(a, m, |x| 1.0 / x)
}

/// 1/√x. rsq(±0) = ±inf, rsq(+inf) = +0, rsq(x < 0) = NaN.
#[inline]
pub fn f32_rsq(a: u32, m: FpMode) -> u32 {
    transc32(a, m, |x| 1.0 / x.sqrt())
}

/// 2^x. exp2(-inf) = +0, exp2(+inf) = +inf; results below the f32 range round to ±0 or a
/// subnormal (flushed if flush32).
#[inline]
pub fn f32_exp2(a: u32, m: FpMode) -> u32 {
    transc32(a, m, libm::exp2)
}

/// log2(x). log2(±0) = -inf, log2(x < 0) = NaN, log2(+inf) = +inf.
#[inline]
pub fn f32_log2(a: u32, m: FpMode) -> u32 {
    transc32(a, m, libm::log2)
}

/// sin(x), x in radians, full range reduction (libm). sin(±inf) = NaN, sin(-0) = -0.
#[inline]
pub fn f32_sin(a: u32, m: FpMode) -> u32 {
    transc32(a, m, libm::sin)
}

/// cos(x), x in radians. cos(±inf) = NaN.
#[inline]
pub fn f32_cos(a: u32, m: FpMode) -> u32 {
    transc32(a, m, libm::cos)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fp::oracle::{gen, specials, Rng};
    use crate::fp::soft::ap_round;
    use crate::fp::{Round, F32_QNAN};
    use rustc_apfloat::ieee::Single;
    use rustc_apfloat::Float;

    const INF: u32 = 0x7f80_0000;
    const NEG: u32 = 1 << 31;
    const R: FpMode = FpMode::RNE;
    const FZ: FpMode = FpMode { round: Round::Rne, flush32: true, flush16: false };

    fn b(x: f32) -> u32 {
        x.to_bits()
    }

    #[test]
    fn integral_rounding_vs_apfloat() {
        let sp = specials::<S>();
        let mut rng = Rng(11);
        let mut n = 0;
        type Op = fn(u32, FpMode) -> u32;
        let ops: [(Op, Round); 4] =
            [(f32_floor, Round::Rdn), (f32_ceil, Round::Rup), (f32_trunc, Round::Rtz), (f32_round_even, Round::Rne)];
        for i in 0..200_000 {
            let a = if i < sp.len() { sp[i] as u32 } else { gen::<S>(&mut rng, None, &sp) as u32 };
            for (f, r) in ops {
                for m in [R, FZ] {
                    let x = Single::from_bits(S::daz(a as u64, m.flush32) as u128);
                    let want = S::finish(x.round_to_integral(ap_round(r)).value.to_bits() as u64, m.flush32) as u32;
                    // Every mode must give the same (exact) answer.
                    let m2 = FpMode { round: Round::Rmm, ..m };
                    assert_eq!((f(a, m), f(a, m2)), (want, want), "{r:?} {a:#x}");
                    n += 2;
                }
            }
        }
        eprintln!("floor/ceil/trunc/round_even: {n} checks");
    }

    #[test]
    fn integral_rounding_edges() {
        assert_eq!(f32_floor(b(-0.5), R), b(-1.0));
        assert_eq!(f32_ceil(b(-0.5), R), NEG);
        assert_eq!(f32_trunc(b(-0.7), R), NEG);
        assert_eq!(f32_round_even(b(0.5), R), 0);
        assert_eq!(f32_round_even(b(-0.5), R), NEG);
        assert_eq!(f32_round_even(b(2.5), R), b(2.0));
        assert_eq!(f32_round_even(b(3.5), R), b(4.0));
        assert_eq!(f32_floor(INF | NEG, R), INF | NEG);
        assert_eq!(f32_ceil(0x7f80_0001, R), F32_QNAN);
        assert_eq!(f32_ceil(1, R), b(1.0));
        assert_eq!(f32_ceil(1, FZ), 0);
        assert_eq!(f32_floor(NEG | 1, FZ), NEG);
    }

    #[test]
    fn fract_edges() {
        assert_eq!(f32_fract(b(1.25), R), b(0.25));
        assert_eq!(f32_fract(b(-1.25), R), b(0.75));
        assert_eq!(f32_fract(b(-1e-10), R), F32_BELOW_ONE);
        assert_eq!(f32_fract(b(-1e-10), FpMode::with_round(Round::Rdn)), F32_BELOW_ONE);
        assert_eq!(f32_fract(b(5.0), R), 0);
        assert_eq!(f32_fract(b(-5.0), R), 0);
        assert_eq!(f32_fract(NEG, R), 0);
        assert_eq!(f32_fract(INF, R), F32_QNAN);
        assert_eq!(f32_fract(INF | NEG, R), F32_QNAN);
        assert_eq!(f32_fract(0xffc0_0001, R), F32_QNAN);
        assert_eq!(f32_fract(3, R), 3);
        assert_eq!(f32_fract(3, FZ), 0);
        assert_eq!(f32_fract(NEG | 3, FZ), 0); // -0 - floor(-0) = +0
                                               // Property: result in [0, 1) for every finite input.
        let mut rng = Rng(3);
        for _ in 0..100_000 {
            let x = rng.next() as u32;
            let y = f32::from_bits(f32_fract(x, R));
            if f32::from_bits(x).is_finite() {
                assert!((0.0..1.0).contains(&y) && y.is_sign_positive(), "{x:#x} -> {y}");
            }
        }
    }

    #[test]
    fn transcendental_edges() {
        assert_eq!(f32_exp2(INF | NEG, R), 0);
        assert_eq!(f32_exp2(INF, R), INF);
        assert_eq!(f32_exp2(b(128.0), R), INF);
        assert_eq!(f32_exp2(b(-149.0), R), 1);
        assert_eq!(f32_exp2(b(-149.0), FZ), 0);
        assert_eq!(f32_exp2(b(-150.0), R), 0); // a tie, to even
        assert_eq!(f32_exp2(0, R), b(1.0));
        assert_eq!(f32_exp2(b(10.0), R), b(1024.0));
        assert_eq!(f32_log2(0, R), INF | NEG);
        assert_eq!(f32_log2(NEG, R), INF | NEG);
        assert_eq!(f32_log2(1, FZ), INF | NEG);
        assert_eq!(f32_log2(1, R), b(-149.0));
        assert_eq!(f32_log2(b(-1.0), R), F32_QNAN);
        assert_eq!(f32_log2(INF, R), INF);
        assert_eq!(f32_log2(b(1.0), R), 0);
        assert_eq!(f32_log2(b(8.0), R), b(3.0));
        assert_eq!(f32_rcp(0, R), INF);
        assert_eq!(f32_rcp(NEG, R), INF | NEG);
        assert_eq!(f32_rcp(INF | NEG, R), NEG);
        assert_eq!(f32_rcp(NEG | 1, FZ), INF | NEG);
        assert_eq!(f32_rcp(b(4.0), R), b(0.25));
        assert_eq!(f32_rcp(0x0020_0000, R), INF); // 1/2^-128 overflows
        assert_eq!(f32_rsq(0, R), INF);
        assert_eq!(f32_rsq(NEG, R), INF | NEG);
        assert_eq!(f32_rsq(b(-4.0), R), F32_QNAN);
        assert_eq!(f32_rsq(INF, R), 0);
        assert_eq!(f32_rsq(b(4.0), R), b(0.5));
        for f in [f32_sin, f32_cos] {
            assert_eq!(f(INF, R), F32_QNAN);
            assert_eq!(f(INF | NEG, R), F32_QNAN);
            assert_eq!(f(0x7fa0_0000, R), F32_QNAN);
        }
        assert_eq!(f32_sin(NEG, R), NEG);
        assert_eq!(f32_cos(0, R), b(1.0));
        assert_eq!(f32_sin(NEG | 5, R), NEG | 5);
        assert_eq!(f32_sin(NEG | 5, FZ), NEG);
        // The rounding mode has no effect on the transcendental unit.
        for r in Round::ALL {
            assert_eq!(f32_sin(b(1.0), FpMode::with_round(r)), f32_sin(b(1.0), R));
        }
    }

    /// Distance from `y` to the real value `t` in units of the f32 ulp at `t`.
    fn ulps(y: u32, t: f64) -> f64 {
        let e = if t == 0.0 { -126 } else { (t.abs().log2().floor() as i32).max(-126) };
        (f32::from_bits(y) as f64 - t).abs() / 2f64.powi(e - 23)
    }

    #[test]
    fn transcendental_accuracy_sample() {
        // References: other f64 formulas where one exists (exp2 via exp, log2 via ln), else the
        // f64 function itself; all are far more accurate than an f32 ulp.
        type Fns = (&'static str, fn(u32, FpMode) -> u32, fn(f64) -> f64, f64, f64);
        let cases: [Fns; 6] = [
            ("exp2", f32_exp2, |x| (x * std::f64::consts::LN_2).exp(), -140.0, 127.0),
            ("log2", f32_log2, |x| x.ln() * std::f64::consts::LOG2_E, 1e-38, 3e38),
            ("sin", f32_sin, f64::sin, -1e5, 1e5),
            ("cos", f32_cos, f64::cos, -1e5, 1e5),
            ("rcp", f32_rcp, |x| 1.0 / x, -1e30, 1e30),
            ("rsq", f32_rsq, |x| 1.0 / x.sqrt(), 1e-30, 1e30),
        ];
        let mut rng = Rng(17);
        for (name, f, reference, lo, hi) in cases {
            let mut worst: f64 = 0.0;
            for i in 0..200_000 {
                let u = (rng.next() >> 11) as f64 / (1u64 << 53) as f64;
                // Half uniform in [lo, hi], half log-uniform in magnitude for wide ranges.
                let x = if i % 2 == 0 || lo <= 0.0 { lo + (hi - lo) * u } else { lo * (hi / lo).powf(u) };
                let xb = (x as f32).to_bits();
                let t = reference(f32::from_bits(xb) as f64);
                worst = worst.max(ulps(f(xb, R), t));
            }
            eprintln!("{name}: worst error {worst:.3} ulp over 200000 samples");
            assert!(worst <= 2.0, "{name}: {worst} ulp");
        }
    }
}
