//! Facts about a vector register's current value that lowering computes once and reuses until the register is
//! written: what the inline memory paths know about a register of per-lane offsets (`lower/mem/offsets.rs`
//! computes them). A tiled matrix multiply's 16 shared-memory loads from one offset register then pay for one
//! vector check of that register, not 16.
//!
//! A fact is a Cranelift value, so it may be used only where its definition dominates: facts are forgotten
//! where a block or a block variant begins (its code has other predecessors), and where the register gets a
//! new value (an instruction's result, a reload from the state after a runtime call, NaNs made canonical).
//! The lowering computes them only on the straight path of a segment, before an access's first branch, never
//! inside one of its arms.

use super::Fx;
use cranelift_codegen::ir::Value;
use lanejit_isa::VReg;

/// Bytes each anchored value gets (the widest is an I64), and the size of the slots they are carved from.
const ANCHOR_BYTES: u32 = 8;
const ANCHOR_SLOT_BYTES: u32 = 256;

/// What is known about one register's lanes as per-lane byte offsets (each `None` until computed).
#[derive(Clone, Copy, Debug, Default)]
pub struct OffsetFacts {
    /// Lane 0's offset (I32).
    pub first: Option<Value>,
    /// Largest lane (I32, unsigned).
    pub max: Option<Value>,
    /// Bitwise (OR, AND) of all lanes (I32 each): every lane's low bits equal `c` iff both do, which is how
    /// the lanes' alignment is tested against a base known only per access.
    pub bits: Option<(Value, Value)>,
    /// Lane l holds `first + 4·l` (I8 boolean).
    pub contiguous: Option<Value>,
    /// Each 4-lane slice holds four consecutive words from its first lane (I8 boolean).
    pub slices_contiguous: Option<Value>,
    /// Each 4-lane slice holds one offset in all its lanes (I8 boolean).
    pub slices_uniform: Option<Value>,
    /// Each slice's first lane, zero-extended (I64).
    pub slice_firsts: Option<[Value; super::VECS]>,
    /// Times each fact was reused (indexed by `lower/mem/offsets.rs`'s `Fact`).
    pub reuses: [u8; 8],
    /// The facts pinned where they were computed (`Fx::anchor`), one bit each.
    pub anchored: u8,
}

/// A run of accesses admitted by one check (`lower/mem/group.rs`): the check's result and the host address of
/// the base of the run's access with immediate `imm` (the others add their immediate's difference).
#[derive(Clone, Copy, Debug)]
pub struct Admission {
    pub ok: Value,
    pub host: Value,
    pub imm: i32,
}

impl Fx<'_> {
    /// The admission of the access at `pc` with immediate `imm`, as (ok, host address of its base): recorded by
    /// an earlier access of its run in this segment, or made by `check` when this access begins a run (`check`
    /// returns the run's admission and the pcs of its later accesses, or None outside a run). Where `check` runs,
    /// its values dominate the rest of the segment.
    pub fn run_admission(
        &mut self,
        (pc, imm): (u32, i32),
        check: impl FnOnce(&mut Self) -> Option<(Admission, Vec<u32>)>,
    ) -> Option<(Value, Value)> {
        use cranelift_codegen::ir::InstBuilder;
        let adm = match self.admissions.iter().find(|(p, _)| *p == pc) {
            Some(&(_, adm)) => adm,
            None => {
                let (adm, later) = check(self)?;
                self.admissions.extend(later.into_iter().map(|p| (p, adm)));
                adm
            }
        };
        let host = self.b.ins().iadd_imm_s(adm.host, i64::from(imm) - i64::from(adm.imm));
        Some((adm.ok, host))
    }

    /// What is known about `r`'s current value.
    pub fn offset_facts(&self, r: VReg) -> OffsetFacts {
        self.offset_facts[r.idx()]
    }

    /// Records what is known about `r`'s current value (computed where it dominates the rest of the segment).
    pub fn keep_offset_facts(&mut self, r: VReg, facts: OffsetFacts) {
        self.offset_facts[r.idx()] = facts;
    }

    /// `r` gets a new value.
    pub(super) fn forget_offset_facts(&mut self, r: usize) {
        // Mutant 160: facts outlive a write of their register (a later access trusts the old offsets' checks).
        if !crate::mutants::active(160) {
            self.offset_facts[r] = OffsetFacts::default();
        }
    }

    /// Pins `values` where they are computed: each is stored to a scratch stack slot, an instruction with a
    /// side effect, so Cranelift's e-graph elaboration places the computation here rather than at each later
    /// use. (It places a pure computation at its first use in a dominator-tree walk and computes it again in
    /// every sibling subtree that also uses it: facts computed once for a segment's accesses were otherwise
    /// recomputed inside each access's branch arms.) Every value gets bytes of its own: Cranelift's alias
    /// analysis deletes a store that a later store of the same type to the same address overwrites, and a
    /// deleted anchor pins nothing (a tiled matrix multiply's largest-lane and OR facts were recomputed in every
    /// one of its 16 shared loads that way, when all anchors shared one 16-byte slot).
    pub fn anchor(&mut self, values: &[Value]) {
        use cranelift_codegen::ir::{InstBuilder, StackSlotData, StackSlotKind};
        let ptr = self.b.func.dfg.value_type(self.state);
        for &v in values {
            let (slot, at) = match self.anchor_slot {
                Some((slot, at)) if at < ANCHOR_SLOT_BYTES => (slot, at),
                _ => {
                    let data = StackSlotData::new(StackSlotKind::ExplicitSlot, ANCHOR_SLOT_BYTES, 3);
                    (self.b.create_sized_stack_slot(data), 0)
                }
            };
            self.b.ins().stack_store(ptr, v, slot, at as i32);
            self.anchor_slot = Some((slot, at + ANCHOR_BYTES));
        }
    }

    /// A block or a block variant begins: nothing computed before it dominates its code.
    pub(super) fn forget_all_offset_facts(&mut self) {
        self.offset_facts.fill(OffsetFacts::default());
        self.admissions.clear();
    }
}
