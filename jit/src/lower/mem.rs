//! Group `mem`: JIT lowering. Every instruction is listed; those not lowered natively are executed by the
//! interpreter from compiled code (`Lowered::Helper`).

use super::Lowered;
use crate::fx::Fx;
use lanejit_isa::MemInsn;

pub fn lower(_fx: &mut Fx, i: &MemInsn) -> Lowered {
    use MemInsn::*;
    match i {
        LdU8 { .. } |
        LdS8 { .. } |
        LdU16 { .. } |
        LdS16 { .. } |
        LdB32 { .. } |
        LdB64 { .. } |
        LdB96 { .. } |
        LdB128 { .. } |
        StB8 { .. } |
        StB16 { .. } |
        StB32 { .. } |
        StB64 { .. } |
        StB96 { .. } |
        StB128 { .. } |
        LdA64U8 { .. } |
        LdA64S8 { .. } |
        LdA64U16 { .. } |
        LdA64S16 { .. } |
        LdA64B32 { .. } |
        LdA64B64 { .. } |
        LdA64B96 { .. } |
        LdA64B128 { .. } |
        StA64B8 { .. } |
        StA64B16 { .. } |
        StA64B32 { .. } |
        StA64B64 { .. } |
        StA64B96 { .. } |
        StA64B128 { .. } |
        AtomAddU32 { .. } |
        AtomSubU32 { .. } |
        AtomMinI32 { .. } |
        AtomMaxI32 { .. } |
        AtomMinU32 { .. } |
        AtomMaxU32 { .. } |
        AtomAndB32 { .. } |
        AtomOrB32 { .. } |
        AtomXorB32 { .. } |
        AtomXchgB32 { .. } |
        AtomCasB32 { .. } |
        AtomIncU32 { .. } |
        AtomDecU32 { .. } |
        AtomFaddF32 { .. } |
        AtomA64AddU32 { .. } |
        AtomA64SubU32 { .. } |
        AtomA64MinI32 { .. } |
        AtomA64MaxI32 { .. } |
        AtomA64MinU32 { .. } |
        AtomA64MaxU32 { .. } |
        AtomA64AndB32 { .. } |
        AtomA64OrB32 { .. } |
        AtomA64XorB32 { .. } |
        AtomA64XchgB32 { .. } |
        AtomA64CasB32 { .. } |
        AtomA64IncU32 { .. } |
        AtomA64DecU32 { .. } |
        AtomA64FaddF32 { .. } |
        ULdB32 { .. } |
        ULdB64 { .. } |
        ULdB128 { .. } |
        ULdB256 { .. } |
        UStB32 { .. } |
        UStB64 { .. } |
        ImgLoad { .. } |
        ImgStore { .. } |
        ImgSample { .. } |
        ImgQuery { .. } => Lowered::Helper,
    }
}
