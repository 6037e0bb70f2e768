//! Group 5, cross-lane (seed 000). Each handler is the seed's formula; sources are read in every lane, even
//! inactive ones, and vector results are written under EXEC unless the entry is flagged `ei`.

use crate::ctx::{Ctx, Flow};
use crate::fp;
use crate::state::{lane_on, Lanes};
use crate::trap::Trap;
use lanejit_isa::{LaneFormula, UReg, VReg, XlaneInsn, LANES};

/// Executes one cross-lane instruction on the wave in `cx`.
pub fn exec(cx: &mut Ctx, i: &XlaneInsn) -> Result<Flow, Trap> {
    use XlaneInsn::*;
    match *i {
        ShflIdx { rd, rs1, rs2 } => {
            let idx = *cx.w.vr(rs2);
            shuffle(cx, rd, rs1, |l| LaneFormula::Index(idx[l]))
        }
        ShflUp { rd, rs1, rs2 } => {
            let d = *cx.w.vr(rs2);
            shuffle(cx, rd, rs1, |l| LaneFormula::Up(d[l]))
        }
        ShflDown { rd, rs1, rs2 } => {
            let d = *cx.w.vr(rs2);
            shuffle(cx, rd, rs1, |l| LaneFormula::Down(d[l]))
        }
        ShflXor { rd, rs1, rs2 } => {
            let m = *cx.w.vr(rs2);
            shuffle(cx, rd, rs1, |l| LaneFormula::Xor(m[l]))
        }
        ShflRot { rd, rs1, rs2 } => {
            let d = *cx.w.vr(rs2);
            shuffle(cx, rd, rs1, |l| LaneFormula::Rotate(d[l]))
        }
        ShflUpVi { rd, rs1, .. }
        | ShflDownVi { rd, rs1, .. }
        | ShflXorVi { rd, rs1, .. }
        | ShflRotVi { rd, rs1, .. }
        | ShflBcastVi { rd, rs1, .. }
        | QuadSwizzle { rd, rs1, .. } => match i.lane_formula() {
            Some(f) => shuffle(cx, rd, rs1, |_| f),
            None => Err(cx.illegal(format!("{i:?} has no lane formula"))),
        },
        ShflBcastVu { rd, rs1, rs2 } => {
            let u = cx.w.ur(rs2);
            shuffle(cx, rd, rs1, |_| LaneFormula::Index(u))
        }
        ShflUpVu { rd, rs1, rs2 } => {
            let u = cx.w.ur(rs2);
            shuffle(cx, rd, rs1, |_| LaneFormula::Up(u))
        }
        ShflDownVu { rd, rs1, rs2 } => {
            let u = cx.w.ur(rs2);
            shuffle(cx, rd, rs1, |_| LaneFormula::Down(u))
        }
        ShflXorVu { rd, rs1, rs2 } => {
            let u = cx.w.ur(rs2);
            shuffle(cx, rd, rs1, |_| LaneFormula::Xor(u))
        }
        ShflRotVu { rd, rs1, rs2 } => {
            let u = cx.w.ur(rs2);
            shuffle(cx, rd, rs1, |_| LaneFormula::Rotate(u))
        }
        Writelane { rd, rs2, rs1 } => writelane(cx, rd, rs2, rs1),
        Readfirst { rd, rs1 } => {
            let first = if cx.w.exec == 0 { 0 } else { cx.w.exec.trailing_zeros() as usize };
            set_u(cx, rd, cx.w.vr(rs1)[first])
        }
        Readlane { rd, rs1, imm } => set_u(cx, rd, cx.w.vr(rs1)[LaneFormula::Index(imm).source(0)]),
        ReadlaneU { rd, rs1, rs2 } => set_u(cx, rd, cx.w.vr(rs1)[LaneFormula::Index(cx.w.ur(rs2)).source(0)]),
        FddxFineF32 { rd, rs1 } => derivative(cx, rd, rs1, |l| (l | 1, l & !1)),
        FddxCoarseF32 { rd, rs1 } => derivative(cx, rd, rs1, |l| ((l & !3) + 1, l & !3)),
        FddyFineF32 { rd, rs1 } => derivative(cx, rd, rs1, |l| (l | 2, l & !2)),
        FddyCoarseF32 { rd, rs1 } => derivative(cx, rd, rs1, |l| ((l & !3) + 2, l & !3)),
        XscanAddU32 { rd, rs1 } => xscan_add(cx, rd, rs1),
        Ballot { rd, rs1 } => set_u(cx, rd, nonzero_mask(cx, rs1)),
        VoteAny { rd, rs1 } => set_u(cx, rd, (nonzero_mask(cx, rs1) != 0) as u32),
        VoteAll { rd, rs1 } => set_u(cx, rd, (nonzero_mask(cx, rs1) == cx.w.exec) as u32),
        VoteEq { rd, rs1 } => {
            let mut active = active_values(cx, rs1);
            let equal = active.next().is_none_or(|first| active.all(|x| x == first));
            set_u(cx, rd, equal as u32)
        }
        XredAddU32 { rd, rs1 } => reduce(cx, rd, rs1, 0, u32::wrapping_add),
        XredMinI32 { rd, rs1 } => reduce(cx, rd, rs1, i32::MAX as u32, |a, b| (a as i32).min(b as i32) as u32),
        XredMaxI32 { rd, rs1 } => reduce(cx, rd, rs1, i32::MIN as u32, |a, b| (a as i32).max(b as i32) as u32),
        XredMinU32 { rd, rs1 } => reduce(cx, rd, rs1, u32::MAX, u32::min),
        XredMaxU32 { rd, rs1 } => reduce(cx, rd, rs1, 0, u32::max),
        XredAndB32 { rd, rs1 } => reduce(cx, rd, rs1, u32::MAX, |a, b| a & b),
        XredOrB32 { rd, rs1 } => reduce(cx, rd, rs1, 0, |a, b| a | b),
        XredXorB32 { rd, rs1 } => reduce(cx, rd, rs1, 0, |a, b| a ^ b),
    }
}

/// d[l] = pick(l, s1) in the active lanes; `s1` is read whole first, so rd may equal rs1.
fn gather(cx: &mut Ctx, rd: VReg, rs1: VReg, pick: impl Fn(usize, &Lanes) -> u32) -> Result<Flow, Trap> {
    let s = *cx.w.vr(rs1);
    let out: Lanes = std::array::from_fn(|l| pick(l, &s));
    cx.w.write_v(rd, &out);
    Ok(Flow::Next)
}

/// d[l] = s1[formula(l).source(l)] in the active lanes: each lane's formula comes with its own value (a
/// vector operand's lane, or the same uniform or immediate for every lane).
fn shuffle(cx: &mut Ctx, rd: VReg, rs1: VReg, formula: impl Fn(usize) -> LaneFormula) -> Result<Flow, Trap> {
    gather(cx, rd, rs1, |l, s| s[formula(l).source(l)])
}

fn set_u(cx: &mut Ctx, rd: UReg, x: u32) -> Result<Flow, Trap> {
    cx.w.set_u(rd, x);
    Ok(Flow::Next)
}

/// writelane ignores EXEC and traps for a lane number beyond the wave.
fn writelane(cx: &mut Ctx, rd: VReg, rs2: UReg, lane: u32) -> Result<Flow, Trap> {
    if lane as usize >= LANES {
        return Err(cx.illegal(format!("writelane lane {lane} >= {LANES}")));
    }
    cx.w.v[rd.idx()][lane as usize] = cx.w.ur(rs2);
    Ok(Flow::Next)
}

/// d = s1[a(lane)] - s1[b(lane)] in f32 under the float mode (`fm`).
fn derivative(cx: &mut Ctx, rd: VReg, rs1: VReg, pair: impl Fn(usize) -> (usize, usize)) -> Result<Flow, Trap> {
    let mode = crate::fpmode::dyn_mode(cx.w.fcsr);
    gather(cx, rd, rs1, |l, s| {
        let (a, b) = pair(l);
        fp::f32_sub(s[a], s[b], mode)
    })
}

fn xscan_add(cx: &mut Ctx, rd: VReg, rs1: VReg) -> Result<Flow, Trap> {
    let (s, exec) = (*cx.w.vr(rs1), cx.w.exec);
    let mut sum = 0u32;
    let mut out = [0u32; LANES];
    for (l, o) in out.iter_mut().enumerate() {
        if lane_on(exec, l) {
            sum = sum.wrapping_add(s[l]);
            *o = sum;
        }
    }
    cx.w.write_v(rd, &out);
    Ok(Flow::Next)
}

/// Lanes in EXEC where s1 != 0.
fn nonzero_mask(cx: &Ctx, rs1: VReg) -> u32 {
    let s = cx.w.vr(rs1);
    (0..LANES).filter(|&l| s[l] != 0).fold(0, |m, l| m | 1 << l) & cx.w.exec
}

/// The values of s1 in the active lanes, ascending (an iterator: no allocation per instruction).
fn active_values(cx: &Ctx, rs1: VReg) -> impl Iterator<Item = u32> {
    let (s, exec) = (*cx.w.vr(rs1), cx.w.exec);
    (0..LANES).filter(move |&l| lane_on(exec, l)).map(move |l| s[l])
}

/// Folds the active lanes of s1 from `identity` (the result for an empty EXEC).
fn reduce(cx: &mut Ctx, rd: UReg, rs1: VReg, identity: u32, f: impl Fn(u32, u32) -> u32) -> Result<Flow, Trap> {
    let r = active_values(cx, rs1).fold(identity, f);
    set_u(cx, rd, r)
}
