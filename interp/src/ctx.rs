//! What every instruction handler works with: the decoded code, the wave's place in the launch, the context of
//! one executing instruction, and the flow it returns. Its own module, below the handlers and the loop
//! (`exec`), so that neither depends on the other's file.

use crate::memory::Memory;
use crate::state::WaveState;
use crate::trap::{Trap, TrapKind};
use lanejit_isa::{decode_at, DecodeError, Insn};

/// What the wave does after an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Continue with the next instruction in sequence.
    Next,
    /// Continue at this byte address.
    Jump(u32),
    /// The wave has ended (`end`); the pc stays at the ending instruction.
    End,
    /// Wait at a workgroup barrier, then continue with the next instruction.
    Barrier,
}

/// Read-only facts about the wave's place in the launch (the CSRs and the ABI registers come from here).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WaveEnv {
    /// This wave's index in its workgroup, from 0 (CSR `wave_id`).
    pub wave_id: u32,
    /// Waves in the workgroup (CSR `wave_count`).
    pub wave_count: u32,
    /// Workgroup size in threads, x y z (CSRs `wg_size_x/y/z`).
    pub wg_size: [u32; 3],
    /// Grid size in workgroups, x y z (CSRs `grid_x/y/z`).
    pub grid: [u32; 3],
    /// This wave's workgroup id, x y z (the runtime puts it in u2..u4 at wave start).
    pub wg_id: [u32; 3],
}

/// A kernel's code, decoded once at every word offset (so a jump into the middle of a 64-bit instruction
/// decodes what is there, like hardware would).
pub struct Code {
    /// The code words, in address order.
    pub words: Vec<u32>,
    /// For each word index: the instruction starting there with its length in bytes, or why it is illegal.
    pub decoded: Vec<Result<(Insn, u32), DecodeError>>,
}

impl Code {
    /// Decodes `words` at every word offset; an illegal instruction is kept as its error and traps only if
    /// it is fetched.
    pub fn new(words: Vec<u32>) -> Code {
        let decoded = (0..words.len()).map(|i| decode_at(&words, i).map(|(insn, n)| (insn, n as u32 * 4))).collect();
        Code { words, decoded }
    }
    /// Size of the code in bytes.
    pub fn len_bytes(&self) -> u32 {
        self.words.len() as u32 * 4
    }
    /// The instruction at byte address `pc`, or the trap for fetching there.
    /// (A reference: copying the decoded instruction out on every fetch was the interpreter loop's largest cost.)
    #[inline]
    pub fn fetch(&self, pc: u32) -> Result<(&Insn, u32), Trap> {
        match self.decoded.get((pc / 4) as usize) {
            Some(Ok((insn, len))) if pc.is_multiple_of(4) => Ok((insn, *len)),
            _ => Err(self.fetch_trap(pc)),
        }
    }
    /// The trap for fetching at `pc`: outside the code, misaligned, or an illegal instruction.
    #[cold]
    #[inline(never)]
    fn fetch_trap(&self, pc: u32) -> Trap {
        match self.decoded.get((pc / 4) as usize) {
            Some(Err(e)) if pc.is_multiple_of(4) => Trap::illegal(pc, e.to_string()),
            _ => Trap::new(
                TrapKind::PcOutOfRange,
                pc,
                format!("pc {pc:#x} is outside the code (0..{:#x}) or not 4-aligned", self.len_bytes()),
            ),
        }
    }
}

/// Everything a handler may touch while executing one instruction.
pub struct Ctx<'a> {
    /// The executing wave's registers, EXEC, PC and fcsr.
    pub w: &'a mut WaveState,
    /// The memory the wave sees (global, constant, its workgroup's shared, its lanes' private).
    pub mem: &'a mut dyn Memory,
    /// The wave's place in the launch.
    pub env: &'a WaveEnv,
    /// Address of the executing instruction.
    pub pc: u32,
    /// Its length in bytes (4 or 8).
    pub len: u32,
    /// Size of the kernel's code in bytes (jumps outside it trap at the jump).
    pub code_len: u32,
}

impl Ctx<'_> {
    /// A trap of `kind` at the executing instruction, with `detail` as its message.
    pub fn trap(&self, kind: TrapKind, detail: impl Into<String>) -> Trap {
        Trap::new(kind, self.pc, detail)
    }
    /// An `IllegalInsn` trap at the executing instruction.
    pub fn illegal(&self, detail: impl Into<String>) -> Trap {
        Trap::illegal(self.pc, detail)
    }
    /// Address of the next instruction in sequence.
    pub fn next_pc(&self) -> u32 {
        self.pc.wrapping_add(self.len)
    }
}
