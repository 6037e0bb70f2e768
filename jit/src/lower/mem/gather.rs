//! Vector loads and stores whose lanes are not contiguous (strided, scattered, repeated), inline in optimised
//! code with a full EXEC (see `supports`): one check that every lane's access is aligned and inside the
//! instruction's cached window (scalar compares of the offsets' largest lane and shared low bits, which
//! `offsets.rs` computes once per value of the offset register), then one host access per lane. Stores go
//! lanes ascending so the highest lane wins an overlap, as in the interpreter. A failed check calls the
//! runtime, whose interpreter reports any fault. 8- and 16-byte lanes, and 32-bit accesses whose 4-lane slices
//! are contiguous, go a slice at a time (`slices.rs`).

use super::{base_plus_imm, load_lane, offsets, store_lane, window_check, window_fields};
use crate::abi::CONTIGUOUS_BYTES;
use crate::access::{Access, Dir};
use crate::fx::{Fx, VECS};
use cranelift_codegen::ir::{condcodes::IntCC, types::*, Block, InstBuilder, Value};
use lanejit_isa::LANES;

/// Does this function lower `a` here? Optimised code and a full EXEC: the code is unrolled over the lanes (a
/// few instructions per lane), so the masked variant would multiply what every hot block costs to compile.
/// Wider accesses (8 and 16 bytes) take one host vector per lane and a transpose per slice (`slices.rs`), not
/// one access and lane insert per word (with those, matrix multiply's opt compile went 44 -> 170 ms per 100
/// instructions).
pub fn supports(fx: &Fx, a: &Access) -> bool {
    fx.tier() == crate::abi::Tier::Opt && fx.full_exec() && matches!(a.regs(), 1 | 2 | 4)
}

/// What `emit` needs about the access's offsets, computed where the access begins (`offsets.rs`).
pub struct LaneFacts {
    /// Largest lane; OR and AND of all lanes.
    max: Value,
    bits: (Value, Value),
    /// For 32-bit accesses and wide loads: whether each slice goes as one host access (contiguous words, or
    /// one address for a wide load), and each slice's first offset.
    by_slice: Option<(Value, [Value; VECS])>,
}

/// The facts `emit` uses about `a`'s offsets (reused from an earlier access of the segment when known).
pub fn facts(fx: &mut Fx, a: &Access) -> LaneFacts {
    let r = a.rs1;
    let by_slice = if wide_load(a) {
        Some(offsets::slices_uniform(fx, r))
    } else if a.bytes == 4 {
        Some(offsets::slices_contiguous(fx, r))
    } else {
        None
    };
    let by_slice = by_slice.map(|ok| (ok, offsets::slice_firsts(fx, r)));
    LaneFacts { max: offsets::max(fx, r), bits: offsets::bits(fx, r), by_slice }
}

/// An 8- or 16-byte load (each slice may read one address).
fn wide_load(a: &Access) -> bool {
    a.regs() > 1 && !a.is_store()
}

/// Checks every active lane: on to `go` (whose one parameter is the host address of the access's base) when
/// all are admitted, else to `slow`.
pub fn check(fx: &mut Fx, a: &Access, slot: u32, f: &LaneFacts, slow: Block, go: Block) {
    let start = base_plus_imm(fx, a);
    let (w_lo, w_span, w_host) = window_fields(fx, slot);
    // The window's span leaves room for a 128-byte contiguous access; a lane here reads at most 16 bytes.
    let limit = fx.b.ins().iadd_imm_s(w_span, (CONTIGUOUS_BYTES - read_bytes(a)) as i64);
    let (first_inside, rel0) = window_check(fx, (w_lo, limit, w_host), start);
    let room = fx.b.ins().isub(limit, rel0);
    let ok = lanes_ok(fx, a, f, start, room);
    let ok = fx.b.ins().band(first_inside, ok);
    // The empty window (lo = u64::MAX, span 0, host 0) admits address u64::MAX itself, which the alignment
    // test rules out only for accesses wider than a byte: test that the window holds a region.
    let filled = fx.b.ins().icmp_imm_u(IntCC::NotEqual, w_host, 0);
    let ok = fx.b.ins().band(ok, filled);
    let host0 = fx.b.ins().iadd(w_host, rel0);
    fx.b.ins().brif(ok, go, &[host0.into()], slow, &[]);
}

/// The access, every lane of which a check has admitted (`host0`: host address of its base); then on to `join`.
pub fn emit_admitted(fx: &mut Fx, a: &Access, f: &LaneFacts, host0: Value, join: Block) {
    if let Some((by_slices, firsts)) = f.by_slice {
        let (by_slice, by_lane) = (fx.b.create_block(), fx.b.create_block());
        fx.b.ins().brif(by_slices, by_slice, &[], by_lane, &[]);
        fx.b.switch_to_block(by_slice);
        let starts: Vec<Value> = firsts.iter().map(|&o| fx.b.ins().iadd(host0, o)).collect();
        if wide_load(a) {
            super::slices::uniform_wide_load(fx, a, &starts);
        } else {
            super::slices::slice_access(fx, a, &starts);
        }
        fx.b.ins().jump(join, &[]);
        fx.b.switch_to_block(by_lane);
    }
    let off = fx.v(a.rs1);
    let hosts: Vec<Value> = (0..LANES).map(|l| lane_host(fx, &off, host0, l)).collect();
    match (a.dir, a.regs()) {
        (Dir::Load { signed }, 1) => gather(fx, a, &hosts, signed),
        (Dir::Store, 1) => scatter(fx, a, &hosts),
        (Dir::Load { .. }, _) => super::slices::wide_load(fx, a, &hosts),
        (Dir::Store, _) => super::slices::wide_store(fx, a, &hosts),
    }
    fx.b.ins().jump(join, &[]);
}

/// Bytes the host reads or writes from each lane's (or, for slices, each slice's first lane's) address: one
/// 16-byte vector for wide accesses, the access itself otherwise (a contiguous slice's last lane ends where its
/// 16 bytes do).
pub(super) fn read_bytes(a: &Access) -> u64 {
    if a.regs() > 1 {
        16
    } else {
        a.bytes as u64
    }
}

/// Every lane's offset keeps its host access inside the region (`offset <= room`, offsets being zero-extended;
/// `room` = region length - `read_bytes` - the base's distance from the region's start) and aligned as the access
/// requires: tested on the offsets' largest lane and on the low bits all lanes share (`LaneFacts`), not lane by
/// lane.
pub(super) fn lanes_ok(fx: &mut Fx, a: &Access, f: &LaneFacts, start: Value, room: Value) -> Value {
    let max = fx.b.ins().uextend(I64, f.max);
    let mut ok = fx.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, max, room);
    // Mutant 142: lanes' alignment not tested (a misaligned lane runs instead of trapping).
    if a.align > 1 && !crate::mutants::active(142) {
        // Lane address start + offset is aligned iff the offset's low bits are those of -start; every lane's
        // are iff the OR and the AND of all lanes' low bits both are.
        let mask = (a.align - 1) as i64;
        let low = fx.b.ins().ireduce(I32, start);
        let minus = fx.b.ins().ineg(low);
        let want = fx.b.ins().band_imm_u(minus, mask);
        for bits in [f.bits.0, f.bits.1] {
            let got = fx.b.ins().band_imm_u(bits, mask);
            let same = fx.b.ins().icmp(IntCC::Equal, got, want);
            ok = fx.b.ins().band(ok, same);
        }
    }
    ok
}

/// Host address of lane `l`'s access.
pub(super) fn lane_host(fx: &mut Fx, off: &[Value; VECS], host0: Value, l: usize) -> Value {
    let o = fx.b.ins().extractlane(off[l / 4], (l % 4) as u8);
    let o = fx.b.ins().uextend(I64, o);
    fx.b.ins().iadd(host0, o)
}

fn gather(fx: &mut Fx, a: &Access, hosts: &[Value], signed: bool) {
    let words: Vec<Value> = hosts.iter().map(|&h| load_lane(fx, h, a.bytes, signed)).collect();
    let v = vec_of_words(fx, &words);
    fx.set_v(a.rd, v);
}

/// The register whose lane l is `words[l]` (32-bit scalars).
pub(super) fn vec_of_words(fx: &mut Fx, words: &[Value]) -> [Value; VECS] {
    std::array::from_fn(|k| {
        let mut x = fx.const_vec([0; 4]);
        for i in 0..4 {
            x = fx.b.ins().insertlane(x, words[4 * k + i], i as u8);
        }
        x
    })
}

fn scatter(fx: &mut Fx, a: &Access, hosts: &[Value]) {
    let data = fx.v(a.rd);
    // Mutant 141: lanes stored in descending order (the lowest lane wins an overlap).
    let order: Vec<usize> = if crate::mutants::active(141) { (0..LANES).rev().collect() } else { (0..LANES).collect() };
    for l in order {
        let x = fx.b.ins().extractlane(data[l / 4], (l % 4) as u8);
        store_lane(fx, x, hosts[l], a.bytes);
    }
}
