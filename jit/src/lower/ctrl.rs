//! Group `ctrl`: branches chain directly to the target block; anything whose outcome the interpreter must report
//! (a jump to a bad target, `trap`, `brk`, computed jumps) ends the block with an `Interpret` exit at that
//! instruction, so the report is the interpreter's own.

use super::{Lowered, Site};
use crate::abi::Exit;
use crate::fx::Fx;
use crate::mutants::active;
use cranelift_codegen::ir::{condcodes::IntCC, InstBuilder};
use lanejit_isa::{CtrlInsn, UReg};

pub fn lower(fx: &mut Fx, i: &CtrlInsn, site: &Site) -> Lowered {
    use CtrlInsn::*;
    match *i {
        J { imm } => jump(fx, site, imm, None),
        JExecz { imm } => on_exec(fx, site, imm, IntCC::Equal),
        JExecnz { imm } => on_exec(fx, site, imm, IntCC::NotEqual),
        Jal { rd, imm } => jump(fx, site, imm, Some(rd)),
        BZ { rs1, imm } => on_uniform(fx, site, rs1, imm, IntCC::Equal),
        BNz { rs1, imm } => on_uniform(fx, site, rs1, imm, IntCC::NotEqual),
        // Mutant 35: b.lt compares unsigned (x < 0 unsigned never holds, so the branch is never taken).
        BLt { rs1, imm } => {
            on_uniform(fx, site, rs1, imm, if active(35) { IntCC::UnsignedLessThan } else { IntCC::SignedLessThan })
        }
        // Mutant 33: b.ge branches on x > 0, so a counter reaching 0 leaves a count-down loop one trip early.
        BGe { rs1, imm } => on_uniform(
            fx,
            site,
            rs1,
            imm,
            if active(33) { IntCC::SignedGreaterThan } else { IntCC::SignedGreaterThanOrEqual },
        ),
        End => end(fx, site),
        // Mutant 42: barrier lowered like nop: the wave runs on without waiting for the others.
        Barrier if active(42) => Lowered::Native,
        Barrier => leave(fx, site, Exit::Barrier, site.next_pc()),
        Jr { .. } | Jalr { .. } | Trap { .. } | Brk => interpret(fx, site),
        Nop | Fence { .. } | Cctl { .. } | Sleep { .. } | Wait { .. } => Lowered::Native,
    }
}

fn target(site: &Site, imm: i32) -> Option<u32> {
    let t = (site.pc as i64 + imm as i64) as u32;
    site.heads.contains(t).then_some(t)
}

/// The whole block retires, then leaves with `status` at `pc`.
fn leave(fx: &mut Fx, site: &Site, status: Exit, pc: u32) -> Lowered {
    fx.count(site.block_len);
    fx.exit(status, pc);
    Lowered::Terminated
}

/// `end`: when this function holds the kernel's first block, the next wave (if the run has one) starts right
/// here; otherwise the run loop starts it.
fn end(fx: &mut Fx, site: &Site) -> Lowered {
    let Some(&first) = site.heads.blocks.get(&0) else { return leave(fx, site, Exit::End, site.pc) };
    fx.count(site.block_len);
    fx.end_wave(site.pc, first);
    Lowered::Terminated
}

/// The interpreter executes this (last) instruction of the block.
fn interpret(fx: &mut Fx, site: &Site) -> Lowered {
    fx.note_lowering(site.pc, crate::abi::Lowering::Interpreter);
    fx.count(site.block_len - 1);
    fx.exit(Exit::Interpret, site.pc);
    Lowered::Terminated
}

fn jump(fx: &mut Fx, site: &Site, imm: i32, link: Option<UReg>) -> Lowered {
    let Some(t) = target(site, imm) else { return interpret(fx, site) };
    if let Some(rd) = link {
        // Mutant 34: the link is the jal's own pc, not the next instruction's (the return re-runs the call).
        let ret_pc = if active(34) { site.pc } else { site.next_pc() };
        let ret = fx.b.ins().iconst(cranelift_codegen::ir::types::I32, ret_pc as i64);
        fx.set_u(rd, ret);
    }
    fx.count(site.block_len);
    fx.goto(site, t);
    Lowered::Terminated
}

fn on_exec(fx: &mut Fx, site: &Site, imm: i32, cc: IntCC) -> Lowered {
    let Some(t) = target(site, imm) else { return interpret(fx, site) };
    let e = fx.exec_val();
    let c = fx.b.ins().icmp_imm_s(cc, e, 0);
    fx.count(site.block_len);
    fx.branch(site, c, t, site.next_pc());
    Lowered::Terminated
}

fn on_uniform(fx: &mut Fx, site: &Site, rs1: UReg, imm: i32, cc: IntCC) -> Lowered {
    let Some(t) = target(site, imm) else { return interpret(fx, site) };
    let x = fx.u(rs1);
    let c = fx.b.ins().icmp_imm_s(cc, x, 0);
    fx.count(site.block_len);
    fx.branch(site, c, t, site.next_pc());
    Lowered::Terminated
}
