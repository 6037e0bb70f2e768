//! The control-flow graph the analysis walks: the JIT's basic blocks (`lanejit_jit::blocks::discover`, the same
//! block boundaries every engine uses) with the successors of each, from the generated `flow` facts.

use lanejit_interp::Code;
use lanejit_isa::{Counter, Flow, Program};
use lanejit_jit::blocks::{discover, static_targets, Block, Op};
use std::collections::BTreeMap;

/// The blocks of a program and the edges between them. Nodes are the blocks (indices `0..blocks.len()`), then one
/// more, the hub (index `blocks.len()`, no instructions): every indirect jump or call goes to the hub, and the hub
/// to every place a register-held target may lead. An edge from each indirect jump to each such place would be
/// quadratic (20,000 `jr`s among 20,000 labels made 4·10^8 edges, 3.2 GB); through the hub the edges are linear,
/// and every target still receives the join of every indirect jump's state, so no finding changes.
pub struct Cfg {
    /// The blocks, in address order.
    pub blocks: Vec<Block>,
    /// Successor node indices of each node (the blocks, then the hub).
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
        let hub = blocks.len();
        let block_at = |pcs: Vec<u32>| {
            let mut s: Vec<usize> = pcs.iter().filter_map(|pc| by_start.get(pc).copied()).collect();
            s.sort_unstable();
            s.dedup();
            s
        };
        let mut succs: Vec<Vec<usize>> = blocks
            .iter()
            .map(|b| match successors(b) {
                Next::Pcs(pcs) => block_at(pcs),
                Next::Hub => vec![hub],
            })
            .collect();
        succs.push(block_at(indirect_targets(&blocks, program)));
        Cfg { blocks, succs, by_start }
    }

    /// The block that starts at byte address 0 (the kernel's entry), if the code holds any instruction.
    pub fn entry(&self) -> Option<usize> {
        self.by_start.get(&0).copied()
    }

    /// How many nodes the graph has: the blocks and the hub.
    pub fn nodes(&self) -> usize {
        self.succs.len()
    }

    /// The instructions of a node (none for the hub).
    pub fn ops(&self, node: usize) -> &[Op] {
        self.blocks.get(node).map_or(&[], |b| &b.ops)
    }
}

/// Return points (after every call) and every label: where a register-held target may lead.
fn indirect_targets(blocks: &[Block], program: &Program) -> Vec<u32> {
    let calls = blocks.iter().flat_map(|b| &b.ops).filter(|o| matches!(o.insn.flow(), Flow::Call | Flow::CallIndirect));
    calls.map(|o| o.pc + o.len).chain(program.labels.values().copied()).collect()
}

/// Where control may go after a block.
enum Next {
    /// These addresses.
    Pcs(Vec<u32>),
    /// Wherever a register-held target may lead (the hub).
    Hub,
}

/// The successors of a block: addresses, or the hub for an indirect jump or call.
fn successors(b: &Block) -> Next {
    if b.interp_at.is_some() {
        return Next::Pcs(Vec::new()); // an illegal word: the wave traps there
    }
    let Some(last) = b.ops.last() else { return Next::Pcs(Vec::new()) };
    let next = last.pc + last.len;
    Next::Pcs(match last.insn.flow() {
        Flow::None | Flow::Barrier => vec![next],
        Flow::Branch => static_targets(last.pc, &last.insn).into_iter().chain([next]).collect(),
        Flow::Jump | Flow::Call => static_targets(last.pc, &last.insn),
        Flow::JumpIndirect | Flow::CallIndirect => return Next::Hub,
        Flow::End | Flow::Trap => Vec::new(),
    })
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
