//! Group `cmp`: JIT lowering. Every instruction is listed; those not lowered natively are executed by the
//! interpreter from compiled code (`Lowered::Interpret`).
//!
//! Integer and f32 compares are lowered: one icmp or fcmp per 4-lane slice gives -1/0 lane masks,
//! `Fx::sign_bits` packs them into the 32-bit lane mask, and lanes outside EXEC give 0. The host's f32 compare
//! is exactly the ISA's: IEEE order, -0 == +0, NaNs unordered (signaling ones too: cmpps is quiet), subnormals
//! exact (Rust runs with MXCSR's denormals-are-zero off), and `ne`/`u` the only conditions true when unordered
//! (Cranelift's `NotEqual` is unordered-or-not-equal). f64 compares (pairs), classes and the f16 group stay
//! with the interpreter.

use super::Lowered;
use crate::fx::{Fx, Vec32};
use crate::mutants::active;
use cranelift_codegen::ir::{
    condcodes::{CondCode, FloatCC, IntCC},
    types::*,
    InstBuilder, MemFlagsData, Value,
};
use lanejit_isa::{CmpInsn, UReg, VReg};

pub fn lower(fx: &mut Fx, i: &CmpInsn) -> Lowered {
    use CmpInsn::*;
    use IntCC::*;
    match *i {
        CmpEqI32 { rd, rs1, rs2 } => vv(fx, rd, rs1, rs2, Equal),
        CmpNeI32 { rd, rs1, rs2 } => vv(fx, rd, rs1, rs2, NotEqual),
        // Mutant 25: the signed compare lowered as unsigned.
        CmpLtI32 { rd, rs1, rs2 } => vv(fx, rd, rs1, rs2, if active(25) { UnsignedLessThan } else { SignedLessThan }),
        CmpLeI32 { rd, rs1, rs2 } => vv(fx, rd, rs1, rs2, SignedLessThanOrEqual),
        CmpGtI32 { rd, rs1, rs2 } => vv(fx, rd, rs1, rs2, SignedGreaterThan),
        CmpGeI32 { rd, rs1, rs2 } => vv(fx, rd, rs1, rs2, SignedGreaterThanOrEqual),
        CmpLtU32 { rd, rs1, rs2 } => vv(fx, rd, rs1, rs2, UnsignedLessThan),
        CmpLeU32 { rd, rs1, rs2 } => vv(fx, rd, rs1, rs2, UnsignedLessThanOrEqual),
        CmpGtU32 { rd, rs1, rs2 } => vv(fx, rd, rs1, rs2, UnsignedGreaterThan),
        CmpGeU32 { rd, rs1, rs2 } => vv(fx, rd, rs1, rs2, UnsignedGreaterThanOrEqual),
        CmpEqI32Vu { rd, rs1, rs2 } => vu(fx, rd, rs1, rs2, Equal),
        CmpNeI32Vu { rd, rs1, rs2 } => vu(fx, rd, rs1, rs2, NotEqual),
        CmpLtI32Vu { rd, rs1, rs2 } => vu(fx, rd, rs1, rs2, SignedLessThan),
        CmpLeI32Vu { rd, rs1, rs2 } => vu(fx, rd, rs1, rs2, SignedLessThanOrEqual),
        CmpGtI32Vu { rd, rs1, rs2 } => vu(fx, rd, rs1, rs2, SignedGreaterThan),
        CmpGeI32Vu { rd, rs1, rs2 } => vu(fx, rd, rs1, rs2, SignedGreaterThanOrEqual),
        CmpLtU32Vu { rd, rs1, rs2 } => vu(fx, rd, rs1, rs2, UnsignedLessThan),
        CmpLeU32Vu { rd, rs1, rs2 } => vu(fx, rd, rs1, rs2, UnsignedLessThanOrEqual),
        CmpGtU32Vu { rd, rs1, rs2 } => vu(fx, rd, rs1, rs2, UnsignedGreaterThan),
        CmpGeU32Vu { rd, rs1, rs2 } => vu(fx, rd, rs1, rs2, UnsignedGreaterThanOrEqual),
        // Signed forms get imm sign-extended, unsigned ones zero-extended (the decoder did both).
        CmpEqI32Vi { rd, rs1, imm } => vk(fx, rd, rs1, imm as u32, Equal),
        CmpNeI32Vi { rd, rs1, imm } => vk(fx, rd, rs1, imm as u32, NotEqual),
        CmpLtI32Vi { rd, rs1, imm } => vk(fx, rd, rs1, imm as u32, SignedLessThan),
        // Mutant 26: wrong condition code, le lowered as lt.
        CmpLeI32Vi { rd, rs1, imm } => {
            vk(fx, rd, rs1, imm as u32, if active(26) { SignedLessThan } else { SignedLessThanOrEqual })
        }
        CmpGtI32Vi { rd, rs1, imm } => vk(fx, rd, rs1, imm as u32, SignedGreaterThan),
        CmpGeI32Vi { rd, rs1, imm } => vk(fx, rd, rs1, imm as u32, SignedGreaterThanOrEqual),
        CmpLtU32Vi { rd, rs1, imm } => vk(fx, rd, rs1, imm, UnsignedLessThan),
        CmpLeU32Vi { rd, rs1, imm } => vk(fx, rd, rs1, imm, UnsignedLessThanOrEqual),
        CmpGtU32Vi { rd, rs1, imm } => vk(fx, rd, rs1, imm, UnsignedGreaterThan),
        CmpGeU32Vi { rd, rs1, imm } => vk(fx, rd, rs1, imm, UnsignedGreaterThanOrEqual),
        CmpEqF32 { rd, rs1, rs2 } => fvv(fx, rd, rs1, rs2, FloatCC::Equal),
        CmpNeF32 { rd, rs1, rs2 } => fvv(fx, rd, rs1, rs2, FloatCC::NotEqual),
        CmpLtF32 { rd, rs1, rs2 } => fvv(fx, rd, rs1, rs2, FloatCC::LessThan),
        CmpLeF32 { rd, rs1, rs2 } => fvv(fx, rd, rs1, rs2, FloatCC::LessThanOrEqual),
        CmpGtF32 { rd, rs1, rs2 } => fvv(fx, rd, rs1, rs2, FloatCC::GreaterThan),
        CmpGeF32 { rd, rs1, rs2 } => fvv(fx, rd, rs1, rs2, FloatCC::GreaterThanOrEqual),
        CmpOF32 { rd, rs1, rs2 } => fvv(fx, rd, rs1, rs2, FloatCC::Ordered),
        CmpUF32 { rd, rs1, rs2 } => fvv(fx, rd, rs1, rs2, FloatCC::Unordered),
        CmpEqF32Vu { rd, rs1, rs2 } => fvu(fx, rd, rs1, rs2, FloatCC::Equal),
        CmpNeF32Vu { rd, rs1, rs2 } => fvu(fx, rd, rs1, rs2, FloatCC::NotEqual),
        CmpLtF32Vu { rd, rs1, rs2 } => fvu(fx, rd, rs1, rs2, FloatCC::LessThan),
        CmpLeF32Vu { rd, rs1, rs2 } => fvu(fx, rd, rs1, rs2, FloatCC::LessThanOrEqual),
        CmpGtF32Vu { rd, rs1, rs2 } => fvu(fx, rd, rs1, rs2, FloatCC::GreaterThan),
        CmpGeF32Vu { rd, rs1, rs2 } => fvu(fx, rd, rs1, rs2, FloatCC::GreaterThanOrEqual),
        CmpOF32Vu { rd, rs1, rs2 } => fvu(fx, rd, rs1, rs2, FloatCC::Ordered),
        CmpUF32Vu { rd, rs1, rs2 } => fvu(fx, rd, rs1, rs2, FloatCC::Unordered),
        CmpClassF32 { .. }
        | CmpEqF64 { .. }
        | CmpNeF64 { .. }
        | CmpLtF64 { .. }
        | CmpLeF64 { .. }
        | CmpGtF64 { .. }
        | CmpGeF64 { .. }
        | CmpOF64 { .. }
        | CmpUF64 { .. }
        | CmpClassF64 { .. }
        | CmpClassF32Vu { .. }
        | CmpEqF64Vu { .. }
        | CmpNeF64Vu { .. }
        | CmpLtF64Vu { .. }
        | CmpLeF64Vu { .. }
        | CmpGtF64Vu { .. }
        | CmpGeF64Vu { .. }
        | CmpOF64Vu { .. }
        | CmpUF64Vu { .. }
        | CmpClassF64Vu { .. }
        | CmpClassF32Vi { .. }
        | CmpClassnF32Vi { .. }
        | CmpClassF64Vi { .. }
        | CmpClassnF64Vi { .. }
        | HAddF16 { .. }
        | HSubF16 { .. }
        | HMulF16 { .. }
        | HFmaF16 { .. }
        | HMinF16 { .. }
        | HMaxF16 { .. }
        | HPkAddF16 { .. }
        | HPkSubF16 { .. }
        | HPkMulF16 { .. }
        | HPkFmaF16 { .. }
        | HPkMinF16 { .. }
        | HPkMaxF16 { .. }
        | HcmpEqF16 { .. }
        | HcmpNeF16 { .. }
        | HcmpLtF16 { .. }
        | HcmpLeF16 { .. }
        | HcmpGtF16 { .. }
        | HcmpGeF16 { .. }
        | HcmpOF16 { .. }
        | HcmpUF16 { .. }
        | HcmpClassF16 { .. } => Lowered::Interpret,
    }
}

/// U[rd] = the lanes in EXEC where the -1/0 masks `m` are set (clear, when `inverted`).
fn set_mask(fx: &mut Fx, rd: UReg, m: Vec32, inverted: bool) -> Lowered {
    let bits = fx.sign_bits(m);
    let bits = if inverted { fx.b.ins().bnot(bits) } else { bits };
    // Mutant 27: the mask is not ANDed with EXEC, so inactive lanes report their compare.
    let bits = if active(27) { bits } else { fx.and_exec(bits) };
    fx.set_u(rd, bits);
    Lowered::Native
}

/// The condition to compare lanes with, and whether the lane mask it gives must be complemented. x86 has one
/// instruction for eq and signed gt/lt, two for unsigned le/ge (min or max, then eq), and no other: ne, signed
/// le/ge and unsigned lt/gt each cost a vector NOT (and an all-ones constant) per 4-lane slice. Their
/// complements are compared instead and the 32-bit mask complemented once (integers have no unordered case).
fn host_condition(cc: IntCC) -> (IntCC, bool) {
    use IntCC::*;
    match cc {
        NotEqual | SignedLessThanOrEqual | SignedGreaterThanOrEqual | UnsignedLessThan | UnsignedGreaterThan => {
            (cc.complement(), true)
        }
        _ => (cc, false),
    }
}

/// s1 `cc` s2 per lane.
fn vv(fx: &mut Fx, rd: UReg, rs1: VReg, rs2: VReg, cc: IntCC) -> Lowered {
    let (a, b) = (fx.v(rs1), fx.v(rs2));
    let (cc, inverted) = host_condition(cc);
    let m = fx.map2(a, b, |b, x, y| b.ins().icmp(cc, x, y));
    set_mask(fx, rd, m, inverted)
}

/// s1 `cc` y, y one I32X4 with the same value in every lane.
fn vy(fx: &mut Fx, rd: UReg, rs1: VReg, y: Value, cc: IntCC) -> Lowered {
    let a = fx.v(rs1);
    let (cc, inverted) = host_condition(cc);
    let m = a.map(|x| fx.b.ins().icmp(cc, x, y));
    set_mask(fx, rd, m, inverted)
}

/// s1 `cc` U[rs2].
fn vu(fx: &mut Fx, rd: UReg, rs1: VReg, rs2: UReg, cc: IntCC) -> Lowered {
    let u = fx.u(rs2);
    let y = fx.b.ins().splat(I32X4, u);
    vy(fx, rd, rs1, y, cc)
}

/// s1 `cc` k, k the immediate extended to 32 bits.
fn vk(fx: &mut Fx, rd: UReg, rs1: VReg, k: u32, cc: IntCC) -> Lowered {
    let y = fx.kvec(k);
    vy(fx, rd, rs1, y, cc)
}

fn as_f32(fx: &mut Fx, x: Value) -> Value {
    fx.b.ins().bitcast(F32X4, MemFlagsData::new(), x)
}

/// s1 `cc` s2 per lane, as f32.
fn fvv(fx: &mut Fx, rd: UReg, rs1: VReg, rs2: VReg, cc: FloatCC) -> Lowered {
    let (a, b) = (fx.v(rs1), fx.v(rs2));
    let m = std::array::from_fn(|k| {
        let (x, y) = (as_f32(fx, a[k]), as_f32(fx, b[k]));
        fx.b.ins().fcmp(cc, x, y)
    });
    set_mask(fx, rd, m, false)
}

/// s1 `cc` U[rs2] per lane, as f32.
fn fvu(fx: &mut Fx, rd: UReg, rs1: VReg, rs2: UReg, cc: FloatCC) -> Lowered {
    let a = fx.v(rs1);
    let u = fx.u(rs2);
    let y = fx.b.ins().splat(I32X4, u);
    let y = as_f32(fx, y);
    let m = a.map(|x| {
        let x = as_f32(fx, x);
        fx.b.ins().fcmp(cc, x, y)
    });
    set_mask(fx, rd, m, false)
}
