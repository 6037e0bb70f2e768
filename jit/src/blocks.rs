//! Basic-block discovery over the pre-decoded code. Blocks end at control flow, at EXEC writers (so EXEC is
//! constant inside a block and each block can be specialised for a full EXEC), before a branch target, and at
//! illegal words (which become an `Interpret` terminal: the interpreter reports them precisely), and after
//! `MAX_BLOCK_INSNS` instructions (so that a kernel of any size splits into bounded compiled functions).

use lanejit_interp::Code;
use lanejit_isa::{flag, Insn, KindClass};
use std::collections::BTreeSet;

/// Most instructions in one block. A longer straight line is cut into blocks that fall through to each other:
/// blocks are what compiled functions are made of (`runtime::FUNCTION_WEIGHT`, `FUNCTION_CLIF`), so this bounds
/// the size of a function, hence its stack frame and its compile time, whatever the kernel's size (64 of the
/// heaviest instructions make about 64,000 CLIF instructions).
pub const MAX_BLOCK_INSNS: usize = 64;

/// One instruction of a block.
#[derive(Clone, Copy, Debug)]
pub struct Op {
    /// Byte address of the instruction.
    pub pc: u32,
    /// The decoded instruction.
    pub insn: Insn,
    /// Its length in bytes (4 or 8).
    pub len: u32,
}

/// A straight run of instructions entered only at its start (see the module doc for where blocks end).
#[derive(Clone, Debug)]
pub struct Block {
    /// Byte address of the first instruction (or of the illegal word, for a block that is only `interp_at`).
    pub start: u32,
    /// The instructions in address order, at most `MAX_BLOCK_INSNS`.
    pub ops: Vec<Op>,
    /// The block ends on an illegal word at this pc, to be handed to the interpreter.
    pub interp_at: Option<u32>,
}

impl Block {
    /// Address after the last instruction.
    pub fn end(&self) -> u32 {
        self.ops.last().map_or(self.start, |o| o.pc + o.len)
    }
}

/// Does this instruction end a block (may change the PC or synchronise)? An EXEC write does not: the block's
/// code picks its EXEC variant again after it (`lower::segments`).
pub fn ends_block(insn: &Insn) -> bool {
    let i = insn.id().info();
    i.flow != lanejit_isa::Flow::None || i.has(flag::SY)
}

/// Statically known PC-relative targets of an instruction.
pub fn static_targets(pc: u32, insn: &Insn) -> Vec<u32> {
    let info = insn.id().info();
    let vals = insn.operand_values();
    info.operands
        .iter()
        .zip(vals.as_slice())
        .filter(|(o, _)| o.kind().class == KindClass::PcRel)
        .map(|(_, v)| (pc as i64 + v) as u32)
        .collect()
}

/// Splits the code reachable by a linear sweep from 0 into basic blocks.
pub fn discover(code: &Code) -> Vec<Block> {
    let mut starts = BTreeSet::new();
    let mut pc = 0u32;
    let mut linear = Vec::new();
    while pc < code.len_bytes() {
        match &code.decoded[(pc / 4) as usize] {
            Ok((insn, len)) => {
                linear.push((pc, Some((*insn, *len))));
                if ends_block(insn) {
                    starts.insert(pc + len);
                    starts.extend(static_targets(pc, insn));
                }
                pc += len;
            }
            Err(_) => {
                linear.push((pc, None));
                starts.insert(pc + 4);
                pc += 4;
            }
        }
    }
    starts.insert(0);
    let mut blocks: Vec<Block> = Vec::new();
    for (pc, op) in linear {
        let ends_here = blocks.last().is_none_or(|b: &Block| {
            b.interp_at.is_some() || b.ops.len() >= MAX_BLOCK_INSNS || b.ops.last().is_some_and(|o| ends_block(&o.insn))
        });
        if starts.contains(&pc) || ends_here {
            blocks.push(Block { start: pc, ops: Vec::new(), interp_at: None });
        }
        let b = blocks.last_mut().expect("a block was pushed above");
        match op {
            Some((insn, len)) => b.ops.push(Op { pc, insn, len }),
            None => b.interp_at = Some(pc),
        }
    }
    blocks
}
