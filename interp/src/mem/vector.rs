//! Vector memory (`M` format): per-lane addresses, the all-lanes checks, then the accesses lane by lane in
//! ascending order (so overlapping stores keep the highest lane's bytes and atomics on one address apply in
//! lane order).

use super::{fault_kind, late_fault, pieces};
use crate::ctx::{Ctx, Flow};
use crate::fp::{self, FpMode};
use crate::memory::MemFault;
use crate::state::{lane_on, WaveState};
use crate::trap::{Trap, TrapKind};
use lanejit_isa::{MemAccess, Sp, UReg, VReg, LANES, VREGS};

/// Most registers one access reads or writes: the YAML's widest access size is 256 bits (the build script
/// refuses wider ones), 32 bits per register.
const MAX_ACCESS_REGS: usize = 256 / 32;

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
    let misaligned = mask_of(lanes_of(exec).filter(|&l| offset_in(addrs[l], w.align as u64) != 0));
    if misaligned != 0 {
        let detail = format!("{}-byte {} access not {}-byte aligned", w.bytes, m.sp.name(), w.align);
        return Err(lane_trap(cx, TrapKind::Misaligned, detail, misaligned, &addrs));
    }
    // A dense access inside one buffer, the usual case, asks the port once for the whole span; any other
    // access asks it for every piece of every active lane, which reports each fault exactly.
    if all_pieces_aligned(exec, &addrs, w.bytes)
        && active_span(exec, &addrs, w.bytes).is_some_and(|(lo, len)| cx.mem.check_span(m.sp, lo, len, write))
    {
        return Ok(addrs);
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

/// The bytes `[lo, lo + len)` from the lowest active lane's address to the end of the highest one's access;
/// `None` without active lanes or when an access wraps around the address space. (Written over all lanes with
/// selects rather than a filtered iterator: this runs for every vector access.)
fn active_span(exec: u32, addrs: &[u64; LANES], bytes: u32) -> Option<(u64, u64)> {
    if exec == 0 {
        return None;
    }
    let (mut lo, mut hi) = (u64::MAX, 0);
    for (l, &a) in addrs.iter().enumerate() {
        let on = lane_on(exec, l);
        lo = if on { lo.min(a) } else { lo };
        hi = if on { hi.max(a) } else { hi };
    }
    let end = hi.checked_add(bytes as u64)?;
    Some((lo, end - lo))
}

/// Is every piece (`pieces`) of every active lane's access naturally aligned? The pieces of an access all
/// have the first one's size and lie at multiples of it, so each lane's address must be a multiple of it.
fn all_pieces_aligned(exec: u32, addrs: &[u64; LANES], bytes: u32) -> bool {
    let size = pieces(bytes).next().map_or(1, |(_, size)| size as u64);
    let mut stray = 0;
    for (l, &a) in addrs.iter().enumerate() {
        stray |= if lane_on(exec, l) { offset_in(a, size) } else { 0 };
    }
    stray == 0
}

/// `a % align`, by a mask when `align` is a power of two as every access size and alignment is (a 64-bit
/// division per lane was the largest cost of a vector access).
fn offset_in(a: u64, align: u64) -> u64 {
    if align.is_power_of_two() {
        a & (align - 1)
    } else {
        a % align
    }
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
    let exec = cx.w.exec;
    // Each lane's bytes, assembled piece by piece (a load has no effect, so the order of pieces is free).
    let mut bytes = [0u128; LANES];
    for (o, size) in pieces(w.bytes) {
        let at: [u64; LANES] = std::array::from_fn(|l| addrs[l].wrapping_add(o));
        let mut piece = [0u64; LANES];
        cx.mem.load_lanes(m.sp, exec, &at, size, &mut piece).map_err(|(l, f)| late_fault(cx, f, 1 << l, at[l]))?;
        for (b, x) in bytes.iter_mut().zip(piece) {
            *b |= (x as u128) << (8 * o);
        }
    }
    let mut out_regs = [[0u32; LANES]; MAX_ACCESS_REGS];
    let out = &mut out_regs[..w.regs()];
    for l in lanes_of(exec) {
        for (k, reg) in out.iter_mut().enumerate() {
            reg[l] = (bytes[l] >> (32 * k)) as u32;
        }
        out[0][l] = extend(out[0][l], w);
    }
    for (k, vals) in out.iter().enumerate() {
        cx.w.write_v(VReg(m.rd.0 + k as u8), vals);
    }
    Ok(Flow::Next)
}

/// Stores the low bytes of v[rd], v[rd+1], … lane by lane, ascending, each lane's pieces in order (so where
/// lanes overlap the highest lane's bytes stay). An access of one piece stores every lane in one call.
pub(super) fn store(cx: &mut Ctx, m: Vm, w: MemAccess) -> Result<Flow, Trap> {
    let addrs = prepare(cx, &m, w, w.regs(), true)?;
    let exec = cx.w.exec;
    let data: [u128; LANES] =
        std::array::from_fn(|l| (0..w.regs()).rev().fold(0u128, |v, k| v << 32 | cx.w.vn(m.rd.idx() + k)[l] as u128));
    // One piece: every lane in one call; several: lane after lane, each lane's pieces before the next lane's.
    let one_piece = pieces(w.bytes).count() == 1;
    let mut left = exec;
    while left != 0 {
        let lanes = if one_piece { left } else { left & left.wrapping_neg() };
        left &= !lanes;
        for (o, size) in pieces(w.bytes) {
            let at: [u64; LANES] = std::array::from_fn(|l| addrs[l].wrapping_add(o));
            let values: [u64; LANES] = std::array::from_fn(|l| (data[l] >> (8 * o)) as u64);
            cx.mem.store_lanes(m.sp, lanes, &at, size, &values).map_err(|(l, f)| late_fault(cx, f, 1 << l, at[l]))?;
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
