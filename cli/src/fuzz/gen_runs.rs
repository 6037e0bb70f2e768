//! Runs of accesses for the generator: after a sliding vector or uniform access (`Gen::offsets`, `Gen::mem`), now
//! and then one to three copies of it that differ only in the immediate, so that compiled code checks them as
//! one run (`lanejit_jit`'s `lower/mem/group.rs` and `lower/mem/uniform.rs`). The slide moves the run past the end of its buffer one access at a
//! time, highest immediate first, so the run's check fails while its first access still passes; and now and then
//! the vector offsets are advanced between two of the accesses, which must end a vector run. Everything here draws from the
//! generator's run stream (`Gen::runs`), so the rest of every program stays as it was.

use super::{tables, Gen, U_SLIDE, V_OFF};
use crate::fuzz::prog::*;

impl Gen {
    /// Percent chance that a sliding vector access in a sweep is followed by a run of copies (more often, and
    /// the planted bugs that only shapes before the runs catch, such as 144, are no longer met in their
    /// campaigns).
    const VECTOR_RUN_PCT: u32 = 30;
    /// The same for a sliding uniform access.
    const UNIFORM_RUN_PCT: u32 = 60;

    /// Copies of `first` (its immediate at operand `imm`) with higher immediates, multiples of `align` apart: one
    /// or two slide steps (`step`, the bytes the offsets advance per execution), so that the highest copy leaves
    /// the buffer one or more executions before the first one does.
    pub(super) fn run_of_copies(&mut self, out: &mut Vec<Node>, first: &Op, (imm, align): (usize, u64), step: i64) {
        let uniform = first.id.info().format().name == "UM";
        if !self.runs.chance(if uniform { Self::UNIFORM_RUN_PCT } else { Self::VECTOR_RUN_PCT }) {
            return;
        }
        let t = tables();
        let align = align.max(4) as i64;
        let stride = (step.max(align) + align - 1) / align * align * *self.runs.pick(&[1, 2]);
        for k in 1..=self.runs.range(1, 3) {
            if !uniform && self.runs.chance(35) {
                // The offsets move on: the accesses after this are a new run.
                out.push(Node::Op(op(
                    t.v_add_vu,
                    &[("rd", V_OFF as i64), ("rs1", V_OFF as i64), ("rs2", U_SLIDE as i64)],
                )));
            }
            let mut copy = first.clone();
            copy.vals[imm] += k * stride;
            out.push(Node::Op(copy));
        }
    }
}
