//! The interpreter loop: fetch a pre-decoded instruction, hand it to its group's handler, apply the flow.

pub use crate::ctx::{Code, Ctx, Flow, WaveEnv};
use crate::memory::Memory;
use crate::state::WaveState;
use crate::trap::Trap;
use crate::{cmp, ctrl, mem, uniform, vfloat, vint, xlane};
use lanejit_isa::Insn;

/// Executes one instruction. The match is exhaustive over groups; each group matches its own enum.
pub fn step(cx: &mut Ctx, insn: &Insn) -> Result<Flow, Trap> {
    match insn {
        Insn::Uniform(i) => uniform::exec(cx, i),
        // These three groups never trap (their handlers return a `Flow`, not a `Result`): the JIT relies on it
        // (`interpreter_may_trap` in jit/src/fx/exits.rs) to give their interpreted instructions no trap path.
        Insn::Vint(i) => Ok(vint::exec(cx, i)),
        Insn::Vfloat(i) => Ok(vfloat::exec(cx, i)),
        Insn::Cmp(i) => Ok(cmp::exec(cx, i)),
        Insn::Xlane(i) => xlane::exec(cx, i),
        Insn::Mem(i) => mem::exec(cx, i),
        Insn::Ctrl(i) => ctrl::exec(cx, i),
    }
}

/// Why `run` returned without a trap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The wave executed `end`.
    End,
    /// At a barrier; `w.pc` is already the instruction after it.
    Barrier,
    /// `max_steps` instructions retired.
    Steps,
}

/// Observes every retired instruction (for `--trace`); `before` is the state before it executed.
pub trait Tracer {
    /// Called after the instruction at `pc` retired; `after` is the state it left (pc already advanced).
    fn retired(&mut self, pc: u32, insn: &Insn, before: &WaveState, after: &WaveState);
}

/// Runs the wave from `w.pc` until it ends, reaches a barrier, traps, or retires `max_steps` instructions.
/// A trapping instruction has no effect and is not retired; `w.pc` then points at it.
pub fn run(
    code: &Code,
    w: &mut WaveState,
    mem: &mut dyn Memory,
    env: &WaveEnv,
    max_steps: u64,
    tracer: Option<&mut (dyn Tracer + '_)>,
) -> Result<Stop, Trap> {
    run_with(code, w, mem, env, max_steps, tracer, |_| {}, |_, _| {})
}

/// One instruction's figures in a profile (`run_profiled`): times a wave retired it, and the lanes active
/// each time, summed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InsnCount {
    /// Times a wave retired the instruction.
    pub count: u64,
    /// Active lanes (EXEC's population) when it ran, summed over those times.
    pub lanes: u64,
}

/// `run`, also adding each retired instruction to `counts[pc / 4]` (a trapping instruction is not retired, so
/// not counted): the per-instruction profile, whose counts sum to the instructions retired and whose lanes
/// sum to the lane-ops.
pub fn run_profiled(
    code: &Code,
    w: &mut WaveState,
    mem: &mut dyn Memory,
    env: &WaveEnv,
    max_steps: u64,
    counts: &mut [InsnCount],
) -> Result<Stop, Trap> {
    run_with(
        code,
        w,
        mem,
        env,
        max_steps,
        None,
        |_| {},
        |pc, active| {
            if let Some(c) = counts.get_mut((pc / 4) as usize) {
                c.count += 1;
                c.lanes += active;
            }
        },
    )
}

/// `run`, also counting how often each instruction starts executing: `hits[pc / 4] += 1` (for the JIT's
/// tiering, which compiles the blocks that run often).
pub fn run_counting(
    code: &Code,
    w: &mut WaveState,
    mem: &mut dyn Memory,
    env: &WaveEnv,
    max_steps: u64,
    hits: &mut [u32],
) -> Result<Stop, Trap> {
    run_with(code, w, mem, env, max_steps, None, |pc| count_start(Some(&mut *hits), pc), |_, _| {})
}

/// `run`, storing `pc | MARK_INTERPRETED` in `mark` before each instruction (where a profile's sampling
/// thread reads what the wave runs: `lanejit_jit::WindowCache::block_mark`), and counting block starts in
/// `hits` as `run_counting` does when given.
pub fn run_marked(
    code: &Code,
    w: &mut WaveState,
    mem: &mut dyn Memory,
    env: &WaveEnv,
    max_steps: u64,
    mut hits: Option<&mut [u32]>,
    mark: &std::sync::atomic::AtomicU32,
) -> Result<Stop, Trap> {
    run_with(
        code,
        w,
        mem,
        env,
        max_steps,
        None,
        |pc| {
            mark.store(pc | MARK_INTERPRETED, std::sync::atomic::Ordering::Relaxed);
            count_start(hits.as_deref_mut(), pc);
        },
        |_, _| {},
    )
}

/// One more start of the instruction at `pc` in `hits` (tiering's counts; saturating), when counting.
fn count_start(hits: Option<&mut [u32]>, pc: u32) {
    if let Some(h) = hits.and_then(|h| h.get_mut((pc / 4) as usize)) {
        *h = h.saturating_add(1);
    }
}

/// Set in a mark (`run_marked`) whose pc the interpreter runs (`lanejit_jit::MARK_INTERPRETED` is this).
pub const MARK_INTERPRETED: u32 = 1 << 31;

#[allow(clippy::too_many_arguments)] // the two hooks are what the callers differ in
fn run_with(
    code: &Code,
    w: &mut WaveState,
    mem: &mut dyn Memory,
    env: &WaveEnv,
    max_steps: u64,
    mut tracer: Option<&mut (dyn Tracer + '_)>,
    mut on_pc: impl FnMut(u32),
    mut on_retired: impl FnMut(u32, u64),
) -> Result<Stop, Trap> {
    // EXEC rarely changes between instructions: its population count is recomputed only when it does (a
    // software popcount on hosts built without POPCNT costs as much as a simple instruction's work).
    let (mut counted_exec, mut active) = (w.exec, w.exec.count_ones() as u64);
    for _ in 0..max_steps {
        let pc = w.pc;
        on_pc(pc);
        let (insn, len) = code.fetch(pc)?;
        let before = tracer.as_ref().map(|_| w.clone());
        if w.exec != counted_exec {
            (counted_exec, active) = (w.exec, w.exec.count_ones() as u64);
        }
        let flow = step(&mut Ctx { w, mem, env, pc, len, code_len: code.len_bytes() }, insn)?;
        w.retired += 1;
        w.lane_ops += active;
        on_retired(pc, active);
        w.pc = match flow {
            Flow::Next | Flow::Barrier => pc.wrapping_add(len),
            Flow::Jump(t) => t,
            Flow::End => pc,
        };
        if let (Some(t), Some(b)) = (tracer.as_mut(), before.as_ref()) {
            t.retired(pc, insn, b, w);
        }
        match flow {
            Flow::End => return Ok(Stop::End),
            Flow::Barrier => return Ok(Stop::Barrier),
            Flow::Next | Flow::Jump(_) => {}
        }
    }
    Ok(Stop::Steps)
}
