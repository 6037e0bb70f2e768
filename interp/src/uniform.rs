//! Group 1, uniform ALU: one 32-bit value per wave. These instructions run whatever EXEC holds (even 0);
//! only the `exec.*` forms read or write EXEC. Every source is read before any destination is written, so rd
//! may equal a source (pairs included). No integer operation traps; only CSR writes can.

use crate::ctx::{Ctx, Flow};
use crate::fpmode::{FCSR_RM_MASK, FCSR_WRITABLE};
use crate::trap::Trap;
use lanejit_isa::{Csr, UReg, UniformInsn, LANES};

/// Executes one uniform-ALU instruction on the wave in `cx` (uniform registers, EXEC, CSRs).
pub fn exec(cx: &mut Ctx, i: &UniformInsn) -> Result<Flow, Trap> {
    use UniformInsn::*;
    match *i {
        // --- UR: register-register
        UAdd { rd, rs1, rs2 } => rr(cx, rd, rs1, rs2, u32::wrapping_add),
        USub { rd, rs1, rs2 } => rr(cx, rd, rs1, rs2, u32::wrapping_sub),
        UMul { rd, rs1, rs2 } => rr(cx, rd, rs1, rs2, u32::wrapping_mul),
        UMulhi { rd, rs1, rs2 } => rr(cx, rd, rs1, rs2, mulhi_s),
        UMulhiU { rd, rs1, rs2 } => rr(cx, rd, rs1, rs2, mulhi_u),
        UDiv { rd, rs1, rs2 } => rr(cx, rd, rs1, rs2, div_s),
        UDivU { rd, rs1, rs2 } => rr(cx, rd, rs1, rs2, div_u),
        URem { rd, rs1, rs2 } => rr(cx, rd, rs1, rs2, rem_s),
        URemU { rd, rs1, rs2 } => rr(cx, rd, rs1, rs2, rem_u),
        UAnd { rd, rs1, rs2 } => rr(cx, rd, rs1, rs2, |a, b| a & b),
        UOr { rd, rs1, rs2 } => rr(cx, rd, rs1, rs2, |a, b| a | b),
        UXor { rd, rs1, rs2 } => rr(cx, rd, rs1, rs2, |a, b| a ^ b),
        UAndn { rd, rs1, rs2 } => rr(cx, rd, rs1, rs2, |a, b| a & !b),
        UOrn { rd, rs1, rs2 } => rr(cx, rd, rs1, rs2, |a, b| a | !b),
        UShl { rd, rs1, rs2 } => rr(cx, rd, rs1, rs2, shl),
        UShr { rd, rs1, rs2 } => rr(cx, rd, rs1, rs2, shr),
        USra { rd, rs1, rs2 } => rr(cx, rd, rs1, rs2, sra),
        UMin { rd, rs1, rs2 } => rr(cx, rd, rs1, rs2, min_s),
        UMax { rd, rs1, rs2 } => rr(cx, rd, rs1, rs2, max_s),
        UMinU { rd, rs1, rs2 } => rr(cx, rd, rs1, rs2, u32::min),
        UMaxU { rd, rs1, rs2 } => rr(cx, rd, rs1, rs2, u32::max),
        USeq { rd, rs1, rs2 } => rr(cx, rd, rs1, rs2, |a, b| (a == b) as u32),
        USne { rd, rs1, rs2 } => rr(cx, rd, rs1, rs2, |a, b| (a != b) as u32),
        USlt { rd, rs1, rs2 } => rr(cx, rd, rs1, rs2, |a, b| ((a as i32) < b as i32) as u32),
        USle { rd, rs1, rs2 } => rr(cx, rd, rs1, rs2, |a, b| (a as i32 <= b as i32) as u32),
        USltU { rd, rs1, rs2 } => rr(cx, rd, rs1, rs2, |a, b| (a < b) as u32),
        USleU { rd, rs1, rs2 } => rr(cx, rd, rs1, rs2, |a, b| (a <= b) as u32),
        UBfeU { rd, rs1, rs2 } => rr(cx, rd, rs1, rs2, bfe_u),
        UBfeS { rd, rs1, rs2 } => rr(cx, rd, rs1, rs2, bfe_s),
        // --- UR: 64-bit pairs
        UAddU64 { rd, rs1, rs2 } => {
            let (a, b) = (cx.w.u64_pair(rs1), cx.w.u64_pair(rs2));
            pair(cx, rd, a.wrapping_add(b))
        }
        USubU64 { rd, rs1, rs2 } => {
            let (a, b) = (cx.w.u64_pair(rs1), cx.w.u64_pair(rs2));
            pair(cx, rd, a.wrapping_sub(b))
        }
        UAddU64U32 { rd, rs1, rs2 } => {
            let (a, b) = (cx.w.u64_pair(rs1), cx.w.ur(rs2) as u64);
            pair(cx, rd, a.wrapping_add(b))
        }
        UAddU64I32 { rd, rs1, rs2 } => {
            let (a, b) = (cx.w.u64_pair(rs1), cx.w.ur(rs2) as i32 as u64);
            pair(cx, rd, a.wrapping_add(b))
        }
        UShlU64 { rd, rs1, rs2 } => {
            let (a, s) = (cx.w.u64_pair(rs1), cx.w.ur(rs2) & 63);
            pair(cx, rd, a << s)
        }
        UShrU64 { rd, rs1, rs2 } => {
            let (a, s) = (cx.w.u64_pair(rs1), cx.w.ur(rs2) & 63);
            pair(cx, rd, a >> s)
        }
        UMulWideU32 { rd, rs1, rs2 } => {
            let (a, b) = (cx.w.ur(rs1) as u64, cx.w.ur(rs2) as u64);
            pair(cx, rd, a * b)
        }
        UMulWideI32 { rd, rs1, rs2 } => {
            let (a, b) = (cx.w.ur(rs1) as i32 as i64, cx.w.ur(rs2) as i32 as i64);
            pair(cx, rd, (a * b) as u64)
        }
        // --- UI: imm10 sign-extended (the decoder already did it); shifts take an unsigned 5-bit amount
        UAddI { rd, rs1, imm } => ri(cx, rd, rs1, imm as u32, u32::wrapping_add),
        UMulI { rd, rs1, imm } => ri(cx, rd, rs1, imm as u32, u32::wrapping_mul),
        UAndI { rd, rs1, imm } => ri(cx, rd, rs1, imm as u32, |a, b| a & b),
        UOrI { rd, rs1, imm } => ri(cx, rd, rs1, imm as u32, |a, b| a | b),
        UXorI { rd, rs1, imm } => ri(cx, rd, rs1, imm as u32, |a, b| a ^ b),
        UShlI { rd, rs1, imm } => ri(cx, rd, rs1, imm, shl),
        UShrI { rd, rs1, imm } => ri(cx, rd, rs1, imm, shr),
        USraI { rd, rs1, imm } => ri(cx, rd, rs1, imm, sra),
        USeqI { rd, rs1, imm } => ri(cx, rd, rs1, imm as u32, |a, b| (a == b) as u32),
        USneI { rd, rs1, imm } => ri(cx, rd, rs1, imm as u32, |a, b| (a != b) as u32),
        USltI { rd, rs1, imm } => ri(cx, rd, rs1, imm as u32, |a, b| ((a as i32) < b as i32) as u32),
        USltUI { rd, rs1, imm } => ri(cx, rd, rs1, imm as u32, |a, b| (a < b) as u32),
        USgtI { rd, rs1, imm } => ri(cx, rd, rs1, imm as u32, |a, b| (a as i32 > b as i32) as u32),
        USgtUI { rd, rs1, imm } => ri(cx, rd, rs1, imm as u32, |a, b| (a > b) as u32),
        UMinI { rd, rs1, imm } => ri(cx, rd, rs1, imm as u32, min_s),
        UMaxI { rd, rs1, imm } => ri(cx, rd, rs1, imm as u32, max_s),
        // --- UL: 32-bit literal k
        UMovK { rd, imm } => set(cx, rd, imm),
        UAddK { rd, rs1, imm } => ri(cx, rd, rs1, imm, u32::wrapping_add),
        UMulK { rd, rs1, imm } => ri(cx, rd, rs1, imm, u32::wrapping_mul),
        UMulhiK { rd, rs1, imm } => ri(cx, rd, rs1, imm, mulhi_s),
        UMulhiUK { rd, rs1, imm } => ri(cx, rd, rs1, imm, mulhi_u),
        UAndK { rd, rs1, imm } => ri(cx, rd, rs1, imm, |a, b| a & b),
        UOrK { rd, rs1, imm } => ri(cx, rd, rs1, imm, |a, b| a | b),
        UXorK { rd, rs1, imm } => ri(cx, rd, rs1, imm, |a, b| a ^ b),
        UMinK { rd, rs1, imm } => ri(cx, rd, rs1, imm, min_s),
        UMaxK { rd, rs1, imm } => ri(cx, rd, rs1, imm, max_s),
        UMinUK { rd, rs1, imm } => ri(cx, rd, rs1, imm, u32::min),
        UMaxUK { rd, rs1, imm } => ri(cx, rd, rs1, imm, u32::max),
        USeqK { rd, rs1, imm } => ri(cx, rd, rs1, imm, |a, b| (a == b) as u32),
        USneK { rd, rs1, imm } => ri(cx, rd, rs1, imm, |a, b| (a != b) as u32),
        USltK { rd, rs1, imm } => ri(cx, rd, rs1, imm, |a, b| ((a as i32) < b as i32) as u32),
        USgtK { rd, rs1, imm } => ri(cx, rd, rs1, imm, |a, b| (a as i32 > b as i32) as u32),
        USltUK { rd, rs1, imm } => ri(cx, rd, rs1, imm, |a, b| (a < b) as u32),
        USgtUK { rd, rs1, imm } => ri(cx, rd, rs1, imm, |a, b| (a > b) as u32),
        UBfeUK { rd, rs1, imm } => ri(cx, rd, rs1, imm, bfe_u),
        UBfeSK { rd, rs1, imm } => ri(cx, rd, rs1, imm, bfe_s),
        UAddU64K { rd, rs1, imm } => {
            let a = cx.w.u64_pair(rs1);
            pair(cx, rd, a.wrapping_add(imm as i32 as u64))
        }
        // --- ULI: the decoder gives imm17 sign-extended; pcrel is already a byte offset
        ULi { rd, imm } => set(cx, rd, imm as u32),
        ULui { rd, imm } => set(cx, rd, (imm as u32) << 15),
        UPcrel { rd, imm } => set(cx, rd, cx.pc.wrapping_add(imm as u32)),
        // --- U1: unary
        UMov { rd, rs1 } => un(cx, rd, rs1, |a| a),
        UNot { rd, rs1 } => un(cx, rd, rs1, |a| !a),
        UNeg { rd, rs1 } => un(cx, rd, rs1, u32::wrapping_neg),
        UPopc { rd, rs1 } => un(cx, rd, rs1, u32::count_ones),
        UClz { rd, rs1 } => un(cx, rd, rs1, u32::leading_zeros),
        UCtz { rd, rs1 } => un(cx, rd, rs1, u32::trailing_zeros),
        UBrev { rd, rs1 } => un(cx, rd, rs1, u32::reverse_bits),
        USextB { rd, rs1 } => un(cx, rd, rs1, |a| a as u8 as i8 as i32 as u32),
        USextH { rd, rs1 } => un(cx, rd, rs1, |a| a as u16 as i16 as i32 as u32),
        UZextB { rd, rs1 } => un(cx, rd, rs1, |a| a & 0xff),
        UZextH { rd, rs1 } => un(cx, rd, rs1, |a| a & 0xffff),
        UWqm { rd, rs1 } => un(cx, rd, rs1, wqm),
        UMovU64 { rd, rs1 } => {
            let a = cx.w.u64_pair(rs1);
            pair(cx, rd, a)
        }
        // --- U1: EXEC control
        ExecGet { rd } => set(cx, rd, cx.w.exec),
        ExecSet { rs1 } => {
            cx.w.exec = cx.w.ur(rs1);
            Ok(Flow::Next)
        }
        ExecAndSave { rd, rs1 } => exec_save(cx, rd, cx.w.ur(rs1), |old, m| old & m),
        ExecAndnSave { rd, rs1 } => exec_save(cx, rd, cx.w.ur(rs1), |old, m| old & !m),
        ExecOrSave { rd, rs1 } => exec_save(cx, rd, cx.w.ur(rs1), |old, m| old | m),
        ExecWqm => {
            cx.w.exec = wqm(cx.w.exec);
            Ok(Flow::Next)
        }
        // old & -old keeps the lowest set bit; EXEC = 0 stays 0.
        ExecElect { rd } => exec_save(cx, rd, 0, |old, _| old & old.wrapping_neg()),
        // --- CSR
        CsrR { rd, csr } => {
            let v = csr_read(cx, csr);
            set(cx, rd, v)
        }
        CsrRw { rd, csr, rs1 } => csr_write(cx, rd, csr, cx.w.ur(rs1), |_, x| x),
        CsrRs { rd, csr, rs1 } => csr_write(cx, rd, csr, cx.w.ur(rs1), |old, x| old | x),
        CsrRc { rd, csr, rs1 } => csr_write(cx, rd, csr, cx.w.ur(rs1), |old, x| old & !x),
        CsrRwi { rd, csr, imm } => csr_write(cx, rd, csr, imm, |_, x| x),
        CsrRsi { rd, csr, imm } => csr_write(cx, rd, csr, imm, |old, x| old | x),
        CsrRci { rd, csr, imm } => csr_write(cx, rd, csr, imm, |old, x| old & !x),
    }
}

fn set(cx: &mut Ctx, rd: UReg, x: u32) -> Result<Flow, Trap> {
    cx.w.set_u(rd, x);
    Ok(Flow::Next)
}

fn un(cx: &mut Ctx, rd: UReg, rs1: UReg, f: impl Fn(u32) -> u32) -> Result<Flow, Trap> {
    let a = cx.w.ur(rs1);
    set(cx, rd, f(a))
}

fn rr(cx: &mut Ctx, rd: UReg, rs1: UReg, rs2: UReg, f: impl Fn(u32, u32) -> u32) -> Result<Flow, Trap> {
    let (a, b) = (cx.w.ur(rs1), cx.w.ur(rs2));
    set(cx, rd, f(a, b))
}

/// Register and an immediate or literal (already extended to 32 bits).
fn ri(cx: &mut Ctx, rd: UReg, rs1: UReg, k: u32, f: impl Fn(u32, u32) -> u32) -> Result<Flow, Trap> {
    let a = cx.w.ur(rs1);
    set(cx, rd, f(a, k))
}

/// Writes a 64-bit result to the even pair rd:rd+1 (the caller has read every source already).
fn pair(cx: &mut Ctx, rd: UReg, x: u64) -> Result<Flow, Trap> {
    cx.w.set_u64_pair(rd, x);
    Ok(Flow::Next)
}

fn shl(a: u32, s: u32) -> u32 {
    a << (s & 31)
}
fn shr(a: u32, s: u32) -> u32 {
    a >> (s & 31)
}
fn sra(a: u32, s: u32) -> u32 {
    ((a as i32) >> (s & 31)) as u32
}
fn min_s(a: u32, b: u32) -> u32 {
    (a as i32).min(b as i32) as u32
}
fn max_s(a: u32, b: u32) -> u32 {
    (a as i32).max(b as i32) as u32
}
fn mulhi_s(a: u32, b: u32) -> u32 {
    ((a as i32 as i64 * b as i32 as i64) >> 32) as u32
}
fn mulhi_u(a: u32, b: u32) -> u32 {
    ((a as u64 * b as u64) >> 32) as u32
}

/// RISC-V division: /0 gives all ones, INT_MIN / -1 gives INT_MIN (wrapping_div).
fn div_s(a: u32, b: u32) -> u32 {
    if b == 0 {
        u32::MAX
    } else {
        (a as i32).wrapping_div(b as i32) as u32
    }
}
fn div_u(a: u32, b: u32) -> u32 {
    a.checked_div(b).unwrap_or(u32::MAX)
}
/// Remainder with the dividend's sign: rem 0 gives the dividend, INT_MIN rem -1 gives 0 (wrapping_rem).
fn rem_s(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        (a as i32).wrapping_rem(b as i32) as u32
    }
}
fn rem_u(a: u32, b: u32) -> u32 {
    a.checked_rem(b).unwrap_or(a)
}

/// Field selector of u.bfe.*: off = bits [4:0], w = bits [12:8]; the field is cut at bit 31, so its
/// length is n = min(w, 32 - off) (0 when w = 0).
fn bfe_field(sel: u32) -> (u32, u32) {
    let off = sel & 31;
    let w = (sel >> 8) & 31;
    (off, w.min(32 - off))
}
fn bfe_u(a: u32, sel: u32) -> u32 {
    let (off, n) = bfe_field(sel);
    if n == 0 {
        0
    } else {
        (a >> off) & (u32::MAX >> (32 - n))
    }
}
/// Moves the field to the top, then shifts it back arithmetically: the sign is bit off+n-1.
fn bfe_s(a: u32, sel: u32) -> u32 {
    let (off, n) = bfe_field(sel);
    if n == 0 {
        0
    } else {
        (((a >> off) << (32 - n)) as i32 >> (32 - n)) as u32
    }
}

/// Widens a lane mask to whole quads: a quad with any bit set becomes 0xf.
fn wqm(m: u32) -> u32 {
    (0..LANES / 4).filter(|q| m >> (4 * q) & 0xf != 0).fold(0, |acc, q| acc | 0xf << (4 * q))
}

/// u[rd] = old EXEC; EXEC = next(old, m). The caller read m (u[rs1]) already, so rd may equal rs1.
fn exec_save(cx: &mut Ctx, rd: UReg, m: u32, next: impl Fn(u32, u32) -> u32) -> Result<Flow, Trap> {
    let old = cx.w.exec;
    cx.w.exec = next(old, m);
    set(cx, rd, old)
}

fn csr_read(cx: &Ctx, csr: Csr) -> u32 {
    let e = cx.env;
    match csr {
        Csr::Fcsr => cx.w.fcsr & FCSR_WRITABLE,
        Csr::WaveId => e.wave_id,
        Csr::WaveCount => e.wave_count,
        Csr::WgSizeX => e.wg_size[0],
        Csr::WgSizeY => e.wg_size[1],
        Csr::WgSizeZ => e.wg_size[2],
        Csr::GridX => e.grid[0],
        Csr::GridY => e.grid[1],
        Csr::GridZ => e.grid[2],
        Csr::LaneCount => LANES as u32,
        // The YAML defines cycle as the sum of fixed latencies; WaveState keeps no such counter, so cycle
        // reads the retired count (as WaveState documents) until it does.
        Csr::Cycle => cx.w.retired as u32,
        Csr::Retired => cx.w.retired as u32,
    }
}

/// csr.rw/rs/rc(i): new = f(old, x). Only fcsr is writable, and never with a dyn or reserved rounding mode;
/// every check comes before any write, so a trapping write changes nothing.
fn csr_write(cx: &mut Ctx, rd: UReg, csr: Csr, x: u32, f: impl Fn(u32, u32) -> u32) -> Result<Flow, Trap> {
    if csr != Csr::Fcsr {
        return Err(cx.illegal(format!("csr {} is read-only", csr.name())));
    }
    let old = csr_read(cx, csr);
    let new = f(old, x);
    if new & FCSR_RM_MASK >= 5 {
        return Err(
            cx.illegal(format!("fcsr rounding mode {} (dyn or reserved) cannot be written", new & FCSR_RM_MASK))
        );
    }
    cx.w.fcsr = new & FCSR_WRITABLE;
    set(cx, rd, old)
}
