//! The facts the inline memory paths need about a register of per-lane offsets (`fx::OffsetFacts`): computed
//! here the first time an access of a segment asks, and reused by every later access of the segment that
//! reads the same register until it is written. Each function must be called where an access begins, before
//! its first branch (see `fx/facts.rs`).

use crate::fx::{Fx, OffsetFacts, Vec32, VECS};
use cranelift_codegen::ir::{condcodes::IntCC, types::*, InstBuilder, Value};
use lanejit_isa::VReg;

/// Lanes per host vector.
const PER: usize = 4;

/// Runs `compute` on `r`'s facts unless `get` finds the one wanted already known; keeps what it computed.
/// A fact asked for often enough is pinned where it was computed (`Fx::anchor`, `ANCHOR_AFTER_REUSES`).
fn known<T: Copy + Anchored>(
    fx: &mut Fx,
    (r, fact): (VReg, Fact),
    get: impl Fn(&OffsetFacts) -> Option<T>,
    compute: impl FnOnce(&mut Fx, Vec32) -> T,
    set: impl FnOnce(&mut OffsetFacts, T),
) -> T {
    // Read first: making pending NaNs canonical gives the register a new value, forgetting its facts.
    let off = fx.v(r);
    let mut facts = fx.offset_facts(r);
    if let Some(x) = get(&facts) {
        let bit = 1 << fact as u8;
        facts.reuses[fact as usize] = facts.reuses[fact as usize].saturating_add(1);
        if facts.anchored & bit == 0 && facts.reuses[fact as usize] >= ANCHOR_AFTER_REUSES {
            x.anchor(fx);
            facts.anchored |= bit;
        }
        fx.keep_offset_facts(r, facts);
        return x;
    }
    let x = compute(fx, off);
    set(&mut facts, x);
    fx.keep_offset_facts(r, facts);
    x
}

/// The facts, indexing `OffsetFacts::reuses` and the bits of `OffsetFacts::anchored`.
#[derive(Clone, Copy)]
enum Fact {
    First,
    Max,
    Bits,
    Contiguous,
    SlicesContiguous,
    SlicesUniform,
    SliceFirsts,
}

/// Reuses after which a fact is pinned (`known`): a fact that only the per-lane arm of an access needs costs
/// nothing on its contiguous path while Cranelift leaves it inside that arm, but is computed again in the arm
/// of every access that needs it; pinned, it is computed once, on every path. A tiled matrix multiply's 16
/// shared loads from one offset register are worth pinning for (its instructions retired -11% at this
/// threshold); vadd's three accesses, which take the contiguous path, are not (+11% when pinned at the first
/// reuse).
const ANCHOR_AFTER_REUSES: u8 = 3;

/// Lane 0's offset (I32).
pub fn first(fx: &mut Fx, r: VReg) -> Value {
    known(fx, (r, Fact::First), |f| f.first, |fx, off| fx.b.ins().extractlane(off[0], 0), |f, x| f.first = Some(x))
}

/// The largest lane (I32, unsigned).
pub fn max(fx: &mut Fx, r: VReg) -> Value {
    known(fx, (r, Fact::Max), |f| f.max, |fx, off| fx.fold(off, |f, a, b| f.b.ins().umax(a, b)), |f, x| f.max = Some(x))
}

/// (OR, AND) of every lane (I32 each).
pub fn bits(fx: &mut Fx, r: VReg) -> (Value, Value) {
    known(
        fx,
        (r, Fact::Bits),
        |f| f.bits,
        |fx, off| (fx.fold(off, |f, a, b| f.b.ins().bor(a, b)), fx.fold(off, |f, a, b| f.b.ins().band(a, b))),
        |f, x| f.bits = Some(x),
    )
}

/// Does lane l hold `first + 4·l` (the whole wave contiguous)?
pub fn contiguous(fx: &mut Fx, r: VReg) -> Value {
    let off0 = first(fx, r);
    known(
        fx,
        (r, Fact::Contiguous),
        |f| f.contiguous,
        |fx, off| {
            let first = fx.b.ins().splat(I32X4, off0);
            let mut same = None;
            for (k, x) in off.iter().enumerate() {
                let l = (PER * k) as u32;
                let steps = fx.const_vec([4 * l, 4 * (l + 1), 4 * (l + 2), 4 * (l + 3)]);
                let want = fx.b.ins().iadd(first, steps);
                let eq = fx.b.ins().icmp(IntCC::Equal, *x, want);
                same = Some(same.map_or(eq, |s| fx.b.ins().band(s, eq)));
            }
            fx.b.ins().vall_true(same.expect("VECS > 0"))
        },
        |f, x| f.contiguous = Some(x),
    )
}

/// Does each slice hold four consecutive words from its first lane?
pub fn slices_contiguous(fx: &mut Fx, r: VReg) -> Value {
    known(
        fx,
        (r, Fact::SlicesContiguous),
        |f| f.slices_contiguous,
        |fx, off| super::slices::slices_contiguous(fx, &off),
        |f, x| f.slices_contiguous = Some(x),
    )
}

/// Does each slice hold one offset in all four lanes?
pub fn slices_uniform(fx: &mut Fx, r: VReg) -> Value {
    known(
        fx,
        (r, Fact::SlicesUniform),
        |f| f.slices_uniform,
        |fx, off| super::slices::slices_uniform(fx, &off),
        |f, x| f.slices_uniform = Some(x),
    )
}

/// Each slice's first lane, zero-extended to I64.
pub fn slice_firsts(fx: &mut Fx, r: VReg) -> [Value; VECS] {
    known(
        fx,
        (r, Fact::SliceFirsts),
        |f| f.slice_firsts,
        |fx, off| {
            off.map(|x| {
                let o = fx.b.ins().extractlane(x, 0);
                fx.b.ins().uextend(I64, o)
            })
        },
        |f, x| f.slice_firsts = Some(x),
    )
}

/// Facts pinned where they are computed (`Fx::anchor`).
trait Anchored {
    fn anchor(&self, fx: &mut Fx);
}

impl Anchored for Value {
    fn anchor(&self, fx: &mut Fx) {
        fx.anchor(&[*self]);
    }
}

impl Anchored for (Value, Value) {
    fn anchor(&self, fx: &mut Fx) {
        fx.anchor(&[self.0, self.1]);
    }
}

impl Anchored for [Value; VECS] {
    fn anchor(&self, fx: &mut Fx) {
        fx.anchor(self);
    }
}
