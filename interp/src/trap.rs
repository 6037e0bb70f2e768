//! Precise traps: what went wrong, where, in which lanes and at which addresses.

use std::fmt;

/// What kind of trap stopped a wave.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum TrapKind {
    /// A word that does not decode, or an instruction whose operand values its text forbids (a lane >= 32,
    /// a register group past the file, an `.a64` access in shared or private memory, …).
    IllegalInsn,
    /// An access outside every allocation (or outside shared / private memory), or a write to constant memory.
    MemoryFault,
    /// An access whose address is not a multiple of its alignment.
    Misaligned,
    /// The kernel executed `trap imm`; [`Trap::code`] holds the immediate.
    UserTrap,
    /// The kernel executed `brk`.
    Breakpoint,
    /// A jump, branch or fetch to an address outside the code or not 4-aligned.
    PcOutOfRange,
    /// The waves of a workgroup that have not ended wait at different barriers, so none can be released.
    BarrierDeadlock,
    /// The instruction budget ran out.
    BudgetExceeded,
    /// The wall-clock deadline passed (kept apart from the budget: a deadline stop depends on host speed, so a
    /// report must say which limit ended the run).
    DeadlineExceeded,
    /// The host cancelled the launch (`lanejit::CancelToken`); like a deadline, a stop from outside the kernel.
    Cancelled,
}

impl TrapKind {
    /// The kind's name, as reports and the JSON output spell it (`MemoryFault`).
    pub fn name(self) -> &'static str {
        match self {
            TrapKind::IllegalInsn => "IllegalInsn",
            TrapKind::MemoryFault => "MemoryFault",
            TrapKind::Misaligned => "Misaligned",
            TrapKind::UserTrap => "UserTrap",
            TrapKind::Breakpoint => "Breakpoint",
            TrapKind::PcOutOfRange => "PcOutOfRange",
            TrapKind::BarrierDeadlock => "BarrierDeadlock",
            TrapKind::BudgetExceeded => "BudgetExceeded",
            TrapKind::DeadlineExceeded => "DeadlineExceeded",
            TrapKind::Cancelled => "Cancelled",
        }
    }
}

/// A trap report. `wave` and `workgroup` are filled in by the runtime that ran the wave.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Trap {
    /// What went wrong.
    pub kind: TrapKind,
    /// Byte address of the trapping instruction (it has no effect and is not retired).
    pub pc: u32,
    /// The wave's index in its workgroup.
    pub wave: u32,
    /// The workgroup's id, x y z.
    pub workgroup: [u32; 3],
    /// Lanes involved (bit i = lane i); 0 when the trap concerns the whole wave.
    pub lanes: u32,
    /// Faulting addresses, in lane order of `lanes`.
    pub addrs: Vec<u64>,
    /// The immediate of `trap imm`, when kind is UserTrap.
    pub code: Option<u32>,
    /// A precise message: the operand, value or limit at fault.
    pub detail: String,
}

impl Trap {
    /// A trap of `kind` at `pc` with no lanes, addresses or code; the runtime fills in wave and workgroup.
    pub fn new(kind: TrapKind, pc: u32, detail: impl Into<String>) -> Trap {
        Trap { kind, pc, wave: 0, workgroup: [0; 3], lanes: 0, addrs: Vec::new(), code: None, detail: detail.into() }
    }
    /// An `IllegalInsn` trap at `pc`.
    pub fn illegal(pc: u32, detail: impl Into<String>) -> Trap {
        Trap::new(TrapKind::IllegalInsn, pc, detail)
    }
    /// The trap, naming the lanes involved (bit i = lane i).
    pub fn with_lanes(mut self, lanes: u32) -> Trap {
        self.lanes = lanes;
        self
    }
    /// The trap, naming the faulting addresses (in lane order).
    pub fn with_addrs(mut self, addrs: Vec<u64>) -> Trap {
        self.addrs = addrs;
        self
    }
}

impl fmt::Display for Trap {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let [x, y, z] = self.workgroup;
        write!(f, "{} at pc {:#x} (workgroup ({x},{y},{z}), wave {})", self.kind.name(), self.pc, self.wave)?;
        if self.lanes != 0 {
            write!(f, ", lanes {:#010x}", self.lanes)?;
        }
        if !self.addrs.is_empty() {
            let a: Vec<String> = self.addrs.iter().map(|a| format!("{a:#x}")).collect();
            write!(f, ", addresses [{}]", a.join(", "))?;
        }
        if let Some(c) = self.code {
            write!(f, ", code {c}")?;
        }
        write!(f, ": {}", self.detail)
    }
}

impl std::error::Error for Trap {}
