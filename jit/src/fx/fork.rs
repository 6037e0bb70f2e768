//! A fork point in a block's lowering: the lowering state that instructions change as they are emitted, so
//! that the rest of a block can be emitted several times, once per case of a run-time value (each copy starting
//! from the same state), and each copy's code is specialised for its case (`lower::xlane::xor_fork`).

use super::facts::{Admission, OffsetFacts};
use super::Fx;

/// What the lowering knows and owes at one point of a block (registers changed, unloaded, holding raw NaNs,
/// offset facts and admitted accesses, fcsr plainness).
pub struct ForkPoint {
    dirty_v: Vec<bool>,
    dirty_u: Vec<bool>,
    raw_v: Vec<bool>,
    unloaded: Vec<bool>,
    unloaded_u: Vec<bool>,
    offset_facts: Vec<OffsetFacts>,
    admissions: Vec<(u32, Admission)>,
    fcsr_plain: bool,
}

impl Fx<'_> {
    /// The lowering state here, for `restore_fork` at the start of each copy.
    pub fn fork_point(&self) -> ForkPoint {
        ForkPoint {
            dirty_v: self.dirty_v.clone(),
            dirty_u: self.dirty_u.clone(),
            raw_v: self.raw_v.clone(),
            unloaded: self.unloaded.clone(),
            unloaded_u: self.unloaded_u.clone(),
            offset_facts: self.offset_facts.clone(),
            admissions: self.admissions.clone(),
            fcsr_plain: self.fcsr_plain,
        }
    }

    /// Back to the state of `p` (a new copy of the rest of the block begins).
    pub fn restore_fork(&mut self, p: &ForkPoint) {
        self.dirty_v.clone_from(&p.dirty_v);
        self.dirty_u.clone_from(&p.dirty_u);
        self.raw_v.clone_from(&p.raw_v);
        self.unloaded.clone_from(&p.unloaded);
        self.unloaded_u.clone_from(&p.unloaded_u);
        self.offset_facts.clone_from(&p.offset_facts);
        self.admissions.clone_from(&p.admissions);
        self.fcsr_plain = p.fcsr_plain;
    }
}
