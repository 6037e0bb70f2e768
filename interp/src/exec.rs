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
        Insn::Vint(i) => vint::exec(cx, i),
        Insn::Vfloat(i) => vfloat::exec(cx, i),
        Insn::Cmp(i) => cmp::exec(cx, i),
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
    run_with(code, w, mem, env, max_steps, tracer, |_| {})
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
    run_with(code, w, mem, env, max_steps, None, |pc| {
        if let Some(h) = hits.get_mut((pc / 4) as usize) {
            *h = h.saturating_add(1);
        }
    })
}

fn run_with(
    code: &Code,
    w: &mut WaveState,
    mem: &mut dyn Memory,
    env: &WaveEnv,
    max_steps: u64,
    mut tracer: Option<&mut (dyn Tracer + '_)>,
    mut on_pc: impl FnMut(u32),
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
