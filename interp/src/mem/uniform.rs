//! Uniform memory (`UM` format): one access per wave, global address space, whatever EXEC (also EXEC = 0).
//! Traps name no lane; their one address is the access's start.

use super::{fault_kind, late_fault, pieces};
use crate::ctx::{Ctx, Flow};
use crate::trap::{Trap, TrapKind};
use lanejit_isa::{Sp, UReg, UREGS};

/// Everything that can trap, before any effect: the register group, Misaligned (of the whole access, natural
/// alignment), then the port's verdict on every piece. Returns the address.
fn prepare(cx: &Ctx, rd: UReg, rs1: UReg, imm: i32, words: usize, write: bool) -> Result<u64, Trap> {
    if rd.idx() + words > UREGS {
        return Err(cx.illegal(format!(
            "register group u{}..u{} runs past u{}",
            rd.0,
            rd.idx() + words - 1,
            UREGS - 1
        )));
    }
    let a = uniform_address(&cx.w.u, rs1, imm);
    let bytes = 4 * words as u32;
    if !a.is_multiple_of(bytes as u64) {
        let detail = format!("{bytes}-byte uniform access not {bytes}-byte aligned");
        return Err(cx.trap(TrapKind::Misaligned, detail).with_addrs(vec![a]));
    }
    let fault = pieces(bytes).find_map(|(o, size)| cx.mem.check(Sp::Global, 0, a.wrapping_add(o), size, write).err());
    match fault {
        Some(f) => {
            Err(cx.trap(fault_kind(f), format!("{bytes}-byte uniform access: {}", f.describe())).with_addrs(vec![a]))
        }
        None => Ok(a),
    }
}

/// u[rd+k] = dword k of memory at A, written after the whole access is read (rs1 may overlap rd).
pub(super) fn load(cx: &mut Ctx, rd: UReg, rs1: UReg, imm: i32, words: usize) -> Result<Flow, Trap> {
    let a = prepare(cx, rd, rs1, imm, words, false)?;
    let mut vals = [0u32; 8];
    for (o, size) in pieces(4 * words as u32) {
        let x = cx.mem.load(Sp::Global, 0, a.wrapping_add(o), size).map_err(|f| late_fault(cx, f, 0, a))?;
        vals[o as usize / 4] = x as u32;
        if size == 8 {
            vals[o as usize / 4 + 1] = (x >> 32) as u32;
        }
    }
    cx.w.u[rd.idx()..rd.idx() + words].copy_from_slice(&vals[..words]);
    Ok(Flow::Next)
}

/// Memory at A = u[rd], u[rd+1], … (rd is a source).
pub(super) fn store(cx: &mut Ctx, rd: UReg, rs1: UReg, imm: i32, words: usize) -> Result<Flow, Trap> {
    let a = prepare(cx, rd, rs1, imm, words, true)?;
    let data = &cx.w.u[rd.idx()..rd.idx() + words];
    let v = data.iter().rev().fold(0u128, |v, x| v << 32 | *x as u128);
    for (o, size) in pieces(4 * words as u32) {
        cx.mem
            .store(Sp::Global, 0, a.wrapping_add(o), size, (v >> (8 * o)) as u64)
            .map_err(|f| late_fault(cx, f, 0, a))?;
    }
    Ok(Flow::Next)
}

/// The address of a uniform access: `u[rs1]:u[rs1+1] + sext(imm)` mod 2^64 (shared with the JIT, which caches
/// the region it falls in).
pub fn uniform_address(u: &[u32], rs1: UReg, imm: i32) -> u64 {
    let base = u[rs1.idx()] as u64 | (u[rs1.idx() + 1] as u64) << 32;
    base.wrapping_add(imm as i64 as u64)
}
