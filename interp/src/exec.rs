//! The interpreter loop: fetch a pre-decoded instruction, hand it to its group's handler, apply the flow.

use crate::memory::Memory;
use crate::state::WaveState;
use crate::trap::{Trap, TrapKind};
use crate::{cmp, ctrl, mem, uniform, vfloat, vint, xlane};
use lanejit_isa::{decode_at, DecodeError, Insn};

/// What the wave does after an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Next,
    /// Continue at this byte address.
    Jump(u32),
    End,
    /// Wait at a workgroup barrier, then continue with the next instruction.
    Barrier,
}

/// Read-only facts about the wave's place in the launch (the CSRs and the ABI registers come from here).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WaveEnv {
    pub wave_id: u32,
    pub wave_count: u32,
    pub wg_size: [u32; 3],
    pub grid: [u32; 3],
    pub wg_id: [u32; 3],
}

/// A kernel's code, decoded once at every word offset (so a jump into the middle of a 64-bit instruction
/// decodes what is there, like hardware would).
pub struct Code {
    pub words: Vec<u32>,
    pub decoded: Vec<Result<(Insn, u32), DecodeError>>,
}

impl Code {
    pub fn new(words: Vec<u32>) -> Code {
        let decoded = (0..words.len()).map(|i| decode_at(&words, i).map(|(insn, n)| (insn, n as u32 * 4))).collect();
        Code { words, decoded }
    }
    pub fn len_bytes(&self) -> u32 {
        self.words.len() as u32 * 4
    }
    /// The instruction at byte address `pc`, or the trap for fetching there.
    pub fn fetch(&self, pc: u32) -> Result<(Insn, u32), Trap> {
        if !pc.is_multiple_of(4) || pc >= self.len_bytes() {
            return Err(Trap::new(
                TrapKind::PcOutOfRange,
                pc,
                format!("pc {pc:#x} is outside the code (0..{:#x}) or not 4-aligned", self.len_bytes()),
            ));
        }
        match &self.decoded[(pc / 4) as usize] {
            Ok((insn, len)) => Ok((*insn, *len)),
            Err(e) => Err(Trap::illegal(pc, e.to_string())),
        }
    }
}

/// Everything a handler may touch while executing one instruction.
pub struct Ctx<'a> {
    pub w: &'a mut WaveState,
    pub mem: &'a mut dyn Memory,
    pub env: &'a WaveEnv,
    /// Address of the executing instruction.
    pub pc: u32,
    /// Its length in bytes (4 or 8).
    pub len: u32,
    /// Size of the kernel's code in bytes (jumps outside it trap at the jump).
    pub code_len: u32,
}

impl Ctx<'_> {
    pub fn trap(&self, kind: TrapKind, detail: impl Into<String>) -> Trap {
        Trap::new(kind, self.pc, detail)
    }
    pub fn illegal(&self, detail: impl Into<String>) -> Trap {
        Trap::illegal(self.pc, detail)
    }
    /// Address of the next instruction in sequence.
    pub fn next_pc(&self) -> u32 {
        self.pc.wrapping_add(self.len)
    }
}

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
    End,
    /// At a barrier; `w.pc` is already the instruction after it.
    Barrier,
    /// `max_steps` instructions retired.
    Steps,
}

/// Observes every retired instruction (for `--trace`); `before` is the state before it executed.
pub trait Tracer {
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
    for _ in 0..max_steps {
        let pc = w.pc;
        on_pc(pc);
        let (insn, len) = code.fetch(pc)?;
        let before = tracer.as_ref().map(|_| w.clone());
        let active = w.exec.count_ones() as u64;
        let flow = step(&mut Ctx { w, mem, env, pc, len, code_len: code.len_bytes() }, &insn)?;
        w.retired += 1;
        w.lane_ops += active;
        w.pc = match flow {
            Flow::Next | Flow::Barrier => pc.wrapping_add(len),
            Flow::Jump(t) => t,
            Flow::End => pc,
        };
        if let (Some(t), Some(b)) = (tracer.as_mut(), before.as_ref()) {
            t.retired(pc, &insn, b, w);
        }
        match flow {
            Flow::End => return Ok(Stop::End),
            Flow::Barrier => return Ok(Stop::Barrier),
            Flow::Next | Flow::Jump(_) => {}
        }
    }
    Ok(Stop::Steps)
}
