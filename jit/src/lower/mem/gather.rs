//! Vector loads and stores whose lanes are not contiguous (strided, scattered, repeated), or that run under a
//! partial EXEC, inline in optimised code: one vector check that every active lane's access is aligned and
//! inside the instruction's cached window, then one host access per lane. Stores go lanes ascending so the
//! highest lane wins an overlap, as in the interpreter. A failed check calls the runtime, whose interpreter
//! reports any fault. Only a full EXEC and one word (or less) per lane: see `supports`.

use super::{base_plus_imm, window_check, window_fields};
use crate::access::{Access, Dir};
use crate::fx::{Fx, VECS};
use cranelift_codegen::ir::{condcodes::IntCC, types::*, Block, InstBuilder, MemFlagsData, Value};
use lanejit_isa::LANES;

/// Does this function lower `a` here? Optimised code, a full EXEC, at most one word per lane: the code is
/// unrolled over the lanes (a few instructions per lane and word), so wider accesses and the masked variant
/// would multiply what every hot block costs to compile (matrix multiply's opt compile went 44 -> 170 ms per
/// 100 instructions with them) for accesses the runtime does well enough.
pub fn supports(fx: &Fx, a: &Access) -> bool {
    fx.tier() == crate::abi::Tier::Opt && fx.full_exec() && a.bytes <= 4
}

/// Checks every active lane, then does the access and continues at `join`; a lane that fails goes to `slow`.
pub fn emit(fx: &mut Fx, a: &Access, slot: u32, slow: Block, join: Block) {
    let off = fx.v(a.rs1);
    let start = base_plus_imm(fx, a);
    let window = window_fields(fx, slot);
    let (_, w_span, w_host) = window;
    let (first_inside, rel0) = window_check(fx, window, start);
    let ok = lanes_ok(fx, a, &off, start, rel0, w_span);
    let ok = fx.b.ins().band(first_inside, ok);
    // The empty window (lo = u64::MAX, span 0, host 0) admits address u64::MAX itself, which the alignment
    // test rules out only for accesses wider than a byte: test that the window holds a region.
    let filled = fx.b.ins().icmp_imm_u(IntCC::NotEqual, w_host, 0);
    let ok = fx.b.ins().band(ok, filled);
    let go = fx.b.create_block();
    fx.b.ins().brif(ok, go, &[], slow, &[]);
    fx.b.switch_to_block(go);
    let host0 = fx.b.ins().iadd(w_host, rel0);
    let hosts: Vec<Value> = (0..LANES).map(|l| lane_host(fx, &off, host0, l)).collect();
    match a.dir {
        Dir::Load { signed } => gather(fx, a, &hosts, signed),
        Dir::Store => scatter(fx, a, &hosts),
    }
    fx.b.ins().jump(join, &[]);
}

/// Every lane's offset keeps its access inside the window (`rel0 + offset <= span`, offsets being
/// zero-extended) and aligned to the access size.
fn lanes_ok(fx: &mut Fx, a: &Access, off: &[Value; VECS], start: Value, rel0: Value, w_span: Value) -> Value {
    // (Used only when rel0 <= span.) An offset up to `span - rel0` fits; above 2^32 - 1 every offset does.
    let room = fx.b.ins().isub(w_span, rel0);
    let max = fx.b.ins().iconst(I64, u32::MAX as i64);
    let room = fx.b.ins().umin(room, max);
    let room = fx.b.ins().ireduce(I32, room);
    let room = fx.b.ins().splat(I32X4, room);
    let low = fx.b.ins().ireduce(I32, start);
    let low = fx.b.ins().splat(I32X4, low);
    let mut all = None;
    for &x in off {
        let mut ok = fx.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, x, room);
        // Mutant 142: lanes' alignment not tested (a misaligned lane runs instead of trapping).
        if a.bytes > 1 && !crate::mutants::active(142) {
            let addr = fx.b.ins().iadd(x, low);
            let mask = fx.const_vec([a.bytes - 1; 4]);
            let bits = fx.b.ins().band(addr, mask);
            let zero = fx.const_vec([0; 4]);
            let aligned = fx.b.ins().icmp(IntCC::Equal, bits, zero);
            ok = fx.b.ins().band(ok, aligned);
        }
        all = Some(all.map_or(ok, |s| fx.b.ins().band(s, ok)));
    }
    fx.b.ins().vall_true(all.expect("LANES > 0"))
}

/// Host address of lane `l`'s access.
fn lane_host(fx: &mut Fx, off: &[Value; VECS], host0: Value, l: usize) -> Value {
    let o = fx.b.ins().extractlane(off[l / 4], (l % 4) as u8);
    let o = fx.b.ins().uextend(I64, o);
    fx.b.ins().iadd(host0, o)
}

/// Checked above: inside the window, aligned to the access size; never traps.
fn guest_flags() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

fn gather(fx: &mut Fx, a: &Access, hosts: &[Value], signed: bool) {
    let words: Vec<Value> = hosts.iter().map(|&h| read(fx, h, a.bytes, signed)).collect();
    let v = std::array::from_fn(|k| {
        let mut x = fx.const_vec([0; 4]);
        for i in 0..4 {
            x = fx.b.ins().insertlane(x, words[4 * k + i], i as u8);
        }
        x
    });
    fx.set_v(a.rd, v);
}

fn read(fx: &mut Fx, host: Value, bytes: u32, signed: bool) -> Value {
    let f = guest_flags();
    let ins = fx.b.ins();
    match (bytes, signed) {
        (1, false) => ins.uload8(I32, f, host, 0),
        (1, true) => ins.sload8(I32, f, host, 0),
        (2, false) => ins.uload16(I32, f, host, 0),
        (2, true) => ins.sload16(I32, f, host, 0),
        _ => ins.load(I32, f, host, 0),
    }
}

fn scatter(fx: &mut Fx, a: &Access, hosts: &[Value]) {
    let data = fx.v(a.rd);
    // Mutant 141: lanes stored in descending order (the lowest lane wins an overlap).
    let order: Vec<usize> = if crate::mutants::active(141) { (0..LANES).rev().collect() } else { (0..LANES).collect() };
    for l in order {
        let x = fx.b.ins().extractlane(data[l / 4], (l % 4) as u8);
        let f = guest_flags();
        match a.bytes {
            1 => fx.b.ins().istore8(f, x, hosts[l], 0),
            2 => fx.b.ins().istore16(f, x, hosts[l], 0),
            _ => fx.b.ins().store(f, x, hosts[l], 0),
        };
    }
}
