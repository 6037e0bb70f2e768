//! The soft path: `rustc_apfloat` (a pure-Rust port of LLVM's APFloat) rounds in all five IEEE
//! modes, for binary16 directly, so results never go through a wider format and get rounded
//! twice. It is used for every mode other than RNE, and by the tests as the reference that the
//! host fast path must match. It is slow (tens of ns per op) but exact.
//!
//! apfloat has no square root; `sqrt_from_rne` (below) derives the directed results from the
//! host's correctly rounded RNE root instead.

use super::{Fmt, FpMode, Round};
use rustc_apfloat::{Float, FloatConvert, Round as ApRound, StatusAnd};

/// Our rounding mode in apfloat's terms.
#[inline]
pub(crate) fn ap_round(r: Round) -> ApRound {
    match r {
        Round::Rne => ApRound::NearestTiesToEven,
        Round::Rtz => ApRound::TowardZero,
        Round::Rdn => ApRound::TowardNegative,
        Round::Rup => ApRound::TowardPositive,
        Round::Rmm => ApRound::NearestTiesToAway,
    }
}

/// Bits (after input flush) to an apfloat value.
#[inline]
fn load<F: Fmt>(b: u64, m: FpMode) -> F::Ap {
    F::Ap::from_bits(F::daz(b, F::flushes(m)) as u128)
}

/// Apfloat result to bits, through the canonical-NaN and output-flush steps.
#[inline]
fn store<F: Fmt>(r: StatusAnd<F::Ap>, m: FpMode) -> u64 {
    F::finish(r.value.to_bits() as u64, F::flushes(m))
}

/// a + b in any mode.
pub(crate) fn add<F: Fmt>(a: u64, b: u64, m: FpMode) -> u64 {
    store::<F>(load::<F>(a, m).add_r(load::<F>(b, m), ap_round(m.round)), m)
}

/// a - b in any mode.
pub(crate) fn sub<F: Fmt>(a: u64, b: u64, m: FpMode) -> u64 {
    store::<F>(load::<F>(a, m).sub_r(load::<F>(b, m), ap_round(m.round)), m)
}

/// a * b in any mode.
pub(crate) fn mul<F: Fmt>(a: u64, b: u64, m: FpMode) -> u64 {
    store::<F>(load::<F>(a, m).mul_r(load::<F>(b, m), ap_round(m.round)), m)
}

/// a / b in any mode.
pub(crate) fn div<F: Fmt>(a: u64, b: u64, m: FpMode) -> u64 {
    store::<F>(load::<F>(a, m).div_r(load::<F>(b, m), ap_round(m.round)), m)
}

/// a * b + c with a single rounding, in any mode.
pub(crate) fn fma<F: Fmt>(a: u64, b: u64, c: u64, m: FpMode) -> u64 {
    let (x, y, z) = (load::<F>(a, m), load::<F>(b, m), load::<F>(c, m));
    store::<F>(x.mul_add_r(y, z, ap_round(m.round)), m)
}

/// Format conversion `A -> B` rounded in `m.round`, with A's input flush and B's output flush.
pub(crate) fn convert<A: Fmt, B: Fmt>(a: u64, m: FpMode) -> u64
where
    A::Ap: FloatConvert<B::Ap>,
{
    let r = load::<A>(a, m).convert_r(ap_round(m.round), &mut false);
    store::<B>(r, m)
}

/// Signed integer to float, rounded in `m.round`.
pub(crate) fn from_i64<F: Fmt>(x: i64, m: FpMode) -> u64 {
    store::<F>(F::Ap::from_i128_r(x as i128, ap_round(m.round)), m)
}

/// Directed-mode square root from the RNE root.
///
/// `r` is the correctly rounded RNE root of `x` (both host values, `x` already flushed) and
/// `x_minus_rr` is the sign of `x - r*r`, computed exactly by the caller. Since the exact root
/// lies within half an ulp of `r`, the directed result is `r` or its neighbour on the side where
/// the exact root lies. A root is never exactly halfway between two floats (that would need a
/// rational square root with too many bits), so RMM equals RNE. Returns the bit pattern, still
/// to be finished by the caller (no NaN or flush work here).
pub(crate) fn sqrt_adjust(r_bits: u64, x_minus_rr: std::cmp::Ordering, round: Round) -> u64 {
    use std::cmp::Ordering::*;
    // `r` is positive, finite and normal here (the caller handles 0, inf, NaN), so a neighbour
    // is one bit-pattern step away.
    match (round, x_minus_rr) {
        (Round::Rup, Greater) => r_bits + 1,
        (Round::Rdn | Round::Rtz, Less) => r_bits - 1,
        _ => r_bits,
    }
}
