//! What operand fields mean where both engines must read them the same way: the source modifiers of the
//! float formats (`neg`, `abs`, `sat`) and the source-lane formulas of the cross-lane shuffles. Decoded here
//! once; what an instruction computes with them stays written twice (the interpreter and the JIT), because the
//! differential test between the two is the point.

use crate::{XlaneInsn, LANES};

/// Lane mask covering every lane index (keeps an index inside the wave).
const LANE_MASK: u32 = LANES as u32 - 1;

/// What a source's modifiers do to its sign bit (and only to it, so NaNs and zeros are modified too).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignOp {
    /// No modifier: the source as read.
    Keep,
    /// `abs`: the sign bit cleared, |x|.
    Clear,
    /// `abs` and `neg`: the sign bit set, -|x| (|x| first, then negated).
    Set,
    /// `neg`: the sign bit flipped, -x.
    Flip,
}

/// The source modifiers and saturation of one float instruction (formats X and H): bit i of `neg` / `abs`
/// belongs to source i + 1; `sat` clamps the result to `[+0.0, 1.0]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SrcMods {
    /// The `neg` operand: bit i negates source i + 1.
    pub neg: u8,
    /// The `abs` operand: bit i takes the absolute value of source i + 1 (before `neg`).
    pub abs: u8,
    /// The `sat` flag: the result is clamped to `[+0.0, 1.0]` (NaN and -0 give +0.0).
    pub sat: bool,
}

impl SrcMods {
    /// No modifiers (the forms without modifier operands).
    pub const NONE: SrcMods = SrcMods { neg: 0, abs: 0, sat: false };

    /// The modifiers of an instruction's `neg`, `abs` and `sat` operands.
    pub fn new(neg: u8, abs: u8, sat: bool) -> SrcMods {
        SrcMods { neg, abs, sat }
    }

    /// What the modifiers do to source `i` (0-based: 0 is `rs1`): |x| if its abs bit is set, then -x if its
    /// neg bit is set.
    pub fn sign_op(self, i: usize) -> SignOp {
        let bit = |m: u8| i < 8 && m >> i & 1 != 0;
        match (bit(self.abs), bit(self.neg)) {
            (false, false) => SignOp::Keep,
            (true, false) => SignOp::Clear,
            (true, true) => SignOp::Set,
            (false, true) => SignOp::Flip,
        }
    }
}

/// Which lane each destination lane of a shuffle reads, as a function of the lane and one value (an
/// immediate, a uniform register, or a vector register's value in that lane).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneFormula {
    /// Lane `i & 31` (shfl.idx, shfl.bcast, readlane).
    Index(u32),
    /// Lane - d, or the lane itself when d > lane; d is not truncated (shfl.up).
    Up(u32),
    /// Lane + d, or the lane itself when that is past the wave; no 32-bit wrap (shfl.down).
    Down(u32),
    /// Lane ^ (m & 31) (shfl.xor).
    Xor(u32),
    /// (lane + d) & 31, d taken modulo 2^32 (shfl.rot; a negative immediate rotates down).
    Rotate(u32),
    /// Within the lane's quad: lane `(lane & !3) | sel[2q+1:2q]`, `q = lane & 3` (quad.swizzle).
    Quad(u32),
}

impl LaneFormula {
    /// The lane that destination lane `lane` (0..LANES) reads.
    pub fn source(self, lane: usize) -> usize {
        match self {
            LaneFormula::Index(i) => (i & LANE_MASK) as usize,
            LaneFormula::Up(d) if d as usize <= lane => lane - d as usize,
            LaneFormula::Up(_) => lane,
            LaneFormula::Down(d) if (lane as u64 + d as u64) < LANES as u64 => lane + d as usize,
            LaneFormula::Down(_) => lane,
            LaneFormula::Xor(m) => lane ^ (m & LANE_MASK) as usize,
            LaneFormula::Rotate(d) => (lane as u32).wrapping_add(d) as usize & LANE_MASK as usize,
            LaneFormula::Quad(sel) => (lane & !3) | (sel as usize >> (2 * (lane & 3)) & 3),
        }
    }
}

impl XlaneInsn {
    /// The lane formula of a shuffle by an immediate (shfl.*.vi, quad.swizzle), its immediate decoded as the
    /// entry says (up and down take `imm[4:0]`); `None` for every other instruction.
    pub fn lane_formula(&self) -> Option<LaneFormula> {
        use XlaneInsn::*;
        let low5 = |imm: i32| imm as u32 & LANE_MASK;
        match *self {
            ShflUpVi { imm, .. } => Some(LaneFormula::Up(low5(imm))),
            ShflDownVi { imm, .. } => Some(LaneFormula::Down(low5(imm))),
            ShflXorVi { imm, .. } => Some(LaneFormula::Xor(imm as u32)),
            ShflRotVi { imm, .. } => Some(LaneFormula::Rotate(imm as u32)),
            ShflBcastVi { imm, .. } => Some(LaneFormula::Index(imm as u32)),
            QuadSwizzle { imm, .. } => Some(LaneFormula::Quad(imm)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modifiers_take_abs_then_neg_per_source() {
        let m = SrcMods::new(0b110, 0b011, false);
        assert_eq!(
            [m.sign_op(0), m.sign_op(1), m.sign_op(2), m.sign_op(3)],
            [SignOp::Clear, SignOp::Set, SignOp::Flip, SignOp::Keep]
        );
        assert_eq!(SrcMods::NONE.sign_op(0), SignOp::Keep);
    }

    #[test]
    fn lane_formulas_keep_lanes_whose_source_leaves_the_wave() {
        assert_eq!(LaneFormula::Up(3).source(2), 2);
        assert_eq!(LaneFormula::Up(2).source(2), 0);
        assert_eq!(LaneFormula::Up(u32::MAX).source(31), 31);
        assert_eq!(LaneFormula::Down(1).source(31), 31);
        assert_eq!(LaneFormula::Down(u32::MAX).source(1), 1);
        assert_eq!(LaneFormula::Down(4).source(27), 31);
        assert_eq!(LaneFormula::Xor(33).source(4), 5);
        assert_eq!(LaneFormula::Rotate(-1i32 as u32).source(0), 31);
        assert_eq!(LaneFormula::Index(35).source(9), 3);
        // Selector 0b00_01_10_11 reverses each quad.
        let rev: Vec<usize> = (4..8).map(|l| LaneFormula::Quad(0b0001_1011).source(l)).collect();
        assert_eq!(rev, [7, 6, 5, 4]);
    }

    #[test]
    fn immediate_shuffles_decode_their_immediate() {
        let (rd, rs1) = (crate::VReg(0), crate::VReg(1));
        assert_eq!(XlaneInsn::ShflUpVi { rd, rs1, imm: 33 }.lane_formula(), Some(LaneFormula::Up(1)));
        assert_eq!(XlaneInsn::ShflRotVi { rd, rs1, imm: -2 }.lane_formula().map(|f| f.source(1)), Some(31));
        assert_eq!(XlaneInsn::Readfirst { rd: crate::UReg(0), rs1 }.lane_formula(), None);
    }
}
