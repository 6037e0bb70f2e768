//! Inline accesses that walk the active lanes one by one (`atomic.rs`, `masked.rs`): the lanes' offsets (and a
//! store's data) go to stack slots, every active lane is checked at once before any is done, and a loop over
//! EXEC's set bits, lanes ascending as the interpreter goes, does one host access per lane. The code is the
//! same few dozen instructions whatever the lane count.

use super::window_check;
use crate::fx::{Fx, Vec32, VECS};
use cranelift_codegen::ir::{
    condcodes::IntCC, types::*, Block, InstBuilder, MemFlagsData, StackSlot, StackSlotData, StackSlotKind, Value,
};
use lanejit_isa::{Sp, VReg, LANES};

/// A stack slot of one 32-lane register (lane l at byte 4l).
pub fn lane_slot(fx: &mut Fx) -> StackSlot {
    let bytes = (4 * LANES) as u32;
    fx.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, bytes, 4))
}

/// Writes a vector register's lanes to a stack slot (lane l at byte 4l).
pub fn spill(fx: &mut Fx, r: VReg, to: StackSlot) {
    spill_at(fx, r, to, 0);
}

/// Writes a vector register's lanes to a stack slot from byte `at` (lane l at byte `at + 4l`).
pub fn spill_at(fx: &mut Fx, r: VReg, to: StackSlot, at: i32) {
    for (k, x) in fx.v(r).into_iter().enumerate() {
        fx.b.ins().stack_store(I64, x, to, at + 16 * k as i32);
    }
}

/// The register a lane loop filled in stack slot `s`.
pub fn unspill(fx: &mut Fx, s: StackSlot) -> Vec32 {
    unspill_at(fx, s, 0)
}

/// The register stored in stack slot `s` from byte `at`.
pub fn unspill_at(fx: &mut Fx, s: StackSlot, at: i32) -> Vec32 {
    std::array::from_fn(|k| fx.b.ins().stack_load(I64, I32X4, s, at + 16 * k as i32))
}

/// The lowest set bit of `mask` as a lane number, `mask` without it, and whether `mask` had one.
pub fn next_lane(fx: &mut Fx, mask: Value) -> (Value, Value, Value) {
    let lane = fx.b.ins().ctz(mask);
    let less = fx.b.ins().iadd_imm_s(mask, -1);
    let rest = fx.b.ins().band(mask, less);
    let more = fx.b.ins().icmp_imm_s(IntCC::NotEqual, mask, 0);
    (lane, rest, more)
}

/// How the lanes' addresses are formed and checked.
pub struct Lanes {
    /// `base_plus_imm`: the 64-bit base (global) or the 32-bit sum zero-extended (shared).
    base: Value,
    /// The instruction's cached window: (guest lo, span, host address of lo), the span being the largest
    /// `address - lo` at which one lane's access fits in the region.
    window: (Value, Value, Value),
    /// `base - window lo` (wrapping): offset 0's place in the window.
    rel0: Value,
    sp: Sp,
    /// Each lane's address must be a multiple of this (a power of two).
    align: u32,
}

impl Lanes {
    pub fn new(fx: &mut Fx, base: Value, window: (Value, Value, Value), sp: Sp, align: u32) -> Lanes {
        debug_assert!(align.is_power_of_two());
        let rel0 = fx.b.ins().isub(base, window.0);
        Lanes { base, window, rel0, sp, align }
    }

    /// Address of lane `lane`'s word in stack slot `s`.
    pub fn at(&self, fx: &mut Fx, s: StackSlot, lane: Value) -> Value {
        let base = fx.b.ins().stack_addr(I64, s, 0);
        let lane = fx.b.ins().uextend(I64, lane);
        let off = fx.b.ins().ishl_imm_u(lane, 2);
        fx.b.ins().iadd(base, off)
    }

    /// Lane `lane`'s word in stack slot `s`.
    pub fn load(&self, fx: &mut Fx, s: StackSlot, lane: Value) -> Value {
        let at = self.at(fx, s, lane);
        fx.b.ins().load(I32, MemFlagsData::new().with_notrap(), at, 0)
    }

    /// Writes `x` to lane `lane`'s word in stack slot `s`.
    pub fn store(&self, fx: &mut Fx, s: StackSlot, lane: Value, x: Value) {
        let at = self.at(fx, s, lane);
        fx.b.ins().store(MemFlagsData::new().with_notrap(), x, at, 0);
    }

    /// Is every active lane's access (at base + offset, offsets in `rs1`) aligned and inside the window? Tested
    /// at once on the vectors, not lane by lane: the base inside the window, the largest active offset within
    /// the room left after it, and the base and every active offset aligned (a misaligned base whose offsets
    /// make up for it goes to the runtime, which is only slower). Inactive lanes count as offset 0, the base
    /// itself. Then no lane's sum wraps (for shared memory, mod 2^32: the window lies far below 2^32).
    pub fn check(&self, fx: &mut Fx, rs1: VReg) -> Value {
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
        let base_inside = fx.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, self.rel0, w_span);
        let room = fx.b.ins().isub(w_span, self.rel0);
        let max = fx.b.ins().uextend(I64, max);
        let fits = fx.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, max, room);
        let base32 = fx.b.ins().ireduce(I32, self.base);
        let low = fx.b.ins().bor(base32, or);
        let aligned = self.aligned(fx, low);
        // The empty window (host 0) admits no access.
        let filled = fx.b.ins().icmp_imm_u(IntCC::NotEqual, w_host, 0);
        [fits, aligned, filled].into_iter().fold(base_inside, |acc, x| fx.b.ins().band(acc, x))
    }

    /// Are the low bits of `x` (32 or 64 bits) that the alignment rules out all zero?
    fn aligned(&self, fx: &mut Fx, x: Value) -> Value {
        let low = fx.b.ins().band_imm_u(x, self.align as i64 - 1);
        fx.b.ins().icmp_imm_u(IntCC::Equal, low, 0)
    }

    /// Host address of offset 0: lane l's access is there plus its offset once the lanes are checked (no sum
    /// wraps: see `check`).
    pub fn host0(&self, fx: &mut Fx) -> Value {
        fx.b.ins().iadd(self.window.2, self.rel0)
    }

    /// Host address of lane `lane`'s access (its offset read from `offs`), once the lanes are checked.
    pub fn host(&self, fx: &mut Fx, host0: Value, offs: StackSlot, lane: Value) -> Value {
        let off = self.load(fx, offs, lane);
        let off = fx.b.ins().uextend(I64, off);
        fx.b.ins().iadd(host0, off)
    }

    /// EXEC has at most one lane (none counts as lane 31, checked to no effect): is its access aligned and
    /// inside the window, by the interpreter's rule for the lane's address? Its offset is read from `offs`.
    pub fn one_ok(&self, fx: &mut Fx, offs: StackSlot, exec: Value) -> Value {
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
        let aligned = self.aligned(fx, addr);
        let (inside, _) = window_check(fx, self.window, addr);
        let ok = fx.b.ins().band(aligned, inside);
        // The empty window (lo u64::MAX, host 0) admits the addresses its span reaches past u64::MAX.
        let filled = fx.b.ins().icmp_imm_u(IntCC::NotEqual, self.window.2, 0);
        fx.b.ins().band(ok, filled)
    }

    /// Branches to `apply(exec)` when every active lane passes, else to `slow`: one lane (an elected lane, the
    /// common case) is checked on its own (its offset read from `offs`), more at once on the vectors of `rs1`.
    pub fn check_then(&self, fx: &mut Fx, (offs, rs1): (StackSlot, VReg), exec: Value, (apply, slow): (Block, Block)) {
        let [one_lane, many] = [(); 2].map(|_| fx.b.create_block());
        let less = fx.b.ins().iadd_imm_s(exec, -1);
        let others = fx.b.ins().band(exec, less);
        fx.b.ins().brif(others, many, &[], one_lane, &[]);
        fx.b.switch_to_block(one_lane);
        let ok = self.one_ok(fx, offs, exec);
        fx.b.ins().brif(ok, apply, &[exec.into()], slow, &[]);
        fx.b.switch_to_block(many);
        let ok = self.check(fx, rs1);
        fx.b.ins().brif(ok, apply, &[exec.into()], slow, &[]);
    }
}
