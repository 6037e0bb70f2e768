//! Group `cmp`: JIT lowering. Every instruction is listed; those not lowered natively are executed by the
//! interpreter from compiled code (`Lowered::Helper`).

use super::Lowered;
use crate::fx::Fx;
use lanejit_isa::CmpInsn;

pub fn lower(_fx: &mut Fx, i: &CmpInsn) -> Lowered {
    use CmpInsn::*;
    match i {
        CmpEqI32 { .. } |
        CmpNeI32 { .. } |
        CmpLtI32 { .. } |
        CmpLeI32 { .. } |
        CmpGtI32 { .. } |
        CmpGeI32 { .. } |
        CmpLtU32 { .. } |
        CmpLeU32 { .. } |
        CmpGtU32 { .. } |
        CmpGeU32 { .. } |
        CmpEqF32 { .. } |
        CmpNeF32 { .. } |
        CmpLtF32 { .. } |
        CmpLeF32 { .. } |
        CmpGtF32 { .. } |
        CmpGeF32 { .. } |
        CmpOF32 { .. } |
        CmpUF32 { .. } |
        CmpClassF32 { .. } |
        CmpEqF64 { .. } |
        CmpNeF64 { .. } |
        CmpLtF64 { .. } |
        CmpLeF64 { .. } |
        CmpGtF64 { .. } |
        CmpGeF64 { .. } |
        CmpOF64 { .. } |
        CmpUF64 { .. } |
        CmpClassF64 { .. } |
        CmpEqI32Vu { .. } |
        CmpNeI32Vu { .. } |
        CmpLtI32Vu { .. } |
        CmpLeI32Vu { .. } |
        CmpGtI32Vu { .. } |
        CmpGeI32Vu { .. } |
        CmpLtU32Vu { .. } |
        CmpLeU32Vu { .. } |
        CmpGtU32Vu { .. } |
        CmpGeU32Vu { .. } |
        CmpEqF32Vu { .. } |
        CmpNeF32Vu { .. } |
        CmpLtF32Vu { .. } |
        CmpLeF32Vu { .. } |
        CmpGtF32Vu { .. } |
        CmpGeF32Vu { .. } |
        CmpOF32Vu { .. } |
        CmpUF32Vu { .. } |
        CmpClassF32Vu { .. } |
        CmpEqF64Vu { .. } |
        CmpNeF64Vu { .. } |
        CmpLtF64Vu { .. } |
        CmpLeF64Vu { .. } |
        CmpGtF64Vu { .. } |
        CmpGeF64Vu { .. } |
        CmpOF64Vu { .. } |
        CmpUF64Vu { .. } |
        CmpClassF64Vu { .. } |
        CmpEqI32Vi { .. } |
        CmpNeI32Vi { .. } |
        CmpLtI32Vi { .. } |
        CmpLeI32Vi { .. } |
        CmpGtI32Vi { .. } |
        CmpGeI32Vi { .. } |
        CmpLtU32Vi { .. } |
        CmpLeU32Vi { .. } |
        CmpGtU32Vi { .. } |
        CmpGeU32Vi { .. } |
        CmpClassF32Vi { .. } |
        CmpClassnF32Vi { .. } |
        CmpClassF64Vi { .. } |
        CmpClassnF64Vi { .. } |
        HAddF16 { .. } |
        HSubF16 { .. } |
        HMulF16 { .. } |
        HFmaF16 { .. } |
        HMinF16 { .. } |
        HMaxF16 { .. } |
        HPkAddF16 { .. } |
        HPkSubF16 { .. } |
        HPkMulF16 { .. } |
        HPkFmaF16 { .. } |
        HPkMinF16 { .. } |
        HPkMaxF16 { .. } |
        HcmpEqF16 { .. } |
        HcmpNeF16 { .. } |
        HcmpLtF16 { .. } |
        HcmpLeF16 { .. } |
        HcmpGtF16 { .. } |
        HcmpGeF16 { .. } |
        HcmpOF16 { .. } |
        HcmpUF16 { .. } |
        HcmpClassF16 { .. } => Lowered::Helper,
    }
}
