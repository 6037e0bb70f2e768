//! Group `xlane`: JIT lowering. Every instruction is listed; those not lowered natively are executed by the
//! interpreter from compiled code (`Lowered::Helper`).

use super::Lowered;
use crate::fx::Fx;
use lanejit_isa::XlaneInsn;

pub fn lower(_fx: &mut Fx, i: &XlaneInsn) -> Lowered {
    use XlaneInsn::*;
    match i {
        ShflIdx { .. } |
        ShflUp { .. } |
        ShflDown { .. } |
        ShflXor { .. } |
        ShflRot { .. } |
        ShflUpVi { .. } |
        ShflDownVi { .. } |
        ShflXorVi { .. } |
        ShflRotVi { .. } |
        ShflBcastVi { .. } |
        ShflBcastVu { .. } |
        ShflUpVu { .. } |
        ShflDownVu { .. } |
        ShflXorVu { .. } |
        ShflRotVu { .. } |
        QuadSwizzle { .. } |
        Writelane { .. } |
        Readfirst { .. } |
        Readlane { .. } |
        ReadlaneU { .. } |
        FddxFineF32 { .. } |
        FddxCoarseF32 { .. } |
        FddyFineF32 { .. } |
        FddyCoarseF32 { .. } |
        XscanAddU32 { .. } |
        Ballot { .. } |
        VoteAny { .. } |
        VoteAll { .. } |
        VoteEq { .. } |
        XredAddU32 { .. } |
        XredMinI32 { .. } |
        XredMaxI32 { .. } |
        XredMinU32 { .. } |
        XredMaxU32 { .. } |
        XredAndB32 { .. } |
        XredOrB32 { .. } |
        XredXorB32 { .. } => Lowered::Helper,
    }
}
