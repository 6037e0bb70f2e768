//! Group `vint`: JIT lowering. Every instruction is listed; those not lowered natively are executed by the
//! interpreter from compiled code (`Lowered::Interpret`). Each 32-lane register is 8 × I32X4; results are written
//! through `Fx::set_v` (EXEC-blended in the masked block variant) after every source has been read.
//!
//! Left to the interpreter: the v.shf funnel shifts (per-lane amounts clamped or wrapped at 32 or 64 on a 64-bit
//! value: seven emulated shift stages on two words per slice, for instructions that are rarely hot).

pub(crate) mod bits;
mod lop3;
mod mul;
pub(super) mod ops;
mod prmt;
mod shift;
mod wide;

use super::Lowered;
use crate::fx::{Fx, Vec32};
use crate::mutants::active;
use cranelift_codegen::ir::{types::*, InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;
use lanejit_isa::{UReg, VReg, VintInsn};
use ops::{fill, un, vk, vu, vv, Bin::*};
use shift::Shift::{Shl, Shr, Sra};

pub fn lower(fx: &mut Fx, i: &VintInsn) -> Lowered {
    use VintInsn::*;
    match *i {
        // --- R, opcode 0x10
        VAdd { rd, rs1, rs2 } => vv(fx, rd, rs1, rs2, Add),
        // Mutant 16: operands swapped (s2 - s1).
        VSub { rd, rs1, rs2 } => vv(fx, rd, rs1, rs2, if active(16) { Rsub } else { Sub }),
        VMul { rd, rs1, rs2 } => vv(fx, rd, rs1, rs2, Mul),
        VAnd { rd, rs1, rs2 } => vv(fx, rd, rs1, rs2, And),
        VOr { rd, rs1, rs2 } => vv(fx, rd, rs1, rs2, Or),
        VXor { rd, rs1, rs2 } => vv(fx, rd, rs1, rs2, Xor),
        VAndn { rd, rs1, rs2 } => vv(fx, rd, rs1, rs2, Andn),
        VOrn { rd, rs1, rs2 } => vv(fx, rd, rs1, rs2, Orn),
        VShl { rd, rs1, rs2 } => shift::vv(fx, rd, rs1, rs2, Shl),
        VShr { rd, rs1, rs2 } => shift::vv(fx, rd, rs1, rs2, Shr),
        VSra { rd, rs1, rs2 } => shift::vv(fx, rd, rs1, rs2, Sra),
        VBfeU { rd, rs1, rs2 } => shift::bfe_vv(fx, rd, rs1, rs2, false),
        VBfeS { rd, rs1, rs2 } => shift::bfe_vv(fx, rd, rs1, rs2, true),
        VMulhi { rd, rs1, rs2 } => mul::vv(fx, rd, rs1, rs2, true),
        VMulhiU { rd, rs1, rs2 } => mul::vv(fx, rd, rs1, rs2, false),
        // --- R, opcode 0x12
        VMin { rd, rs1, rs2 } => vv(fx, rd, rs1, rs2, Min),
        VMax { rd, rs1, rs2 } => vv(fx, rd, rs1, rs2, Max),
        // Mutant 19: the unsigned minimum compares signed.
        VMinU { rd, rs1, rs2 } => vv(fx, rd, rs1, rs2, if active(19) { Min } else { MinU }),
        VMaxU { rd, rs1, rs2 } => vv(fx, rd, rs1, rs2, MaxU),
        VAbsdiff { rd, rs1, rs2 } => vv(fx, rd, rs1, rs2, Absdiff),
        VAbsdiffU { rd, rs1, rs2 } => vv(fx, rd, rs1, rs2, AbsdiffU),
        VAddU64 { rd, rs1, rs2 } => wide::add_sub(fx, rd, rs1, rs2, false),
        VSubU64 { rd, rs1, rs2 } => wide::add_sub(fx, rd, rs1, rs2, true),
        VAddU64U32 { rd, rs1, rs2 } => wide::add_ext(fx, rd, rs1, rs2, false),
        VAddU64I32 { rd, rs1, rs2 } => wide::add_ext(fx, rd, rs1, rs2, true),
        VMulWideU32 { rd, rs1, rs2 } => mul::mul_wide(fx, rd, rs1, rs2, false),
        VMulWideI32 { rd, rs1, rs2 } => mul::mul_wide(fx, rd, rs1, rs2, true),
        // --- RU, opcode 0x14: the uniform is source 2
        VAddVu { rd, rs1, rs2 } => vu(fx, rd, rs1, rs2, Add),
        VSubVu { rd, rs1, rs2 } => vu(fx, rd, rs1, rs2, Sub),
        VMulVu { rd, rs1, rs2 } => vu(fx, rd, rs1, rs2, Mul),
        VAndVu { rd, rs1, rs2 } => vu(fx, rd, rs1, rs2, And),
        VOrVu { rd, rs1, rs2 } => vu(fx, rd, rs1, rs2, Or),
        VXorVu { rd, rs1, rs2 } => vu(fx, rd, rs1, rs2, Xor),
        VAndnVu { rd, rs1, rs2 } => vu(fx, rd, rs1, rs2, Andn),
        VOrnVu { rd, rs1, rs2 } => vu(fx, rd, rs1, rs2, Orn),
        VShlVu { rd, rs1, rs2 } => shift::vu(fx, rd, rs1, rs2, Shl),
        VShrVu { rd, rs1, rs2 } => shift::vu(fx, rd, rs1, rs2, Shr),
        VSraVu { rd, rs1, rs2 } => shift::vu(fx, rd, rs1, rs2, Sra),
        VBfeUVu { rd, rs1, rs2 } => bfe_u(fx, rd, rs1, rs2, false),
        VBfeSVu { rd, rs1, rs2 } => bfe_u(fx, rd, rs1, rs2, true),
        VRsubVu { rd, rs1, rs2 } => vu(fx, rd, rs1, rs2, Rsub),
        VMinVu { rd, rs1, rs2 } => vu(fx, rd, rs1, rs2, Min),
        VMaxVu { rd, rs1, rs2 } => vu(fx, rd, rs1, rs2, Max),
        VMinUVu { rd, rs1, rs2 } => vu(fx, rd, rs1, rs2, MinU),
        VMaxUVu { rd, rs1, rs2 } => vu(fx, rd, rs1, rs2, MaxU),
        VAbsdiffVu { rd, rs1, rs2 } => vu(fx, rd, rs1, rs2, Absdiff),
        VAbsdiffUVu { rd, rs1, rs2 } => vu(fx, rd, rs1, rs2, AbsdiffU),
        VMulhiVu { rd, rs1, rs2 } => mul::vu(fx, rd, rs1, rs2, true),
        VMulhiUVu { rd, rs1, rs2 } => mul::vu(fx, rd, rs1, rs2, false),
        VCndmask { rd, rs1, rs2 } => cndmask(fx, rd, rs1, rs2),
        // --- I8, opcode 0x16: imm arrives sign-extended from 8 bits
        VAddI { rd, rs1, imm } => vk(fx, rd, rs1, imm as u32, Add),
        VMulI { rd, rs1, imm } => vk(fx, rd, rs1, imm as u32, Mul),
        VAndI { rd, rs1, imm } => vk(fx, rd, rs1, imm as u32, And),
        VOrI { rd, rs1, imm } => vk(fx, rd, rs1, imm as u32, Or),
        VXorI { rd, rs1, imm } => vk(fx, rd, rs1, imm as u32, Xor),
        VShlI { rd, rs1, imm } => shift::vi(fx, rd, rs1, imm, Shl),
        VShrI { rd, rs1, imm } => shift::vi(fx, rd, rs1, imm, Shr),
        VSraI { rd, rs1, imm } => shift::vi(fx, rd, rs1, imm, Sra),
        // --- R1, opcode 0x18
        VMov { rd, rs1 } => un(fx, rd, rs1, |_, x| x),
        VNot { rd, rs1 } => un(fx, rd, rs1, |fx, x| fx.b.ins().bnot(x)),
        VNeg { rd, rs1 } => un(fx, rd, rs1, |fx, x| fx.b.ins().ineg(x)),
        // pabsd: abs(INT_MIN) = INT_MIN, the YAML's wrapping rule.
        VAbs { rd, rs1 } => un(fx, rd, rs1, |fx, x| fx.b.ins().iabs(x)),
        VPopc { rd, rs1 } => bits::un(fx, rd, rs1, bits::popc),
        VClz { rd, rs1 } => bits::un(fx, rd, rs1, bits::clz),
        VCtz { rd, rs1 } => bits::un(fx, rd, rs1, bits::ctz),
        VBrev { rd, rs1 } => bits::un(fx, rd, rs1, bits::brev),
        // Mutant 23: sext.b extends from bit 15 (sext.h's shift), not from bit 7.
        VSextB { rd, rs1 } => {
            let sh = if active(23) { 16 } else { 24 };
            un(fx, rd, rs1, move |fx, x| sext(&mut fx.b, x, sh))
        }
        VSextH { rd, rs1 } => un(fx, rd, rs1, |fx, x| sext(&mut fx.b, x, 16)),
        VZextB { rd, rs1 } => vk(fx, rd, rs1, 0xff, And),
        VZextH { rd, rs1 } => vk(fx, rd, rs1, 0xffff, And),
        VLaneid { rd } => {
            let ids = fx.lane_ids();
            fx.set_v(rd, ids);
            Lowered::Native
        }
        // --- R1U, opcode 0x1a
        VMovU { rd, rs1 } => {
            let u = fx.u(rs1);
            let x = fx.b.ins().splat(I32X4, u);
            fill(fx, rd, x)
        }
        VMovUB64 { rd, rs1 } => wide::mov_u_b64(fx, rd, rs1),
        VLanebitU { rd, rs1 } => lanebit(fx, rd, rs1),
        VMbcntU { rd, rs1 } => bits::mbcnt(fx, rd, rs1),
        // --- LI, opcodes 0x1c / 0x1e: v.li's imm arrives sign-extended from 18 bits, v.lui's raw
        VLi { rd, imm } => konst(fx, rd, imm as u32),
        VLui { rd, imm } => konst(fx, rd, imm.wrapping_shl(14)),
        // --- XL, opcode 0x11: 32-bit literal
        VAddK { rd, rs1, imm } => vk(fx, rd, rs1, imm, Add),
        VMulK { rd, rs1, imm } => vk(fx, rd, rs1, imm, Mul),
        VAndK { rd, rs1, imm } => vk(fx, rd, rs1, imm, And),
        VOrK { rd, rs1, imm } => vk(fx, rd, rs1, imm, Or),
        VXorK { rd, rs1, imm } => vk(fx, rd, rs1, imm, Xor),
        VMinK { rd, rs1, imm } => vk(fx, rd, rs1, imm, Min),
        VMaxK { rd, rs1, imm } => vk(fx, rd, rs1, imm, Max),
        VMinUK { rd, rs1, imm } => vk(fx, rd, rs1, imm, MinU),
        VMaxUK { rd, rs1, imm } => vk(fx, rd, rs1, imm, MaxU),
        VMovK { rd, imm } => konst(fx, rd, imm),
        VRsubK { rd, rs1, imm } => vk(fx, rd, rs1, imm, Rsub),
        VMulhiK { rd, rs1, imm } => mul::vk(fx, rd, rs1, imm, true),
        VMulhiUK { rd, rs1, imm } => mul::vk(fx, rd, rs1, imm, false),
        VBfeUK { rd, rs1, imm } => bfe_k(fx, rd, rs1, imm, false),
        VBfeSK { rd, rs1, imm } => bfe_k(fx, rd, rs1, imm, true),
        // --- X, opcode 0x13: three sources
        VMadU32 { rd, rs1, rs2, rs3 } => v3(fx, rd, rs1, rs2, rs3, |b, x, y, z| {
            let p = b.ins().imul(x, y);
            b.ins().iadd(p, z)
        }),
        VAdd3 { rd, rs1, rs2, rs3 } => v3(fx, rd, rs1, rs2, rs3, |b, x, y, z| {
            let s = b.ins().iadd(x, y);
            b.ins().iadd(s, z)
        }),
        VLea { rd, rs1, rs2, sh } => {
            let (a, c) = (fx.v(rs1), fx.v(rs2));
            let d = fx.map2(a, c, |b, x, y| {
                let s = b.ins().ishl_imm_u(x, (sh & 31) as i64);
                b.ins().iadd(s, y)
            });
            fx.set_v(rd, d);
            Lowered::Native
        }
        VLeaU64U32 { rd, rs1, rs2, sh } => wide::lea(fx, rd, rs1, rs2, sh, false),
        VLeaU64I32 { rd, rs1, rs2, sh } => wide::lea(fx, rd, rs1, rs2, sh, true),
        VMadHiU32 { rd, rs1, rs2, rs3 } => mul::mad_hi(fx, rd, rs1, rs2, rs3, false),
        VMadHiI32 { rd, rs1, rs2, rs3 } => mul::mad_hi(fx, rd, rs1, rs2, rs3, true),
        VMadWideU32 { rd, rs1, rs2, rs3 } => mul::mad_wide(fx, rd, rs1, rs2, rs3, false),
        VMadWideI32 { rd, rs1, rs2, rs3 } => mul::mad_wide(fx, rd, rs1, rs2, rs3, true),
        VBfi { rd, rs1, rs2, rs3 } => shift::bfi(fx, rd, rs1, rs2, rs3),
        VPrmt { rd, rs1, rs2, rs3 } => prmt::lower(fx, rd, rs1, rs2, rs3),
        // --- X, opcode 0x15: v.shf
        VShfLS64 { .. }
        | VShfRS64 { .. }
        | VShfLU64 { .. }
        | VShfRU64 { .. }
        | VShfLS32 { .. }
        | VShfRS32 { .. }
        | VShfLU32 { .. }
        | VShfRU32 { .. }
        | VShfLS64W { .. }
        | VShfRS64W { .. }
        | VShfLU64W { .. }
        | VShfRU64W { .. }
        | VShfLS32W { .. }
        | VShfRS32W { .. }
        | VShfLU32W { .. }
        | VShfRU32W { .. }
        | VShfLS64Hi { .. }
        | VShfRS64Hi { .. }
        | VShfLU64Hi { .. }
        | VShfRU64Hi { .. }
        | VShfLS32Hi { .. }
        | VShfRS32Hi { .. }
        | VShfLU32Hi { .. }
        | VShfRU32Hi { .. }
        | VShfLS64WHi { .. }
        | VShfRS64WHi { .. }
        | VShfLU64WHi { .. }
        | VShfRU64WHi { .. }
        | VShfLS32WHi { .. }
        | VShfRS32WHi { .. }
        | VShfLU32WHi { .. }
        | VShfRU32WHi { .. } => Lowered::Interpret,
        // --- X, opcode 0x17
        VLop3 { rd, rs1, rs2, rs3, lut } => lop3::lower(fx, rd, rs1, rs2, rs3, lut),
    }
}

/// d = f(s1, s2, s3).
fn v3(
    fx: &mut Fx,
    rd: VReg,
    rs1: VReg,
    rs2: VReg,
    rs3: VReg,
    f: fn(&mut FunctionBuilder, Value, Value, Value) -> Value,
) -> Lowered {
    let (a, b, c) = (fx.v(rs1), fx.v(rs2), fx.v(rs3));
    let d: Vec32 = std::array::from_fn(|k| f(&mut fx.b, a[k], b[k], c[k]));
    fx.set_v(rd, d);
    Lowered::Native
}

/// Sign-extends the low 32 - `sh` bits of each lane: up by `sh`, back down arithmetically.
fn sext(b: &mut FunctionBuilder, x: Value, sh: i64) -> Value {
    let up = b.ins().ishl_imm_u(x, sh);
    b.ins().sshr_imm_u(up, sh)
}

/// d = c in every active lane.
fn konst(fx: &mut Fx, rd: VReg, c: u32) -> Lowered {
    let x = fx.kvec(c);
    fill(fx, rd, x)
}

fn bfe_u(fx: &mut Fx, rd: VReg, rs1: VReg, rs2: UReg, signed: bool) -> Lowered {
    let p = fx.u(rs2);
    shift::bfe_scalar(fx, rd, rs1, p, signed)
}

fn bfe_k(fx: &mut Fx, rd: VReg, rs1: VReg, k: u32, signed: bool) -> Lowered {
    let p = fx.b.ins().iconst(I32, k as i64);
    shift::bfe_scalar(fx, rd, rs1, p, signed)
}

/// v.cndmask: lanes whose bit is set in u2 & EXEC take s1; the others keep rd.
fn cndmask(fx: &mut Fx, rd: VReg, rs1: VReg, rs2: UReg) -> Lowered {
    let s = fx.v(rs1);
    let u = fx.u(rs2);
    // Mutant 22: the select mask is used as is, so inactive lanes whose bit is set are written too.
    let mask = if active(22) { u } else { fx.and_exec(u) };
    fx.set_v_lanes(rd, s, mask);
    Lowered::Native
}

/// v.lanebit.u: lane i gets bit i of u1 as 0 or 1 (the -1/0 lane mask shifted down).
fn lanebit(fx: &mut Fx, rd: VReg, rs1: UReg) -> Lowered {
    let u = fx.u(rs1);
    let d: Vec32 = std::array::from_fn(|k| {
        let m = fx.lane_mask(u, k);
        fx.b.ins().ushr_imm_u(m, 31)
    });
    fx.set_v(rd, d);
    Lowered::Native
}
