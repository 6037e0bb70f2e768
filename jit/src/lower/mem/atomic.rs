//! Atomics with a uniform base (`atom.*.u32` on global or shared memory) inline in optimised code: one host
//! atomic per active lane, lanes ascending as the interpreter goes, when every active lane's word is 4-aligned
//! and inside the instruction's cached window (filled by the runtime the first time it did the atomic itself,
//! `runtime::mem::try_atomic`). All lanes are checked before any is done, at once on the vectors (the largest
//! and the OR of the active offsets), so a lane that would fault leaves memory untouched and the whole
//! instruction goes to the runtime, which has the interpreter report the fault.
//! Under a partial EXEC the lanes are walked by a loop over EXEC's set bits (offsets and data spilled to the
//! stack): one atomic costs a few dozen instructions of code whatever the lane count.
//! Compare-and-swap, inc/dec with wrap and float add have no single host instruction: the runtime does them.
//! Shared memory needs no host atomic at all (one worker thread runs a whole workgroup): a load and a store.
//! Under a full EXEC (the block's full variant) the 32 lanes are unrolled instead: each lane's offset and data
//! come straight from the registers' vectors and the old values go straight into rd's, with no stack slots and
//! no loop; the loop's bookkeeping cost three times the access itself in a 32-lane shared-memory histogram.

use super::super::{Lowered, Site};
use super::gather::{lane_host, vec_of_words};
use super::lanes::{lane_slot, next_lane, spill, unspill, Lanes};
use super::{base_plus_imm, window_fields};
use crate::access::Atomic;
use crate::fx::Fx;
use cranelift_codegen::ir::{types::*, AtomicRmwOp, InstBuilder, MemFlagsData, Value};
use lanejit_interp::mem::AtomOp;
use lanejit_isa::{Sp, LANES};

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
    if fx.full_exec() {
        return lower_unrolled(fx, site, a);
    }
    // rd holds the data and receives the old values: one slot serves both, so after the loop it holds the old
    // value in every active lane and rd's own in the others, and is rd's new value without an EXEC blend.
    let [offs, data] = [(); 2].map(|_| lane_slot(fx));
    spill(fx, a.at.rs1, offs);
    spill(fx, a.at.rd, data);
    let exec = fx.exec_val();
    let (lanes, host0) = addressing(fx, site, a);
    let entry = fx.dirty();
    let [apply, done, slow, join] = [(); 4].map(|_| fx.b.create_block());
    fx.b.set_cold_block(slow);
    fx.b.append_block_param(apply, I32);
    // Every active lane inside the window and aligned, or the runtime does the whole instruction.
    lanes.check_then(fx, (offs, a.at.rs1), exec, (apply, slow));
    // The host atomics, lanes ascending, each lane's old value kept for rd.
    fx.b.switch_to_block(apply);
    let mask = fx.b.block_params(apply)[0];
    let (lane, rest, more) = next_lane(fx, mask);
    let one = fx.b.create_block();
    fx.b.ins().brif(more, one, &[], done, &[]);
    fx.b.switch_to_block(one);
    let host = lanes.host(fx, host0, offs, lane);
    let d = lanes.load(fx, data, lane);
    let old = rmw(fx, a, host, d);
    // Mutant 139: rd receives the data it sent, not the word's old value.
    if !crate::mutants::active(139) {
        lanes.store(fx, data, lane, old);
    }
    fx.b.ins().jump(apply, &[rest.into()]);
    fx.b.switch_to_block(done);
    let v = unspill(fx, data);
    fx.set_v_all(a.at.rd, v);
    fx.b.ins().jump(join, &[]);
    fx.runtime_arm((slow, join), entry, (site.pc, site.index), (vec![a.at.rd.idx()], Vec::new()));
    Lowered::Native
}

/// Every lane active: the vector check, then the 32 lanes in order, unrolled.
fn lower_unrolled(fx: &mut Fx, site: &Site, a: &Atomic) -> Lowered {
    let (lanes, host0) = addressing(fx, site, a);
    let entry = fx.dirty();
    let [apply, slow, join] = [(); 3].map(|_| fx.b.create_block());
    fx.b.set_cold_block(slow);
    let ok = lanes.check(fx, a.at.rs1);
    fx.b.ins().brif(ok, apply, &[], slow, &[]);
    fx.b.switch_to_block(apply);
    let (offs, data) = (fx.v(a.at.rs1), fx.v(a.at.rd));
    // Mutant 172: the unrolled lanes go descending (each old value still lands in its own lane).
    let order: Vec<usize> = if crate::mutants::active(172) { (0..LANES).rev().collect() } else { (0..LANES).collect() };
    let mut olds = [None; LANES];
    for l in order {
        let host = lane_host(fx, &offs, host0, l);
        let d = fx.b.ins().extractlane(data[l / 4], (l % 4) as u8);
        olds[l] = Some(rmw(fx, a, host, d));
    }
    // Mutant 139: rd receives the data it sent, not the words' old values.
    if !crate::mutants::active(139) {
        let olds = olds.map(|o| o.expect("every lane was applied"));
        let v = vec_of_words(fx, &olds);
        fx.set_v_all(a.at.rd, v);
    }
    fx.b.ins().jump(join, &[]);
    fx.runtime_arm((slow, join), entry, (site.pc, site.index), (vec![a.at.rd.idx()], Vec::new()));
    Lowered::Native
}

/// The instruction's cached window, read once before the lanes (nothing they do can change it; an atomic's
/// window spans the addresses whose word lies in the region: `try_atomic`), as the lanes' addressing, and the
/// host address of offset 0.
fn addressing(fx: &mut Fx, site: &Site, a: &Atomic) -> (Lanes, Value) {
    let slot = fx.window_slot(site.pc);
    debug_assert_ne!(slot, crate::abi::NO_SLOT, "every compiled atomic has a window slot");
    let window = window_fields(fx, slot);
    let base = base_plus_imm(fx, &a.at);
    let lanes = Lanes::new(fx, base, window, a.at.sp, 4);
    let host0 = lanes.host0(fx);
    (lanes, host0)
}

/// One lane's read-modify-write at `host` with data `d`; returns the word's old value.
fn rmw(fx: &mut Fx, a: &Atomic, host: Value, d: Value) -> Value {
    let op = host_op(a.op).expect("inline_ok checked the operation");
    if a.at.sp == Sp::Shared {
        plain_rmw(fx, op, host, d)
    } else {
        fx.b.ins().atomic_rmw(I32, MemFlagsData::new().with_notrap().with_aligned(), op, host, d)
    }
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
