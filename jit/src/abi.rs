//! The contract between compiled code and the run loop: how compiled code returns (`Exit`), the context it is
//! called with (`JitCtx`, read at fixed offsets), the Rust helpers it calls, and the names of the compilers
//! (`Tier`) and of how an instruction runs (`Lowering`). Its own module so that the lowering (`fx`, `lower`)
//! and the run loop (`runtime`) both depend on it and not on each other.

use lanejit_interp::{Code, Memory, Trap, WaveEnv, WaveState};
use lanejit_isa::LANES;
use std::mem::offset_of;

/// Why compiled code returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Exit {
    /// Resume at `pc` (a block start, or an address the run loop interprets).
    Continue = 0,
    /// The wave ended (`end`) and no next wave was taken up in the same call.
    End = 1,
    /// Reached a barrier; `pc` is the instruction after it.
    Barrier = 2,
    /// An interpreted instruction trapped; the trap is in the context.
    Trap = 3,
    /// Interpret the instruction at `pc` (illegal words, traps, instructions left to the interpreter).
    Interpret = 4,
    /// The step budget left does not cover the block at `pc`: an exact run interprets it instruction by
    /// instruction, a chunked one stops there (`Steps::exact`).
    Budget = 5,
}

/// How many instructions a run may retire before it returns `Stop::Steps`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Steps {
    /// At most this many (for all the waves of the run).
    pub max: u64,
    /// Exactly `max`: the instructions of a block the rest does not cover run in the interpreter. Otherwise the
    /// run may stop before such a block (having retired at least one instruction), which its next call runs
    /// compiled: how a launch cuts a wave into chunks between checks of its limits, where any boundary near
    /// `max` will do and interpreting the tail of every chunk cost a tenth of a loop kernel's time.
    pub exact: bool,
}

/// The two compilers. `Quick` compiles a whole kernel cheaply, so code runs soon after a kernel is loaded:
/// one EXEC-masked variant per block, Cranelift without optimisation and with its single-pass register
/// allocator; its blocks count their starts (`JitCtx::hits`) so that the hot ones can be recompiled. `Opt`
/// makes the fastest code: a full-EXEC and a masked variant per block, opt_level `speed` and the backtracking
/// allocator (see docs/cranelift-0.135.md for what each setting costs and gains).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    /// The cheap whole-kernel compiler whose blocks count their starts.
    Quick,
    /// The optimising compiler, for the blocks that run often.
    Opt,
}

/// What compiled code and its helpers share with the run loop. `repr(C)`: compiled code reads `steps_left`.
#[repr(C)]
pub struct JitCtx<'a> {
    /// Instructions compiled code may still retire in this call.
    pub steps_left: i64,
    /// The kernel's decoded code, for the instructions the interpreter runs on compiled code's behalf.
    pub code: &'a Code,
    /// The memory the wave sees.
    pub mem: &'a mut dyn Memory,
    /// The running wave's place in the launch (by value: `helper_next_wave` changes it; compiled code reads
    /// its fields at `CTX_ENV_OFFSET`).
    pub env: WaveEnv,
    /// The trap of an interpreted instruction, set when compiled code returns `Exit::Trap`.
    pub trap: Option<Trap>,
    /// Regions compiled code may access inline, one per memory instruction (`slot_of`); filled by `helper_mem`.
    pub windows: *mut Window,
    /// The window slot of the instruction at each word (`NO_SLOT` for others).
    pub slot_of: &'a [u32],
    /// Block starts counted per word (`hits[pc / 4]`); `Quick` code adds one at every block it starts. Never
    /// null: a scratch buffer when the caller does not count.
    pub hits: *mut u32,
    /// Instructions the interpreter executed for compiled code in this call (statistics).
    pub interpreted: u64,
    /// Where the next wave comes from when one ends (`helper_next_wave`); `None`: a wave's end ends the run.
    pub next: Option<&'a mut dyn NextWave>,
    /// Instructions retired by the waves that ended in this call (their state has been reset since).
    pub ended_retired: u64,
    /// Nobody reads a wave's registers after its `end` (`NextWave::discards_registers`): compiled code skips
    /// storing the registers a block changed when it goes on to a block that only ends the wave. A byte:
    /// compiled code loads it at `CTX_DISCARD_OFFSET`.
    pub discard_final: u8,
    /// The waves compiled code may start itself at a wave's end (`NextWave::plan`; an idle plan without one).
    pub plan: *mut crate::plan::WavePlan,
    /// Where code compiled with `JitOptions::mark_blocks` stores the start of each block it enters (a sampling
    /// thread reads it: `WindowCache::block_mark`). Never null: a local of the run loop when nobody samples.
    pub block_mark: *mut u32,
    /// What the last helper returned: compiled code calls the helpers through trampolines that preserve every
    /// register and return nothing (`runtime::trampolines`), which leave the status here.
    pub helper_status: u32,
}

/// The waves a run goes on with after the running one ends, so that compiled code starts the next wave itself
/// instead of returning to the run loop (several waves per entry). Implemented by the launch, which knows the
/// ABI's initial state of each wave.
pub trait NextWave {
    /// Called when the wave in `w` (described by `env`) has ended: sets `w` and `env` up as the next wave
    /// (pc 0) and returns true, or returns false (nothing changed: the run ends with this wave).
    fn next(&mut self, w: &mut WaveState, env: &mut WaveEnv) -> bool;

    /// Nothing reads a wave's registers once it has ended (a launch: the next wave's setup re-zeroes every
    /// register the kernel writes), so compiled code may leave the state's registers stale at the end. False
    /// for runs that compare or return final states.
    fn discards_registers(&self) -> bool {
        false
    }

    /// The plan by which compiled code starts the next waves itself (`plan.rs`), when they begin as a launch's
    /// waves do; `NextWave::next` is then asked only when the plan allows no more. The plan must describe
    /// the same waves `next` would give.
    fn plan(&mut self) -> Option<&mut crate::plan::WavePlan> {
        None
    }
}

/// `JitCtx::slot_of` of a word that is not a memory instruction with a window slot.
pub const NO_SLOT: u32 = u32::MAX;

/// How compiled code runs an instruction, from most to least native.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Lowering {
    /// Host code in the compiled function.
    Native,
    /// A call to the JIT's runtime (Rust), which hands the instruction to the interpreter only when its fast
    /// path does not apply (a fault to report, an uncached region).
    Runtime,
    /// The interpreter executes it (called from compiled code, or after an exit).
    Interpreter,
}

pub const CTX_STEPS_OFFSET: i32 = offset_of!(JitCtx, steps_left) as i32;
pub const CTX_WINDOWS_OFFSET: i32 = offset_of!(JitCtx, windows) as i32;
pub const CTX_HITS_OFFSET: i32 = offset_of!(JitCtx, hits) as i32;
pub const CTX_ENV_OFFSET: i32 = offset_of!(JitCtx, env) as i32;
pub const CTX_DISCARD_OFFSET: i32 = offset_of!(JitCtx, discard_final) as i32;
pub const CTX_PLAN_OFFSET: i32 = offset_of!(JitCtx, plan) as i32;
pub const CTX_ENDED_OFFSET: i32 = offset_of!(JitCtx, ended_retired) as i32;
pub const CTX_MARK_OFFSET: i32 = offset_of!(JitCtx, block_mark) as i32;
pub const CTX_STATUS_OFFSET: i32 = offset_of!(JitCtx, helper_status) as i32;

/// The Rust helpers compiled code calls, each through its trampoline (the addresses of functions of the
/// `preserve_all` convention that call the helper and store its status at `CTX_STATUS_OFFSET`:
/// `runtime::trampolines`), and the trampolines' signature. A call on a cold path then clobbers no register,
/// so the hot path around it keeps its values in registers.
#[derive(Clone, Copy)]
pub struct HelperFns {
    pub step: usize,
    pub mem: usize,
    pub next_wave: usize,
    pub sig: cranelift_codegen::ir::SigRef,
}

/// Bytes one contiguous 32-bit access of all lanes covers: the inline path's window must hold this many.
pub const CONTIGUOUS_BYTES: u64 = 4 * LANES as u64;

/// One cached region for inline accesses: an access at guest `lo'` runs inline when `lo' - lo <= span`
/// (unsigned, so addresses below `lo` wrap and fail), at host `host + (lo' - lo)`. `span` is the region length
/// minus `CONTIGUOUS_BYTES`. The empty entry has `lo = u64::MAX, span = 0`: only `lo' = u64::MAX` would pass,
/// and that address fails the inline alignment check.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct Window {
    pub lo: u64,
    pub span: u64,
    pub host: u64,
}

impl Window {
    pub const EMPTY: Window = Window { lo: u64::MAX, span: 0, host: 0 };
}
