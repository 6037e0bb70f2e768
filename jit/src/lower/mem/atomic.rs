//! Atomics with a uniform base (`atom.*.u32` on global or shared memory) inline in optimised code: one host
//! atomic per active lane, lanes ascending as the interpreter goes, when every active lane's word is 4-aligned
//! and inside the instruction's cached window (filled by the runtime the first time it did the atomic itself,
//! `runtime::mem::try_atomic`). All lanes are checked before any is done, so a lane that would fault leaves
//! memory untouched and the whole instruction goes to the runtime, which has the interpreter report the fault.
//! The lanes are walked by a loop over EXEC's set bits (offsets and data spilled to the stack), not unrolled:
//! one atomic costs a few dozen instructions of code whatever the lane count.
//! Compare-and-swap, inc/dec with wrap and float add have no single host instruction: the runtime does them.
//! Shared memory needs no host atomic at all (one worker thread runs a whole workgroup): a load and a store.

use super::super::{Lowered, Site};
use super::{base_plus_imm, window_check, window_fields};
use crate::access::Atomic;
use crate::fx::{Fx, VECS};
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
    // The window is read once, before the lane loops: nothing in them can change it, and reading it per lane
    // was a chain of three dependent loads in every iteration of both loops.
    let window = window_fields(fx, slot);
    let lanes = Lanes { offs, base: base_plus_imm(fx, &a.at), window, sp: a.at.sp };
    let entry = fx.dirty();
    let [check, apply, done, slow, join] = [(); 5].map(|_| fx.b.create_block());
    fx.b.set_cold_block(slow);
    for b in [check, apply] {
        fx.b.append_block_param(b, I32);
    }
    fx.b.ins().jump(check, &[exec.into()]);
    // Pass 1: every active lane inside the window and aligned, or the runtime does the whole instruction.
    fx.b.switch_to_block(check);
    let mask = fx.b.block_params(check)[0];
    let (lane, rest, more) = next_lane(fx, mask);
    let (ok_block, go) = (fx.b.create_block(), fx.b.create_block());
    fx.b.ins().brif(more, ok_block, &[], apply, &[exec.into()]);
    fx.b.switch_to_block(ok_block);
    let (inside, _) = lanes.address(fx, lane);
    // Mutant 138: only the first active lane is checked before the lanes are done.
    let rest = if crate::mutants::active(138) { fx.b.ins().iconst(I32, 0) } else { rest };
    fx.b.ins().brif(inside, go, &[], slow, &[]);
    fx.b.switch_to_block(go);
    fx.b.ins().jump(check, &[rest.into()]);
    // Pass 2: the host atomics, lanes ascending, each lane's old value kept for rd.
    fx.b.switch_to_block(apply);
    let mask = fx.b.block_params(apply)[0];
    let (lane, rest, more) = next_lane(fx, mask);
    let one = fx.b.create_block();
    fx.b.ins().brif(more, one, &[], done, &[]);
    fx.b.switch_to_block(one);
    let (_, host) = lanes.address(fx, lane);
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

/// Where the lanes' operands are, and how their addresses are formed.
struct Lanes {
    offs: cranelift_codegen::ir::StackSlot,
    /// `base_plus_imm`: the 64-bit base (global) or the 32-bit sum zero-extended (shared).
    base: Value,
    /// The instruction's cached window: (guest lo, span, host address of lo), as `window_fields` reads it.
    window: (Value, Value, Value),
    sp: Sp,
}

impl Lanes {
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

    /// Lane `lane`'s guest address by the interpreter's rule: is its word 4-aligned and inside the window, and
    /// its host address.
    fn address(&self, fx: &mut Fx, lane: Value) -> (Value, Value) {
        let off = self.load(fx, self.offs, lane);
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
        let (inside, rel) = window_check(fx, self.window, addr);
        let w_host = self.window.2;
        let ok = fx.b.ins().band(aligned, inside);
        (ok, fx.b.ins().iadd(w_host, rel))
    }
}
