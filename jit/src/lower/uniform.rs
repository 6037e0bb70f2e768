//! Group `uniform`: JIT lowering. Every instruction is listed; those not lowered natively are executed by the
//! interpreter from compiled code (`Lowered::Interpret`). One I32 value per register; every source is read before
//! rd is defined, so rd may equal a source (pairs included). Shift amounts are masked explicitly (5 bits, 6 for
//! 64-bit pairs); division never reaches a host trap (a zero or overflowing divisor is replaced by 1 and the
//! RISC-V result selected). The EXEC writers end their block, so EXEC stays constant inside a block.
//!
//! Left to the interpreter: CSR writes (fcsr writes may trap) and reads of fcsr and the counters.

mod pair;

use super::vint::ops::Bin::{self, *};
use super::{Lowered, Site};
use crate::fx::Fx;
use crate::mutants::active;
use cranelift_codegen::ir::{condcodes::IntCC, types::*, InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;
use lanejit_interp::WaveEnv;
use lanejit_isa::{Csr, UReg, UniformInsn};

pub fn lower(fx: &mut Fx, i: &UniformInsn, site: &Site) -> Lowered {
    use IntCC::*;
    use UniformInsn::*;
    match *i {
        // --- UR: register-register
        UAdd { rd, rs1, rs2 } => rr(fx, rd, rs1, rs2, Add),
        USub { rd, rs1, rs2 } => rr(fx, rd, rs1, rs2, Sub),
        UMul { rd, rs1, rs2 } => rr(fx, rd, rs1, rs2, Mul),
        UMulhi { rd, rs1, rs2 } => rr_f(fx, rd, rs1, rs2, |b, x, y| b.ins().smulhi(x, y)),
        UMulhiU { rd, rs1, rs2 } => rr_f(fx, rd, rs1, rs2, |b, x, y| b.ins().umulhi(x, y)),
        UDiv { rd, rs1, rs2 } => div(fx, rd, rs1, rs2, true, false),
        UDivU { rd, rs1, rs2 } => div(fx, rd, rs1, rs2, false, false),
        URem { rd, rs1, rs2 } => div(fx, rd, rs1, rs2, true, true),
        URemU { rd, rs1, rs2 } => div(fx, rd, rs1, rs2, false, true),
        UAnd { rd, rs1, rs2 } => rr(fx, rd, rs1, rs2, And),
        UOr { rd, rs1, rs2 } => rr(fx, rd, rs1, rs2, Or),
        UXor { rd, rs1, rs2 } => rr(fx, rd, rs1, rs2, Xor),
        UAndn { rd, rs1, rs2 } => rr(fx, rd, rs1, rs2, Andn),
        UOrn { rd, rs1, rs2 } => rr(fx, rd, rs1, rs2, Orn),
        UShl { rd, rs1, rs2 } => rr_f(fx, rd, rs1, rs2, |b, x, n| shift(b, x, n, 0)),
        UShr { rd, rs1, rs2 } => rr_f(fx, rd, rs1, rs2, |b, x, n| shift(b, x, n, 1)),
        USra { rd, rs1, rs2 } => rr_f(fx, rd, rs1, rs2, |b, x, n| shift(b, x, n, 2)),
        UMin { rd, rs1, rs2 } => rr(fx, rd, rs1, rs2, Min),
        UMax { rd, rs1, rs2 } => rr(fx, rd, rs1, rs2, Max),
        UMinU { rd, rs1, rs2 } => rr(fx, rd, rs1, rs2, MinU),
        UMaxU { rd, rs1, rs2 } => rr(fx, rd, rs1, rs2, MaxU),
        USeq { rd, rs1, rs2 } => set_rr(fx, rd, rs1, rs2, Equal),
        USne { rd, rs1, rs2 } => set_rr(fx, rd, rs1, rs2, NotEqual),
        USlt { rd, rs1, rs2 } => set_rr(fx, rd, rs1, rs2, SignedLessThan),
        USle { rd, rs1, rs2 } => set_rr(fx, rd, rs1, rs2, SignedLessThanOrEqual),
        USltU { rd, rs1, rs2 } => set_rr(fx, rd, rs1, rs2, UnsignedLessThan),
        USleU { rd, rs1, rs2 } => set_rr(fx, rd, rs1, rs2, UnsignedLessThanOrEqual),
        UBfeU { rd, rs1, rs2 } => rr_f(fx, rd, rs1, rs2, |b, x, p| bfe(b, x, p, false)),
        UBfeS { rd, rs1, rs2 } => rr_f(fx, rd, rs1, rs2, |b, x, p| bfe(b, x, p, true)),
        // --- UR: 64-bit pairs
        UAddU64 { rd, rs1, rs2 } => pair::pp(fx, rd, rs1, rs2, false),
        USubU64 { rd, rs1, rs2 } => pair::pp(fx, rd, rs1, rs2, true),
        UAddU64U32 { rd, rs1, rs2 } => pair::add_ext(fx, rd, rs1, rs2, false),
        UAddU64I32 { rd, rs1, rs2 } => pair::add_ext(fx, rd, rs1, rs2, true),
        UShlU64 { rd, rs1, rs2 } => pair::shift(fx, rd, rs1, rs2, false),
        UShrU64 { rd, rs1, rs2 } => pair::shift(fx, rd, rs1, rs2, true),
        UMulWideU32 { rd, rs1, rs2 } => pair::mul_wide(fx, rd, rs1, rs2, false),
        UMulWideI32 { rd, rs1, rs2 } => pair::mul_wide(fx, rd, rs1, rs2, true),
        // --- UI: imm10 sign-extended by the decoder; shifts take an unsigned 5-bit amount
        UAddI { rd, rs1, imm } => rk(fx, rd, rs1, imm as u32, Add),
        UMulI { rd, rs1, imm } => rk(fx, rd, rs1, imm as u32, Mul),
        UAndI { rd, rs1, imm } => rk(fx, rd, rs1, imm as u32, And),
        UOrI { rd, rs1, imm } => rk(fx, rd, rs1, imm as u32, Or),
        UXorI { rd, rs1, imm } => rk(fx, rd, rs1, imm as u32, Xor),
        UShlI { rd, rs1, imm } => rk_f(fx, rd, rs1, imm, |b, x, n| shift(b, x, n, 0)),
        UShrI { rd, rs1, imm } => rk_f(fx, rd, rs1, imm, |b, x, n| shift(b, x, n, 1)),
        // Mutant 32: the arithmetic right shift lowered as a logical one.
        USraI { rd, rs1, imm } => {
            rk_f(fx, rd, rs1, imm, if active(32) { |b, x, n| shift(b, x, n, 1) } else { |b, x, n| shift(b, x, n, 2) })
        }
        USeqI { rd, rs1, imm } => set_rk(fx, rd, rs1, imm as u32, Equal),
        USneI { rd, rs1, imm } => set_rk(fx, rd, rs1, imm as u32, NotEqual),
        USltI { rd, rs1, imm } => set_rk(fx, rd, rs1, imm as u32, SignedLessThan),
        USltUI { rd, rs1, imm } => set_rk(fx, rd, rs1, imm as u32, UnsignedLessThan),
        USgtI { rd, rs1, imm } => set_rk(fx, rd, rs1, imm as u32, SignedGreaterThan),
        USgtUI { rd, rs1, imm } => set_rk(fx, rd, rs1, imm as u32, UnsignedGreaterThan),
        UMinI { rd, rs1, imm } => rk(fx, rd, rs1, imm as u32, Min),
        UMaxI { rd, rs1, imm } => rk(fx, rd, rs1, imm as u32, Max),
        // --- UL: 32-bit literal
        UMovK { rd, imm } => konst(fx, rd, imm),
        UAddK { rd, rs1, imm } => rk(fx, rd, rs1, imm, Add),
        UMulK { rd, rs1, imm } => rk(fx, rd, rs1, imm, Mul),
        UMulhiK { rd, rs1, imm } => rk_f(fx, rd, rs1, imm, |b, x, y| b.ins().smulhi(x, y)),
        UMulhiUK { rd, rs1, imm } => rk_f(fx, rd, rs1, imm, |b, x, y| b.ins().umulhi(x, y)),
        UAndK { rd, rs1, imm } => rk(fx, rd, rs1, imm, And),
        UOrK { rd, rs1, imm } => rk(fx, rd, rs1, imm, Or),
        UXorK { rd, rs1, imm } => rk(fx, rd, rs1, imm, Xor),
        UMinK { rd, rs1, imm } => rk(fx, rd, rs1, imm, Min),
        UMaxK { rd, rs1, imm } => rk(fx, rd, rs1, imm, Max),
        UMinUK { rd, rs1, imm } => rk(fx, rd, rs1, imm, MinU),
        UMaxUK { rd, rs1, imm } => rk(fx, rd, rs1, imm, MaxU),
        USeqK { rd, rs1, imm } => set_rk(fx, rd, rs1, imm, Equal),
        USneK { rd, rs1, imm } => set_rk(fx, rd, rs1, imm, NotEqual),
        USltK { rd, rs1, imm } => set_rk(fx, rd, rs1, imm, SignedLessThan),
        USgtK { rd, rs1, imm } => set_rk(fx, rd, rs1, imm, SignedGreaterThan),
        USltUK { rd, rs1, imm } => set_rk(fx, rd, rs1, imm, UnsignedLessThan),
        USgtUK { rd, rs1, imm } => set_rk(fx, rd, rs1, imm, UnsignedGreaterThan),
        UBfeUK { rd, rs1, imm } => rk_f(fx, rd, rs1, imm, |b, x, p| bfe(b, x, p, false)),
        UBfeSK { rd, rs1, imm } => rk_f(fx, rd, rs1, imm, |b, x, p| bfe(b, x, p, true)),
        UAddU64K { rd, rs1, imm } => pair::add_k(fx, rd, rs1, imm),
        // --- ULI: imm17 sign-extended by the decoder
        ULi { rd, imm } => konst(fx, rd, imm as u32),
        ULui { rd, imm } => konst(fx, rd, (imm as u32).wrapping_shl(15)),
        // The instruction's own address plus the offset (wrapping), a constant of the compiled code.
        UPcrel { rd, imm } => konst(fx, rd, site.pc.wrapping_add(imm as u32)),
        // --- U1: unary
        UMov { rd, rs1 } => un(fx, rd, rs1, |_, x| x),
        UNot { rd, rs1 } => un(fx, rd, rs1, |b, x| b.ins().bnot(x)),
        UNeg { rd, rs1 } => un(fx, rd, rs1, |b, x| b.ins().ineg(x)),
        // Cranelift's clz/ctz of 0 are 32, the YAML's value.
        UPopc { rd, rs1 } => un(fx, rd, rs1, |b, x| b.ins().popcnt(x)),
        UClz { rd, rs1 } => un(fx, rd, rs1, |b, x| b.ins().clz(x)),
        UCtz { rd, rs1 } => un(fx, rd, rs1, |b, x| b.ins().ctz(x)),
        UBrev { rd, rs1 } => un(fx, rd, rs1, |b, x| b.ins().bitrev(x)),
        USextB { rd, rs1 } => un(fx, rd, rs1, |b, x| sext(b, x, 24)),
        USextH { rd, rs1 } => un(fx, rd, rs1, |b, x| sext(b, x, 16)),
        UZextB { rd, rs1 } => un(fx, rd, rs1, |b, x| b.ins().band_imm_u(x, 0xff)),
        UZextH { rd, rs1 } => un(fx, rd, rs1, |b, x| b.ins().band_imm_u(x, 0xffff)),
        UWqm { rd, rs1 } => un(fx, rd, rs1, wqm),
        UMovU64 { rd, rs1 } => pair::mov(fx, rd, rs1),
        // --- U1: EXEC control
        ExecGet { rd } => {
            let e = fx.exec_val();
            fx.set_u(rd, e);
            Lowered::Native
        }
        ExecSet { rs1 } => {
            let m = fx.u(rs1);
            set_exec(fx, m)
        }
        ExecAndSave { rd, rs1 } => exec_save(fx, rd, Some(rs1), |b, old, m| b.ins().band(old, m)),
        // Mutant 31: andn's operands swapped: EXEC = m & !old instead of old & !m.
        ExecAndnSave { rd, rs1 } if active(31) => exec_save(fx, rd, Some(rs1), |b, old, m| b.ins().band_not(m, old)),
        ExecAndnSave { rd, rs1 } => exec_save(fx, rd, Some(rs1), |b, old, m| b.ins().band_not(old, m)),
        ExecOrSave { rd, rs1 } => exec_save(fx, rd, Some(rs1), |b, old, m| b.ins().bor(old, m)),
        ExecWqm => {
            let e = fx.exec_val();
            let w = wqm(&mut fx.b, e);
            set_exec(fx, w)
        }
        // old & -old keeps the lowest active lane; EXEC = 0 stays 0.
        ExecElect { rd } => exec_save(fx, rd, None, |b, old, _| {
            let neg = b.ins().ineg(old);
            b.ins().band(old, neg)
        }),
        // --- CSR
        CsrR { rd, csr } => csr_read(fx, rd, csr),
        CsrRw { .. } | CsrRs { .. } | CsrRc { .. } | CsrRwi { .. } | CsrRsi { .. } | CsrRci { .. } => {
            Lowered::Interpret
        }
    }
}

type F2 = fn(&mut FunctionBuilder, Value, Value) -> Value;

/// `csr.r` of the launch environment (ids, sizes: constant for the wave, read from `JitCtx::env`) and of the
/// lane count; fcsr and the counters (which depend on the position in the block) are the interpreter's.
fn csr_read(fx: &mut Fx, rd: UReg, csr: Csr) -> Lowered {
    use std::mem::offset_of;
    let field = |base: usize, i: usize| Some((base + 4 * i) as i32);
    let at = match csr {
        Csr::WaveId => field(offset_of!(WaveEnv, wave_id), 0),
        Csr::WaveCount => field(offset_of!(WaveEnv, wave_count), 0),
        Csr::WgSizeX => field(offset_of!(WaveEnv, wg_size), 0),
        Csr::WgSizeY => field(offset_of!(WaveEnv, wg_size), 1),
        Csr::WgSizeZ => field(offset_of!(WaveEnv, wg_size), 2),
        Csr::GridX => field(offset_of!(WaveEnv, grid), 0),
        Csr::GridY => field(offset_of!(WaveEnv, grid), 1),
        Csr::GridZ => field(offset_of!(WaveEnv, grid), 2),
        Csr::LaneCount => return konst(fx, rd, lanejit_isa::LANES as u32),
        Csr::Fcsr | Csr::Cycle | Csr::Retired => None,
    };
    let Some(at) = at else { return Lowered::Interpret };
    // Not `readonly`: the environment changes when compiled code starts the next wave (`helper_next_wave`).
    // Mutant 132: grid and workgroup sizes read one field too far.
    let at = if active(132) && matches!(csr, Csr::WgSizeX | Csr::GridX) { at + 4 } else { at };
    let ctx = fx.ctx();
    let x = fx.b.ins().load(I32, crate::fx::flags(), ctx, crate::abi::CTX_ENV_OFFSET + at);
    set(fx, rd, x)
}

fn set(fx: &mut Fx, rd: UReg, x: Value) -> Lowered {
    fx.set_u(rd, x);
    Lowered::Native
}

fn konst(fx: &mut Fx, rd: UReg, k: u32) -> Lowered {
    let x = fx.b.ins().iconst(I32, k as i64);
    set(fx, rd, x)
}

fn un(fx: &mut Fx, rd: UReg, rs1: UReg, f: fn(&mut FunctionBuilder, Value) -> Value) -> Lowered {
    let a = fx.u(rs1);
    let d = f(&mut fx.b, a);
    set(fx, rd, d)
}

fn rr_f(fx: &mut Fx, rd: UReg, rs1: UReg, rs2: UReg, f: F2) -> Lowered {
    let (a, b) = (fx.u(rs1), fx.u(rs2));
    let d = f(&mut fx.b, a, b);
    set(fx, rd, d)
}

fn rk_f(fx: &mut Fx, rd: UReg, rs1: UReg, k: u32, f: F2) -> Lowered {
    let a = fx.u(rs1);
    let k = fx.b.ins().iconst(I32, k as i64);
    let d = f(&mut fx.b, a, k);
    set(fx, rd, d)
}

fn rr(fx: &mut Fx, rd: UReg, rs1: UReg, rs2: UReg, op: Bin) -> Lowered {
    let (a, b) = (fx.u(rs1), fx.u(rs2));
    let d = op.emit(&mut fx.b, a, b);
    set(fx, rd, d)
}

fn rk(fx: &mut Fx, rd: UReg, rs1: UReg, k: u32, op: Bin) -> Lowered {
    let a = fx.u(rs1);
    let k = fx.b.ins().iconst(I32, k as i64);
    let d = op.emit(&mut fx.b, a, k);
    set(fx, rd, d)
}

/// 1 if `a cc b`, else 0.
fn setcc(b: &mut FunctionBuilder, cc: IntCC, x: Value, y: Value) -> Value {
    let c = b.ins().icmp(cc, x, y);
    b.ins().uextend(I32, c)
}

fn set_rr(fx: &mut Fx, rd: UReg, rs1: UReg, rs2: UReg, cc: IntCC) -> Lowered {
    let (a, b) = (fx.u(rs1), fx.u(rs2));
    let d = setcc(&mut fx.b, cc, a, b);
    set(fx, rd, d)
}

fn set_rk(fx: &mut Fx, rd: UReg, rs1: UReg, k: u32, cc: IntCC) -> Lowered {
    let a = fx.u(rs1);
    let k = fx.b.ins().iconst(I32, k as i64);
    let d = setcc(&mut fx.b, cc, a, k);
    set(fx, rd, d)
}

/// x shifted by n & 31: `kind` 0 left, 1 logical right, 2 arithmetic right.
fn shift(b: &mut FunctionBuilder, x: Value, n: Value, kind: u8) -> Value {
    let n = b.ins().band_imm_u(n, 31);
    match kind {
        0 => b.ins().ishl(x, n),
        1 => b.ins().ushr(x, n),
        _ => b.ins().sshr(x, n),
    }
}

fn sext(b: &mut FunctionBuilder, x: Value, sh: i64) -> Value {
    let up = b.ins().ishl_imm_u(x, sh);
    b.ins().sshr_imm_u(up, sh)
}

/// u.bfe: off = p[4:0], w = p[12:8]; pw = 1 << w; the field is (x >> off) & (pw - 1) (a field past bit 31 gets
/// zeros, or copies of bit 31 through the arithmetic shift for .s), sign-extended for .s from bit w-1 by
/// xor/sub with pw >> 1; w = 0 gives 0 either way (same formula as the vector lowering).
fn bfe(b: &mut FunctionBuilder, x: Value, p: Value, signed: bool) -> Value {
    let off = b.ins().band_imm_u(p, 31);
    let w = b.ins().ushr_imm_u(p, 8);
    let w = b.ins().band_imm_u(w, 31);
    let one = b.ins().iconst(I32, 1);
    let pw = b.ins().ishl(one, w);
    let mask = b.ins().iadd_imm_s(pw, -1);
    let t = if signed { b.ins().sshr(x, off) } else { b.ins().ushr(x, off) };
    let u = b.ins().band(t, mask);
    if !signed {
        return u;
    }
    let m = b.ins().ushr_imm_u(pw, 1);
    let s = b.ins().bxor(u, m);
    b.ins().isub(s, m)
}

/// Widens a lane mask to whole quads: bit 4q of (m | m >> 1 | m >> 2 | m >> 3) is "any bit of quad q", and
/// times 15 spreads it over the quad (no carries: each product stays inside its nibble).
fn wqm(b: &mut FunctionBuilder, m: Value) -> Value {
    let mut t = m;
    for s in 1..4 {
        let sh = b.ins().ushr_imm_u(m, s);
        t = b.ins().bor(t, sh);
    }
    let t = b.ins().band_imm_u(t, 0x1111_1111);
    b.ins().imul_imm_s(t, 15)
}

/// RISC-V division without host traps: a zero divisor (and for the signed forms INT_MIN / -1) divides by 1
/// instead, which already gives the overflow results (INT_MIN, remainder 0); a zero divisor then selects
/// 0xffffffff for the quotient and the dividend for the remainder.
fn div(fx: &mut Fx, rd: UReg, rs1: UReg, rs2: UReg, signed: bool, rem: bool) -> Lowered {
    let (a, d) = (fx.u(rs1), fx.u(rs2));
    let b = &mut fx.b;
    let zero = b.ins().icmp_imm_s(IntCC::Equal, d, 0);
    let bad = if signed {
        let min = b.ins().icmp_imm_u(IntCC::Equal, a, 0x8000_0000);
        let neg1 = b.ins().icmp_imm_u(IntCC::Equal, d, 0xffff_ffff);
        let ovf = b.ins().band(min, neg1);
        b.ins().bor(zero, ovf)
    } else {
        zero
    };
    let one = b.ins().iconst(I32, 1);
    let safe = b.ins().select(bad, one, d);
    let q = match (signed, rem) {
        (true, false) => b.ins().sdiv(a, safe),
        (false, false) => b.ins().udiv(a, safe),
        (true, true) => b.ins().srem(a, safe),
        (false, true) => b.ins().urem(a, safe),
    };
    // Mutant 28: a zero divisor gives quotient 0 (AArch64 udiv/sdiv) instead of all ones.
    let on_zero = if rem { a } else { b.ins().iconst(I32, if active(28) { 0 } else { 0xffff_ffff }) };
    let r = b.ins().select(zero, on_zero, q);
    set(fx, rd, r)
}

fn set_exec(fx: &mut Fx, m: Value) -> Lowered {
    fx.set_exec(m);
    Lowered::Native
}

/// old = EXEC and m = u[rs1] are read first (rd may equal rs1); u[rd] = old; EXEC = next(old, m).
fn exec_save(fx: &mut Fx, rd: UReg, rs1: Option<UReg>, next: F2) -> Lowered {
    let old = fx.exec_val();
    let m = match rs1 {
        Some(r) => fx.u(r),
        None => old,
    };
    let new = next(&mut fx.b, old, m);
    // Mutant 30: rd receives the new EXEC instead of the saved old one, so the restore at the join is wrong.
    fx.set_u(rd, if active(30) { new } else { old });
    set_exec(fx, new)
}
