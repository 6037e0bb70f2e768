//! The control-flow graph the analysis walks: the JIT's basic blocks (`lanejit_jit::blocks::discover`, the same
//! block boundaries every engine uses) with the successors of each, from the generated `flow` facts.

use lanejit_interp::Code;
use lanejit_isa::{Counter, Flow, Program};
use lanejit_jit::blocks::{discover, static_targets, Block};
use std::collections::{BTreeMap, BTreeSet};

/// The blocks of a program and the edges between them.
pub struct Cfg {
    /// The blocks, in address order.
    pub blocks: Vec<Block>,
    /// Successor block indices of each block.
    pub succs: Vec<Vec<usize>>,
    /// Block index by start address.
    by_start: BTreeMap<u32, usize>,
}

impl Cfg {
    /// Blocks and edges of `program`. An indirect jump or call may go to any return point (the instruction after
    /// a call) or labelled address, which is all the analysis knows of register-held targets.
    pub fn new(program: &Program) -> Cfg {
        let code = Code::new(program.words.clone());
        let blocks = discover(&code);
        let by_start: BTreeMap<u32, usize> = blocks.iter().enumerate().map(|(i, b)| (b.start, i)).collect();
        let indirect = indirect_targets(&blocks, program);
        let succs = blocks
            .iter()
            .map(|b| {
                let targets = successors(b, &indirect);
                let mut s: Vec<usize> = targets.iter().filter_map(|pc| by_start.get(pc).copied()).collect();
                s.sort_unstable();
                s.dedup();
                s
            })
            .collect();
        Cfg { blocks, succs, by_start }
    }

    /// The block that starts at byte address 0 (the kernel's entry), if the code holds any instruction.
    pub fn entry(&self) -> Option<usize> {
        self.by_start.get(&0).copied()
    }
}

/// Return points (after every call) and every label: where a register-held target may lead.
fn indirect_targets(blocks: &[Block], program: &Program) -> BTreeSet<u32> {
    let calls = blocks.iter().flat_map(|b| &b.ops).filter(|o| matches!(o.insn.flow(), Flow::Call | Flow::CallIndirect));
    calls.map(|o| o.pc + o.len).chain(program.labels.values().copied()).collect()
}

/// Addresses control may go to after a block.
fn successors(b: &Block, indirect: &BTreeSet<u32>) -> Vec<u32> {
    if b.interp_at.is_some() {
        return Vec::new(); // an illegal word: the wave traps there
    }
    let Some(last) = b.ops.last() else { return Vec::new() };
    let next = last.pc + last.len;
    match last.insn.flow() {
        Flow::None | Flow::Barrier => vec![next],
        Flow::Branch => static_targets(last.pc, &last.insn).into_iter().chain([next]).collect(),
        Flow::Jump | Flow::Call => static_targets(last.pc, &last.insn),
        Flow::JumpIndirect | Flow::CallIndirect => indirect.iter().copied().collect(),
        Flow::End | Flow::Trap => Vec::new(),
    }
}

/// The `wait` fields of an instruction: (counter index, field value, field maximum) for every operand whose kind
/// is `cnt_<counter>`; empty for any other instruction. A field at its maximum does not wait on its counter.
pub fn wait_fields(insn: &lanejit_isa::Insn) -> Vec<(usize, u32, u32)> {
    let info = insn.id().info();
    let vals = insn.operand_values();
    info.operands
        .iter()
        .zip(vals.as_slice())
        .filter_map(|(op, &v)| {
            let kind = op.kind();
            let counter = Counter::ALL.iter().position(|c| kind.name.strip_prefix("cnt_") == Some(c.name()))?;
            Some((counter, v as u32, counter_max(counter)))
        })
        .collect()
}

/// The largest value of a counter's `wait` field: the field that does not wait (`Counter::wait_max`).
pub fn counter_max(counter: usize) -> u32 {
    Counter::ALL[counter].wait_max()
}

/// A counter's index in `Counter::ALL` (the analysis keys its state by it).
pub fn counter_index(c: Counter) -> usize {
    Counter::ALL.iter().position(|&x| x == c).expect("Counter::ALL lists every counter")
}
