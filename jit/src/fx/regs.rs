//! Guest registers as Cranelift variables: loaded from the wave state when a block begins, written under EXEC
//! (blended in the masked variant), tracked as changed (dirty) and stored at every way out of the block.

use super::{flags, u_offset, v_offset, BlockRegs, Dirty, Fx, Vec32, VECS};
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{types::*, InstBuilder, MemFlagsData, Value};
use lanejit_interp::fp::F32_QNAN;
use lanejit_isa::{UReg, VReg, UREGS, VREGS};

impl Fx<'_> {
    /// Is vector register `r` held in variables (named by the kernel)?
    pub fn has_v(&self, r: usize) -> bool {
        self.vvars[r].is_some()
    }

    /// Is uniform register `r` held in a variable (named by the kernel)?
    pub fn has_u(&self, r: usize) -> bool {
        self.uvars[r].is_some()
    }

    /// Stores the cached registers among `vs`/`us` (with canonical NaNs: the state always holds them).
    pub(super) fn store_regs(&mut self, vs: &[usize], us: &[usize]) {
        for &r in vs {
            if let Some(vars) = self.vvars[r] {
                for (k, var) in vars.iter().enumerate() {
                    let x = self.b.use_var(*var);
                    // Stores inside a run of f32 arithmetic come only from a runtime call for one of its
                    // instructions, which reads these registers as f32 sources and leaves them dirty (stored again
                    // where the block ends): no guest-visible difference, but the state never holds raw NaNs.
                    let x = if self.raw_v[r] { self.canonical_nans(x) } else { x };
                    self.b.ins().store(flags(), x, self.state, v_offset(r, k));
                }
            }
        }
        for &r in us {
            if let Some(var) = self.uvars[r] {
                let x = self.b.use_var(var);
                self.b.ins().store(flags(), x, self.state, u_offset(r));
            }
        }
    }

    /// Loads the cached registers among `vs`/`us` from the state into their variables.
    pub(super) fn load_regs(&mut self, vs: &[usize], us: &[usize]) {
        for &r in vs {
            if self.in_state[r] {
                continue;
            }
            if let Some(vars) = self.vvars[r] {
                for (k, var) in vars.iter().enumerate() {
                    let x = self.b.ins().load(I32X4, flags(), self.state, v_offset(r, k));
                    self.b.def_var(*var, x);
                }
                self.forget_offset_facts(r);
                self.unloaded[r] = false;
            }
        }
        for &r in us {
            if let Some(var) = self.uvars[r] {
                let x = self.b.ins().load(I32, flags(), self.state, u_offset(r));
                self.b.def_var(var, x);
                self.unloaded_u[r] = false;
            }
        }
    }

    /// Starts a guest block: its registers are loaded from the state into variables, so every use inside the
    /// block sees a definition made in the block. Registers then never flow between guest blocks through SSA
    /// (no block parameters for registers a block does not name), which keeps compile time linear in the code.
    pub fn begin_block(&mut self, regs: &BlockRegs) {
        self.clear_dirty();
        self.forget_exec_lanes();
        self.forget_all_offset_facts();
        self.unloaded.fill(false);
        self.unloaded_u.fill(false);
        self.load_regs(&regs.0, &regs.1);
    }

    /// Starts a guest block like `begin_block`, except for the registers `skip`, which the block writes before
    /// it reads them. Vector ones stay in the state until the masked variant of the segment writing them loads
    /// them for its blend (`load_unloaded`), so the full-EXEC variant, which overwrites every lane, never loads
    /// them (and never keeps their old values live, spilled, until the masked variant might use them). Uniform
    /// ones are never loaded: a load whose value nothing uses still costs an instruction (Cranelift keeps
    /// loads from the state, which are not read-only).
    pub fn begin_block_lazy(&mut self, regs: &BlockRegs, skip: &BlockRegs) {
        let vs: Vec<usize> = regs.0.iter().copied().filter(|r| !skip.0.contains(r)).collect();
        let us: Vec<usize> = regs.1.iter().copied().filter(|r| !skip.1.contains(r)).collect();
        self.begin_block(&(vs, us));
        skip.0.iter().for_each(|&r| self.unloaded[r] = true);
        skip.1.iter().for_each(|&r| self.unloaded_u[r] = true);
    }

    /// A variant of a segment begins: the uniform registers `us` first written in it are unloaded again (the
    /// other variant, emitted before, may have written them).
    pub fn unload_u(&mut self, us: &[usize]) {
        us.iter().for_each(|&r| self.unloaded_u[r] = true);
    }

    /// A variant of a segment has ended: every uniform register among `us` must have been written in it (else
    /// the function is built again without unloaded registers).
    pub fn check_written_u(&mut self, us: &[usize]) {
        self.lazy_violated |= us.iter().any(|&r| self.unloaded_u[r]);
    }

    /// Loads the registers among `vs` left unloaded (at the start of a masked variant that writes them).
    pub fn load_unloaded(&mut self, vs: &[usize]) {
        let due: Vec<usize> = vs.iter().copied().filter(|&r| self.unloaded[r]).collect();
        // Mutant 161: the masked variant blends into registers it never loaded (inactive lanes read as 0).
        if crate::mutants::active(161) {
            due.iter().for_each(|&r| self.unloaded[r] = false);
            return;
        }
        self.load_regs(&due, &[]);
    }

    /// The full-EXEC variant of a segment has ended: every register among `vs` must have been written in it
    /// (else the function is built again without unloaded registers). They count as unloaded again for the
    /// masked variant, which starts from the same state.
    pub fn check_written(&mut self, vs: &[usize]) {
        self.lazy_violated |= vs.iter().any(|&r| self.unloaded[r]);
        vs.iter().for_each(|&r| self.unloaded[r] = true);
    }

    /// Should blocks leave registers written before read unloaded?
    pub fn lazy_loads(&self) -> bool {
        self.lazy_loads
    }

    /// Builds the function loading every register a block names where it begins.
    pub fn disable_lazy_loads(&mut self) {
        self.lazy_loads = false;
    }

    /// Was a register left unloaded read before it was written (the function is wrong and must be rebuilt)?
    pub fn lazy_violated(&self) -> bool {
        self.lazy_violated
    }

    /// Marks `regs` as differing from the state (a loop carries them in variables across its back edge).
    pub fn mark_dirty(&mut self, regs: &BlockRegs) {
        regs.0.iter().filter(|&&r| !self.in_state[r]).for_each(|&r| self.dirty_v[r] = true);
        regs.1.iter().for_each(|&r| self.dirty_u[r] = true);
    }

    pub fn clear_dirty(&mut self) {
        self.dirty_v.iter_mut().for_each(|d| *d = false);
        self.dirty_u.iter_mut().for_each(|d| *d = false);
    }

    /// Which registers must be stored when the current code leaves the block.
    pub fn dirty(&self) -> Dirty {
        (self.dirty_v.clone(), self.dirty_u.clone())
    }

    pub fn set_dirty(&mut self, d: Dirty) {
        (self.dirty_v, self.dirty_u) = d;
    }

    /// Switches to emitting a branch's other arm, which starts from the changes `entry` (taken before the
    /// branch); returns the first arm's changes, for `join_arms` (see `runtime_arm`).
    pub(super) fn other_arm(&mut self, entry: Dirty) -> Dirty {
        let first = self.dirty();
        self.set_dirty(entry);
        first
    }

    /// The arms meet again: a register changed on either path counts as changed.
    pub(super) fn join_arms(&mut self, first: Dirty) {
        self.dirty_v.iter_mut().zip(first.0).for_each(|(d, x)| *d |= x);
        self.dirty_u.iter_mut().zip(first.1).for_each(|(d, x)| *d |= x);
    }

    /// The registers among `vs`/`us` that the block has changed (to store before a runtime call reads them).
    pub(super) fn dirty_among(&self, vs: &[usize], us: &[usize]) -> BlockRegs {
        (
            vs.iter().copied().filter(|&r| self.dirty_v[r]).collect(),
            us.iter().copied().filter(|&r| self.dirty_u[r]).collect(),
        )
    }

    /// Has the block changed any register since it began (or since its changes were last stored)?
    pub fn dirty_any(&self) -> bool {
        self.dirty_v.iter().chain(&self.dirty_u).any(|&d| d)
    }

    /// Writes the registers the block has changed back to the state (at every way out of the block).
    pub fn store_dirty(&mut self) {
        let vs: Vec<usize> = (0..VREGS).filter(|&r| self.dirty_v[r]).collect();
        let us: Vec<usize> = (0..UREGS).filter(|&r| self.dirty_u[r]).collect();
        self.store_regs(&vs, &us);
    }

    pub fn v(&mut self, r: VReg) -> Vec32 {
        if self.raw_v[r.idx()] {
            self.settle(r.idx());
        }
        self.v_float(r)
    }

    /// Register `r` as a source of f32 arithmetic whose result is a NaN whenever a source is one (add, sub,
    /// mul, div, fma, sqrt): its NaNs may still carry the host's payloads (`set_v_float`), which such a result
    /// cannot show once it is made canonical itself.
    pub fn v_float(&mut self, r: VReg) -> Vec32 {
        if self.in_state[r.idx()] {
            return self.v_from_state(r.idx());
        }
        self.lazy_violated |= self.unloaded[r.idx()];
        let vars = self.vvars[r.idx()].expect("kernel register scan covers every named register");
        vars.map(|v| self.b.use_var(v))
    }

    /// The vector registers of the block about to begin that it only reads: they stay in the state, read from
    /// there at each use (a load the host instruction using it can often take as its memory operand), instead
    /// of being loaded where the block begins and kept live, and spilled, across it. Optimised code only (the
    /// quick tier keeps its CLIF small).
    pub fn set_in_state(&mut self, vs: &[usize]) {
        self.in_state.fill(false);
        vs.iter().for_each(|&r| self.in_state[r] = true);
    }

    /// A use of a register the block only reads: its slices loaded from the state here.
    fn v_from_state(&mut self, r: usize) -> Vec32 {
        std::array::from_fn(|k| {
            // Mutant 171: every slice is loaded from the register's first 16 bytes.
            let k = if crate::mutants::active(171) { 0 } else { k };
            self.b.ins().load(I32X4, flags(), self.state, v_offset(r, k))
        })
    }

    /// Writes f32 arithmetic results (I32X4 bits) whose NaNs are not canonical yet. In the full-EXEC variant
    /// they stay so while only f32 arithmetic reads them (a chain of fmas pays for one canonicalisation, not
    /// one per link); any other reader, a store to the state and the end of the segment make them canonical
    /// (`v`, `store_regs`, `settle_nans`). In the masked variant the inactive lanes keep arbitrary bits, so the
    /// results are made canonical before the blend.
    pub fn set_v_float(&mut self, r: VReg, x: Vec32) {
        if self.full_exec() {
            self.set_v_all(r, x);
            self.raw_v[r.idx()] = true;
        } else {
            // Mutant 157: the masked variant blends in the host's NaN payloads.
            let x = if crate::mutants::active(157) { x } else { x.map(|s| self.canonical_nans(s)) };
            self.set_v(r, x);
        }
    }

    /// Makes every register's NaNs canonical (before an instruction other than f32 arithmetic, and where a
    /// segment ends).
    pub fn settle_nans(&mut self) {
        for r in 0..VREGS {
            if self.raw_v[r] {
                self.settle(r);
            }
        }
    }

    fn settle(&mut self, r: usize) {
        let vars = self.vvars[r].expect("only named registers are written");
        for var in vars {
            let x = self.b.use_var(var);
            let x = self.canonical_nans(x);
            self.b.def_var(var, x);
        }
        self.raw_v[r] = false;
        self.forget_offset_facts(r);
    }

    /// f32 bits with every NaN replaced by the canonical 0x7fc00000 (the host keeps payloads and quiets
    /// signalling NaNs instead).
    pub fn canonical_nans(&mut self, bits: Value) -> Value {
        let f = self.b.ins().bitcast(F32X4, MemFlagsData::new(), bits);
        let nan = self.b.ins().fcmp(FloatCC::Unordered, f, f);
        let q = self.kvec(F32_QNAN);
        self.b.ins().bitselect(nan, q, bits)
    }

    /// No register holds NaNs to make canonical (at the start of a block variant).
    pub(super) fn forget_raw_nans(&mut self) {
        debug_assert!(!self.raw_v.iter().any(|&r| r), "a segment ends with canonical NaNs");
        self.raw_v.fill(false);
    }

    /// Writes a vector register under EXEC (blending unless the block runs with a full EXEC).
    pub fn set_v(&mut self, r: VReg, x: Vec32) {
        let x = if self.full_exec() { x } else { self.blend_exec(r, x) };
        self.set_v_all(r, x);
    }

    /// Writes every lane, ignoring EXEC.
    pub fn set_v_all(&mut self, r: VReg, x: Vec32) {
        // The block was found to only read `r`: a lowering that writes it means the analysis is wrong, and the
        // function is built again without registers left in the state.
        self.lazy_violated |= self.in_state[r.idx()];
        self.raw_v[r.idx()] = false;
        let vars = self.vvars[r.idx()].expect("kernel register scan covers every named register");
        for k in 0..VECS {
            self.b.def_var(vars[k], x[k]);
        }
        self.forget_offset_facts(r.idx());
        self.unloaded[r.idx()] = false;
        self.dirty_v[r.idx()] = true;
    }

    pub(super) fn blend_exec(&mut self, r: VReg, x: Vec32) -> Vec32 {
        let old = self.v(r);
        std::array::from_fn(|k| {
            let m = self.exec_lane_mask(k);
            // Mutant 122: new and old values swapped in the EXEC blend.
            if crate::mutants::active(122) {
                return self.b.ins().bitselect(m, old[k], x[k]);
            }
            self.b.ins().bitselect(m, x[k], old[k])
        })
    }

    pub fn u(&mut self, r: UReg) -> Value {
        self.lazy_violated |= self.unloaded_u[r.idx()];
        let var = self.uvars[r.idx()].expect("kernel register scan covers every named register");
        self.b.use_var(var)
    }

    pub fn set_u(&mut self, r: UReg, x: Value) {
        let var = self.uvars[r.idx()].expect("kernel register scan covers every named register");
        self.b.def_var(var, x);
        self.unloaded_u[r.idx()] = false;
        self.dirty_u[r.idx()] = true;
    }

    /// Writes the lanes of `r` whose bit is set in the 32-bit `mask` (the caller has applied EXEC to it).
    pub fn set_v_lanes(&mut self, r: VReg, x: Vec32, mask: Value) {
        let old = self.v(r);
        let y = std::array::from_fn(|k| {
            let m = self.lane_mask(mask, k);
            self.b.ins().bitselect(m, x[k], old[k])
        });
        self.set_v_all(r, y);
    }
}
