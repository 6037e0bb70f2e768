//! The per-kernel function being built: guest registers as Cranelift variables (a 32-lane vector register is
//! 8 × I32X4, a uniform register an I32), loaded at entry and stored at every exit, EXEC-masked writes, and
//! the calls that hand single instructions to the interpreter.

use crate::abi::{Exit, HelperFns};
use cranelift_codegen::ir::{self, condcodes::IntCC, types::*, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::{FunctionBuilder, Variable};
use lanejit_interp::WaveState;
use lanejit_isa::{UReg, VReg, LANES, UREGS, VREGS};
use std::mem::offset_of;

/// 128-bit vectors per 32-lane register.
pub const VECS: usize = LANES / 4;

/// A 32-lane register value: VECS × I32X4.
pub type Vec32 = [Value; VECS];

pub fn v_offset(r: usize, k: usize) -> i32 {
    (offset_of!(WaveState, v) + r * LANES * 4 + k * 16) as i32
}
pub fn u_offset(r: usize) -> i32 {
    (offset_of!(WaveState, u) + r * 4) as i32
}
pub const EXEC_OFFSET: i32 = offset_of!(WaveState, exec) as i32;
pub const PC_OFFSET: i32 = offset_of!(WaveState, pc) as i32;
pub const RETIRED_OFFSET: i32 = offset_of!(WaveState, retired) as i32;
pub const LANE_OPS_OFFSET: i32 = offset_of!(WaveState, lane_ops) as i32;

/// State is 64-byte aligned and never trapped on: every access is `trusted` (notrap + aligned).
pub fn flags() -> MemFlagsData {
    MemFlagsData::trusted()
}

pub struct Fx<'a> {
    pub b: FunctionBuilder<'a>,
    pub state: Value,
    pub ctx: Value,
    pub vvars: Vec<Option<[Variable; VECS]>>,
    pub uvars: Vec<Option<Variable>>,
    pub exec: Variable,
    pub retired: Variable,
    pub lane_ops: Variable,
    pub steps: Variable,
    pub helpers: HelperFns,
    /// The block being emitted runs with EXEC = all lanes (no blending needed).
    pub full_exec: bool,
    /// The instruction being lowered (what an interpreter call executes).
    pub current: Option<lanejit_isa::Insn>,
    /// EXEC at the start of the block being emitted.
    pub block_exec: Option<Value>,
    /// Cranelift block holding the common exit code, taking (status, pc).
    pub exit_block: ir::Block,
    /// Where a wave starts: loads EXEC, the counters and the budget, then dispatches on pc (`emit_function`).
    /// A wave's `end` jumps back here when `helper_next_wave` has set up the next wave.
    pub restart: ir::Block,
    /// The exit after an interpreter call trapped, taking pc: EXEC and the counters are in the state already
    /// (stored for the call), so it only records pc and the budget.
    trap_exit: ir::Block,
    /// Registers written since the block began (stored at every exit from it).
    dirty_v: Vec<bool>,
    dirty_u: Vec<bool>,
    /// The guest block being emitted branches to its own start: (that start, the Cranelift loop header). Its
    /// back edge keeps registers in variables instead of storing and reloading them.
    pub self_loop: Option<(u32, ir::Block)>,
    /// fcsr is plain (rm = rne, no f32 flush): checked at the block's start, not written since.
    pub fcsr_plain: bool,
    /// EXEC as 8 lane masks, computed once at the start of a masked block variant (EXEC is constant inside a
    /// block), so that each masked write costs one select per slice.
    exec_lanes: Option<Vec32>,
    /// Window-cache slot of each word's vector access (`runtime::NO_SLOT` for others); shared by the kernel's
    /// functions (one per word of the whole code).
    pub slot_of: std::sync::Arc<[u32]>,
    /// The compiler this function is built for (what variants blocks get, whether they count their starts).
    pub tier: crate::abi::Tier,
    /// `JitCtx::hits`, loaded once at entry (quick code counts block starts there).
    pub hits: Option<Value>,
    /// Every way each instruction (by pc) may run (`CompiledKernel::lowering`).
    pub lowering: std::collections::BTreeSet<(u32, crate::abi::Lowering)>,
    /// The lowering of the current instruction noted how it runs (else it is wholly native).
    pub noted: bool,
    /// Print the CLIF instruction count of every lowered instruction (`Report::insts`).
    pub report_insts: bool,
}

/// The vector and uniform registers a guest block names.
pub type BlockRegs = (Vec<usize>, Vec<usize>);

impl<'a> Fx<'a> {
    /// Declares variables for the registers the kernel names.
    pub fn new(
        mut b: FunctionBuilder<'a>,
        used_v: &[bool; VREGS],
        used_u: &[bool; UREGS],
        helpers: HelperFns,
        tier: crate::abi::Tier,
    ) -> Fx<'a> {
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let (state, ctx) = (b.block_params(entry)[0], b.block_params(entry)[1]);
        let vvars = (0..VREGS).map(|r| used_v[r].then(|| std::array::from_fn(|_| b.declare_var(I32X4)))).collect();
        let uvars = (0..UREGS).map(|r| used_u[r].then(|| b.declare_var(I32))).collect();
        let (exec, retired, lane_ops, steps) =
            (b.declare_var(I32), b.declare_var(I64), b.declare_var(I64), b.declare_var(I64));
        let exit_block = b.create_block();
        b.append_block_param(exit_block, I32);
        b.append_block_param(exit_block, I32);
        let restart = b.create_block();
        let trap_exit = b.create_block();
        b.append_block_param(trap_exit, I32);
        b.set_cold_block(trap_exit);
        let mut fx = Fx {
            b,
            state,
            ctx,
            vvars,
            uvars,
            exec,
            retired,
            lane_ops,
            steps,
            helpers,
            full_exec: false,
            current: None,
            block_exec: None,
            exit_block,
            trap_exit,
            restart,
            dirty_v: vec![false; VREGS],
            dirty_u: vec![false; UREGS],
            self_loop: None,
            fcsr_plain: false,
            exec_lanes: None,
            slot_of: std::sync::Arc::from(Vec::new()),
            tier,
            hits: None,
            lowering: Default::default(),
            noted: false,
            report_insts: false,
        };
        if tier == crate::abi::Tier::Quick {
            fx.hits = Some(fx.b.ins().load(I64, flags(), ctx, crate::abi::CTX_HITS_OFFSET));
        }
        // Mutant 137: EXEC loaded once per entry, so a wave started by compiled code keeps the last one's.
        if crate::mutants::active(137) {
            fx.load_exec();
        }
        // The wave's entry: also where the code goes on when it has started the next wave itself.
        fx.b.ins().jump(fx.restart, &[]);
        fx.b.switch_to_block(fx.restart);
        if !crate::mutants::active(137) {
            fx.load_exec();
        }
        fx.load_counters();
        let st = fx.b.ins().load(I64, flags(), ctx, crate::abi::CTX_STEPS_OFFSET);
        fx.b.def_var(fx.steps, st);
        fx
    }

    /// Stores the cached registers among `vs`/`us`.
    fn store_regs(&mut self, vs: &[usize], us: &[usize]) {
        for &r in vs {
            if let Some(vars) = self.vvars[r] {
                for (k, var) in vars.iter().enumerate() {
                    let x = self.b.use_var(*var);
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
    fn load_regs(&mut self, vs: &[usize], us: &[usize]) {
        for &r in vs {
            if let Some(vars) = self.vvars[r] {
                for (k, var) in vars.iter().enumerate() {
                    let x = self.b.ins().load(I32X4, flags(), self.state, v_offset(r, k));
                    self.b.def_var(*var, x);
                }
            }
        }
        for &r in us {
            if let Some(var) = self.uvars[r] {
                let x = self.b.ins().load(I32, flags(), self.state, u_offset(r));
                self.b.def_var(var, x);
            }
        }
    }

    fn store_exec(&mut self) {
        let x = self.b.use_var(self.exec);
        self.b.ins().store(flags(), x, self.state, EXEC_OFFSET);
    }

    fn load_exec(&mut self) {
        let x = self.b.ins().load(I32, flags(), self.state, EXEC_OFFSET);
        self.b.def_var(self.exec, x);
    }

    /// Starts a guest block: its registers are loaded from the state into variables, so every use inside the
    /// block sees a definition made in the block. Registers then never flow between guest blocks through SSA
    /// (no block parameters for registers a block does not name), which keeps compile time linear in the code.
    pub fn begin_block(&mut self, regs: &BlockRegs) {
        self.clear_dirty();
        self.exec_lanes = None;
        self.load_regs(&regs.0, &regs.1);
    }

    /// Marks `regs` as differing from the state (a loop carries them in variables across its back edge).
    pub fn mark_dirty(&mut self, regs: &BlockRegs) {
        regs.0.iter().for_each(|&r| self.dirty_v[r] = true);
        regs.1.iter().for_each(|&r| self.dirty_u[r] = true);
    }

    pub fn clear_dirty(&mut self) {
        self.dirty_v.iter_mut().for_each(|d| *d = false);
        self.dirty_u.iter_mut().for_each(|d| *d = false);
    }

    /// Which registers must be stored when the current code leaves the block.
    pub fn dirty(&self) -> (Vec<bool>, Vec<bool>) {
        (self.dirty_v.clone(), self.dirty_u.clone())
    }

    pub fn set_dirty(&mut self, d: (Vec<bool>, Vec<bool>)) {
        (self.dirty_v, self.dirty_u) = d;
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

    /// Loads the retired and lane-op counters (at entry only: helpers never change them).
    pub fn load_counters(&mut self) {
        for (var, off) in [(self.retired, RETIRED_OFFSET), (self.lane_ops, LANE_OPS_OFFSET)] {
            let x = self.b.ins().load(I64, flags(), self.state, off);
            self.b.def_var(var, x);
        }
    }

    /// Stores the counters plus `extra` instructions retired under the current EXEC.
    fn store_counters(&mut self, extra: u32) {
        let (r, l) = self.counted(extra);
        self.b.ins().store(flags(), r, self.state, RETIRED_OFFSET);
        self.b.ins().store(flags(), l, self.state, LANE_OPS_OFFSET);
    }

    // --- registers -------------------------------------------------------------------------------------------

    pub fn v(&mut self, r: VReg) -> Vec32 {
        let vars = self.vvars[r.idx()].expect("kernel register scan covers every named register");
        vars.map(|v| self.b.use_var(v))
    }

    /// Writes a vector register under EXEC (blending unless the block runs with a full EXEC).
    pub fn set_v(&mut self, r: VReg, x: Vec32) {
        let x = if self.full_exec { x } else { self.blend_exec(r, x) };
        self.set_v_all(r, x);
    }

    /// Writes every lane, ignoring EXEC.
    pub fn set_v_all(&mut self, r: VReg, x: Vec32) {
        let vars = self.vvars[r.idx()].expect("kernel register scan covers every named register");
        for k in 0..VECS {
            self.b.def_var(vars[k], x[k]);
        }
        self.dirty_v[r.idx()] = true;
    }

    fn blend_exec(&mut self, r: VReg, x: Vec32) -> Vec32 {
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

    /// Starts a block variant: in the masked one, EXEC's lane masks are computed here, where they dominate
    /// every instruction of the block (an instruction asking for them in a block without them computes its
    /// own).
    /// `lanes`: the block has instructions that write vector registers (blocks of uniform and control
    /// instructions skip the masks).
    pub fn begin_variant(&mut self, full_exec: bool, lanes: bool) {
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
    fn lane_mask_of_splat(&mut self, splat: Value, k: usize) -> Value {
        // Mutant 121: the lanes of vector k take the mask bits of vector k + 1 (wrapping).
        let k = if crate::mutants::active(121) { (k + 1) % VECS } else { k };
        let bits = self.const_vec([1 << (4 * k), 1 << (4 * k + 1), 1 << (4 * k + 2), 1 << (4 * k + 3)]);
        let and = self.b.ins().band(splat, bits);
        self.b.ins().icmp(IntCC::Equal, and, bits)
    }

    pub fn u(&mut self, r: UReg) -> Value {
        let var = self.uvars[r.idx()].expect("kernel register scan covers every named register");
        self.b.use_var(var)
    }

    pub fn set_u(&mut self, r: UReg, x: Value) {
        let var = self.uvars[r.idx()].expect("kernel register scan covers every named register");
        self.b.def_var(var, x);
        self.dirty_u[r.idx()] = true;
    }

    pub fn exec_val(&mut self) -> Value {
        self.b.use_var(self.exec)
    }

    // --- constants and lane-wise helpers -----------------------------------------------------------------------

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

    // --- exits -------------------------------------------------------------------------------------------------

    /// Leaves the compiled code with `status` and the guest pc to resume at (storing the changed registers).
    pub fn exit(&mut self, status: Exit, pc: u32) {
        self.store_dirty();
        let s = self.b.ins().iconst(I32, status as i64);
        let p = self.b.ins().iconst(I32, pc as i64);
        self.b.ins().jump(self.exit_block, &[s.into(), p.into()]);
    }

    /// A wave's `end` (the block's counts added): stores everything the exit would, then asks the runtime for
    /// the next wave; with one, starts it at `restart`, else leaves with `End`.
    pub fn end_wave(&mut self, pc: u32) {
        self.store_dirty();
        self.clear_dirty();
        self.store_exec();
        self.store_counters(0);
        let steps = self.b.use_var(self.steps);
        self.b.ins().store(flags(), steps, self.ctx, crate::abi::CTX_STEPS_OFFSET);
        let p = self.b.ins().iconst(I32, pc as i64);
        self.b.ins().store(flags(), p, self.state, PC_OFFSET);
        let f = self.b.ins().iconst(I64, self.helpers.next_wave as i64);
        let call = self.b.ins().call_indirect(self.helpers.sig, f, &[self.state, self.ctx, p]);
        let started = self.b.inst_results(call)[0];
        let done = self.b.create_block();
        self.b.ins().brif(started, self.restart, &[], done, &[]);
        self.b.switch_to_block(done);
        self.exit(Exit::End, pc);
    }

    /// Emits the shared exit block: store EXEC and the counters, write pc and the step budget, return the
    /// status (each exit has stored its block's changed registers already).
    pub fn emit_exit_block(&mut self) {
        self.b.switch_to_block(self.exit_block);
        let (status, pc) = (self.b.block_params(self.exit_block)[0], self.b.block_params(self.exit_block)[1]);
        self.store_exec();
        self.store_counters(0);
        self.b.ins().store(flags(), pc, self.state, PC_OFFSET);
        let steps = self.b.use_var(self.steps);
        self.b.ins().store(flags(), steps, self.ctx, crate::abi::CTX_STEPS_OFFSET);
        self.b.ins().return_(&[status]);
        self.b.switch_to_block(self.trap_exit);
        let pc = self.b.block_params(self.trap_exit)[0];
        self.b.ins().store(flags(), pc, self.state, PC_OFFSET);
        let steps = self.b.use_var(self.steps);
        self.b.ins().store(flags(), steps, self.ctx, crate::abi::CTX_STEPS_OFFSET);
        let status = self.b.ins().iconst(I32, Exit::Trap as i64);
        self.b.ins().return_(&[status]);
    }

    /// Counter values after `n` more instructions under the current EXEC.
    fn counted(&mut self, n: u32) -> (Value, Value) {
        let r = self.b.use_var(self.retired);
        let l = self.b.use_var(self.lane_ops);
        if n == 0 {
            return (r, l);
        }
        let r = self.b.ins().iadd_imm_s(r, n as i64);
        let ops = if self.full_exec {
            self.b.ins().iconst(I64, n as i64 * LANES as i64)
        } else {
            // Lane-ops count the lanes active when each instruction starts: EXEC as the block began (only a
            // block's last instruction may write EXEC).
            let e = self.block_exec.expect("counting happens inside a block");
            // Mutant 123: lane-ops counted with the EXEC current at the block's end, not at its start.
            let e = if crate::mutants::active(123) { self.exec_val() } else { e };
            let pc = self.b.ins().popcnt(e);
            let pc = self.b.ins().uextend(I64, pc);
            self.b.ins().imul_imm_s(pc, n as i64)
        };
        (r, self.b.ins().iadd(l, ops))
    }

    /// Adds `n` retired instructions (and their lane-ops under the current EXEC).
    pub fn count(&mut self, n: u32) {
        let (r, l) = self.counted(n);
        self.b.def_var(self.retired, r);
        self.b.def_var(self.lane_ops, l);
    }

    /// Executes the instruction at `pc` in the interpreter, from compiled code: registers are stored before and
    /// reloaded after; the state's counters include the `done` instructions of the block before this one, so a
    /// trap, or a read of the `retired` CSR, sees the right count. A trap leaves through the exit.
    pub fn call_interpreter(&mut self, pc: u32, done: u32) {
        self.note_lowering(pc, crate::abi::Lowering::Interpreter);
        self.call_runtime(self.helpers.step, pc, done, None);
    }

    /// Records a way the instruction at `pc` may run in the code being emitted.
    pub fn note_lowering(&mut self, pc: u32, how: crate::abi::Lowering) {
        self.noted = true;
        self.lowering.insert((pc, how));
    }

    /// A vector load or store through the runtime (`runtime::helper_mem`), with `call_interpreter`'s contract; only
    /// `writes` (a load's destination group, nothing for a store) are reloaded after it.
    pub fn call_mem(&mut self, pc: u32, done: u32, writes: BlockRegs) {
        self.note_lowering(pc, crate::abi::Lowering::Runtime);
        self.call_runtime(self.helpers.mem, pc, done, Some(writes));
    }

    /// Calls helper `f(state, ctx, pc)`, which executes the instruction at `pc` on the state: the registers it
    /// names are stored first when the block has changed them (the state holds the others already) and all of
    /// them are reloaded after.
    fn call_runtime(&mut self, f: usize, pc: u32, done: u32, writes: Option<BlockRegs>) {
        let insn = self.current.expect("a runtime call runs while lowering an instruction");
        if insn.fcsr().writes {
            self.fcsr_plain = false;
        }
        let (vs, us) = touched(&insn);
        let (dv, du): (Vec<usize>, Vec<usize>) = (
            vs.iter().copied().filter(|&r| self.dirty_v[r]).collect(),
            us.iter().copied().filter(|&r| self.dirty_u[r]).collect(),
        );
        // Mutant 124: registers the block changed are not written back before the runtime call.
        if !crate::mutants::active(124) {
            self.store_regs(&dv, &du);
        }
        self.store_exec();
        self.store_counters(done);
        let pcv = self.b.ins().iconst(I32, pc as i64);
        let f = self.b.ins().iconst(I64, f as i64);
        let sig = self.helpers.sig;
        let call = self.b.ins().call_indirect(sig, f, &[self.state, self.ctx, pcv]);
        let status = self.b.inst_results(call)[0];
        let (wv, wu) = writes.unwrap_or_else(|| written(&insn));
        self.load_regs(&wv, &wu);
        if insn.id().info().has(lanejit_isa::flag::WE) {
            self.load_exec();
        }
        let ok = self.b.create_block();
        let trap = self.b.create_block();
        self.b.set_cold_block(trap);
        self.b.ins().brif(status, trap, &[], ok, &[]);
        // A trap: the state has EXEC and the counters (stored for the call); the block's other changed
        // registers are stored here.
        self.b.switch_to_block(trap);
        self.store_dirty();
        self.b.ins().jump(self.trap_exit, &[pcv.into()]);
        self.b.switch_to_block(ok);
    }
}

// =============================================================================================================
// Integer-lowering helpers (added with lower/{vint,uniform,cmp}; generic, usable by any group)
// =============================================================================================================

// `sign_bits` packs exactly 8 vectors of 4 lanes.
const _: () = assert!(VECS == 8 && LANES == 32);

impl Fx<'_> {
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

/// Registers an instruction reads or writes (the YAML's `regs`: every operand's register group, formulas
/// evaluated): the only ones the interpreter touches for it, so the only ones stored before and reloaded after
/// it runs there. Written registers count too: a write under EXEC keeps the inactive lanes of the old value.
pub fn touched(insn: &lanejit_isa::Insn) -> (Vec<usize>, Vec<usize>) {
    split(&insn.reads().union(insn.writes()))
}

/// The registers an instruction may write (the YAML's `out` and `inout` operands).
pub fn written(insn: &lanejit_isa::Insn) -> (Vec<usize>, Vec<usize>) {
    split(&insn.writes())
}

fn split(set: &lanejit_isa::RegSet) -> (Vec<usize>, Vec<usize>) {
    (set.vregs().map(|r| r.idx()).collect(), set.uregs().map(|r| r.idx()).collect())
}
