//! Group `vfloat`: JIT lowering. Every instruction is listed; those not lowered natively are executed by the
//! interpreter from compiled code (`Lowered::Interpret`).
//!
//! Cranelift's float operations are IEEE binary32/64 rounding to nearest even on unflushed operands, which is
//! exactly the interpreter's host path (`interp/src/fp`) for `FpMode { round: Rne, flush32: false }`. So an
//! instruction runs natively only when the fcsr fields its result depends on (the YAML's `fmode`: the rounding
//! mode where `rm` is `dyn`, the flush bits an `en` text consults) hold the host's behaviour, zero; decided at
//! run time per instruction (`run`), or once per block when the block starts with plain fcsr
//! (`guard_block`). A static `rm` other than `rne` is the interpreter's at compile time, except for f32 → int,
//! where rtz/rdn/rup are exact roundings (trunc/floor/ceil).
//!
//! Interpreted, and why: f16 conversions (no vector f16 in Cranelift), f64 → int (no saturating F64X2 → I32X4
//! conversion on x64), rounding with rmm (no ties-away vector rounding), exp2/log2/sin/cos (the shared
//! reference is pure-Rust libm in f64). rcp and rsq are native: the ISA defines them as one f64 division
//! (after a sqrt) rounded once to f32, which F64X2 operations reproduce exactly.

mod ops32;
mod ops64;

use super::{Lowered, Site};
use crate::fx::{flags, Fx};
use cranelift_codegen::ir::{types::*, InstBuilder};
use lanejit_interp::WaveState;
use lanejit_isa::{Rm, VfloatInsn};
use ops32::{Bin, Mods, ToInt, Unary};

const FCSR_OFFSET: i32 = std::mem::offset_of!(WaveState, fcsr) as i32;

/// Can Cranelift's rne arithmetic compute an instruction with static rounding mode `rm`? Only rne itself, and
/// `dyn` (fcsr.frm, checked at run time).
fn native_rm(rm: Rm) -> bool {
    matches!(rm, Rm::Rne | Rm::Dyn)
}

/// f32 → int: the host rounding to an integral value that implements `rm` (rtz/rdn/rup are exact roundings:
/// trunc/floor/ceil); `None` for rmm (no ties-away vector rounding).
fn to_int(rm: Rm) -> Option<Unary> {
    match rm {
        Rm::Rne | Rm::Dyn => Some(Unary::Nearest),
        Rm::Rtz => Some(Unary::Trunc),
        Rm::Rdn => Some(Unary::Floor),
        Rm::Rup => Some(Unary::Ceil),
        Rm::Rmm => None,
    }
}

pub fn lower(fx: &mut Fx, i: &VfloatInsn, site: &Site) -> Lowered {
    use VfloatInsn::*;
    let m = |neg, abs, sat| Mods { neg, abs, sat };
    match *i {
        // --- f32 arithmetic (X, 0x21)
        FAddF32 { rd, rs1, rs2, neg, abs, sat, rm } => {
            run(fx, site, native_rm(rm), |fx| ops32::bin(fx, rd, rs1, rs2, m(neg, abs, sat), Bin::Add))
        }
        FSubF32 { rd, rs1, rs2, neg, abs, sat, rm } => {
            run(fx, site, native_rm(rm), |fx| ops32::bin(fx, rd, rs1, rs2, m(neg, abs, sat), Bin::Sub))
        }
        FMulF32 { rd, rs1, rs2, neg, abs, sat, rm } => {
            run(fx, site, native_rm(rm), |fx| ops32::bin(fx, rd, rs1, rs2, m(neg, abs, sat), Bin::Mul))
        }
        FDivF32 { rd, rs1, rs2, neg, abs, sat, rm } => {
            run(fx, site, native_rm(rm), |fx| ops32::bin(fx, rd, rs1, rs2, m(neg, abs, sat), Bin::Div))
        }
        FFmaF32 { rd, rs1, rs2, rs3, neg, abs, sat, rm } => {
            run(fx, site, native_rm(rm), |fx| ops32::fma(fx, rd, [rs1, rs2, rs3], m(neg, abs, sat)))
        }
        FSqrtF32 { rd, rs1, neg, abs, sat, rm } => {
            run(fx, site, native_rm(rm), |fx| ops32::sqrt(fx, rd, rs1, m(neg, abs, sat)))
        }
        // min/max do not round: only the flush of their inputs matters.
        FMinF32 { rd, rs1, rs2, neg, abs, sat } => {
            run(fx, site, true, |fx| ops32::bin(fx, rd, rs1, rs2, m(neg, abs, sat), Bin::Min))
        }
        FMaxF32 { rd, rs1, rs2, neg, abs, sat } => {
            run(fx, site, true, |fx| ops32::bin(fx, rd, rs1, rs2, m(neg, abs, sat), Bin::Max))
        }
        // --- f64 arithmetic (X, 0x23): pairs
        FAddF64 { rd, rs1, rs2, neg, abs, sat, rm } => {
            run(fx, site, native_rm(rm), |fx| ops64::bin(fx, rd, rs1, rs2, m(neg, abs, sat), Bin::Add))
        }
        FSubF64 { rd, rs1, rs2, neg, abs, sat, rm } => {
            run(fx, site, native_rm(rm), |fx| ops64::bin(fx, rd, rs1, rs2, m(neg, abs, sat), Bin::Sub))
        }
        FMulF64 { rd, rs1, rs2, neg, abs, sat, rm } => {
            run(fx, site, native_rm(rm), |fx| ops64::bin(fx, rd, rs1, rs2, m(neg, abs, sat), Bin::Mul))
        }
        FDivF64 { rd, rs1, rs2, neg, abs, sat, rm } => {
            run(fx, site, native_rm(rm), |fx| ops64::bin(fx, rd, rs1, rs2, m(neg, abs, sat), Bin::Div))
        }
        FFmaF64 { rd, rs1, rs2, rs3, neg, abs, sat, rm } => {
            run(fx, site, native_rm(rm), |fx| ops64::fma(fx, rd, [rs1, rs2, rs3], m(neg, abs, sat)))
        }
        FSqrtF64 { rd, rs1, neg, abs, sat, rm } => {
            run(fx, site, native_rm(rm), |fx| ops64::sqrt(fx, rd, rs1, m(neg, abs, sat)))
        }
        FMinF64 { rd, rs1, rs2, neg, abs, sat } => {
            run(fx, site, true, |fx| ops64::bin(fx, rd, rs1, rs2, m(neg, abs, sat), Bin::Min))
        }
        FMaxF64 { rd, rs1, rs2, neg, abs, sat } => {
            run(fx, site, true, |fx| ops64::bin(fx, rd, rs1, rs2, m(neg, abs, sat), Bin::Max))
        }
        // --- conversions (X, 0x25)
        FCvtF32I32 { rd, rs1, rm } => run(fx, site, native_rm(rm), |fx| ops32::from_int(fx, rd, rs1, true)),
        FCvtF32U32 { rd, rs1, rm } => run(fx, site, native_rm(rm), |fx| ops32::from_int(fx, rd, rs1, false)),
        FCvtI32F32 { rd, rs1, neg, abs, rm } => match to_int(rm) {
            Some(r) => run(fx, site, true, |fx| ops32::to_int(fx, rd, rs1, m(neg, abs, false), r, ToInt::I32)),
            None => Lowered::Interpret,
        },
        FCvtU32F32 { rd, rs1, neg, abs, rm } => match to_int(rm) {
            Some(r) => run(fx, site, true, |fx| ops32::to_int(fx, rd, rs1, m(neg, abs, false), r, ToInt::U32)),
            None => Lowered::Interpret,
        },
        FCvtF16F32 { .. } | FCvtF32F16 { .. } | FCvtPkF16F32 { .. } | FCvtF16F64 { .. } => Lowered::Interpret,
        // Widening is exact, but an f32 subnormal input is flushed under ftz32.
        FCvtF64F32 { rd, rs1, neg, abs } => run(fx, site, true, |fx| ops64::from_f32(fx, rd, rs1, m(neg, abs, false))),
        // Narrowing rounds, and ftz32 flushes a subnormal f32 result.
        FCvtF32F64 { rd, rs1, neg, abs, rm } => {
            run(fx, site, native_rm(rm), |fx| ops64::to_f32(fx, rd, rs1, m(neg, abs, false)))
        }
        FCvtF64I32 { rd, rs1 } => run(fx, site, true, |fx| ops64::from_int(fx, rd, rs1, true)),
        FCvtF64U32 { rd, rs1 } => run(fx, site, true, |fx| ops64::from_int(fx, rd, rs1, false)),
        FCvtI32F64 { .. } | FCvtU32F64 { .. } => Lowered::Interpret,
        // --- f32 with a literal (XL, 0x27): always fcsr.frm
        FAddKF32 { rd, rs1, imm } => run(fx, site, true, |fx| ops32::bin_k(fx, rd, rs1, imm, Bin::Add)),
        FMulKF32 { rd, rs1, imm } => run(fx, site, true, |fx| ops32::bin_k(fx, rd, rs1, imm, Bin::Mul)),
        FFmaKF32 { rd, rs1, imm } => run(fx, site, true, |fx| ops32::fma_k(fx, rd, rs1, imm, false)),
        FFmaKaF32 { rd, rs1, imm } => run(fx, site, true, |fx| ops32::fma_k(fx, rd, rs1, imm, true)),
        // --- transcendental (R1, 0x20): rne whatever fcsr.frm says; the flush bit applies
        FRcpF32 { rd, rs1 } => run(fx, site, true, |fx| ops64::recip(fx, rd, rs1, false)),
        FRsqF32 { rd, rs1 } => run(fx, site, true, |fx| ops64::recip(fx, rd, rs1, true)),
        FExp2F32 { .. } | FLog2F32 { .. } | FSinF32 { .. } | FCosF32 { .. } => Lowered::Interpret,
        // --- rounding to integral (R1, 0x22): exact. A flushed subnormal and the unflushed one truncate and
        // round to the same signed zero; floor/ceil/fract see the difference.
        FFloorF32 { rd, rs1 } => run(fx, site, true, |fx| ops32::round(fx, rd, rs1, Unary::Floor)),
        FCeilF32 { rd, rs1 } => run(fx, site, true, |fx| ops32::round(fx, rd, rs1, Unary::Ceil)),
        FTruncF32 { rd, rs1 } => run(fx, site, true, |fx| ops32::round(fx, rd, rs1, Unary::Trunc)),
        FRoundF32 { rd, rs1 } => run(fx, site, true, |fx| ops32::round(fx, rd, rs1, Unary::Nearest)),
        FFractF32 { rd, rs1 } => run(fx, site, true, |fx| ops32::fract(fx, rd, rs1)),
    }
}

/// The instructions whose lowering reads f32 sources as they are, NaN payloads and all (`Fx::v_float`): f32
/// arithmetic gives a NaN whenever a source is one, and makes that NaN canonical itself (or, with sat, +0).
/// Before any other instruction the registers' NaNs are made canonical.
pub fn reads_raw_nans(insn: &lanejit_isa::Insn) -> bool {
    use VfloatInsn::*;
    let lanejit_isa::Insn::Vfloat(i) = insn else { return false };
    matches!(
        i,
        FAddF32 { .. }
            | FSubF32 { .. }
            | FMulF32 { .. }
            | FDivF32 { .. }
            | FFmaF32 { .. }
            | FSqrtF32 { .. }
            | FAddKF32 { .. }
            | FMulKF32 { .. }
            | FFmaKF32 { .. }
            | FFmaKaF32 { .. }
    )
}

/// The fcsr bits that select the host's own float behaviour when zero: rm = rne, no f32 flush.
fn plain_bits() -> u32 {
    lanejit_isa::float_mode::FRM.union(lanejit_isa::float_mode::FTZ32).fcsr_mask()
}

/// Blocks with float instructions check fcsr once, at their start: a block whose fcsr is not plain (rne, no
/// f32 flush) leaves for the interpreter at `start` (the interpreter runs such code instruction by
/// instruction), so the float instructions inside need no check of their own until something in the block
/// writes fcsr (`Fx::fcsr_plain`).
pub fn guard_block(fx: &mut Fx, ops: &[crate::blocks::Op], start: u32) {
    fx.set_fcsr_plain(false);
    if !ops.iter().any(|o| matches!(o.insn, lanejit_isa::Insn::Vfloat(_))) {
        return;
    }
    let state = fx.state();
    let fcsr = fx.b.ins().load(I32, flags(), state, FCSR_OFFSET);
    let bits = fx.b.ins().band_imm_u(fcsr, plain_bits() as i64);
    let (run, out) = (fx.b.create_block(), fx.b.create_block());
    fx.b.set_cold_block(out);
    fx.b.ins().brif(bits, out, &[], run, &[]);
    fx.b.switch_to_block(out);
    fx.exit(crate::abi::Exit::Interpret, start);
    fx.b.switch_to_block(run);
    fx.set_fcsr_plain(true);
}

/// Emits `native` when `supported` (else the interpreter runs the instruction), guarded by the fcsr fields
/// the instruction's result depends on (the YAML's `fmode`, operand values applied): the native path is the
/// host's behaviour, rne without flush, so it runs when those fields are all zero; otherwise a cold call to
/// the interpreter runs this one instruction, and both paths meet after it.
fn run(fx: &mut Fx, site: &Site, supported: bool, native: impl FnOnce(&mut Fx)) -> Lowered {
    if !supported {
        return Lowered::Interpret;
    }
    let insn = fx.current().expect("lowering an instruction");
    let mask = insn.float_modes().fcsr_mask();
    if mask == 0 || fx.fcsr_plain() && mask & !plain_bits() == 0 {
        native(fx);
        return Lowered::Native;
    }
    // fcsr is never cached: only interpreter calls write it, and a call is a barrier for this load.
    let state = fx.state();
    let fcsr = fx.b.ins().load(I32, flags(), state, FCSR_OFFSET);
    let bits = fx.b.ins().band_imm_u(fcsr, mask as i64);
    let (fast, slow, join) = (fx.b.create_block(), fx.b.create_block(), fx.b.create_block());
    fx.b.set_cold_block(slow);
    fx.b.ins().brif(bits, slow, &[], fast, &[]);
    fx.b.switch_to_block(slow);
    fx.call_interpreter(site.pc, site.index);
    fx.b.ins().jump(join, &[]);
    fx.b.switch_to_block(fast);
    native(fx);
    fx.b.ins().jump(join, &[]);
    fx.b.switch_to_block(join);
    Lowered::Native
}
