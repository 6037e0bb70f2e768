//! Vector memory (`M` format): per-lane addresses, the all-lanes checks, then the accesses lane by lane in
//! ascending order (so overlapping stores keep the highest lane's bytes and atomics on one address apply in
//! lane order).

use super::{fault_kind, late_fault, pieces};
use crate::ctx::{Ctx, Flow};
use crate::fp::{self, FpMode};
use crate::memory::MemFault;
use crate::state::{lane_on, Lanes, WaveState};
use crate::trap::{Trap, TrapKind};
use lanejit_isa::{MemAccess, Sp, UReg, VReg, LANES, VREGS};

/// How an instruction forms its per-lane address.
#[derive(Clone, Copy)]
pub(super) enum Base {
    /// f2 = 0: u[rs2]:u[rs2+1] + zext(v[rs1]) (global/constant), u[rs2] + v[rs1] mod 2^32 (shared/private).
    Offset { rs1: VReg, rs2: UReg },
    /// f2 = 1 (`.a64`): the lane's pointer v[rs1]:v[rs1+1]; global/constant only.
    Pointer { rs1: VReg },
}

/// The operands every vector memory instruction has; rd is the destination, or the data of a store.
#[derive(Clone, Copy)]
pub(super) struct Vm {
    pub rd: VReg,
    pub base: Base,
    pub imm: i32,
    pub sp: Sp,
}

/// The read-modify-write of an atomic (YAML `access: … atomic=`), shared with the JIT's runtime so that both
/// compute the same word.
pub use lanejit_isa::AtomicOp as AtomOp;

/// The new memory word of atomic `op` from the old one, the lane's data `d` and (cas only) compare value `c`.
pub fn atomic_word(op: AtomOp, old: u32, d: u32, c: u32) -> u32 {
    match op {
        AtomOp::Add => old.wrapping_add(d),
        AtomOp::Sub => old.wrapping_sub(d),
        AtomOp::MinI32 => (old as i32).min(d as i32) as u32,
        AtomOp::MaxI32 => (old as i32).max(d as i32) as u32,
        AtomOp::MinU32 => old.min(d),
        AtomOp::MaxU32 => old.max(d),
        AtomOp::And => old & d,
        AtomOp::Or => old | d,
        AtomOp::Xor => old ^ d,
        AtomOp::Xchg => d,
        // A failed compare writes the old value back: same memory contents, still an (atomic) write.
        AtomOp::Cas => {
            if old == c {
                d
            } else {
                old
            }
        }
        // CUDA atomicInc/atomicDec: count 0..=d then wrap to 0; count d..=0 then wrap to d.
        AtomOp::Inc => {
            if old >= d {
                0
            } else {
                old + 1
            }
        }
        AtomOp::Dec => {
            if old == 0 || old > d {
                d
            } else {
                old - 1
            }
        }
        // Fixed round-to-nearest-even with denormals kept, whatever fcsr says.
        AtomOp::FaddF32 => fp::f32_add(old, d, FpMode::RNE),
    }
}

/// The lanes of `mask`, ascending.
fn lanes_of(mask: u32) -> impl Iterator<Item = usize> {
    (0..LANES).filter(move |&l| lane_on(mask, l))
}

fn mask_of(lanes: impl Iterator<Item = usize>) -> u32 {
    lanes.fold(0, |m, l| m | 1 << l)
}

/// A trap naming `lanes` and, in lane order, their addresses.
fn lane_trap(cx: &Ctx, kind: TrapKind, detail: String, lanes: u32, addrs: &[u64; LANES]) -> Trap {
    cx.trap(kind, detail).with_lanes(lanes).with_addrs(lanes_of(lanes).map(|l| addrs[l]).collect())
}

/// The EXEC-independent IllegalInsn checks, then every lane's address (inactive lanes' are never used).
fn addresses(cx: &Ctx, m: &Vm, regs: usize) -> Result<[u64; LANES], Trap> {
    if m.rd.idx() + regs > VREGS {
        return Err(cx.illegal(format!(
            "register group v{}..v{} runs past v{}",
            m.rd.0,
            m.rd.idx() + regs - 1,
            VREGS - 1
        )));
    }
    match (m.base, m.sp) {
        (Base::Pointer { .. }, Sp::Shared | Sp::Private) => {
            Err(cx.illegal(format!(".a64 with sp={}: per-lane pointers address global memory only", m.sp.name())))
        }
        (Base::Pointer { rs1 }, Sp::Global | Sp::Constant) => {
            let imm = m.imm as i64 as u64;
            Ok(std::array::from_fn(|l| cx.w.v64(rs1, l).wrapping_add(imm)))
        }
        (Base::Offset { rs1, rs2 }, sp) => Ok(offset_addresses(cx.w, rs1, rs2, m.imm, sp)),
    }
}

/// Every lane's address of an access with a uniform base (`f2 = 0`): `u[rs2]:u[rs2+1] + zext(v[rs1]) + sext(imm)`
/// mod 2^64 for global and constant memory; for shared and private memory the offsets are 32-bit, the sum
/// wraps mod 2^32 and `u[rs2+1]` is not read. The JIT's runtime computes its addresses with this too (the
/// formula is decoded once; what the access does stays each engine's own).
pub fn offset_addresses(w: &WaveState, rs1: VReg, rs2: UReg, imm: i32, sp: Sp) -> [u64; LANES] {
    let off = w.vr(rs1);
    match sp {
        Sp::Global | Sp::Constant => {
            let base = w.u64_pair(rs2);
            std::array::from_fn(|l| base.wrapping_add(off[l] as u64).wrapping_add(imm as i64 as u64))
        }
        Sp::Shared | Sp::Private => {
            let base = w.ur(rs2);
            std::array::from_fn(|l| base.wrapping_add(off[l]).wrapping_add(imm as u32) as u64)
        }
    }
}

/// Everything that can trap, in the YAML's order, before any effect: IllegalInsn, write to constant memory,
/// Misaligned (of the whole access), then the port's verdict on every piece of every active lane.
fn prepare(cx: &Ctx, m: &Vm, w: MemAccess, regs: usize, write: bool) -> Result<[u64; LANES], Trap> {
    let addrs = addresses(cx, m, regs)?;
    let exec = cx.w.exec;
    if write && m.sp == Sp::Constant && exec != 0 {
        return Err(lane_trap(cx, TrapKind::MemoryFault, "write to constant memory".into(), exec, &addrs));
    }
    let misaligned = mask_of(lanes_of(exec).filter(|&l| !addrs[l].is_multiple_of(w.align as u64)));
    if misaligned != 0 {
        let detail = format!("{}-byte {} access not {}-byte aligned", w.bytes, m.sp.name(), w.align);
        return Err(lane_trap(cx, TrapKind::Misaligned, detail, misaligned, &addrs));
    }
    let mut faults: [Option<MemFault>; LANES] = [None; LANES];
    for l in lanes_of(exec) {
        faults[l] =
            pieces(w.bytes).find_map(|(o, size)| cx.mem.check(m.sp, l, addrs[l].wrapping_add(o), size, write).err());
    }
    // A Misaligned verdict of the port outranks the others, as in the trap order.
    for kind in [TrapKind::Misaligned, TrapKind::MemoryFault] {
        let bad = mask_of((0..LANES).filter(|&l| faults[l].is_some_and(|f| fault_kind(f) == kind)));
        if bad != 0 {
            let first = faults[bad.trailing_zeros() as usize].map_or("", MemFault::describe);
            let detail = format!("{}-byte {} access: {first}", w.bytes, m.sp.name());
            return Err(lane_trap(cx, kind, detail, bad, &addrs));
        }
    }
    Ok(addrs)
}

/// Sub-dword loads: zero- or sign-extend to 32 bits (the port returns the bytes zero-extended).
fn extend(x: u32, w: MemAccess) -> u32 {
    if w.bytes >= 4 || !w.signed {
        return x;
    }
    let unused = 32 - 8 * w.bytes;
    ((x << unused) as i32 >> unused) as u32
}

/// v[rd+k] = dword k of the lane's access, in the active lanes; registers are written after every lane loaded.
pub(super) fn load(cx: &mut Ctx, m: Vm, w: MemAccess) -> Result<Flow, Trap> {
    let addrs = prepare(cx, &m, w, w.regs(), false)?;
    let mut out = vec![[0u32; LANES]; w.regs()];
    for l in lanes_of(cx.w.exec) {
        let mut v = 0u128;
        for (o, size) in pieces(w.bytes) {
            let a = addrs[l].wrapping_add(o);
            let x = cx.mem.load(m.sp, l, a, size).map_err(|f| late_fault(cx, f, 1 << l, a))?;
            v |= (x as u128) << (8 * o);
        }
        for (k, reg) in out.iter_mut().enumerate() {
            reg[l] = (v >> (32 * k)) as u32;
        }
        out[0][l] = extend(out[0][l], w);
    }
    for (k, vals) in out.iter().enumerate() {
        cx.w.write_v(VReg(m.rd.0 + k as u8), vals);
    }
    Ok(Flow::Next)
}

/// Stores the low bytes of v[rd], v[rd+1], … lane by lane, ascending.
pub(super) fn store(cx: &mut Ctx, m: Vm, w: MemAccess) -> Result<Flow, Trap> {
    let addrs = prepare(cx, &m, w, w.regs(), true)?;
    let data: Vec<Lanes> = (0..w.regs()).map(|k| *cx.w.vn(m.rd.idx() + k)).collect();
    for l in lanes_of(cx.w.exec) {
        let v = data.iter().rev().fold(0u128, |v, reg| v << 32 | reg[l] as u128);
        for (o, size) in pieces(w.bytes) {
            let a = addrs[l].wrapping_add(o);
            cx.mem.store(m.sp, l, a, size, (v >> (8 * o)) as u64).map_err(|f| late_fault(cx, f, 1 << l, a))?;
        }
    }
    Ok(Flow::Next)
}

/// One indivisible read-modify-write per active lane, ascending; v[rd] receives the old word.
pub(super) fn atomic(cx: &mut Ctx, m: Vm, w: MemAccess) -> Result<Flow, Trap> {
    let op = w.atomic.expect("an atomic states its operation");
    // cas reads its compare value from rd+1 (rd is an even pair).
    let regs = if op == AtomOp::Cas { 2 } else { 1 };
    let addrs = prepare(cx, &m, w, regs, true)?;
    let d = *cx.w.vr(m.rd);
    let c = if op == AtomOp::Cas { *cx.w.vn(m.rd.idx() + 1) } else { [0; LANES] };
    let mut old = d;
    for l in lanes_of(cx.w.exec) {
        let r = cx.mem.rmw32(m.sp, l, addrs[l], &mut |x| atomic_word(op, x, d[l], c[l]));
        old[l] = r.map_err(|f| late_fault(cx, f, 1 << l, addrs[l]))?;
    }
    cx.w.write_v(m.rd, &old);
    Ok(Flow::Next)
}
