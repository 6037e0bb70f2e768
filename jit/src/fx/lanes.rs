//! EXEC and lane-wise helpers: EXEC's variable (read, written, stored and loaded), EXEC as per-vector lane masks
//! (computed once per masked variant), constant vectors, splats, lane ids, and packing compare masks into a
//! 32-bit lane mask.

use super::{flags, Fx, Vec32, EXEC_OFFSET, VECS};
use cranelift_codegen::ir::{self, condcodes::IntCC, types::*, InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;

// `sign_bits` packs exactly 8 vectors of 4 lanes.
const _: () = assert!(VECS == 8 && lanejit_isa::LANES == 32);

impl Fx<'_> {
    /// EXEC's current value.
    pub fn exec_val(&mut self) -> Value {
        self.b.use_var(self.exec)
    }

    /// Sets EXEC (an instruction that writes it; the block's lane masks stay those of its start).
    pub fn set_exec(&mut self, m: Value) {
        self.b.def_var(self.exec, m);
    }

    /// Does the block variant being emitted run with every lane active (no EXEC blending)?
    pub fn full_exec(&self) -> bool {
        self.full_exec
    }

    /// Records EXEC as the segment being emitted starts (lane-ops count the lanes active then).
    pub fn note_block_exec(&mut self) {
        self.block_exec = Some(self.exec_val());
    }

    /// EXEC as the segment being emitted started (`note_block_exec`).
    pub(super) fn block_exec(&self) -> Value {
        self.block_exec.expect("counting happens inside a block")
    }

    /// Forgets the lane masks of the previous block (a new guest block begins).
    pub(super) fn forget_exec_lanes(&mut self) {
        self.exec_lanes = None;
    }

    /// Starts a block variant: in the masked one, EXEC's lane masks are computed here, where they dominate
    /// every instruction of the block (an instruction asking for them in a block without them computes its
    /// own).
    /// `lanes`: the block has instructions that write vector registers (blocks of uniform and control
    /// instructions skip the masks).
    pub fn begin_variant(&mut self, full_exec: bool, lanes: bool) {
        self.forget_raw_nans();
        self.forget_all_offset_facts();
        self.full_exec = full_exec;
        self.exec_lanes = None;
        if !full_exec && lanes {
            let exec = self.exec_val();
            let splat = self.b.ins().splat(I32X4, exec);
            self.exec_lanes = Some(std::array::from_fn(|k| self.lane_mask_of_splat(splat, k)));
        }
    }

    /// All-ones in the EXEC-active lanes of vector `k`.
    pub fn exec_lane_mask(&mut self, k: usize) -> Value {
        match self.exec_lanes {
            Some(m) => m[k],
            None => {
                let exec = self.exec_val();
                self.lane_mask(exec, k)
            }
        }
    }

    /// All-ones in the lanes of vector `k` whose bit is set in the 32-bit `mask`.
    pub fn lane_mask(&mut self, mask: Value, k: usize) -> Value {
        let splat = self.b.ins().splat(I32X4, mask);
        self.lane_mask_of_splat(splat, k)
    }

    /// `lane_mask` of a mask already splatted into every lane (one splat serves all 8 vectors).
    pub(super) fn lane_mask_of_splat(&mut self, splat: Value, k: usize) -> Value {
        // Mutant 121: the lanes of vector k take the mask bits of vector k + 1 (wrapping).
        let k = if crate::mutants::active(121) { (k + 1) % VECS } else { k };
        let bits = self.const_vec([1 << (4 * k), 1 << (4 * k + 1), 1 << (4 * k + 2), 1 << (4 * k + 3)]);
        let and = self.b.ins().band(splat, bits);
        self.b.ins().icmp(IntCC::Equal, and, bits)
    }

    pub fn const_vec(&mut self, lanes: [u32; 4]) -> Value {
        let bytes: Vec<u8> = lanes.iter().flat_map(|l| l.to_le_bytes()).collect();
        let c = self.b.func.dfg.constants.insert(ir::ConstantData::from(bytes));
        self.b.ins().vconst(I32X4, c)
    }

    pub fn splat32(&mut self, x: Value) -> Vec32 {
        let s = self.b.ins().splat(I32X4, x);
        [s; VECS]
    }

    pub fn splat_const(&mut self, c: u32) -> Vec32 {
        let x = self.b.ins().iconst(I32, c as i64);
        self.splat32(x)
    }

    pub fn map2(&mut self, a: Vec32, c: Vec32, f: impl Fn(&mut FunctionBuilder, Value, Value) -> Value) -> Vec32 {
        std::array::from_fn(|k| f(&mut self.b, a[k], c[k]))
    }

    /// The lane index vector (0..LANES).
    pub fn lane_ids(&mut self) -> Vec32 {
        std::array::from_fn(|k| {
            let base = 4 * k as u32;
            self.const_vec([base, base + 1, base + 2, base + 3])
        })
    }

    /// A vector with every lane `c` (a constant-pool load the using instruction can fold).
    pub fn kvec(&mut self, c: u32) -> Value {
        self.const_vec([c; 4])
    }

    /// The 32-bit lane mask whose bit i is the sign bit of lane i: for -1/0 compare masks, the lanes where the
    /// compare held (a ballot). Saturating narrows keep each lane's sign, so 6 × snarrow (I32X4 → I16X8 →
    /// I8X16) and 2 × vhigh_bits do it, instead of 8 × vhigh_bits plus shifts and ors.
    pub fn sign_bits(&mut self, m: Vec32) -> Value {
        let h: [Value; 4] = std::array::from_fn(|i| self.b.ins().snarrow(m[2 * i], m[2 * i + 1]));
        let lo = self.b.ins().snarrow(h[0], h[1]);
        let hi = self.b.ins().snarrow(h[2], h[3]);
        let lo = self.b.ins().vhigh_bits(I32, lo);
        let hi = self.b.ins().vhigh_bits(I32, hi);
        let hi = self.b.ins().ishl_imm_u(hi, 16);
        self.b.ins().bor(lo, hi)
    }

    /// `mask & EXEC` (nothing to do in the full-EXEC block variant).
    pub fn and_exec(&mut self, mask: Value) -> Value {
        if self.full_exec {
            return mask;
        }
        let e = self.exec_val();
        self.b.ins().band(mask, e)
    }

    /// Stores EXEC's variable into the state (before a runtime call or an exit).
    pub(super) fn store_exec(&mut self) {
        let x = self.b.use_var(self.exec);
        self.b.ins().store(flags(), x, self.state, EXEC_OFFSET);
    }

    /// Loads EXEC from the state into its variable (at a wave's start, after a runtime call that wrote it).
    pub(super) fn load_exec(&mut self) {
        let x = self.b.ins().load(I32, flags(), self.state, EXEC_OFFSET);
        self.b.def_var(self.exec, x);
    }
}
