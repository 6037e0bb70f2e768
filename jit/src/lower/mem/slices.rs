//! Inline accesses done four lanes (one host vector) at a time, once `gather::emit` has checked that every
//! lane's access is aligned and inside the instruction's window:
//! - **wide accesses** (8 and 16 bytes per lane): one 16-byte host access per lane, and a 4×4 transpose that
//!   turns four lanes' words into the slice of each destination register (or back, for a store);
//! - **slice-uniform wide loads**: when each slice's four lanes read one address (a row broadcast, as a tiled
//!   matrix multiply's reads of a shared tile are), one 16-byte host load per slice, each word splat;
//! - **slice-contiguous 32-bit accesses**: when each slice's four lanes read consecutive words (a whole wave
//!   contiguous, or two half-waves reading the same 16 words, as a 16-wide workgroup's rows do), one 16-byte
//!   host access per slice instead of one per lane.
//!
//! Reading 16 bytes for an 8-byte lane stays inside the region: the window admits a lane's address only when
//! `CONTIGUOUS_BYTES` (128) bytes from it lie in the region. Stores go slice after slice, lanes ascending, and
//! write only the access's bytes, so the highest lane wins an overlap as in the interpreter.

use super::checked_flags;
use crate::abi::CONTIGUOUS_BYTES;
use crate::access::Access;
use crate::fx::{Fx, Vec32, VECS};
use cranelift_codegen::ir::{condcodes::IntCC, types::*, InstBuilder, MemFlagsData, Value};
use lanejit_isa::LANES;

/// Lanes per host vector (a slice of a 32-lane register).
const PER: usize = 4;

const _: () = assert!(PER * VECS == LANES && CONTIGUOUS_BYTES >= 16);

/// 4×4 transpose of 32-bit words: out[k] lane i = x[i] lane k. Its own inverse.
fn transpose(fx: &mut Fx, x: [Value; PER]) -> [Value; PER] {
    // Mutant 146: the middle two rows come out swapped (lanes get each other's second and third words).
    let (lo, hi) =
        if crate::mutants::active(146) { ([2, 6, 3, 7], [0, 4, 1, 5]) } else { ([0, 4, 1, 5], [2, 6, 3, 7]) };
    let t0 = fx.shuffle32(x[0], x[1], lo);
    let t1 = fx.shuffle32(x[2], x[3], lo);
    let t2 = fx.shuffle32(x[0], x[1], hi);
    let t3 = fx.shuffle32(x[2], x[3], hi);
    let (first, second) = ([0, 1, 4, 5], [2, 3, 6, 7]);
    [
        fx.shuffle32(t0, t1, first),
        fx.shuffle32(t0, t1, second),
        fx.shuffle32(t2, t3, first),
        fx.shuffle32(t2, t3, second),
    ]
}

/// Loads of 8 or 16 bytes per lane at `hosts` into `a.regs()` registers from `a.rd`.
pub fn wide_load(fx: &mut Fx, a: &Access, hosts: &[Value]) {
    let n = a.regs();
    let mut regs: Vec<Vec32> = vec![[fx.const_vec([0; 4]); VECS]; n];
    for j in 0..VECS {
        let lanes: [Value; PER] =
            std::array::from_fn(|i| fx.b.ins().load(I32X4, checked_flags(), hosts[PER * j + i], 0));
        let words = transpose(fx, lanes);
        for (k, reg) in regs.iter_mut().enumerate() {
            reg[j] = words[k];
        }
    }
    set_group(fx, a, regs);
}

/// Writes the loaded group: register `a.rd + k` gets `regs[k]`.
fn set_group(fx: &mut Fx, a: &Access, regs: Vec<Vec32>) {
    for (k, reg) in regs.into_iter().enumerate() {
        fx.set_v(lanejit_isa::VReg(a.rd.0 + k as u8), reg);
    }
}

/// Stores of 8 or 16 bytes per lane, lanes ascending: lane l's words come from registers `a.rd..`.
pub fn wide_store(fx: &mut Fx, a: &Access, hosts: &[Value]) {
    let n = a.regs();
    let zero = fx.const_vec([0; 4]);
    let data: Vec<Vec32> =
        (0..PER).map(|k| if k < n { fx.v(lanejit_isa::VReg(a.rd.0 + k as u8)) } else { [zero; VECS] }).collect();
    for j in 0..VECS {
        let lanes = transpose(fx, std::array::from_fn(|k| data[k][j]));
        for (i, lane) in lanes.into_iter().enumerate() {
            let host = hosts[PER * j + i];
            // Mutant 147: an 8-byte lane stores 16 bytes (the next 8 bytes are overwritten with zeros).
            if n == PER || crate::mutants::active(147) {
                fx.b.ins().store(checked_flags(), lane, host, 0);
            } else {
                let q = fx.b.ins().bitcast(I64X2, MemFlagsData::new(), lane);
                let low = fx.b.ins().extractlane(q, 0);
                fx.b.ins().store(checked_flags(), low, host, 0);
            }
        }
    }
}

/// Does each slice of `off` hold four consecutive words (lane 4j+i at offset off[4j] + 4i)?
pub fn slices_contiguous(fx: &mut Fx, off: &Vec32) -> Value {
    let steps = fx.const_vec([0, 4, 8, 12]);
    slices_follow(fx, off, Some(steps))
}

/// Does each slice of `off` hold one offset in all four lanes?
pub fn slices_uniform(fx: &mut Fx, off: &Vec32) -> Value {
    slices_follow(fx, off, None)
}

/// Does every slice equal its first lane's offset plus `steps` (none: plus nothing)?
fn slices_follow(fx: &mut Fx, off: &Vec32, steps: Option<Value>) -> Value {
    // Mutant 148: only each slice's first two lanes are compared (lanes 2 and 3 may read anywhere).
    let ignored = crate::mutants::active(148).then(|| fx.const_vec([0, 0, u32::MAX, u32::MAX]));
    let mut all = None;
    for &x in off {
        let first = fx.b.ins().extractlane(x, 0);
        let mut want = fx.b.ins().splat(I32X4, first);
        if let Some(steps) = steps {
            want = fx.b.ins().iadd(want, steps);
        }
        let mut eq = fx.b.ins().icmp(IntCC::Equal, x, want);
        if let Some(ignored) = ignored {
            eq = fx.b.ins().bor(eq, ignored);
        }
        all = Some(all.map_or(eq, |s| fx.b.ins().band(s, eq)));
    }
    fx.b.ins().vall_true(all.expect("VECS > 0"))
}

/// A 32-bit access whose slices are contiguous: one 16-byte host access per slice, at its first lane's host
/// address (`starts`, one per slice).
pub fn slice_access(fx: &mut Fx, a: &Access, starts: &[Value]) {
    if a.is_store() {
        let data = fx.v(a.rd);
        for (j, x) in data.into_iter().enumerate() {
            fx.b.ins().store(checked_flags(), x, starts[j], 0);
        }
    } else {
        let v = std::array::from_fn(|j| fx.b.ins().load(I32X4, checked_flags(), starts[j], 0));
        fx.set_v(a.rd, v);
    }
}

/// An 8- or 16-byte load whose slices each read one address (`starts`, one per slice): one 16-byte host load
/// per slice, word k splat over the slice of register `a.rd + k`.
pub fn uniform_wide_load(fx: &mut Fx, a: &Access, starts: &[Value]) {
    let n = a.regs();
    let mut regs: Vec<Vec32> = vec![[fx.const_vec([0; 4]); VECS]; n];
    for (j, &start) in starts.iter().enumerate() {
        let x = fx.b.ins().load(I32X4, checked_flags(), start, 0);
        for (k, reg) in regs.iter_mut().enumerate() {
            reg[j] = fx.shuffle32(x, x, [k; PER]);
        }
    }
    set_group(fx, a, regs);
}
