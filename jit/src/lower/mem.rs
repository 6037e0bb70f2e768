//! Group `mem`: vector loads and stores with a uniform base and per-lane 32-bit offsets. The common case — a
//! 32-bit access whose lanes are contiguous, under a full EXEC, inside a region already in the window cache —
//! is one inline check (contiguity, alignment, and one unsigned compare against the cached region) and eight
//! 16-byte host accesses. In optimised code, lanes that are not contiguous and any width run inline too, one
//! host access per lane (`mem/gather.rs`), and so do accesses of one register under a partial EXEC, a loop over
//! the active lanes (`mem/masked.rs`). A run of accesses that differ only in their immediate shares one check
//! (`mem/group.rs`). The rest (wide masked accesses, quick code's accesses, a region not
//! cached yet, any lane that would fault) calls `runtime::mem` in
//! the runtime, which does the access in Rust when it provably cannot fault and otherwise has the interpreter
//! execute it, so faults are reported by the golden model.
//! Uniform loads and stores run inline against a cached window too (`mem/uniform.rs`), and so do atomics with
//! a uniform base in optimised code (`mem/atomic.rs`), and so do plain 2d image loads and stores
//! (`mem/image.rs`). Per-lane pointers, 12-byte accesses, image samples and queries and the other image forms
//! take the interpreter.

pub mod atomic;
pub mod gather;
pub mod group;
pub mod image;
pub mod lanes;
pub mod masked;
pub mod offsets;
pub mod slices;
pub mod uniform;

use super::{Lowered, Site};
use crate::abi::CTX_WINDOWS_OFFSET;
use crate::abi::{Window, CONTIGUOUS_BYTES};
use crate::access::{Access, Atomic};
use crate::fx::Fx;
use cranelift_codegen::ir::{self, condcodes::IntCC, types::*, InstBuilder, MemFlagsData, Value};
use lanejit_interp::mem::ImgOp;
use lanejit_isa::{MemInsn, Sp, UReg, LANES};

pub fn lower(fx: &mut Fx, i: &MemInsn, site: &Site) -> Lowered {
    use MemInsn::*;
    match *i {
        LdU8 { .. }
        | LdS8 { .. }
        | LdU16 { .. }
        | LdS16 { .. }
        | LdB32 { .. }
        | LdB64 { .. }
        | LdB128 { .. }
        | StB8 { .. }
        | StB16 { .. }
        | StB32 { .. }
        | StB64 { .. }
        | StB128 { .. } => match Access::of(i) {
            Some(a) if cached(fx, &a) => access(fx, site, a),
            _ => Lowered::Interpret,
        },
        LdB96 { .. } | StB96 { .. } => Lowered::Interpret,
        LdA64U8 { .. }
        | LdA64S8 { .. }
        | LdA64U16 { .. }
        | LdA64S16 { .. }
        | LdA64B32 { .. }
        | LdA64B64 { .. }
        | LdA64B96 { .. }
        | LdA64B128 { .. }
        | StA64B8 { .. }
        | StA64B16 { .. }
        | StA64B32 { .. }
        | StA64B64 { .. }
        | StA64B96 { .. }
        | StA64B128 { .. } => Lowered::Interpret,
        AtomAddU32 { rd, .. }
        | AtomSubU32 { rd, .. }
        | AtomMinI32 { rd, .. }
        | AtomMaxI32 { rd, .. }
        | AtomMinU32 { rd, .. }
        | AtomMaxU32 { rd, .. }
        | AtomAndB32 { rd, .. }
        | AtomOrB32 { rd, .. }
        | AtomXorB32 { rd, .. }
        | AtomXchgB32 { rd, .. }
        | AtomCasB32 { rd, .. }
        | AtomIncU32 { rd, .. }
        | AtomDecU32 { rd, .. }
        | AtomFaddF32 { rd, .. } => match Atomic::of(i) {
            Some(a) if fx.has_v(rd.idx()) && atomic::inline_ok(fx, &a) => atomic::lower(fx, site, &a),
            // One host atomic per active lane in the runtime (`runtime::mem::try_atomic`); only rd changes.
            Some(_) if fx.has_v(rd.idx()) => {
                fx.call_mem(site.pc, site.index, (vec![rd.idx()], Vec::new()));
                Lowered::Native
            }
            _ => Lowered::Interpret,
        },
        AtomA64AddU32 { .. }
        | AtomA64SubU32 { .. }
        | AtomA64MinI32 { .. }
        | AtomA64MaxI32 { .. }
        | AtomA64MinU32 { .. }
        | AtomA64MaxU32 { .. }
        | AtomA64AndB32 { .. }
        | AtomA64OrB32 { .. }
        | AtomA64XorB32 { .. }
        | AtomA64XchgB32 { .. }
        | AtomA64CasB32 { .. }
        | AtomA64IncU32 { .. }
        | AtomA64DecU32 { .. }
        | AtomA64FaddF32 { .. } => Lowered::Interpret,
        ULdB32 { .. } | ULdB64 { .. } | ULdB128 { .. } | ULdB256 { .. } | UStB32 { .. } | UStB64 { .. } => {
            match uniform::UniformAccess::of(i) {
                Some(a) if uniform_cached(fx, &a) => uniform::lower(fx, site, &a),
                _ => Lowered::Interpret,
            }
        }
        ImgLoad { rd, rs1, rs3, dim, toff, dmask, d16, a16, rsd, voff } => {
            let op = ImgOp { rd, rs1, rs3, dim, toff, dmask, d16, a16, rsd, voff };
            if image::supports(fx, &op) {
                image::lower(fx, site, &op, false)
            } else {
                Lowered::Interpret
            }
        }
        ImgStore { rd, rs1, rs3, dim, toff, dmask, d16, a16, voff } => {
            let op = ImgOp { rd, rs1, rs3, dim, toff, dmask, d16, a16, rsd: false, voff };
            if image::supports(fx, &op) {
                image::lower(fx, site, &op, true)
            } else {
                Lowered::Interpret
            }
        }
        // Filtering and queries: the interpreter's functions, never a second copy of the filter.
        ImgSample { .. } | ImgQuery { .. } => Lowered::Interpret,
    }
}

/// The registers a uniform access names live in variables.
fn uniform_cached(fx: &Fx, a: &uniform::UniformAccess) -> bool {
    let regs = [a.rs1.idx(), a.rs1.idx() + 1].into_iter().chain(a.rd.idx()..a.rd.idx() + a.words());
    regs.into_iter().all(|r| fx.has_u(r))
}

/// The registers the access names live in variables (else the whole instruction is the interpreter's).
fn cached(fx: &Fx, a: &Access) -> bool {
    (a.rd.idx()..a.rd.idx() + a.regs()).all(|r| fx.has_v(r))
}

/// Registers the runtime's access may write: a load's destination group.
pub(super) fn writes(a: &Access) -> crate::fx::BlockRegs {
    let vs = if a.is_store() { Vec::new() } else { (a.rd.idx()..a.rd.idx() + a.regs()).collect() };
    (vs, Vec::new())
}

fn access(fx: &mut Fx, site: &Site, a: Access) -> Lowered {
    // Mutant 106: the contiguous path also in the masked variant, where it writes every lane.
    let contiguous =
        ((fx.full_exec() && fx.tier() == crate::abi::Tier::Opt) || crate::mutants::active(106)) && a.bytes == 4;
    let scattered = gather::supports(fx, &a);
    if !contiguous && !scattered && masked::supports(fx, &a) {
        return masked::lower(fx, site, &a);
    }
    if !contiguous && !scattered {
        fx.call_mem(site.pc, site.index, writes(&a));
        return Lowered::Native;
    }
    fx.note_lowering(site.pc, crate::abi::Lowering::Native);
    let slot = fx.window_slot(site.pc);
    debug_assert_ne!(slot, crate::abi::NO_SLOT, "every compiled vector access has a window slot");
    // What the paths need to know about the offsets, before the first branch (so later accesses reading the
    // same register can reuse it: `offsets.rs`).
    let whole = contiguous.then(|| (offsets::contiguous(fx, a.rs1), offsets::first(fx, a.rs1)));
    let lanes = scattered.then(|| gather::facts(fx, &a));
    // A run of accesses differing only in their immediate is admitted by one check (`mem/group.rs`).
    let admitted = lanes.as_ref().and_then(|f| group::admission(fx, site.pc, &a, site.rest, f));
    let entry = fx.dirty();
    let (slow, join) = (fx.b.create_block(), fx.b.create_block());
    fx.b.set_cold_block(slow);
    let bodies = Bodies { fast: whole.map(|_| host_block(fx)), by_lanes: lanes.as_ref().map(|_| host_block(fx)) };
    if let Some(admitted) = admitted {
        enter_admitted(fx, admitted, whole, &bodies);
    }
    if let (Some(whole), Some(fast)) = (whole, bodies.fast) {
        let (ok, host) = inline_check(fx, &a, slot, whole);
        let other = if scattered { fx.b.create_block() } else { slow };
        fx.b.ins().brif(ok, fast, &[host.into()], other, &[]);
        fx.b.switch_to_block(other);
    }
    if let (Some(f), Some(by_lanes)) = (&lanes, bodies.by_lanes) {
        gather::check(fx, &a, slot, f, slow, by_lanes);
    }
    bodies.emit(fx, &a, lanes.as_ref(), join);
    fx.runtime_arm((slow, join), entry, (site.pc, site.index), writes(&a));
    Lowered::Native
}

/// An access's inline bodies, each entered with the host address it accesses (its one parameter) by the checks
/// that admit it: all lanes contiguous (32-bit accesses), and lane by lane or slice by slice (`gather.rs`).
struct Bodies {
    fast: Option<ir::Block>,
    by_lanes: Option<ir::Block>,
}

impl Bodies {
    /// Emits the bodies, each going on to `join`.
    fn emit(&self, fx: &mut Fx, a: &Access, lanes: Option<&gather::LaneFacts>, join: ir::Block) {
        if let Some(fast) = self.fast {
            fx.b.switch_to_block(fast);
            let host = fx.b.block_params(fast)[0];
            contiguous_access(fx, a, host);
            fx.b.ins().jump(join, &[]);
        }
        if let (Some(f), Some(by_lanes)) = (lanes, self.by_lanes) {
            fx.b.switch_to_block(by_lanes);
            let host0 = fx.b.block_params(by_lanes)[0];
            gather::emit_admitted(fx, a, f, host0, join);
        }
    }
}

/// A block entered with one I64 parameter, the host address its access reads or writes.
fn host_block(fx: &mut Fx) -> ir::Block {
    let b = fx.b.create_block();
    fx.b.append_block_param(b, I64);
    b
}

/// When the access's run was admitted (`mem/group.rs`: ok, host address of the access's base), straight to the
/// contiguous body if the lanes are contiguous and to the per-lane one otherwise; else on to the access's own
/// checks, emitted next.
fn enter_admitted(fx: &mut Fx, (ok, host0): (Value, Value), whole: Option<(Value, Value)>, bodies: &Bodies) {
    let (inside, checked) = (fx.b.create_block(), fx.b.create_block());
    fx.b.ins().brif(ok, inside, &[], checked, &[]);
    fx.b.switch_to_block(inside);
    let by_lanes = bodies.by_lanes.expect("a run's accesses have lane facts");
    match (whole, bodies.fast) {
        (Some((contiguous, off0)), Some(fast)) => {
            let off64 = fx.b.ins().uextend(I64, off0);
            let host = fx.b.ins().iadd(host0, off64);
            fx.b.ins().brif(contiguous, fast, &[host.into()], by_lanes, &[host0.into()]);
        }
        _ => {
            fx.b.ins().jump(by_lanes, &[host0.into()]);
        }
    }
    fx.b.switch_to_block(checked);
}

/// All 32 lanes at once: eight 16-byte host accesses at `host`.
fn contiguous_access(fx: &mut Fx, a: &Access, host: Value) {
    // Checked: no trap; 4-byte alignment only, so no `aligned` flag.
    let guest = checked_flags();
    if a.is_store() {
        let data = fx.v(a.rd);
        for (k, x) in data.iter().enumerate() {
            fx.b.ins().store(guest, *x, host, 16 * k as i32);
        }
    } else {
        let v = std::array::from_fn(|k| fx.b.ins().load(I32X4, guest, host, 16 * k as i32));
        fx.set_v(a.rd, v);
    }
}

/// Can a full-EXEC 32-bit access run inline? Lane l's offset must be offset0 + 4·l (`contiguous`, so the
/// lanes cover [lo, lo + CONTIGUOUS_BYTES)), lo 4-byte aligned, and the range inside the cached window for
/// this space and direction. Returns (ok, host address of lo).
fn inline_check(fx: &mut Fx, a: &Access, slot: u32, (contiguous, off0): (Value, Value)) -> (Value, Value) {
    let start = base_plus_imm(fx, a);
    let off64 = fx.b.ins().uextend(I64, off0);
    let lo = fx.b.ins().iadd(start, off64);
    // Mutant 101: the alignment test dropped.
    let low_bits = fx.b.ins().band_imm_u(lo, if crate::mutants::active(101) { 0 } else { 3 });
    let aligned = fx.b.ins().icmp_imm_u(IntCC::Equal, low_bits, 0);
    let (inside, rel, w_host) = in_window(fx, slot, lo);
    let mut ok = fx.b.ins().band(contiguous, aligned);
    ok = fx.b.ins().band(ok, inside);
    if a.sp != Sp::Shared {
        // Global lanes add a zero-extended offset: offset0 + 4·l must not wrap mod 2^32. (Shared addresses wrap
        // mod 2^32 as a whole, which the window, far below 2^32, already rules out.)
        let limit = (u32::MAX as u64 - (CONTIGUOUS_BYTES - 4)) as i64;
        let no_wrap = fx.b.ins().icmp_imm_u(IntCC::UnsignedLessThanOrEqual, off0, limit);
        ok = fx.b.ins().band(ok, no_wrap);
    }
    // Mutant 109: the host address leaves out the immediate (the check included it).
    let rel = if crate::mutants::active(109) { fx.b.ins().iadd_imm_s(rel, -(a.imm as i64)) } else { rel };
    (ok, fx.b.ins().iadd(w_host, rel))
}

/// Flags of a guest access an inline check has admitted (inside the window, aligned): it never traps. No
/// `aligned` flag: the guest's alignment is the access size, not the host vector's.
pub fn checked_flags() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

/// One lane's load of `bytes` (1, 2 or 4) at `host`, an access an inline check admitted, extended to 32 bits.
pub fn load_lane(fx: &mut Fx, host: Value, bytes: u32, signed: bool) -> Value {
    let (f, ins) = (checked_flags(), fx.b.ins());
    match (bytes, signed) {
        (1, false) => ins.uload8(I32, f, host, 0),
        (1, true) => ins.sload8(I32, f, host, 0),
        (2, false) => ins.uload16(I32, f, host, 0),
        (2, true) => ins.sload16(I32, f, host, 0),
        _ => ins.load(I32, f, host, 0),
    }
}

/// One lane's store of the low `bytes` (1, 2 or 4) of `x` at `host`, an access an inline check admitted.
pub fn store_lane(fx: &mut Fx, x: Value, host: Value, bytes: u32) {
    let (f, ins) = (checked_flags(), fx.b.ins());
    match bytes {
        1 => ins.istore8(f, x, host, 0),
        2 => ins.istore16(f, x, host, 0),
        _ => ins.store(f, x, host, 0),
    };
}

/// The cached window of `slot`: (guest lo, span, host address of lo).
pub fn window_fields(fx: &mut Fx, slot: u32) -> (Value, Value, Value) {
    let ctx_flags = crate::fx::flags();
    let ctx = fx.ctx();
    let windows = fx.b.ins().load(I64, ctx_flags, ctx, CTX_WINDOWS_OFFSET);
    let at = (slot as usize * std::mem::size_of::<Window>()) as i32;
    let w_lo = fx.b.ins().load(I64, ctx_flags, windows, at);
    let w_span = fx.b.ins().load(I64, ctx_flags, windows, at + 8);
    let w_host = fx.b.ins().load(I64, ctx_flags, windows, at + 16);
    (w_lo, w_span, w_host)
}

/// Is guest address `lo` inside the cached window of `slot` (`lo - window.lo <= window.span`, unsigned)?
/// Returns (inside, lo - window.lo, the window's host address).
pub fn in_window(fx: &mut Fx, slot: u32, lo: Value) -> (Value, Value, Value) {
    let window = window_fields(fx, slot);
    let (inside, rel) = window_check(fx, window, lo);
    (inside, rel, window.2)
}

/// Is guest address `lo` inside `window` (as `window_fields` reads it: lo, span, host)? Returns (inside,
/// lo - window.lo); for callers that read the window once and check many addresses.
pub fn window_check(fx: &mut Fx, (w_lo, w_span, _): (Value, Value, Value), lo: Value) -> (Value, Value) {
    let rel = fx.b.ins().isub(lo, w_lo);
    (fx.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, rel, w_span), rel)
}

/// u[rs2]:u[rs2+1] + sext(imm) for global and constant; for shared, (u[rs2] + imm) mod 2^32 (adding a lane's
/// offset can then pass 2^32, which lies outside shared memory, so such an access leaves the inline path).
pub fn base_plus_imm(fx: &mut Fx, a: &Access) -> Value {
    let lo = fx.u(a.rs2);
    let imm = a.imm as i64;
    if a.sp == Sp::Shared {
        let sum = fx.b.ins().iadd_imm_s(lo, imm);
        return fx.b.ins().uextend(I64, sum);
    }
    let lo64 = fx.b.ins().uextend(I64, lo);
    let hi = fx.u(UReg(a.rs2.0 + 1));
    let hi64 = fx.b.ins().uextend(I64, hi);
    let hi64 = fx.b.ins().ishl_imm_u(hi64, 32);
    let base = fx.b.ins().bor(lo64, hi64);
    fx.b.ins().iadd_imm_s(base, imm)
}

const _: () = assert!(CONTIGUOUS_BYTES == 4 * LANES as u64);
