//! Group `uniform`: JIT lowering. Every instruction is listed; those not lowered natively are executed by the
//! interpreter from compiled code (`Lowered::Helper`).

use super::Lowered;
use crate::fx::Fx;
use lanejit_isa::UniformInsn;

pub fn lower(_fx: &mut Fx, i: &UniformInsn) -> Lowered {
    use UniformInsn::*;
    match i {
        UAdd { .. } |
        USub { .. } |
        UMul { .. } |
        UMulhi { .. } |
        UMulhiU { .. } |
        UDiv { .. } |
        UDivU { .. } |
        URem { .. } |
        URemU { .. } |
        UAnd { .. } |
        UOr { .. } |
        UXor { .. } |
        UAndn { .. } |
        UOrn { .. } |
        UShl { .. } |
        UShr { .. } |
        USra { .. } |
        UMin { .. } |
        UMax { .. } |
        UMinU { .. } |
        UMaxU { .. } |
        USeq { .. } |
        USne { .. } |
        USlt { .. } |
        USle { .. } |
        USltU { .. } |
        USleU { .. } |
        UBfeU { .. } |
        UBfeS { .. } |
        UAddU64 { .. } |
        USubU64 { .. } |
        UAddU64U32 { .. } |
        UAddU64I32 { .. } |
        UShlU64 { .. } |
        UShrU64 { .. } |
        UMulWideU32 { .. } |
        UMulWideI32 { .. } |
        UAddI { .. } |
        UMulI { .. } |
        UAndI { .. } |
        UOrI { .. } |
        UXorI { .. } |
        UShlI { .. } |
        UShrI { .. } |
        USraI { .. } |
        USeqI { .. } |
        USneI { .. } |
        USltI { .. } |
        USltUI { .. } |
        USgtI { .. } |
        USgtUI { .. } |
        UMinI { .. } |
        UMaxI { .. } |
        UMovK { .. } |
        UAddK { .. } |
        UMulK { .. } |
        UMulhiK { .. } |
        UMulhiUK { .. } |
        UAndK { .. } |
        UOrK { .. } |
        UXorK { .. } |
        UMinK { .. } |
        UMaxK { .. } |
        UMinUK { .. } |
        UMaxUK { .. } |
        USeqK { .. } |
        USneK { .. } |
        USltK { .. } |
        USgtK { .. } |
        USltUK { .. } |
        USgtUK { .. } |
        UBfeUK { .. } |
        UBfeSK { .. } |
        UAddU64K { .. } |
        ULi { .. } |
        ULui { .. } |
        UPcrel { .. } |
        UMov { .. } |
        UNot { .. } |
        UNeg { .. } |
        UPopc { .. } |
        UClz { .. } |
        UCtz { .. } |
        UBrev { .. } |
        USextB { .. } |
        USextH { .. } |
        UZextB { .. } |
        UZextH { .. } |
        UWqm { .. } |
        UMovU64 { .. } |
        ExecGet { .. } |
        ExecSet { .. } |
        ExecAndSave { .. } |
        ExecAndnSave { .. } |
        ExecOrSave { .. } |
        ExecWqm { .. } |
        ExecElect { .. } |
        CsrR { .. } |
        CsrRw { .. } |
        CsrRs { .. } |
        CsrRc { .. } |
        CsrRwi { .. } |
        CsrRsi { .. } |
        CsrRci { .. } => Lowered::Helper,
    }
}
