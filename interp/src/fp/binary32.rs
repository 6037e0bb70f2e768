//! binary32 arithmetic: add sub mul div fma sqrt min max.
//!
//! RNE goes to the host (Rust's `+ - * /`, `sqrt` and `mul_add` are correctly rounded IEEE
//! operations), wrapped in the flush and canonical-NaN steps; other modes go to [`soft`].

use super::{min_max, soft, Fmt, FpMode, Round, S};

/// Host path: flush inputs, run the host op (RNE), canonicalise NaN, flush the output.
#[inline(always)]
fn host2(a: u32, b: u32, m: FpMode, op: impl Fn(f32, f32) -> f32) -> u32 {
    let fl = m.flush32;
    let x = f32::from_bits(S::daz(a as u64, fl) as u32);
    let y = f32::from_bits(S::daz(b as u64, fl) as u32);
    S::finish(op(x, y).to_bits() as u64, fl) as u32
}

/// a + b.
#[inline]
pub fn f32_add(a: u32, b: u32, m: FpMode) -> u32 {
    match m.round {
        Round::Rne => host2(a, b, m, |x, y| x + y),
        _ => soft::add::<S>(a as u64, b as u64, m) as u32,
    }
}

/// a - b.
#[inline]
pub fn f32_sub(a: u32, b: u32, m: FpMode) -> u32 {
    match m.round {
        Round::Rne => host2(a, b, m, |x, y| x - y),
        _ => soft::sub::<S>(a as u64, b as u64, m) as u32,
    }
}

/// a * b.
#[inline]
pub fn f32_mul(a: u32, b: u32, m: FpMode) -> u32 {
    match m.round {
        Round::Rne => host2(a, b, m, |x, y| x * y),
        _ => soft::mul::<S>(a as u64, b as u64, m) as u32,
    }
}

/// a / b (x/±0 = ±inf, 0/0 = NaN).
#[inline]
pub fn f32_div(a: u32, b: u32, m: FpMode) -> u32 {
    match m.round {
        Round::Rne => host2(a, b, m, |x, y| x / y),
        _ => soft::div::<S>(a as u64, b as u64, m) as u32,
    }
}

/// a * b + c with one rounding.
#[inline]
pub fn f32_fma(a: u32, b: u32, c: u32, m: FpMode) -> u32 {
    match m.round {
        Round::Rne => {
            let fl = m.flush32;
            let z = f32::from_bits(S::daz(c as u64, fl) as u32);
            host2(a, b, m, |x, y| super::fused::fused_f32(x, y, z))
        }
        _ => soft::fma::<S>(a as u64, b as u64, c as u64, m) as u32,
    }
}

/// √a (√-0 = -0, √negative = NaN).
///
/// The host root is the RNE result; directed modes step to the neighbour on the side of the
/// exact root, found from the sign of `a - r²`. In f64 that difference is exact: r² has 48
/// bits, and r² is within a factor 2 of a, so the subtraction is exact (Sterbenz).
#[inline]
pub fn f32_sqrt(a: u32, m: FpMode) -> u32 {
    let fl = m.flush32;
    let x = f32::from_bits(S::daz(a as u64, fl) as u32);
    let r = x.sqrt();
    let mut bits = r.to_bits() as u64;
    if m.round != Round::Rne && r.is_finite() && r > 0.0 {
        let rd = r as f64;
        let diff = x as f64 - rd * rd;
        bits = soft::sqrt_adjust(bits, diff.total_cmp(&0.0), m.round);
    }
    S::finish(bits, fl) as u32
}

/// IEEE 754-2019 minimumNumber: NaN operands are ignored unless both are NaN; -0 < +0.
#[inline]
pub fn f32_min(a: u32, b: u32, m: FpMode) -> u32 {
    min_max::<S>(a as u64, b as u64, m, false) as u32
}

/// IEEE 754-2019 maximumNumber: NaN operands are ignored unless both are NaN; -0 < +0.
#[inline]
pub fn f32_max(a: u32, b: u32, m: FpMode) -> u32 {
    min_max::<S>(a as u64, b as u64, m, true) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fp::oracle::{run_arith, ArOp};
    use crate::fp::F32_QNAN;

    const N: usize = 120_000;
    const ONE: u32 = 0x3f80_0000;
    const TWO_M24: u32 = 0x3380_0000; // 2^-24: half an ulp of 1.0
    const MAX: u32 = 0x7f7f_ffff;
    const INF: u32 = 0x7f80_0000;

    fn s(x: &[u64]) -> (u32, u32) {
        (x[0] as u32, x[1] as u32)
    }

    #[test]
    fn add_vs_soft_and_oracle() {
        let n = run_arith::<S>(
            ArOp::Add,
            2,
            N,
            &|x, m| f32_add(s(x).0, s(x).1, m) as u64,
            Some(&|x, m| soft::add::<S>(x[0], x[1], m)),
        );
        eprintln!("f32_add: {n} checks");
    }

    #[test]
    fn sub_vs_soft_and_oracle() {
        let n = run_arith::<S>(
            ArOp::Sub,
            2,
            N,
            &|x, m| f32_sub(s(x).0, s(x).1, m) as u64,
            Some(&|x, m| soft::sub::<S>(x[0], x[1], m)),
        );
        eprintln!("f32_sub: {n} checks");
    }

    #[test]
    fn mul_vs_soft_and_oracle() {
        let n = run_arith::<S>(
            ArOp::Mul,
            2,
            N,
            &|x, m| f32_mul(s(x).0, s(x).1, m) as u64,
            Some(&|x, m| soft::mul::<S>(x[0], x[1], m)),
        );
        eprintln!("f32_mul: {n} checks");
    }

    #[test]
    fn div_vs_soft_and_oracle() {
        let n = run_arith::<S>(
            ArOp::Div,
            2,
            N,
            &|x, m| f32_div(s(x).0, s(x).1, m) as u64,
            Some(&|x, m| soft::div::<S>(x[0], x[1], m)),
        );
        eprintln!("f32_div: {n} checks");
    }

    #[test]
    fn fma_vs_soft_and_oracle() {
        let f = |x: &[u64], m| f32_fma(x[0] as u32, x[1] as u32, x[2] as u32, m) as u64;
        let n = run_arith::<S>(ArOp::Fma, 3, N, &f, Some(&|x, m| soft::fma::<S>(x[0], x[1], x[2], m)));
        eprintln!("f32_fma: {n} checks");
    }

    #[test]
    fn sqrt_vs_oracle() {
        // No apfloat sqrt exists: the certificate oracle is the reference in every mode.
        let n = run_arith::<S>(ArOp::Sqrt, 1, N, &|x, m| f32_sqrt(x[0] as u32, m) as u64, None);
        eprintln!("f32_sqrt: {n} checks");
    }

    fn m(r: Round) -> FpMode {
        FpMode::with_round(r)
    }

    #[test]
    fn known_answers_per_mode() {
        use Round::*;
        // 1 + 2^-24 is the midpoint between 1 and 1 + 2^-23.
        for (r, w) in [(Rne, ONE), (Rtz, ONE), (Rdn, ONE), (Rup, ONE + 1), (Rmm, ONE + 1)] {
            assert_eq!(f32_add(ONE, TWO_M24, m(r)), w, "{r:?}");
        }
        let (n1, nt) = (ONE | 1 << 31, TWO_M24 | 1 << 31);
        for (r, w) in [(Rne, n1), (Rtz, n1), (Rdn, n1 + 1), (Rup, n1), (Rmm, n1 + 1)] {
            assert_eq!(f32_add(n1, nt, m(r)), w, "{r:?}");
        }
        // 1 + 3·2^-24 is a tie too, between odd 1+2^-23 and even 1+2^-22: RNE goes up.
        assert_eq!(f32_add(ONE, 0x3440_0000, m(Rne)), ONE + 2);
        // Overflow.
        for (r, w) in [(Rne, INF), (Rtz, MAX), (Rdn, MAX), (Rup, INF), (Rmm, INF)] {
            assert_eq!(f32_add(MAX, MAX, m(r)), w, "{r:?}");
        }
        let neg = 1 << 31;
        for (r, w) in [(Rne, INF | neg), (Rtz, MAX | neg), (Rdn, INF | neg), (Rup, MAX | neg), (Rmm, INF | neg)] {
            assert_eq!(f32_mul(MAX | neg, 0x4000_0000, m(r)), w, "{r:?}");
        }
        // Exact cancellation: +0, except -0 when rounding down.
        for r in Round::ALL {
            assert_eq!(f32_sub(ONE, ONE, m(r)), if r == Rdn { 1 << 31 } else { 0 });
            assert_eq!(f32_add(1 << 31, 1 << 31, m(r)), 1 << 31);
        }
        // Underflow: half the smallest subnormal is a tie between 0 (even) and it.
        for (r, w) in [(Rne, 0), (Rtz, 0), (Rdn, 0), (Rup, 1), (Rmm, 1)] {
            assert_eq!(f32_mul(1, 0x3f00_0000, m(r)), w, "{r:?}");
        }
        // 1/3 and √2 in each direction.
        let third =
            [(Rne, 0x3eaa_aaab), (Rtz, 0x3eaa_aaaa), (Rdn, 0x3eaa_aaaa), (Rup, 0x3eaa_aaab), (Rmm, 0x3eaa_aaab)];
        for (r, w) in third {
            assert_eq!(f32_div(ONE, 0x4040_0000, m(r)), w, "{r:?}");
        }
        let root2 =
            [(Rne, 0x3fb5_04f3), (Rtz, 0x3fb5_04f3), (Rdn, 0x3fb5_04f3), (Rup, 0x3fb5_04f4), (Rmm, 0x3fb5_04f3)];
        for (r, w) in root2 {
            assert_eq!(f32_sqrt(0x4000_0000, m(r)), w, "{r:?}");
        }
        // fma keeps the product exact: (1+2^-12)² - 1 = 2^-11 + 2^-24.
        assert_eq!(f32_fma(0x3f80_0800, 0x3f80_0800, 0xbf80_0000, m(Rne)), 0x3a00_0400);
        // NaN results are canonical, whatever the payload.
        assert_eq!(f32_add(0xffc1_2345, ONE, m(Rne)), F32_QNAN);
        assert_eq!(f32_add(0x7f80_0001, ONE, m(Rup)), F32_QNAN);
        assert_eq!(f32_sub(INF, INF, m(Rne)), F32_QNAN);
        assert_eq!(f32_sqrt(0xbf80_0000, m(Rtz)), F32_QNAN);
        assert_eq!(f32_sqrt(1 << 31, m(Rup)), 1 << 31);
        assert_eq!(f32_div(ONE, 1 << 31, m(Rtz)), INF | 1 << 31);
    }

    #[test]
    fn min_max_are_minimum_number() {
        let r = FpMode::RNE;
        let neg0 = 1 << 31;
        assert_eq!(f32_min(0, neg0, r), neg0);
        assert_eq!(f32_min(neg0, 0, r), neg0);
        assert_eq!(f32_max(0, neg0, r), 0);
        assert_eq!(f32_max(neg0, 0, r), 0);
        for nan in [F32_QNAN, 0x7f80_0001, 0xffc0_1234] {
            assert_eq!(f32_min(nan, ONE, r), ONE);
            assert_eq!(f32_min(ONE, nan, r), ONE);
            assert_eq!(f32_max(nan, ONE | neg0, r), ONE | neg0);
            assert_eq!(f32_max(nan, nan, r), F32_QNAN);
            assert_eq!(f32_min(nan, 0xffc0_0000, r), F32_QNAN);
        }
        assert_eq!(f32_min(INF | neg0, MAX | neg0, r), INF | neg0);
        assert_eq!(f32_max(INF, MAX, r), INF);
        assert_eq!(f32_min(0xc000_0000, ONE | neg0, r), 0xc000_0000);
        assert_eq!(f32_max(1, 0, r), 1);
        // Flush: a subnormal is a signed zero, and -0 < +0 still holds.
        let fz = FpMode { flush32: true, ..r };
        assert_eq!(f32_min(0x8000_0001, 0, fz), neg0);
        assert_eq!(f32_max(0x0000_0001, neg0, fz), 0);
        assert_eq!(f32_min(0x8000_0001, 0, r), 0x8000_0001);
        // flush16 must not touch f32.
        assert_eq!(f32_min(0x8000_0001, 0, FpMode { flush16: true, ..r }), 0x8000_0001);
    }

    #[test]
    fn flush_cases() {
        let fz = |round| FpMode { round, flush32: true, flush16: false };
        // Subnormal inputs read as signed zeros.
        assert_eq!(f32_add(1, 0, fz(Round::Rne)), 0);
        assert_eq!(f32_mul(0x8000_0005, ONE, fz(Round::Rup)), 1 << 31);
        assert_eq!(f32_sqrt(0x0000_0004, fz(Round::Rne)), 0);
        assert_eq!(f32_div(ONE, 1, fz(Round::Rne)), INF);
        // Subnormal results flush, with their sign.
        let t70 = 0x1c80_0000; // 2^-70
        assert_eq!(f32_mul(t70, t70, fz(Round::Rne)), 0);
        assert_eq!(f32_mul(t70 | 1 << 31, t70, fz(Round::Rdn)), 1 << 31);
        assert_eq!(f32_mul(t70, t70, m(Round::Rne)), 0x0000_0200); // 2^-140 = 2^9 · 2^-149
                                                                   // Tininess after rounding: (1 - 2^-24) · 2^-126 rounds (RNE, tie to even) up to the
                                                                   // smallest normal, which survives; RTZ gives the largest subnormal, which flushes.
        assert_eq!(f32_mul(0x3f7f_ffff, 0x0080_0000, fz(Round::Rne)), 0x0080_0000);
        assert_eq!(f32_mul(0x3f7f_ffff, 0x0080_0000, fz(Round::Rtz)), 0);
        assert_eq!(f32_mul(0x3f7f_ffff, 0x0080_0000, m(Round::Rtz)), 0x007f_ffff);
        // Fast and soft path agree on flushing.
        assert_eq!(soft::add::<S>(1, 0, fz(Round::Rne)), 0);
    }
}
