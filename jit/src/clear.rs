//! Which registers a launch must re-zero before a wave reuses another wave's state. A register the kernel never
//! writes stays zero; one it writes must read as zero where the new wave reads it before writing it. This
//! module proves, from the YAML's register and EXEC facts, the registers every wave writes before it reads
//! them, in every lane it can read, so that only the others are cleared (for `saxpy`, 5 of its 6 vector
//! registers: 640 of 768 bytes per wave).
//!
//! The proof holds when lanes can only leave EXEC, never join (every EXEC writer in the code is
//! `exec: shrinks`): then a lane active at a read was active at every earlier write on the path, so a write
//! by an EXEC-masked instruction covers every lane a later lane-wise read sees. A read that can see other
//! lanes (cross-lane `xl`/`wqm` instructions, and any vector read by an instruction that is not EXEC-masked,
//! such as a compare writing a lane mask) gets no such guarantee: its registers are always cleared. Uniform
//! registers have no lanes: written before read suffices. Indirect jumps, or a branch into the middle of an
//! instruction, make the code's paths unknown: then every written register is cleared.

use crate::blocks::{discover, static_targets, Block};
use lanejit_interp::Code;
use lanejit_isa::{flag, Flow, Insn, RegFile, RegSet};
use std::collections::HashMap;

/// The registers to re-zero between waves: those the code may write (with its paths proven, the instructions
/// they reach; otherwise some word of `code`), minus those proven written before read (see the module text).
/// Sorted (vector, uniform).
pub fn registers_to_clear(code: &Code) -> (Vec<usize>, Vec<usize>) {
    let any_word = code.decoded.iter().flatten().fold(RegSet::new(), |s, (i, _)| s.union(i.writes()));
    // With the paths proven, only the instructions of the blocks they reach can run: a word inside another
    // instruction (a literal, the second word of a two-word encoding), decoded on its own, never does.
    // (Counting those made atomic_reduce re-zero v0, which an atomic's second word "writes", in every wave.)
    let (written, unsafe_reads) = match proven_paths(code) {
        Some(blocks) => {
            let reached = blocks.iter().flat_map(|b| &b.ops).fold(RegSet::new(), |s, o| s.union(o.insn.writes()));
            (reached, read_before_written(&blocks).union(lane_unsafe_reads(&blocks)))
        }
        None => (any_word, any_word),
    };
    let clear = written.intersection(unsafe_reads);
    (clear.vregs().map(|r| r.idx()).collect(), clear.uregs().map(|r| r.idx()).collect())
}

/// The blocks reachable from pc 0, when every path between them is known and EXEC can only shrink: no EXEC
/// writer that may add lanes and no indirect jump at any word, and every branch target starts a block.
fn proven_paths(code: &Code) -> Option<Vec<Block>> {
    let any_word = |bad: fn(&Insn) -> bool| code.decoded.iter().flatten().any(|(i, _)| bad(i));
    if any_word(|i| i.exec().writes && !i.exec().shrinks) {
        return None;
    }
    if any_word(|i| matches!(i.flow(), Flow::JumpIndirect | Flow::CallIndirect)) {
        return None;
    }
    let blocks = discover(code);
    let starts: Vec<u32> = blocks.iter().map(|b| b.start).collect();
    let targets_known =
        blocks.iter().flat_map(|b| &b.ops).all(|o| static_targets(o.pc, &o.insn).iter().all(|t| starts.contains(t)));
    targets_known.then_some(blocks)
}

/// Where control may go after block `b`: its branch targets, and the next block unless it ends the wave or
/// always jumps.
fn successors(b: &Block) -> Vec<u32> {
    let Some(last) = b.ops.last() else { return Vec::new() };
    let mut next = static_targets(last.pc, &last.insn);
    let falls_through = b.interp_at.is_none()
        && !matches!(
            last.insn.flow(),
            Flow::Jump | Flow::Call | Flow::End | Flow::Trap | Flow::JumpIndirect | Flow::CallIndirect
        );
    if falls_through {
        next.push(b.end());
    }
    next
}

/// Registers some path from pc 0 reads before writing them: a forward must-analysis of the registers written
/// on every path into each block, iterated to its fixed point.
fn read_before_written(blocks: &[Block]) -> RegSet {
    let index: HashMap<u32, usize> = blocks.iter().enumerate().map(|(i, b)| (b.start, i)).collect();
    // Written on every path into each block (`None`: no path seen yet, the analysis' top).
    let mut into: Vec<Option<RegSet>> = vec![None; blocks.len()];
    if let Some(&first) = index.get(&0) {
        into[first] = Some(RegSet::new());
    }
    let mut changed = true;
    while changed {
        changed = false;
        for (i, b) in blocks.iter().enumerate() {
            let Some(mut defined) = into[i] else { continue };
            b.ops.iter().for_each(|o| defined = defined.union(o.insn.writes()));
            for s in successors(b).iter().filter_map(|t| index.get(t)) {
                let met = into[*s].map_or(defined, |old| old.intersection(defined));
                if into[*s] != Some(met) {
                    into[*s] = Some(met);
                    changed = true;
                }
            }
        }
    }
    let mut unsafe_reads = RegSet::new();
    for (i, b) in blocks.iter().enumerate() {
        let Some(mut defined) = into[i] else { continue };
        for o in &b.ops {
            unsafe_reads = unsafe_reads.union(o.insn.reads().difference(defined));
            defined = defined.union(o.insn.writes());
        }
    }
    unsafe_reads
}

/// Vector registers read by instructions that can see lanes outside EXEC (see the module text).
fn lane_unsafe_reads(blocks: &[Block]) -> RegSet {
    let mut s = RegSet::new();
    for o in blocks.iter().flat_map(|b| &b.ops) {
        let info = o.insn.id().info();
        // (A reduction, ballot or lane-mask compare reads only active lanes: YAML `lanes: active`.)
        let lane_wise = info.exec.masked && !info.has(flag::XL) && !info.has(flag::WQM) || info.exec.active_reads;
        if !lane_wise {
            o.insn.reads().vregs().for_each(|r| s.insert(RegFile::V, r.idx()));
        }
    }
    s
}
