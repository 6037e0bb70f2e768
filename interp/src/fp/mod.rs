//! Bit-exact scalar floating point shared by the interpreter and the JIT.
//!
//! Every function takes and returns raw bit patterns (`u16` = binary16, `u32` = binary32,
//! `u64` = binary64), so that no engine depends on how the host treats floats (NaN payloads,
//! FTZ, x87, ...). Two engines that call these helpers agree bit for bit.
//!
//! Every operation follows the same pipeline (docs/architecture.md, "Float rules"):
//! 1. input flush: with the format's flush bit set (`FpMode::flush32` / `flush16`), a subnormal
//!    input is read as a zero of the same sign. binary64 has no flush control;
//! 2. the IEEE 754 operation, correctly rounded in `FpMode::round`;
//! 3. every NaN result becomes the canonical quiet NaN ([`F32_QNAN`], [`F16_QNAN`], [`F64_QNAN`]);
//! 4. output flush: a result that is subnormal *after rounding* becomes a zero of the same sign.
//!
//! Two implementations sit behind each arithmetic function: a fast path for round-to-nearest-even
//! that uses host `+ - * / sqrt mul_add` (IEEE correctly rounded in Rust on every tier-1 target)
//! and a soft path (`soft`, on `rustc_apfloat`) for every other mode. The unit tests check that
//! the two agree bit for bit and that both satisfy an independent exact-arithmetic oracle.

mod binary16;
mod binary32;
mod binary64;
mod convert;
mod fused;
mod soft;
mod turns;
mod unary;

#[cfg(test)]
mod oracle;
#[cfg(test)]
mod timing;

pub use binary16::*;
pub use binary32::*;
pub use binary64::*;
pub use convert::*;
pub use turns::*;
pub use unary::*;

/// Canonical quiet NaN of binary32: every NaN result of an f32 operation is exactly this.
pub const F32_QNAN: u32 = 0x7fc0_0000;
/// Canonical quiet NaN of binary16.
pub const F16_QNAN: u16 = 0x7e00;
/// Canonical quiet NaN of binary64.
pub const F64_QNAN: u64 = 0x7ff8_0000_0000_0000;

/// IEEE 754 rounding direction. The discriminants are the RISC-V `rm` encoding used by the ISA's
/// `rm` operand (`dyn` = 7 is resolved by the engine from `fcsr` before calling in here).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Round {
    /// Round to nearest, ties to even (IEEE default).
    #[default]
    Rne = 0,
    /// Round toward zero.
    Rtz = 1,
    /// Round down, toward -infinity.
    Rdn = 2,
    /// Round up, toward +infinity.
    Rup = 3,
    /// Round to nearest, ties away from zero.
    Rmm = 4,
}

impl Round {
    /// All five modes, in encoding order (handy for tests and tables).
    pub const ALL: [Round; 5] = [Round::Rne, Round::Rtz, Round::Rdn, Round::Rup, Round::Rmm];

    /// Decode a RISC-V style `rm` value; 5..7 (reserved, `dyn`) are not modes and give `None`.
    pub fn from_rm(rm: u32) -> Option<Round> {
        Round::ALL.get(rm as usize).copied()
    }

    /// The RISC-V style `rm` encoding of this mode.
    pub fn rm(self) -> u32 {
        self as u32
    }
}

/// The float environment of one operation: rounding mode plus the two denormal-flush switches
/// of `fcsr`. `FpMode::default()` is the wave-start state: RNE, denormals preserved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FpMode {
    /// How inexact results round.
    pub round: Round,
    /// Flush binary32 subnormal inputs and results to signed zero.
    pub flush32: bool,
    /// Flush binary16 subnormal inputs and results to signed zero.
    pub flush16: bool,
}

impl FpMode {
    /// Wave-start mode: round to nearest even, no flushing.
    pub const RNE: FpMode = FpMode { round: Round::Rne, flush32: false, flush16: false };

    /// A mode with the given rounding and no flushing.
    pub const fn with_round(round: Round) -> FpMode {
        FpMode { round, flush32: false, flush16: false }
    }

    /// Pack into a `u32` so that JIT code can pass the mode to `extern "C"` shims in a register:
    /// bits 2:0 = `rm`, bit 3 = flush32, bit 4 = flush16 (the same layout as `fcsr`, see
    /// `crate::fpmode`, so a resolved fcsr value unpacks directly).
    pub const fn pack(self) -> u32 {
        self.round as u32 | (self.flush32 as u32) << 3 | (self.flush16 as u32) << 4
    }

    /// Inverse of [`FpMode::pack`]; an invalid `rm` field reads as RNE (never produced by `pack`).
    pub fn unpack(bits: u32) -> FpMode {
        FpMode { round: Round::from_rm(bits & 7).unwrap_or_default(), flush32: bits & 8 != 0, flush16: bits & 16 != 0 }
    }
}

/// One IEEE binary format: its bit layout, its `rustc_apfloat` twin and its flush switch.
/// Bits travel as `u64` inside this module so that the generic code serves all three widths.
pub(crate) trait Fmt {
    /// The `rustc_apfloat` type with the same semantics.
    type Ap: rustc_apfloat::Float;
    /// Stored fraction bits (10, 23, 52).
    const MAN: u32;
    /// Exponent bits (5, 8, 11).
    const EXP: u32;
    /// Canonical quiet NaN.
    const QNAN: u64;
    /// Whether `m` asks for this format's denormals to be flushed.
    fn flushes(m: FpMode) -> bool;

    const SIGN: u64 = 1 << (Self::MAN + Self::EXP);
    const EXP_MASK: u64 = ((1 << Self::EXP) - 1) << Self::MAN;
    const FRAC_MASK: u64 = (1 << Self::MAN) - 1;
    /// Exponent bias (15, 127, 1023), also the largest unbiased exponent.
    const BIAS: i32 = (1 << (Self::EXP - 1)) - 1;
    /// Largest finite value (positive); only the tests' oracle needs it.
    #[cfg(test)]
    const MAX: u64 = Self::EXP_MASK - 1;

    /// NaN: magnitude above infinity.
    #[inline(always)]
    fn is_nan(b: u64) -> bool {
        b & !Self::SIGN > Self::EXP_MASK
    }

    /// Subnormal: exponent field zero, fraction non-zero.
    #[inline(always)]
    fn is_subnormal(b: u64) -> bool {
        b & Self::EXP_MASK == 0 && b & Self::FRAC_MASK != 0
    }

    /// Step 1 (input flush) or step 4 (output flush): a subnormal becomes its signed zero.
    #[inline(always)]
    fn daz(b: u64, on: bool) -> u64 {
        if on && Self::is_subnormal(b) {
            b & Self::SIGN
        } else {
            b
        }
    }

    /// Steps 3 and 4 on a rounded result: canonical NaN, then output flush.
    #[inline(always)]
    fn finish(b: u64, flush: bool) -> u64 {
        if Self::is_nan(b) {
            Self::QNAN
        } else {
            Self::daz(b, flush)
        }
    }
}

/// binary16.
pub(crate) struct H;
/// binary32.
pub(crate) struct S;
/// binary64.
pub(crate) struct D;

impl Fmt for H {
    type Ap = rustc_apfloat::ieee::Half;
    const MAN: u32 = 10;
    const EXP: u32 = 5;
    const QNAN: u64 = F16_QNAN as u64;
    fn flushes(m: FpMode) -> bool {
        m.flush16
    }
}

impl Fmt for S {
    type Ap = rustc_apfloat::ieee::Single;
    const MAN: u32 = 23;
    const EXP: u32 = 8;
    const QNAN: u64 = F32_QNAN as u64;
    fn flushes(m: FpMode) -> bool {
        m.flush32
    }
}

impl Fmt for D {
    type Ap = rustc_apfloat::ieee::Double;
    const MAN: u32 = 52;
    const EXP: u32 = 11;
    const QNAN: u64 = F64_QNAN;
    /// The ISA has flush controls for f32 and f16 only; binary64 keeps its subnormals.
    fn flushes(_: FpMode) -> bool {
        false
    }
}

/// Ordering key that sorts non-NaN bit patterns numerically with -0 < +0 (the order that
/// IEEE 754-2019 minimumNumber/maximumNumber use).
#[inline(always)]
fn order_key<F: Fmt>(b: u64) -> i64 {
    let mag = (b & !F::SIGN) as i64;
    if b & F::SIGN != 0 {
        -mag - 1
    } else {
        mag
    }
}

/// IEEE 754-2019 minimumNumber (`want_max` = false) or maximumNumber (true): a NaN operand,
/// quiet or signalling, is ignored unless both are NaN (then the canonical NaN); -0 < +0.
/// Works on bits alone, so it needs no fast/slow split.
#[inline]
pub(crate) fn min_max<F: Fmt>(a: u64, b: u64, m: FpMode, want_max: bool) -> u64 {
    let fl = F::flushes(m);
    // Flushing the inputs is enough: the result is one of them, so it is never subnormal.
    let (a, b) = (F::daz(a, fl), F::daz(b, fl));
    match (F::is_nan(a), F::is_nan(b)) {
        (true, true) => F::QNAN,
        (true, false) => b,
        (false, true) => a,
        (false, false) => {
            if (order_key::<F>(a) < order_key::<F>(b)) != want_max {
                a
            } else {
                b
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mode_defaults_and_packing() {
        assert_eq!(FpMode::default(), FpMode::RNE);
        assert_eq!(Round::default(), Round::Rne);
        for r in Round::ALL {
            assert_eq!(Round::from_rm(r.rm()), Some(r));
            for f32_ in [false, true] {
                for f16_ in [false, true] {
                    let m = FpMode { round: r, flush32: f32_, flush16: f16_ };
                    assert_eq!(FpMode::unpack(m.pack()), m);
                }
            }
        }
        assert_eq!(Round::from_rm(7), None);
    }

    #[test]
    fn format_constants() {
        assert_eq!(S::SIGN, 0x8000_0000);
        assert_eq!(S::EXP_MASK, 0x7f80_0000);
        assert_eq!(S::MAX, f32::MAX.to_bits() as u64);
        assert_eq!(H::MAX, 0x7bff);
        assert_eq!(D::MAX, f64::MAX.to_bits());
        assert_eq!(H::BIAS, 15);
        assert!(S::is_nan(0xffc0_0001) && !S::is_nan(0xff80_0000));
        assert!(S::is_subnormal(0x8000_0001) && !S::is_subnormal(0x8000_0000));
        assert_eq!(S::finish(0x8000_0001, true), 0x8000_0000);
        assert_eq!(S::finish(0xffff_ffff, false), S::QNAN);
    }
}
