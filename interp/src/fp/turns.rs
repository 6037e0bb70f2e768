//! sin and cos with the angle in turns (1.0 = 2π rad), as the ISA's `f.sin.f32` / `f.cos.f32` define them
//! (isa-spec/groups/3-vfloat.yaml), plus the one f64 → f16 conversion that `convert.rs` lacks.
//!
//! Turns make the range reduction exact: r = x - roundeven(x) is an f32 subtraction without rounding error
//! (|r| ≤ 0.5), so every engine reduces identically and large arguments keep their meaning. The quarter
//! points (r a multiple of 0.25) are exact by definition; every other r goes through the host's f64 sin/cos
//! on r × 2π, rounded once to f32 with round-to-nearest-even, like the other transcendentals in `unary.rs`
//! (so, like them, `FpMode::round` is ignored and only the flush bits apply).

use super::binary16::narrow_rne;
use super::{soft, Fmt, FpMode, Round, D, F32_QNAN, H, S};

/// 2π as the f64 the ISA text names (6.283185307179586).
const TWO_PI: f64 = std::f64::consts::TAU;
/// f32 bit patterns of 1.0 and -1.0.
const ONE: u32 = 0x3f80_0000;
const MINUS_ONE: u32 = 0xbf80_0000;

/// The input flushed per `m`, as an f32, with its reduced turn r = x - roundeven(x) (exact, |r| ≤ 0.5);
/// `None` for ±inf and NaN, which give the canonical NaN.
#[inline(always)]
fn reduce(a: u32, m: FpMode) -> Option<(u32, f32)> {
    let x = S::daz(a as u64, m.flush32) as u32;
    // inf and NaN: exponent all ones.
    if x & S::EXP_MASK as u32 == S::EXP_MASK as u32 {
        return None;
    }
    let xf = f32::from_bits(x);
    Some((x, xf - xf.round_ties_even()))
}

/// sin(2π·x), x in turns. r = 0 or ±0.5 gives a zero with the sign of x; r = ±0.25 gives ±1 with the sign
/// of r; otherwise f32_rne(sin(f64(r) · 2π)), a subnormal result flushed under flush32.
#[inline]
pub fn f32_sin_turns(a: u32, m: FpMode) -> u32 {
    let Some((x, r)) = reduce(a, m) else { return F32_QNAN };
    let ar = r.abs();
    if ar == 0.0 || ar == 0.5 {
        x & S::SIGN as u32
    } else if ar == 0.25 {
        if r < 0.0 {
            MINUS_ONE
        } else {
            ONE
        }
    } else {
        S::finish((libm::sin(r as f64 * TWO_PI) as f32).to_bits() as u64, m.flush32) as u32
    }
}

/// cos(2π·x), x in turns. r = ±0 gives 1.0, r = ±0.5 gives -1.0, r = ±0.25 gives +0; otherwise
/// f32_rne(cos(f64(r) · 2π)) (never subnormal: |cos| ≥ sin(2π·2^-25) away from the quarter points).
#[inline]
pub fn f32_cos_turns(a: u32, m: FpMode) -> u32 {
    let Some((_, r)) = reduce(a, m) else { return F32_QNAN };
    let ar = r.abs();
    if ar == 0.0 {
        ONE
    } else if ar == 0.5 {
        MINUS_ONE
    } else if ar == 0.25 {
        0
    } else {
        S::finish((libm::cos(r as f64 * TWO_PI) as f32).to_bits() as u64, m.flush32) as u32
    }
}

/// f64 → f16 rounded once per mode (through f32 would round twice); f64 is never flushed, a subnormal f16
/// result is flushed under flush16, NaN gives 0x7e00. (Belongs beside `f32_to_f16` in `convert.rs`; it
/// lives here because this file was the only place in `fp/` open to the group-3 handler work.)
#[inline]
pub fn f64_to_f16(a: u64, m: FpMode) -> u16 {
    match m.round {
        Round::Rne => H::finish(narrow_rne::<H>(a), m.flush16) as u16,
        _ => soft::convert::<D, H>(a, m) as u16,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: FpMode = FpMode::RNE;
    const FZ: FpMode = FpMode { round: Round::Rne, flush32: true, flush16: true };

    fn b(x: f32) -> u32 {
        x.to_bits()
    }

    #[test]
    fn quarter_points_are_exact() {
        assert_eq!(f32_sin_turns(b(0.25), R), ONE);
        assert_eq!(f32_sin_turns(b(0.75), R), MINUS_ONE);
        assert_eq!(f32_sin_turns(b(-0.25), R), MINUS_ONE);
        assert_eq!(f32_sin_turns(b(1.25), R), ONE);
        assert_eq!(f32_sin_turns(b(0.5), R), 0);
        assert_eq!(f32_sin_turns(b(-0.5), R), 0x8000_0000);
        assert_eq!(f32_sin_turns(b(-0.0), R), 0x8000_0000);
        assert_eq!(f32_sin_turns(b(3.0), R), 0);
        assert_eq!(f32_sin_turns(b(-16777216.0), R), 0x8000_0000);
        assert_eq!(f32_cos_turns(b(0.0), R), ONE);
        assert_eq!(f32_cos_turns(b(-0.0), R), ONE);
        assert_eq!(f32_cos_turns(b(0.5), R), MINUS_ONE);
        assert_eq!(f32_cos_turns(b(-1.5), R), MINUS_ONE);
        assert_eq!(f32_cos_turns(b(0.25), R), 0);
        assert_eq!(f32_cos_turns(b(-0.75), R), 0);
        assert_eq!(f32_cos_turns(b(8388609.0), R), ONE);
        for x in [f32::INFINITY, f32::NEG_INFINITY, f32::NAN] {
            assert_eq!(f32_sin_turns(b(x), R), F32_QNAN);
            assert_eq!(f32_cos_turns(b(x), R), F32_QNAN);
        }
    }

    #[test]
    fn general_points_match_radians() {
        // sin(2π/8) = √2/2; the f64 product and sin are accurate to far below an f32 ulp here.
        let h = f32::from_bits(f32_sin_turns(b(0.125), R));
        assert!((h - std::f32::consts::FRAC_1_SQRT_2).abs() <= f32::EPSILON);
        let c = f32::from_bits(f32_cos_turns(b(1.0 / 6.0), R));
        assert!((c - 0.5).abs() <= f32::EPSILON);
        // Reduction: 5.125 turns is 0.125 turns.
        assert_eq!(f32_sin_turns(b(5.125), R), f32_sin_turns(b(0.125), R));
        assert_eq!(f32_cos_turns(b(-5.125), R), f32_cos_turns(b(0.125), R));
    }

    #[test]
    fn flush_applies_to_the_input() {
        let sub = 0x0000_0001; // 2^-149
        assert_eq!(f32_sin_turns(sub | 0x8000_0000, FZ), 0x8000_0000);
        assert_eq!(f32_cos_turns(sub, FZ), ONE);
        // Without flush the tiny argument is used: sin(2π·2^-149) rounds to 6·2^-149.
        assert_eq!(f32_sin_turns(sub, R), 6);
    }

    #[test]
    fn f64_to_f16_rounds_once() {
        // 1 + 2^-11 + 2^-40: above the f16 midpoint of 1 and 1 + 2^-10, so it rounds up; through f32 the
        // 2^-40 is lost and the tie goes to even (1.0).
        let x = (1.0f64 + 2f64.powi(-11) + 2f64.powi(-40)).to_bits();
        assert_eq!(f64_to_f16(x, R), 0x3c01);
        assert_eq!(f64_to_f16(x, FpMode::with_round(Round::Rtz)), 0x3c00);
        assert_eq!(f64_to_f16(65520.0f64.to_bits(), R), 0x7c00);
        assert_eq!(f64_to_f16(65520.0f64.to_bits(), FpMode::with_round(Round::Rtz)), 0x7bff);
        assert_eq!(f64_to_f16(f64::NAN.to_bits(), R), 0x7e00);
        assert_eq!(f64_to_f16(2f64.powi(-24).to_bits(), R), 1);
        assert_eq!(f64_to_f16(2f64.powi(-24).to_bits(), FZ), 0);
        assert_eq!(f64_to_f16((-1e-300f64).to_bits(), FpMode::with_round(Round::Rdn)), 0x8001);
    }
}
