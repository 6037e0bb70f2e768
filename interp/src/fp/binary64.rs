//! binary64 arithmetic: add sub mul div fma sqrt min max.
//!
//! Same split as binary32: host ops for RNE, [`soft`] for other modes. binary64 has no flush
//! control in `fcsr`, so `FpMode::flush32/flush16` never affect these functions.

use super::{min_max, soft, Fmt, FpMode, Round, D};

/// Host path: the RNE host op plus canonical NaN (nothing to flush in binary64).
#[inline(always)]
fn host2(a: u64, b: u64, op: impl Fn(f64, f64) -> f64) -> u64 {
    D::finish(op(f64::from_bits(a), f64::from_bits(b)).to_bits(), false)
}

/// a + b.
#[inline]
pub fn f64_add(a: u64, b: u64, m: FpMode) -> u64 {
    match m.round {
        Round::Rne => host2(a, b, |x, y| x + y),
        _ => soft::add::<D>(a, b, m),
    }
}

/// a - b.
#[inline]
pub fn f64_sub(a: u64, b: u64, m: FpMode) -> u64 {
    match m.round {
        Round::Rne => host2(a, b, |x, y| x - y),
        _ => soft::sub::<D>(a, b, m),
    }
}

/// a * b.
#[inline]
pub fn f64_mul(a: u64, b: u64, m: FpMode) -> u64 {
    match m.round {
        Round::Rne => host2(a, b, |x, y| x * y),
        _ => soft::mul::<D>(a, b, m),
    }
}

/// a / b.
#[inline]
pub fn f64_div(a: u64, b: u64, m: FpMode) -> u64 {
    match m.round {
        Round::Rne => host2(a, b, |x, y| x / y),
        _ => soft::div::<D>(a, b, m),
    }
}

/// a * b + c with one rounding.
#[inline]
pub fn f64_fma(a: u64, b: u64, c: u64, m: FpMode) -> u64 {
    match m.round {
        Round::Rne => host2(a, b, |x, y| super::fused::fused_f64(x, y, f64::from_bits(c))),
        _ => soft::fma::<D>(a, b, c, m),
    }
}

/// 2^-900, below which `x - r²` could underflow and lose its sign.
const TINY: f64 = f64::from_bits(((1023 - 900) as u64) << 52);
/// 2^600 and 2^300: scaling x by the first and r by the second is exact and keeps r = √x.
const UP600: f64 = f64::from_bits(((1023 + 600) as u64) << 52);
const UP300: f64 = f64::from_bits(((1023 + 300) as u64) << 52);

/// √a. Directed modes step from the host's RNE root `r` to its neighbour on the side of the
/// exact root, given by the sign of `a - r²`: an fma computes that residual with one rounding,
/// which keeps its sign as long as it cannot underflow; tiny inputs are scaled first.
#[inline]
pub fn f64_sqrt(a: u64, m: FpMode) -> u64 {
    let x = f64::from_bits(a);
    let r = x.sqrt();
    let mut bits = r.to_bits();
    if m.round != Round::Rne && r.is_finite() && r > 0.0 {
        let (xs, rs) = if x < TINY { (x * UP600, r * UP300) } else { (x, r) };
        let diff = (-rs).mul_add(rs, xs);
        bits = soft::sqrt_adjust(bits, diff.total_cmp(&0.0), m.round);
    }
    D::finish(bits, false)
}

/// IEEE 754-2019 minimumNumber (NaN ignored unless both are NaN; -0 < +0).
#[inline]
pub fn f64_min(a: u64, b: u64, m: FpMode) -> u64 {
    min_max::<D>(a, b, m, false)
}

/// IEEE 754-2019 maximumNumber (NaN ignored unless both are NaN; -0 < +0).
#[inline]
pub fn f64_max(a: u64, b: u64, m: FpMode) -> u64 {
    min_max::<D>(a, b, m, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fp::oracle::{run_arith, ArOp};
    use crate::fp::F64_QNAN;

    const N: usize = 120_000;
    const ONE: u64 = 0x3ff0_0000_0000_0000;
    const HALF_ULP1: u64 = 0x3ca0_0000_0000_0000; // 2^-53
    const MAX: u64 = 0x7fef_ffff_ffff_ffff;
    const INF: u64 = 0x7ff0_0000_0000_0000;
    const NEG: u64 = 1 << 63;

    #[test]
    fn add_vs_soft_and_oracle() {
        let n = run_arith::<D>(
            ArOp::Add,
            2,
            N,
            &|x, m| f64_add(x[0], x[1], m),
            Some(&|x, m| soft::add::<D>(x[0], x[1], m)),
        );
        eprintln!("f64_add: {n} checks");
    }

    #[test]
    fn sub_vs_soft_and_oracle() {
        let n = run_arith::<D>(
            ArOp::Sub,
            2,
            N,
            &|x, m| f64_sub(x[0], x[1], m),
            Some(&|x, m| soft::sub::<D>(x[0], x[1], m)),
        );
        eprintln!("f64_sub: {n} checks");
    }

    #[test]
    fn mul_vs_soft_and_oracle() {
        let n = run_arith::<D>(
            ArOp::Mul,
            2,
            N,
            &|x, m| f64_mul(x[0], x[1], m),
            Some(&|x, m| soft::mul::<D>(x[0], x[1], m)),
        );
        eprintln!("f64_mul: {n} checks");
    }

    #[test]
    fn div_vs_soft_and_oracle() {
        let n = run_arith::<D>(
            ArOp::Div,
            2,
            N,
            &|x, m| f64_div(x[0], x[1], m),
            Some(&|x, m| soft::div::<D>(x[0], x[1], m)),
        );
        eprintln!("f64_div: {n} checks");
    }

    #[test]
    fn fma_vs_soft_and_oracle() {
        let f = |x: &[u64], m| f64_fma(x[0], x[1], x[2], m);
        let n = run_arith::<D>(ArOp::Fma, 3, N, &f, Some(&|x, m| soft::fma::<D>(x[0], x[1], x[2], m)));
        eprintln!("f64_fma: {n} checks");
    }

    #[test]
    fn sqrt_vs_oracle() {
        let n = run_arith::<D>(ArOp::Sqrt, 1, N, &|x, m| f64_sqrt(x[0], m), None);
        eprintln!("f64_sqrt: {n} checks");
    }

    #[test]
    fn known_answers_per_mode() {
        use Round::*;
        let m = FpMode::with_round;
        for (r, w) in [(Rne, ONE), (Rtz, ONE), (Rdn, ONE), (Rup, ONE + 1), (Rmm, ONE + 1)] {
            assert_eq!(f64_add(ONE, HALF_ULP1, m(r)), w, "{r:?}");
            assert_eq!(
                f64_sub(ONE | NEG, HALF_ULP1, m(r)),
                NEG | if r == Rup || r == Rtz || r == Rne { ONE } else { ONE + 1 },
                "{r:?}"
            );
        }
        for (r, w) in [(Rne, INF), (Rtz, MAX), (Rdn, MAX), (Rup, INF), (Rmm, INF)] {
            assert_eq!(f64_add(MAX, MAX, m(r)), w, "{r:?}");
        }
        for (r, w) in [(Rne, 0), (Rtz, 0), (Rdn, 0), (Rup, 1), (Rmm, 1)] {
            assert_eq!(f64_mul(1, 0x3fe0_0000_0000_0000, m(r)), w, "{r:?}");
        }
        for r in Round::ALL {
            assert_eq!(f64_sub(ONE, ONE, m(r)), if r == Rdn { NEG } else { 0 });
            assert_eq!(f64_fma(ONE, ONE, ONE | NEG, m(r)), if r == Rdn { NEG } else { 0 });
        }
        // √2 = 1.41421356237309504880...; 0x3ff6a09e667f3bcd = 1.41421356237309514547...: RNE
        // rounds up here, so RTZ and RDN take the pattern below.
        let root2 = 0x3ff6_a09e_667f_3bcd;
        for (r, w) in [(Rne, root2), (Rtz, root2 - 1), (Rdn, root2 - 1), (Rup, root2), (Rmm, root2)] {
            assert_eq!(f64_sqrt(0x4000_0000_0000_0000, m(r)), w, "{r:?}");
        }
        // Smallest subnormal: √(2^-1074) = 2^-537 exactly; the scaled residual path must see 0.
        for r in Round::ALL {
            assert_eq!(f64_sqrt(1, m(r)), 0x1e60_0000_0000_0000, "{r:?}");
        }
        assert_eq!(f64_mul(0x7ff0_0000_0000_0001, ONE, m(Rne)), F64_QNAN);
        assert_eq!(f64_fma(INF, 0, ONE, m(Rdn)), F64_QNAN);
        assert_eq!(f64_div(0, 0, m(Rne)), F64_QNAN);
        // binary64 ignores the flush bits.
        let fz = FpMode { round: Rne, flush32: true, flush16: true };
        assert_eq!(f64_add(1, 0, fz), 1);
        assert_eq!(f64_min(1 | NEG, 0, fz), 1 | NEG);
    }

    #[test]
    fn min_max_are_minimum_number() {
        let r = FpMode::RNE;
        assert_eq!(f64_min(0, NEG, r), NEG);
        assert_eq!(f64_max(NEG, 0, r), 0);
        assert_eq!(f64_min(F64_QNAN, ONE, r), ONE);
        assert_eq!(f64_max(ONE, INF + 1, r), ONE);
        assert_eq!(f64_max(INF + 1, F64_QNAN | NEG, r), F64_QNAN);
        assert_eq!(f64_min(INF | NEG, MAX | NEG, r), INF | NEG);
        assert_eq!(f64_max(2, 1, r), 2);
    }
}
