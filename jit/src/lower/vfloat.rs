//! Group `vfloat`: JIT lowering. Every instruction is listed; those not lowered natively are executed by the
//! interpreter from compiled code (`Lowered::Interpret`).
//!
//! Cranelift's float operations are IEEE binary32/64 rounding to nearest even on unflushed operands, which is
//! exactly the interpreter's host path (`interp/src/fp`) for `FpMode { round: Rne, flush32: false }`. So an
//! instruction runs natively only in the mode its result depends on, decided at run time per instruction:
//! fcsr is loaded from the state and `fcsr & mask == want` picks the native path, anything else calls the
//! interpreter for that one instruction (`Guard`). The mask holds only the fcsr bits the result depends on:
//! the rounding mode when the instruction's `rm` is `dyn`, the f32 flush bit when a subnormal f32 input or
//! result could differ (f64 is never flushed). A static `rm` other than `rne` is Helper at compile time,
//! except for f32 → int, where rtz/rdn/rup are exact roundings (trunc/floor/ceil).
//!
//! Helper, and why: f16 conversions (no vector f16 in Cranelift), f64 → int (no saturating F64X2 → I32X4
//! conversion on x64), rounding with rmm (no ties-away vector rounding), exp2/log2/sin/cos (the shared
//! reference is pure-Rust libm in f64). rcp and rsq are native: the ISA defines them as one f64 division
//! (after a sqrt) rounded once to f32, which F64X2 operations reproduce exactly.

mod ops32;
mod ops64;

use super::{Lowered, Site};
use crate::fx::{flags, Fx};
use cranelift_codegen::ir::{condcodes::IntCC, types::*, InstBuilder};
use lanejit_interp::fpmode::{FCSR_FLUSH32, FCSR_RM_MASK};
use lanejit_interp::WaveState;
use lanejit_isa::{Rm, VfloatInsn};
use ops32::{Bin, Mods, ToInt, Unary};

const FCSR_OFFSET: i32 = std::mem::offset_of!(WaveState, fcsr) as i32;

/// The native path runs when `fcsr & mask == want` (fcsr's rm field holds rne = 0 when it matters).
#[derive(Clone, Copy)]
struct Guard {
    mask: u32,
    want: u32,
}

/// No fcsr dependence: the result is the same in every mode.
const ALWAYS: Guard = Guard { mask: 0, want: 0 };
/// Subnormal inputs or results matter: f32 flush must be off.
const NO_FLUSH: Guard = Guard { mask: FCSR_FLUSH32, want: 0 };
/// `rm = dyn` where flushing cannot change the result: fcsr.frm must be rne.
const DYN_RNE: Guard = Guard { mask: FCSR_RM_MASK, want: 0 };
/// `rm = dyn` arithmetic: rne and no f32 flush.
const DYN_RNE_NO_FLUSH: Guard = Guard { mask: FCSR_RM_MASK | FCSR_FLUSH32, want: 0 };

/// Rounded arithmetic (subnormal inputs and results matter): rne without flush; None for other static modes.
fn arith(rm: Rm) -> Option<Guard> {
    match rm {
        Rm::Rne => Some(NO_FLUSH),
        Rm::Dyn => Some(DYN_RNE_NO_FLUSH),
        Rm::Rtz | Rm::Rdn | Rm::Rup | Rm::Rmm => None,
    }
}

/// f64 arithmetic: no flush control, so only the rounding mode matters.
fn arith64(rm: Rm) -> Option<Guard> {
    match rm {
        Rm::Rne => Some(ALWAYS),
        Rm::Dyn => Some(DYN_RNE),
        Rm::Rtz | Rm::Rdn | Rm::Rup | Rm::Rmm => None,
    }
}

/// int → f32: the result is never subnormal and the input is an integer, so only the rounding mode matters.
fn from_int(rm: Rm) -> Option<Guard> {
    match rm {
        Rm::Rne => Some(ALWAYS),
        Rm::Dyn => Some(DYN_RNE),
        Rm::Rtz | Rm::Rdn | Rm::Rup | Rm::Rmm => None,
    }
}

/// f32 → int: the rounding to an integral value and its guard. A flushed subnormal (±0) and the unflushed one
/// give the same integer (0) under rne and rtz, but not under rdn (floor(-tiny) = -1) or rup (ceil(tiny) = 1).
fn to_int(rm: Rm) -> Option<(Guard, Unary)> {
    match rm {
        Rm::Rne => Some((ALWAYS, Unary::Nearest)),
        Rm::Rtz => Some((ALWAYS, Unary::Trunc)),
        Rm::Rdn => Some((NO_FLUSH, Unary::Floor)),
        Rm::Rup => Some((NO_FLUSH, Unary::Ceil)),
        Rm::Dyn => Some((DYN_RNE, Unary::Nearest)),
        Rm::Rmm => None,
    }
}

pub fn lower(fx: &mut Fx, i: &VfloatInsn, site: &Site) -> Lowered {
    use VfloatInsn::*;
    let m = |neg, abs, sat| Mods { neg, abs, sat };
    match *i {
        // --- f32 arithmetic (X, 0x21)
        FAddF32 { rd, rs1, rs2, neg, abs, sat, rm } => {
            run(fx, site, arith(rm), |fx| ops32::bin(fx, rd, rs1, rs2, m(neg, abs, sat), Bin::Add))
        }
        FSubF32 { rd, rs1, rs2, neg, abs, sat, rm } => {
            run(fx, site, arith(rm), |fx| ops32::bin(fx, rd, rs1, rs2, m(neg, abs, sat), Bin::Sub))
        }
        FMulF32 { rd, rs1, rs2, neg, abs, sat, rm } => {
            run(fx, site, arith(rm), |fx| ops32::bin(fx, rd, rs1, rs2, m(neg, abs, sat), Bin::Mul))
        }
        FDivF32 { rd, rs1, rs2, neg, abs, sat, rm } => {
            run(fx, site, arith(rm), |fx| ops32::bin(fx, rd, rs1, rs2, m(neg, abs, sat), Bin::Div))
        }
        FFmaF32 { rd, rs1, rs2, rs3, neg, abs, sat, rm } => {
            run(fx, site, arith(rm), |fx| ops32::fma(fx, rd, [rs1, rs2, rs3], m(neg, abs, sat)))
        }
        FSqrtF32 { rd, rs1, neg, abs, sat, rm } => {
            run(fx, site, arith(rm), |fx| ops32::sqrt(fx, rd, rs1, m(neg, abs, sat)))
        }
        // min/max do not round: only the flush of their inputs matters.
        FMinF32 { rd, rs1, rs2, neg, abs, sat } => {
            run(fx, site, Some(NO_FLUSH), |fx| ops32::bin(fx, rd, rs1, rs2, m(neg, abs, sat), Bin::Min))
        }
        FMaxF32 { rd, rs1, rs2, neg, abs, sat } => {
            run(fx, site, Some(NO_FLUSH), |fx| ops32::bin(fx, rd, rs1, rs2, m(neg, abs, sat), Bin::Max))
        }
        // --- f64 arithmetic (X, 0x23): pairs
        FAddF64 { rd, rs1, rs2, neg, abs, sat, rm } => {
            run(fx, site, arith64(rm), |fx| ops64::bin(fx, rd, rs1, rs2, m(neg, abs, sat), Bin::Add))
        }
        FSubF64 { rd, rs1, rs2, neg, abs, sat, rm } => {
            run(fx, site, arith64(rm), |fx| ops64::bin(fx, rd, rs1, rs2, m(neg, abs, sat), Bin::Sub))
        }
        FMulF64 { rd, rs1, rs2, neg, abs, sat, rm } => {
            run(fx, site, arith64(rm), |fx| ops64::bin(fx, rd, rs1, rs2, m(neg, abs, sat), Bin::Mul))
        }
        FDivF64 { rd, rs1, rs2, neg, abs, sat, rm } => {
            run(fx, site, arith64(rm), |fx| ops64::bin(fx, rd, rs1, rs2, m(neg, abs, sat), Bin::Div))
        }
        FFmaF64 { rd, rs1, rs2, rs3, neg, abs, sat, rm } => {
            run(fx, site, arith64(rm), |fx| ops64::fma(fx, rd, [rs1, rs2, rs3], m(neg, abs, sat)))
        }
        FSqrtF64 { rd, rs1, neg, abs, sat, rm } => {
            run(fx, site, arith64(rm), |fx| ops64::sqrt(fx, rd, rs1, m(neg, abs, sat)))
        }
        FMinF64 { rd, rs1, rs2, neg, abs, sat } => {
            run(fx, site, Some(ALWAYS), |fx| ops64::bin(fx, rd, rs1, rs2, m(neg, abs, sat), Bin::Min))
        }
        FMaxF64 { rd, rs1, rs2, neg, abs, sat } => {
            run(fx, site, Some(ALWAYS), |fx| ops64::bin(fx, rd, rs1, rs2, m(neg, abs, sat), Bin::Max))
        }
        // --- conversions (X, 0x25)
        FCvtF32I32 { rd, rs1, rm } => run(fx, site, from_int(rm), |fx| ops32::from_int(fx, rd, rs1, true)),
        FCvtF32U32 { rd, rs1, rm } => run(fx, site, from_int(rm), |fx| ops32::from_int(fx, rd, rs1, false)),
        FCvtI32F32 { rd, rs1, neg, abs, rm } => match to_int(rm) {
            Some((g, r)) => run(fx, site, Some(g), |fx| ops32::to_int(fx, rd, rs1, m(neg, abs, false), r, ToInt::I32)),
            None => Lowered::Interpret,
        },
        FCvtU32F32 { rd, rs1, neg, abs, rm } => match to_int(rm) {
            Some((g, r)) => run(fx, site, Some(g), |fx| ops32::to_int(fx, rd, rs1, m(neg, abs, false), r, ToInt::U32)),
            None => Lowered::Interpret,
        },
        FCvtF16F32 { .. } | FCvtF32F16 { .. } | FCvtPkF16F32 { .. } | FCvtF16F64 { .. } => Lowered::Interpret,
        // Widening is exact, but an f32 subnormal input is flushed under ftz32.
        FCvtF64F32 { rd, rs1, neg, abs } => {
            run(fx, site, Some(NO_FLUSH), |fx| ops64::from_f32(fx, rd, rs1, m(neg, abs, false)))
        }
        // Narrowing rounds, and ftz32 flushes a subnormal f32 result.
        FCvtF32F64 { rd, rs1, neg, abs, rm } => {
            run(fx, site, arith(rm), |fx| ops64::to_f32(fx, rd, rs1, m(neg, abs, false)))
        }
        FCvtF64I32 { rd, rs1 } => run(fx, site, Some(ALWAYS), |fx| ops64::from_int(fx, rd, rs1, true)),
        FCvtF64U32 { rd, rs1 } => run(fx, site, Some(ALWAYS), |fx| ops64::from_int(fx, rd, rs1, false)),
        FCvtI32F64 { .. } | FCvtU32F64 { .. } => Lowered::Interpret,
        // --- f32 with a literal (XL, 0x27): always fcsr.frm
        FAddKF32 { rd, rs1, imm } => run(fx, site, arith(Rm::Dyn), |fx| ops32::bin_k(fx, rd, rs1, imm, Bin::Add)),
        FMulKF32 { rd, rs1, imm } => run(fx, site, arith(Rm::Dyn), |fx| ops32::bin_k(fx, rd, rs1, imm, Bin::Mul)),
        FFmaKF32 { rd, rs1, imm } => run(fx, site, arith(Rm::Dyn), |fx| ops32::fma_k(fx, rd, rs1, imm, false)),
        FFmaKaF32 { rd, rs1, imm } => run(fx, site, arith(Rm::Dyn), |fx| ops32::fma_k(fx, rd, rs1, imm, true)),
        // --- transcendental (R1, 0x20): rne whatever fcsr.frm says; the flush bit applies
        FRcpF32 { rd, rs1 } => run(fx, site, Some(NO_FLUSH), |fx| ops64::recip(fx, rd, rs1, false)),
        FRsqF32 { rd, rs1 } => run(fx, site, Some(NO_FLUSH), |fx| ops64::recip(fx, rd, rs1, true)),
        FExp2F32 { .. } | FLog2F32 { .. } | FSinF32 { .. } | FCosF32 { .. } => Lowered::Interpret,
        // --- rounding to integral (R1, 0x22): exact. A flushed subnormal and the unflushed one truncate and
        // round to the same signed zero; floor/ceil/fract see the difference.
        FFloorF32 { rd, rs1 } => run(fx, site, Some(NO_FLUSH), |fx| ops32::round(fx, rd, rs1, Unary::Floor)),
        FCeilF32 { rd, rs1 } => run(fx, site, Some(NO_FLUSH), |fx| ops32::round(fx, rd, rs1, Unary::Ceil)),
        FTruncF32 { rd, rs1 } => run(fx, site, Some(ALWAYS), |fx| ops32::round(fx, rd, rs1, Unary::Trunc)),
        FRoundF32 { rd, rs1 } => run(fx, site, Some(ALWAYS), |fx| ops32::round(fx, rd, rs1, Unary::Nearest)),
        FFractF32 { rd, rs1 } => run(fx, site, Some(NO_FLUSH), |fx| ops32::fract(fx, rd, rs1)),
    }
}

/// The fcsr bits that select the host's own float behaviour when zero: rm = rne, no f32 flush.
const PLAIN_BITS: u32 = FCSR_RM_MASK | FCSR_FLUSH32;

/// Blocks with float instructions check fcsr once, at their start: a block whose fcsr is not plain (rne, no
/// f32 flush) leaves for the interpreter at `start` (the interpreter runs such code instruction by
/// instruction), so the float instructions inside need no check of their own until something in the block
/// writes fcsr (`Fx::fcsr_plain`).
pub fn guard_block(fx: &mut Fx, ops: &[crate::blocks::Op], start: u32) {
    fx.fcsr_plain = false;
    if !ops.iter().any(|o| matches!(o.insn, lanejit_isa::Insn::Vfloat(_))) {
        return;
    }
    let fcsr = fx.b.ins().load(I32, flags(), fx.state, FCSR_OFFSET);
    let bits = fx.b.ins().band_imm_u(fcsr, PLAIN_BITS as i64);
    let (run, out) = (fx.b.create_block(), fx.b.create_block());
    fx.b.set_cold_block(out);
    fx.b.ins().brif(bits, out, &[], run, &[]);
    fx.b.switch_to_block(out);
    fx.exit(crate::runtime::Exit::Interpret, start);
    fx.b.switch_to_block(run);
    fx.fcsr_plain = true;
}

/// Emits `native` under `guard` (None: Helper). With a non-trivial guard the instruction branches on fcsr at
/// run time: the native path, or a cold call to the interpreter for this instruction; both meet after it.
fn run(fx: &mut Fx, site: &Site, guard: Option<Guard>, native: impl FnOnce(&mut Fx)) -> Lowered {
    let Some(g) = guard else { return Lowered::Interpret };
    if g.mask == 0 || fx.fcsr_plain && g.want == 0 && g.mask & !PLAIN_BITS == 0 {
        native(fx);
        return Lowered::Native;
    }
    // fcsr is never cached: only interpreter calls write it, and a call is a barrier for this load.
    let fcsr = fx.b.ins().load(I32, flags(), fx.state, FCSR_OFFSET);
    let bits = fx.b.ins().band_imm_u(fcsr, g.mask as i64);
    let ok = fx.b.ins().icmp_imm_u(IntCC::Equal, bits, g.want as i64);
    let (fast, slow, join) = (fx.b.create_block(), fx.b.create_block(), fx.b.create_block());
    fx.b.set_cold_block(slow);
    fx.b.ins().brif(ok, fast, &[], slow, &[]);
    fx.b.switch_to_block(slow);
    fx.call_interpreter(site.pc, site.index);
    fx.b.ins().jump(join, &[]);
    fx.b.switch_to_block(fast);
    native(fx);
    fx.b.ins().jump(join, &[]);
    fx.b.switch_to_block(join);
    Lowered::Native
}
