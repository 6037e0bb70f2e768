//! Atomics with a uniform base (`atom.*.u32` on global or shared memory) inline in optimised code: one host
//! atomic per active lane, lanes ascending as the interpreter goes, when every active lane's word is 4-aligned
//! and inside the instruction's cached window (filled by the runtime the first time it did the atomic itself,
//! `runtime::mem::try_atomic`). All lanes are checked before any is done, at once on the vectors (the largest
//! and the OR of the active offsets), so a lane that would fault leaves memory untouched and the whole
//! instruction goes to the runtime, which has the interpreter report the fault.
//! The lanes are walked by a loop over EXEC's set bits (offsets and data spilled to the stack), not unrolled:
//! one atomic costs a few dozen instructions of code whatever the lane count.
//! Compare-and-swap, inc/dec with wrap and float add have no single host instruction: the runtime does them.
//! Shared memory needs no host atomic at all (one worker thread runs a whole workgroup): a load and a store.

use super::super::{Lowered, Site};
use super::{base_plus_imm, window_check, window_fields};
use crate::access::Atomic;
use crate::fx::{Fx, Vec32, VECS};
use cranelift_codegen::ir::{
    condcodes::IntCC, types::*, AtomicRmwOp, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, Value,
};
use lanejit_interp::mem::AtomOp;
use lanejit_isa::Sp;

/// The host read-modify-write of `op`, if it has one.
fn host_op(op: AtomOp) -> Option<AtomicRmwOp> {
    Some(match op {
        AtomOp::Add => AtomicRmwOp::Add,
        AtomOp::Sub => AtomicRmwOp::Sub,
        AtomOp::MinI32 => AtomicRmwOp::Smin,
        AtomOp::MaxI32 => AtomicRmwOp::Smax,
        AtomOp::MinU32 => AtomicRmwOp::Umin,
        AtomOp::MaxU32 => AtomicRmwOp::Umax,
        AtomOp::And => AtomicRmwOp::And,
        AtomOp::Or => AtomicRmwOp::Or,
        AtomOp::Xor => AtomicRmwOp::Xor,
        AtomOp::Xchg => AtomicRmwOp::Xchg,
        AtomOp::Cas | AtomOp::Inc | AtomOp::Dec | AtomOp::FaddF32 => return None,
    })
}

/// Can `a` run inline in this function (optimised code, a host instruction for its operation, its registers
/// in variables)?
pub fn inline_ok(fx: &Fx, a: &Atomic) -> bool {
    fx.tier() == crate::abi::Tier::Opt && host_op(a.op).is_some() && fx.has_v(a.at.rs1.idx())
}

/// Emits the inline atomic with the runtime as its cold fallback.
pub fn lower(fx: &mut Fx, site: &Site, a: &Atomic) -> Lowered {
    fx.note_lowering(site.pc, crate::abi::Lowering::Native);
    let slot = fx.window_slot(site.pc);
    debug_assert_ne!(slot, crate::abi::NO_SLOT, "every compiled atomic has a window slot");
    let lane_bytes = (4 * VECS * 4) as u32;
    let [offs, data, olds] =
        [0; 3].map(|_| fx.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, lane_bytes, 4)));
    spill(fx, a.at.rs1, offs);
    spill(fx, a.at.rd, data);
    let exec = fx.exec_val();
    // The window is read once, before the lane loop: nothing in it can change it.
    let window = window_fields(fx, slot);
    let base = base_plus_imm(fx, &a.at);
    let lanes = Lanes::new(fx, base, window, a.at.sp);
    let host0 = lanes.host0(fx);
    let entry = fx.dirty();
    let [one_lane, many, apply, done, slow, join] = [(); 6].map(|_| fx.b.create_block());
    fx.b.set_cold_block(slow);
    fx.b.append_block_param(apply, I32);
    // Every active lane inside the window and aligned, or the runtime does the whole instruction: one lane (an
    // atomic by an elected lane, the common case) is checked on its own, more at once on the vectors.
    let less = fx.b.ins().iadd_imm_s(exec, -1);
    let others = fx.b.ins().band(exec, less);
    fx.b.ins().brif(others, many, &[], one_lane, &[]);
    fx.b.switch_to_block(one_lane);
    let ok = lanes.one_ok(fx, offs, exec);
    fx.b.ins().brif(ok, apply, &[exec.into()], slow, &[]);
    fx.b.switch_to_block(many);
    let ok = lanes.check(fx, a.at.rs1);
    fx.b.ins().brif(ok, apply, &[exec.into()], slow, &[]);
    // The host atomics, lanes ascending, each lane's old value kept for rd.
    fx.b.switch_to_block(apply);
    let mask = fx.b.block_params(apply)[0];
    let (lane, rest, more) = next_lane(fx, mask);
    let one = fx.b.create_block();
    fx.b.ins().brif(more, one, &[], done, &[]);
    fx.b.switch_to_block(one);
    let off = lanes.load(fx, offs, lane);
    let off = fx.b.ins().uextend(I64, off);
    let host = fx.b.ins().iadd(host0, off);
    let d = lanes.load(fx, data, lane);
    let op = host_op(a.op).expect("inline_ok checked the operation");
    let old = if a.at.sp == Sp::Shared {
        plain_rmw(fx, op, host, d)
    } else {
        fx.b.ins().atomic_rmw(I32, MemFlagsData::new().with_notrap().with_aligned(), op, host, d)
    };
    // Mutant 139: rd receives the data it sent, not the word's old value.
    let old = if crate::mutants::active(139) { d } else { old };
    let at = lanes.at(fx, olds, lane);
    fx.b.ins().store(MemFlagsData::new().with_notrap(), old, at, 0);
    fx.b.ins().jump(apply, &[rest.into()]);
    fx.b.switch_to_block(done);
    let v = std::array::from_fn(|k| fx.b.ins().stack_load(I64, I32X4, olds, 16 * k as i32));
    fx.set_v(a.at.rd, v);
    fx.b.ins().jump(join, &[]);
    fx.runtime_arm((slow, join), entry, (site.pc, site.index), (vec![a.at.rd.idx()], Vec::new()));
    Lowered::Native
}

/// A read-modify-write without a host atomic: a workgroup's shared memory is only ever touched by the one
/// worker thread that runs the workgroup, so no other host thread can come between the read and the write.
fn plain_rmw(fx: &mut Fx, op: AtomicRmwOp, host: Value, d: Value) -> Value {
    let flags = MemFlagsData::new().with_notrap().with_aligned();
    let old = fx.b.ins().load(I32, flags, host, 0);
    let ins = fx.b.ins();
    let new = match op {
        AtomicRmwOp::Add => ins.iadd(old, d),
        AtomicRmwOp::Sub => ins.isub(old, d),
        AtomicRmwOp::Smin => ins.smin(old, d),
        AtomicRmwOp::Smax => ins.smax(old, d),
        AtomicRmwOp::Umin => ins.umin(old, d),
        AtomicRmwOp::Umax => ins.umax(old, d),
        AtomicRmwOp::And => ins.band(old, d),
        AtomicRmwOp::Or => ins.bor(old, d),
        AtomicRmwOp::Xor => ins.bxor(old, d),
        AtomicRmwOp::Xchg => d,
        AtomicRmwOp::Nand => {
            let x = ins.band(old, d);
            fx.b.ins().bnot(x)
        }
    };
    fx.b.ins().store(flags, new, host, 0);
    old
}

/// Writes a vector register's lanes to a stack slot (lane l at byte 4l).
fn spill(fx: &mut Fx, r: lanejit_isa::VReg, to: cranelift_codegen::ir::StackSlot) {
    for (k, x) in fx.v(r).into_iter().enumerate() {
        fx.b.ins().stack_store(I64, x, to, 16 * k as i32);
    }
}

/// The lowest set bit of `mask` as a lane number, `mask` without it, and whether `mask` had one.
fn next_lane(fx: &mut Fx, mask: Value) -> (Value, Value, Value) {
    let lane = fx.b.ins().ctz(mask);
    let less = fx.b.ins().iadd_imm_s(mask, -1);
    let rest = fx.b.ins().band(mask, less);
    let more = fx.b.ins().icmp_imm_s(IntCC::NotEqual, mask, 0);
    (lane, rest, more)
}

/// How the lanes' addresses are formed and checked.
struct Lanes {
    /// `base_plus_imm`: the 64-bit base (global) or the 32-bit sum zero-extended (shared).
    base: Value,
    /// The instruction's cached window: (guest lo, span, host address of lo), as `window_fields` reads it.
    window: (Value, Value, Value),
    /// `base - window lo` (wrapping): offset 0's place in the window.
    rel0: Value,
    sp: Sp,
}

impl Lanes {
    fn new(fx: &mut Fx, base: Value, window: (Value, Value, Value), sp: Sp) -> Lanes {
        let rel0 = fx.b.ins().isub(base, window.0);
        Lanes { base, window, rel0, sp }
    }

    /// Address of lane `lane`'s word in stack slot `s`.
    fn at(&self, fx: &mut Fx, s: cranelift_codegen::ir::StackSlot, lane: Value) -> Value {
        let base = fx.b.ins().stack_addr(I64, s, 0);
        let lane = fx.b.ins().uextend(I64, lane);
        let off = fx.b.ins().ishl_imm_u(lane, 2);
        fx.b.ins().iadd(base, off)
    }

    fn load(&self, fx: &mut Fx, s: cranelift_codegen::ir::StackSlot, lane: Value) -> Value {
        let at = self.at(fx, s, lane);
        fx.b.ins().load(I32, MemFlagsData::new().with_notrap(), at, 0)
    }

    /// Is every active lane's word (base + offset, offsets in `rs1`) 4-aligned and inside the window? Tested
    /// at once on the vectors, not lane by lane: the base inside the window, the largest active offset within
    /// the room left after it, and the base and every active offset 4-aligned (a misaligned base whose offsets
    /// make up for it goes to the runtime, which is only slower). Inactive lanes count as offset 0, the base
    /// itself. Then no lane's sum wraps (for shared memory, mod 2^32: the window lies far below 2^32).
    fn check(&self, fx: &mut Fx, rs1: lanejit_isa::VReg) -> Value {
        let off = fx.v(rs1);
        let zero = fx.const_vec([0; 4]);
        let active: Vec32 = std::array::from_fn(|k| {
            if fx.full_exec() {
                return off[k];
            }
            let m = fx.exec_lane_mask(k);
            fx.b.ins().bitselect(m, off[k], zero)
        });
        // Mutant 138: the largest offset is taken over the first slice only (lanes 4.. may be outside).
        let max = if crate::mutants::active(138) {
            fx.fold([active[0]; VECS], |f, a, b| f.b.ins().umax(a, b))
        } else {
            fx.fold(active, |f, a, b| f.b.ins().umax(a, b))
        };
        let or = fx.fold(active, |f, a, b| f.b.ins().bor(a, b));
        let (_, w_span, w_host) = self.window;
        // (An atomic's window spans the addresses whose word lies in the region: `try_atomic`.)
        let base_inside = fx.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, self.rel0, w_span);
        let room = fx.b.ins().isub(w_span, self.rel0);
        let max = fx.b.ins().uextend(I64, max);
        let fits = fx.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, max, room);
        let base32 = fx.b.ins().ireduce(I32, self.base);
        let low = fx.b.ins().bor(base32, or);
        let low = fx.b.ins().band_imm_u(low, 3);
        let aligned = fx.b.ins().icmp_imm_u(IntCC::Equal, low, 0);
        // The empty window (host 0) admits no access.
        let filled = fx.b.ins().icmp_imm_u(IntCC::NotEqual, w_host, 0);
        [fits, aligned, filled].into_iter().fold(base_inside, |acc, x| fx.b.ins().band(acc, x))
    }

    /// Host address of offset 0: lane l's word is there plus its offset once the lanes are checked (no sum
    /// wraps: see `check`).
    fn host0(&self, fx: &mut Fx) -> Value {
        fx.b.ins().iadd(self.window.2, self.rel0)
    }

    /// EXEC has at most one lane (none counts as lane 31, checked to no effect): is its word 4-aligned and
    /// inside the window, by the interpreter's rule for the lane's address? Its offset is read from `offs`.
    fn one_ok(&self, fx: &mut Fx, offs: cranelift_codegen::ir::StackSlot, exec: Value) -> Value {
        let some = fx.b.ins().bor_imm_u(exec, 1 << 31);
        let lane = fx.b.ins().ctz(some);
        let off = self.load(fx, offs, lane);
        let addr = if self.sp == Sp::Shared {
            // (u[rs2] + imm + offset) mod 2^32.
            let b32 = fx.b.ins().ireduce(I32, self.base);
            let sum = fx.b.ins().iadd(b32, off);
            fx.b.ins().uextend(I64, sum)
        } else {
            let off = fx.b.ins().uextend(I64, off);
            fx.b.ins().iadd(self.base, off)
        };
        let low = fx.b.ins().band_imm_u(addr, 3);
        let aligned = fx.b.ins().icmp_imm_u(IntCC::Equal, low, 0);
        let (inside, _) = window_check(fx, self.window, addr);
        fx.b.ins().band(aligned, inside)
    }
}
