//! Interesting values: register contents by "flavour" (small integers, edge integers, f32/f16/f64 specials,
//! random bits) and immediates by operand kind. Values are drawn so that edge cases (NaN payloads, denormals,
//! -0, INT_MIN, shift amounts at 31/32, lane numbers at 31/32) come up often.

use super::rng::Rng;
use lanejit_isa::{KindInfo, LANES};

const EDGE_INTS: [u32; 14] =
    [0, 1, 2, 3, 0xffff_ffff, 0x8000_0000, 0x7fff_ffff, 0xffff, 0x8000, 0xff, 0x80, 31, 32, 33];

const F32_SPECIALS: [u32; 22] = [
    0x0000_0000,
    0x8000_0000,
    0x3f80_0000,
    0xbf80_0000,
    0x3f00_0000,
    0x4000_0000,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0xffc0_0000,
    0x7fa0_0001,
    0x7fc1_2345,
    0x0000_0001,
    0x807f_ffff,
    0x0080_0000,
    0x7f7f_ffff,
    0x4f00_0000,
    0xcf00_0000,
    0x4f80_0000,
    0x3fc0_0000,
    0xbfc0_0000,
    0x4b00_0001,
];

const F16_SPECIALS: [u16; 14] =
    [0x0000, 0x8000, 0x3c00, 0xbc00, 0x3800, 0x7c00, 0xfc00, 0x7e00, 0x7d01, 0x0001, 0x83ff, 0x0400, 0x7bff, 0x3e00];

/// High words of interesting doubles (the low word is mostly zero, sometimes random).
const F64_HI: [u32; 14] = [
    0x0000_0000,
    0x8000_0000,
    0x3ff0_0000,
    0xbff0_0000,
    0x7ff0_0000,
    0xfff0_0000,
    0x7ff8_0000,
    0x7ff4_0000,
    0x0000_0001,
    0x0010_0000,
    0x7fef_ffff,
    0x41e0_0000,
    0xc1e0_0000,
    0x41f0_0000,
];

/// What kind of values an initial register gets.
#[derive(Clone, Copy, Debug)]
pub enum Flavour {
    /// Small integers.
    Small,
    /// Edge cases: zero, extremes, float specials.
    Edge,
    /// Random bits.
    Random,
    /// Values that depend on the lane.
    LaneDep,
    /// Ordinary f32 values.
    F32,
    /// Half-precision pairs.
    F16,
    /// Even registers: low words; odd registers: high words of doubles.
    F64,
}

/// A flavour drawn with the generator's weights.
pub fn flavour(r: &mut Rng) -> Flavour {
    use Flavour::*;
    *r.pick(&[Small, Small, Edge, Random, Random, LaneDep, F32, F32, F16, F64, F64])
}

fn random_f32(r: &mut Rng) -> u32 {
    (r.range(-1000, 1000) as f32 / (1 << r.below(8)) as f32).to_bits()
}

/// One 32-bit value of a flavour (`odd`: the register is the high half of a pair).
pub fn value(r: &mut Rng, f: Flavour, lane: usize, odd: bool) -> u32 {
    match f {
        Flavour::Small => r.range(-4, 16) as u32,
        Flavour::Edge => *r.pick(&EDGE_INTS),
        Flavour::Random => r.u32(),
        Flavour::LaneDep => (lane as u32).wrapping_mul(*r.pick(&[1, 2, 4, 8, 0x0101_0101, 0xffff_ffff])),
        Flavour::F32 if r.chance(60) => *r.pick(&F32_SPECIALS),
        Flavour::F32 => random_f32(r),
        Flavour::F16 => {
            let h = |r: &mut Rng| if r.chance(70) { *r.pick(&F16_SPECIALS) as u32 } else { r.u32() & 0xffff };
            h(r) | h(r) << 16
        }
        Flavour::F64 if odd => {
            if r.chance(80) {
                *r.pick(&F64_HI)
            } else {
                r.u32()
            }
        }
        Flavour::F64 => {
            if r.chance(60) {
                0
            } else {
                r.u32()
            }
        }
    }
}

/// A register's 32 lanes: mostly its flavour, a few lanes of anything (so that lanes disagree).
pub fn lanes(r: &mut Rng, odd: bool) -> Vec<u32> {
    let f = flavour(r);
    let uniform = r.chance(15).then(|| value(r, f, 0, odd));
    (0..LANES)
        .map(|l| match uniform {
            Some(x) if !r.chance(10) => x,
            _ if r.chance(8) => {
                let g = flavour(r);
                value(r, g, l, odd)
            }
            _ => value(r, f, l, odd),
        })
        .collect()
}

/// A uniform register value.
pub fn scalar(r: &mut Rng, odd: bool) -> u32 {
    let f = flavour(r);
    value(r, f, 0, odd)
}

/// An immediate of an integer kind (the operand value, scale applied), edges included.
pub fn imm(r: &mut Rng, k: &KindInfo) -> i64 {
    let (lo, hi) = k.encoded_range();
    let e = match r.below(6) {
        0 => lo,
        1 => hi,
        2 => 0.clamp(lo, hi),
        3 => r.range(lo.max(-4), hi.min(8)),
        _ => r.range(lo, hi),
    };
    if k.name == "ln7" && !r.chance(3) {
        // Lane numbers >= LANES trap; keep them rare so that most programs run on.
        return r.below(LANES as u64) as i64;
    }
    e * k.scale as i64
}

/// A 32-bit literal (`imm32`): integers and f32 specials alike, as the operand value.
pub fn literal(r: &mut Rng) -> i64 {
    let x = match r.below(4) {
        0 => *r.pick(&EDGE_INTS),
        1 => *r.pick(&F32_SPECIALS),
        2 => random_f32(r),
        _ => r.u32(),
    };
    x as i64
}
