//! The float mode of an instruction: its `rm` operand, or fcsr's rounding mode for `dyn`, plus fcsr's
//! denormal-flush bits. fcsr layout (group 1, `csr.*`): bits 2:0 the rounding mode in the `rm` encoding, bit 3 flush
//! f32 denormals, bit 4 flush f16 denormals. fcsr never holds `dyn` (writing it traps).

use crate::fp::{FpMode, Round};
use lanejit_isa::Rm;

/// fcsr bits 2:0: the rounding mode, in the `rm` operand's encoding.
pub const FCSR_RM_MASK: u32 = 0b111;
/// fcsr bit 3: subnormal f32 inputs and results become signed zeros.
pub const FCSR_FLUSH32: u32 = 1 << 3;
/// fcsr bit 4: subnormal f16 inputs and results become signed zeros.
pub const FCSR_FLUSH16: u32 = 1 << 4;
/// Bits of fcsr that hold state; the rest read as zero.
pub const FCSR_WRITABLE: u32 = FCSR_RM_MASK | FCSR_FLUSH32 | FCSR_FLUSH16;

fn round_of(rm: Rm) -> Option<Round> {
    match rm {
        Rm::Rne => Some(Round::Rne),
        Rm::Rtz => Some(Round::Rtz),
        Rm::Rdn => Some(Round::Rdn),
        Rm::Rup => Some(Round::Rup),
        Rm::Rmm => Some(Round::Rmm),
        Rm::Dyn => None,
    }
}

/// The mode for an instruction with rounding operand `rm`.
pub fn mode(rm: Rm, fcsr: u32) -> FpMode {
    let round = round_of(rm).unwrap_or_else(|| fcsr_round(fcsr));
    FpMode { round, flush32: fcsr & FCSR_FLUSH32 != 0, flush16: fcsr & FCSR_FLUSH16 != 0 }
}

/// The mode of instructions without an `rm` operand (they round as `dyn`).
pub fn dyn_mode(fcsr: u32) -> FpMode {
    mode(Rm::Dyn, fcsr)
}

/// fcsr's rounding mode; fcsr only ever holds a valid static mode, so the fallback is unreachable in practice
/// but keeps this total.
pub fn fcsr_round(fcsr: u32) -> Round {
    Rm::from_raw(fcsr & FCSR_RM_MASK).and_then(round_of).unwrap_or(Round::Rne)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lanejit_isa::float_mode;

    /// The fcsr layout written here is the one the YAML's `float_modes` states (the engines' float-mode guards
    /// read it from there).
    #[test]
    fn fcsr_fields_match_the_isa_float_modes() {
        assert_eq!(FCSR_RM_MASK, float_mode::FRM.fcsr_mask());
        assert_eq!(FCSR_FLUSH32, float_mode::FTZ32.fcsr_mask());
        assert_eq!(FCSR_FLUSH16, float_mode::FTZ16.fcsr_mask());
    }
}
