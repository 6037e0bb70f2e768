//! The per-kernel function being built (`Fx`): guest registers as Cranelift variables (a 32-lane vector
//! register is 8 × I32X4, a uniform register an I32), loaded at entry and stored at every exit, EXEC-masked
//! writes, and the calls that hand single instructions to the interpreter. By concern: `regs` (register
//! variables and what a block changed), `lanes` (EXEC lane masks and lane-wise helpers), `exits` (ways out of
//! compiled code, counting, runtime calls); this file holds the state and the function's entry.

use crate::abi::HelperFns;
use cranelift_codegen::ir::{self, types::*, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::{FunctionBuilder, Variable};
use lanejit_interp::WaveState;
use lanejit_isa::{LANES, UREGS, VREGS};
use std::mem::offset_of;

mod exits;
mod facts;
mod fork;
mod lanes;
mod next_wave;
mod regs;

pub use facts::{Admission, OffsetFacts};

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

/// A guest block that branches to its own start, as emitted: where its back edge goes.
#[derive(Clone, Copy, Debug)]
pub struct SelfLoop {
    /// The guest block's start.
    pub start: u32,
    /// The Cranelift loop header the back edge jumps to.
    pub header: ir::Block,
    /// `Some(n)`: the back edge checks the step budget for the next trip (`n` steps) instead of the header,
    /// so a register the body writes before reading it is not live at the header (its variable would
    /// otherwise be carried around the loop only for the header's budget exit to store).
    pub back_edge_steps: Option<i64>,
}

/// The function being built. Only the builder is public: lowering code emits through `b` and reaches the rest
/// through the methods of each concern's file (`regs`, `lanes`, `exits`, and this file for the function's
/// inputs and per-block facts), never through another concern's state.
pub struct Fx<'a> {
    /// The Cranelift function builder every lowering emits through.
    pub b: FunctionBuilder<'a>,
    // --- The function's inputs and settings (this file).
    state: Value,
    ctx: Value,
    /// Window-cache slot of each word's vector access (`runtime::NO_SLOT` for others); shared by the kernel's
    /// functions (one per word of the whole code).
    slot_of: std::sync::Arc<[u32]>,
    /// The compiler this function is built for (what variants blocks get, whether they count their starts).
    tier: crate::abi::Tier,
    /// `JitCtx::hits`, loaded once at entry (quick code counts block starts there).
    hits: Option<Value>,
    /// `JitCtx::block_mark`, loaded at each wave's start when the code marks the block it runs
    /// (`JitOptions::mark_blocks`, for sampling each block's share of time).
    mark: Option<Value>,
    /// Print the CLIF instruction count of every lowered instruction (`Report::insts`).
    report_insts: bool,
    /// The guest block being emitted branches to its own start. Its back edge keeps registers in variables
    /// instead of storing and reloading them.
    self_loop: Option<SelfLoop>,
    /// fcsr is plain (rm = rne, no f32 flush): checked at the block's start, not written since.
    fcsr_plain: bool,
    // --- Registers (`regs.rs`).
    vvars: Vec<Option<[Variable; VECS]>>,
    uvars: Vec<Option<Variable>>,
    /// Registers written since the block began (stored at every exit from it).
    dirty_v: Vec<bool>,
    dirty_u: Vec<bool>,
    /// Registers holding f32 arithmetic results whose NaNs still have the host's payloads (`set_v_float`).
    raw_v: Vec<bool>,
    /// Vector registers a block left unloaded because it writes them before reading them (`begin_block_lazy`):
    /// loaded only by the masked variant of the segment that first writes them.
    unloaded: Vec<bool>,
    /// Uniform registers a block left unloaded because it writes them before reading them: never loaded (a
    /// uniform write does not depend on EXEC, so no variant needs the old value).
    unloaded_u: Vec<bool>,
    /// Vector registers the block being emitted only reads (`set_in_state`): never loaded into variables, every
    /// use loads them from the state, where they cannot change.
    in_state: Vec<bool>,
    /// Leave registers written before read unloaded (`begin_block_lazy`); false when rebuilding a function
    /// whose lowering read one (`lazy_violated`).
    lazy_loads: bool,
    /// A register left unloaded was read before it was written: the function must be built again without.
    lazy_violated: bool,
    /// What is known about each register's value as per-lane offsets (`facts.rs`).
    offset_facts: Vec<OffsetFacts>,
    /// The stack slot `anchor` stores to and the next free offset in it (a new slot when it is full).
    anchor_slot: Option<(ir::StackSlot, u32)>,
    /// Accesses of this segment admitted by an earlier access's check of their run (`facts.rs`), by pc.
    admissions: Vec<(u32, Admission)>,
    // --- EXEC (`lanes.rs`).
    exec: Variable,
    /// The block being emitted runs with EXEC = all lanes (no blending needed).
    full_exec: bool,
    /// EXEC at the start of the block being emitted.
    block_exec: Option<Value>,
    /// EXEC as 8 lane masks, computed once at the start of a masked block variant (EXEC is constant inside a
    /// block), so that each masked write costs one select per slice.
    exec_lanes: Option<Vec32>,
    // --- Ways out, counters and runtime calls (`exits.rs`).
    retired: Variable,
    lane_ops: Variable,
    steps: Variable,
    helpers: HelperFns,
    /// The instruction being lowered (what an interpreter call executes).
    current: Option<lanejit_isa::Insn>,
    /// Cranelift block holding the common exit code, taking (status, pc).
    exit_block: ir::Block,
    /// Where a wave starts: loads EXEC, the counters and the budget, then dispatches on pc (`emit_function`).
    /// A wave's `end` jumps back here when `helper_next_wave` has set up the next wave.
    restart: ir::Block,
    /// The exit after an interpreter call trapped, taking pc: EXEC and the counters are in the state already
    /// (stored for the call), so it only records pc and the budget.
    trap_exit: ir::Block,
    /// Every way each instruction (by pc) may run (`CompiledKernel::lowering`).
    lowering: std::collections::BTreeSet<(u32, crate::abi::Lowering)>,
    /// The lowering of the current instruction noted how it runs (else it is wholly native).
    noted: bool,
    /// What a wave's start writes, for `end` to start the next wave in compiled code (`next_wave.rs`).
    start_facts: Option<std::sync::Arc<crate::plan::StartFacts>>,
}

/// The vector and uniform registers a guest block names.
pub type BlockRegs = (Vec<usize>, Vec<usize>);

/// Per vector and per uniform register: changed since the state last held it (stored at every way out).
pub type Dirty = (Vec<bool>, Vec<bool>);

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
            raw_v: vec![false; VREGS],
            offset_facts: vec![OffsetFacts::default(); VREGS],
            anchor_slot: None,
            admissions: Vec::new(),
            unloaded: vec![false; VREGS],
            unloaded_u: vec![false; UREGS],
            in_state: vec![false; VREGS],
            lazy_loads: true,
            lazy_violated: false,
            self_loop: None,
            fcsr_plain: false,
            exec_lanes: None,
            slot_of: std::sync::Arc::from(Vec::new()),
            tier,
            hits: None,
            mark: None,
            lowering: Default::default(),
            noted: false,
            report_insts: false,
            start_facts: None,
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

    /// The wave state pointer (`*mut WaveState`), a function parameter.
    pub fn state(&self) -> Value {
        self.state
    }

    /// The run context pointer (`*mut JitCtx`), a function parameter.
    pub fn ctx(&self) -> Value {
        self.ctx
    }

    /// The compiler this function is built for.
    pub fn tier(&self) -> crate::abi::Tier {
        self.tier
    }

    /// Lets a wave's `end` start the next wave itself, by these facts of the kernel (`next_wave.rs`).
    pub fn set_start_facts(&mut self, facts: std::sync::Arc<crate::plan::StartFacts>) {
        self.start_facts = Some(facts);
    }

    /// Sets the window-cache slot of every code word (shared by the kernel's functions).
    pub fn set_window_slots(&mut self, slot_of: std::sync::Arc<[u32]>) {
        self.slot_of = slot_of;
    }

    /// The window-cache slot of the vector access at `pc` (`runtime::NO_SLOT` for other instructions).
    pub fn window_slot(&self, pc: u32) -> u32 {
        self.slot_of[(pc / 4) as usize]
    }

    /// Every block stores its start at `JitCtx::block_mark` on entry (`JitOptions::mark_blocks`). Called right
    /// after `new`, in the wave's start block, which every guest block follows.
    pub fn set_mark_blocks(&mut self, on: bool) {
        if on {
            self.mark = Some(self.b.ins().load(I64, flags(), self.ctx, crate::abi::CTX_MARK_OFFSET));
        }
    }

    /// Print the CLIF instruction count of every lowered instruction.
    pub fn set_report_insts(&mut self, on: bool) {
        self.report_insts = on;
    }

    /// Does this function print the CLIF instruction count of every lowered instruction?
    pub fn report_insts(&self) -> bool {
        self.report_insts
    }

    /// The block being emitted branches to its own start: its loop, or `None`.
    pub fn self_loop(&self) -> Option<SelfLoop> {
        self.self_loop
    }

    /// Sets (or, with `None`, clears) the self loop of the block being emitted.
    pub fn set_self_loop(&mut self, l: Option<SelfLoop>) {
        self.self_loop = l;
    }

    /// Is fcsr known plain (rm = rne, no f32 flush) here: checked at the block's start, not written since?
    pub fn fcsr_plain(&self) -> bool {
        self.fcsr_plain
    }

    /// States whether fcsr is known plain from here on.
    pub fn set_fcsr_plain(&mut self, plain: bool) {
        self.fcsr_plain = plain;
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
