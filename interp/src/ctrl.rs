//! Group 7, control and system. These act on the whole wave and run whatever EXEC holds (even 0).
//!
//! Target checks: a taken transfer to t traps PcOutOfRange at this instruction, with nothing written, when
//! t < 0 or t is not a multiple of 4; both are decided here. `t >= code size` cannot be decided here (Ctx
//! does not carry the code size), so that case is left to the run loop's fetch of t.

use crate::ctx::{Ctx, Flow};
use crate::trap::{Trap, TrapKind};
use lanejit_isa::{CtrlInsn, UReg};

/// Executes one control or system instruction: returns the flow (jump, end, barrier) or the trap it raises.
pub fn exec(cx: &mut Ctx, i: &CtrlInsn) -> Result<Flow, Trap> {
    use CtrlInsn::*;
    match *i {
        J { imm } => branch(cx, true, imm),
        JExecz { imm } => branch(cx, cx.w.exec == 0, imm),
        JExecnz { imm } => branch(cx, cx.w.exec != 0, imm),
        Jal { rd, imm } => {
            let t = pc_rel(cx, imm)?;
            link(cx, rd, t)
        }
        BZ { rs1, imm } => branch(cx, cx.w.ur(rs1) == 0, imm),
        BNz { rs1, imm } => branch(cx, cx.w.ur(rs1) != 0, imm),
        BLt { rs1, imm } => branch(cx, (cx.w.ur(rs1) as i32) < 0, imm),
        BGe { rs1, imm } => branch(cx, cx.w.ur(rs1) as i32 >= 0, imm),
        Jr { rs1, imm } => {
            let t = indirect(cx, rs1, imm)?;
            Ok(Flow::Jump(t))
        }
        Jalr { rd, rs1, imm } => {
            let t = indirect(cx, rs1, imm)?;
            link(cx, rd, t)
        }
        End => Ok(Flow::End),
        Barrier => Ok(Flow::Barrier),
        CtrlInsn::Trap { imm } => {
            let mut t = cx.trap(TrapKind::UserTrap, format!("trap {imm:#x}"));
            t.code = Some(imm);
            Err(t)
        }
        Brk => Err(cx.trap(TrapKind::Breakpoint, "brk")),
        // Accesses complete at issue in this engine: ordering, cache hints, sleeping and waiting on the
        // counters have nothing left to do.
        Nop | Fence { .. } | Cctl { .. } | Sleep { .. } | Wait { .. } => Ok(Flow::Next),
    }
}

/// A conditional PC-relative transfer: the target is checked only when taken.
fn branch(cx: &Ctx, taken: bool, off: i32) -> Result<Flow, Trap> {
    if taken {
        pc_rel(cx, off).map(Flow::Jump)
    } else {
        Ok(Flow::Next)
    }
}

/// t = pc + off (off already in bytes, a multiple of 4); a negative t traps here.
fn pc_rel(cx: &Ctx, off: i32) -> Result<u32, Trap> {
    let t = cx.pc as i64 + off as i64;
    if t < 0 || t >= cx.code_len as i64 {
        return Err(out_of_range(cx, t));
    }
    Ok(t as u32)
}

/// t = (u[rs1] + imm) mod 2^32, an unsigned byte address that must be 4-aligned.
fn indirect(cx: &Ctx, rs1: UReg, imm: i32) -> Result<u32, Trap> {
    let t = cx.w.ur(rs1).wrapping_add(imm as u32);
    if t & 3 != 0 || t >= cx.code_len {
        return Err(out_of_range(cx, t as i64));
    }
    Ok(t)
}

/// u[rd] = return address, pc = t (t already checked, so a trap leaves rd unwritten).
fn link(cx: &mut Ctx, rd: UReg, t: u32) -> Result<Flow, Trap> {
    let ret = cx.next_pc();
    cx.w.set_u(rd, ret);
    Ok(Flow::Jump(t))
}

fn out_of_range(cx: &Ctx, t: i64) -> Trap {
    cx.trap(TrapKind::PcOutOfRange, jump_target_problem(t, cx.code_len))
}

/// Says which rule a jump target breaks, so that a jump past the end is not reported as a misalignment.
fn jump_target_problem(t: i64, code_len: u32) -> String {
    if t < 0 {
        format!("jump target {t} is negative")
    } else if t & 3 != 0 {
        format!("jump target {t:#x} is not 4-aligned")
    } else {
        format!("jump target {t:#x} is past the end of the code (0..{code_len:#x})")
    }
}

#[cfg(test)]
mod tests {
    use super::jump_target_problem;

    #[test]
    fn jump_target_reports_name_the_broken_rule() {
        assert_eq!(jump_target_problem(-8, 16), "jump target -8 is negative");
        assert_eq!(jump_target_problem(6, 16), "jump target 0x6 is not 4-aligned");
        assert_eq!(jump_target_problem(16, 16), "jump target 0x10 is past the end of the code (0..0x10)");
    }
}
