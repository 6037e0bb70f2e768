//! Group `vfloat`: JIT lowering. Every instruction is listed; those not lowered natively are executed by the
//! interpreter from compiled code (`Lowered::Helper`).

use super::Lowered;
use crate::fx::Fx;
use lanejit_isa::VfloatInsn;

pub fn lower(_fx: &mut Fx, i: &VfloatInsn) -> Lowered {
    use VfloatInsn::*;
    match i {
        FAddF32 { .. } |
        FSubF32 { .. } |
        FMulF32 { .. } |
        FFmaF32 { .. } |
        FDivF32 { .. } |
        FSqrtF32 { .. } |
        FMinF32 { .. } |
        FMaxF32 { .. } |
        FAddF64 { .. } |
        FSubF64 { .. } |
        FMulF64 { .. } |
        FFmaF64 { .. } |
        FDivF64 { .. } |
        FSqrtF64 { .. } |
        FMinF64 { .. } |
        FMaxF64 { .. } |
        FCvtF32I32 { .. } |
        FCvtF32U32 { .. } |
        FCvtI32F32 { .. } |
        FCvtU32F32 { .. } |
        FCvtF16F32 { .. } |
        FCvtF32F16 { .. } |
        FCvtPkF16F32 { .. } |
        FCvtF64F32 { .. } |
        FCvtF32F64 { .. } |
        FCvtF64I32 { .. } |
        FCvtF64U32 { .. } |
        FCvtI32F64 { .. } |
        FCvtU32F64 { .. } |
        FCvtF16F64 { .. } |
        FAddKF32 { .. } |
        FMulKF32 { .. } |
        FFmaKF32 { .. } |
        FFmaKaF32 { .. } |
        FRcpF32 { .. } |
        FRsqF32 { .. } |
        FExp2F32 { .. } |
        FLog2F32 { .. } |
        FSinF32 { .. } |
        FCosF32 { .. } |
        FFloorF32 { .. } |
        FCeilF32 { .. } |
        FTruncF32 { .. } |
        FRoundF32 { .. } |
        FFractF32 { .. } => Lowered::Helper,
    }
}
