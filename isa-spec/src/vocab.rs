//! The words of the YAML facts that the build script parses and the library hands out: register-operand
//! directions (`regs`), control-flow kinds (`flow`), atomic operations (`access: … atomic=`), and the most
//! register operands an entry may have. One file serves both: `build.rs` includes it (`#[path]`), so the YAML
//! spelling, the build-time checks and the enums the generated tables name cannot drift apart. It depends on
//! nothing else in the crate.

/// Most register operands of one entry: the build refuses more, and `RegUses` holds this many.
pub const MAX_REG_OPERANDS: usize = 4;

/// Direction of a register operand (YAML `regs`). It describes the lanes the instruction acts on: the merge
/// of lanes outside EXEC, which every masked vector write does, does not make an operand `InOut`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    /// Only read.
    In,
    /// Only written.
    Out,
    /// Read and written: the new value depends on the old one (an accumulator, an atomic's data, a write of
    /// half a register or of some lanes only).
    InOut,
}

impl Dir {
    /// Every direction, in YAML order.
    pub const ALL: [Dir; 3] = [Dir::In, Dir::Out, Dir::InOut];

    /// The operand is read.
    pub fn reads(self) -> bool {
        self != Dir::Out
    }
    /// The operand is written.
    pub fn writes(self) -> bool {
        self != Dir::In
    }
    /// The YAML spelling (`in`, `out`, `inout`).
    pub fn name(self) -> &'static str {
        match self {
            Dir::In => "in",
            Dir::Out => "out",
            Dir::InOut => "inout",
        }
    }
}

/// Control-flow kind (YAML `flow`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Flow {
    /// Continues at the next instruction.
    None,
    /// Conditional, PC-relative: taken, or continues at the next instruction.
    Branch,
    /// Unconditional, PC-relative.
    Jump,
    /// Unconditional, PC-relative, writes the return address to a uniform register.
    Call,
    /// Unconditional, to an address in a uniform register (also the return from a call).
    JumpIndirect,
    /// As `JumpIndirect`, and writes the return address.
    CallIndirect,
    /// Ends the wave.
    End,
    /// Always traps (the launch stops at this instruction).
    Trap,
    /// Waits for the workgroup's waves, then continues at the next instruction.
    Barrier,
}

impl Flow {
    /// Every kind, in YAML documentation order.
    pub const ALL: [Flow; 9] = [
        Flow::None,
        Flow::Branch,
        Flow::Jump,
        Flow::Call,
        Flow::JumpIndirect,
        Flow::CallIndirect,
        Flow::End,
        Flow::Trap,
        Flow::Barrier,
    ];

    /// The YAML spelling (snake case).
    pub fn name(self) -> &'static str {
        match self {
            Flow::None => "none",
            Flow::Branch => "branch",
            Flow::Jump => "jump",
            Flow::Call => "call",
            Flow::JumpIndirect => "jump_indirect",
            Flow::CallIndirect => "call_indirect",
            Flow::End => "end",
            Flow::Trap => "trap",
            Flow::Barrier => "barrier",
        }
    }
    /// May continue at the next instruction.
    pub fn falls_through(self) -> bool {
        matches!(self, Flow::None | Flow::Branch | Flow::Barrier)
    }
    /// May change the PC (the instruction carries flag `br`).
    pub fn changes_pc(self) -> bool {
        !matches!(self, Flow::None | Flow::Trap | Flow::Barrier)
    }
    /// Synchronises or ends the wave (flag `sy`).
    pub fn synchronises(self) -> bool {
        matches!(self, Flow::End | Flow::Barrier)
    }
    /// The target is PC-relative (the entry needs a pcrel operand).
    pub fn pc_relative(self) -> bool {
        matches!(self, Flow::Branch | Flow::Jump | Flow::Call)
    }
}

/// Operation of an atomic (YAML `access: … atomic=<op>`); the entry's `en` gives the exact semantics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    /// Wrapping addition.
    Add,
    /// Wrapping subtraction.
    Sub,
    /// Signed minimum.
    MinI32,
    /// Signed maximum.
    MaxI32,
    /// Unsigned minimum.
    MinU32,
    /// Unsigned maximum.
    MaxU32,
    /// Bitwise and.
    And,
    /// Bitwise or.
    Or,
    /// Bitwise exclusive or.
    Xor,
    /// Exchange.
    Xchg,
    /// Compare and swap: the data group is read two registers wide (value, compare value), one written.
    Cas,
    /// Increment, back to 0 once the old value reaches the operand (CUDA atomicInc).
    Inc,
    /// Decrement, back to the operand from 0 or from above it (CUDA atomicDec).
    Dec,
    /// f32 addition.
    FaddF32,
}

impl AtomicOp {
    /// Every operation, in YAML documentation order.
    pub const ALL: [AtomicOp; 14] = [
        AtomicOp::Add,
        AtomicOp::Sub,
        AtomicOp::MinI32,
        AtomicOp::MaxI32,
        AtomicOp::MinU32,
        AtomicOp::MaxU32,
        AtomicOp::And,
        AtomicOp::Or,
        AtomicOp::Xor,
        AtomicOp::Xchg,
        AtomicOp::Cas,
        AtomicOp::Inc,
        AtomicOp::Dec,
        AtomicOp::FaddF32,
    ];

    /// The YAML spelling (snake case).
    pub fn name(self) -> &'static str {
        match self {
            AtomicOp::Add => "add",
            AtomicOp::Sub => "sub",
            AtomicOp::MinI32 => "min_i32",
            AtomicOp::MaxI32 => "max_i32",
            AtomicOp::MinU32 => "min_u32",
            AtomicOp::MaxU32 => "max_u32",
            AtomicOp::And => "and",
            AtomicOp::Or => "or",
            AtomicOp::Xor => "xor",
            AtomicOp::Xchg => "xchg",
            AtomicOp::Cas => "cas",
            AtomicOp::Inc => "inc",
            AtomicOp::Dec => "dec",
            AtomicOp::FaddF32 => "fadd_f32",
        }
    }
}
