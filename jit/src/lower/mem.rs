//! Group `mem`: vector loads and stores with a uniform base and per-lane 32-bit offsets run natively when one
//! check proves them exact: the active lanes' address range [lo, hi) lies in one region the memory grants
//! (`Memory::host_window`, one call per instruction) and every lane is aligned. Otherwise the interpreter runs
//! the instruction, so faults are reported by the golden model. Atomics, per-lane pointers, 12-byte accesses,
//! uniform memory and image ops always take the interpreter.

use super::{Lowered, Site};
use crate::fx::{Fx, Vec32, VECS};
use cranelift_codegen::ir::{condcodes::IntCC, types::*, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, Value};
use lanejit_isa::{MemInsn, Sp, UReg, VReg, LANES, VREGS};

#[derive(Clone, Copy, PartialEq)]
enum Dir {
    Load { signed: bool },
    Store,
}

/// A vector access: `bytes` per lane (1, 2, 4, 8, 16), into/out of consecutive registers from `rd`.
#[derive(Clone, Copy)]
struct Access {
    rd: VReg,
    rs1: VReg,
    rs2: UReg,
    imm: i32,
    sp: Sp,
    bytes: u32,
    dir: Dir,
}

pub fn lower(fx: &mut Fx, i: &MemInsn, site: &Site) -> Lowered {
    use MemInsn::*;
    let a = |rd, rs1, rs2, imm, sp, bytes, dir| Access { rd, rs1, rs2, imm, sp, bytes, dir };
    let (u, s, st) = (Dir::Load { signed: false }, Dir::Load { signed: true }, Dir::Store);
    match *i {
        LdU8 { rd, rs1, rs2, imm, sp, .. } => access(fx, site, a(rd, rs1, rs2, imm, sp, 1, u)),
        LdS8 { rd, rs1, rs2, imm, sp, .. } => access(fx, site, a(rd, rs1, rs2, imm, sp, 1, s)),
        LdU16 { rd, rs1, rs2, imm, sp, .. } => access(fx, site, a(rd, rs1, rs2, imm, sp, 2, u)),
        LdS16 { rd, rs1, rs2, imm, sp, .. } => access(fx, site, a(rd, rs1, rs2, imm, sp, 2, s)),
        LdB32 { rd, rs1, rs2, imm, sp, .. } => access(fx, site, a(rd, rs1, rs2, imm, sp, 4, u)),
        LdB64 { rd, rs1, rs2, imm, sp, .. } => access(fx, site, a(rd, rs1, rs2, imm, sp, 8, u)),
        LdB128 { rd, rs1, rs2, imm, sp, .. } => access(fx, site, a(rd, rs1, rs2, imm, sp, 16, u)),
        StB8 { rd, rs1, rs2, imm, sp, .. } => access(fx, site, a(rd, rs1, rs2, imm, sp, 1, st)),
        StB16 { rd, rs1, rs2, imm, sp, .. } => access(fx, site, a(rd, rs1, rs2, imm, sp, 2, st)),
        StB32 { rd, rs1, rs2, imm, sp, .. } => access(fx, site, a(rd, rs1, rs2, imm, sp, 4, st)),
        StB64 { rd, rs1, rs2, imm, sp, .. } => access(fx, site, a(rd, rs1, rs2, imm, sp, 8, st)),
        StB128 { rd, rs1, rs2, imm, sp, .. } => access(fx, site, a(rd, rs1, rs2, imm, sp, 16, st)),
        LdB96 { .. } | StB96 { .. } => Lowered::Helper,
        LdA64U8 { .. } | LdA64S8 { .. } | LdA64U16 { .. } | LdA64S16 { .. } | LdA64B32 { .. } | LdA64B64 { .. }
        | LdA64B96 { .. } | LdA64B128 { .. } | StA64B8 { .. } | StA64B16 { .. } | StA64B32 { .. } | StA64B64 { .. }
        | StA64B96 { .. } | StA64B128 { .. } => Lowered::Helper,
        AtomAddU32 { .. } | AtomSubU32 { .. } | AtomMinI32 { .. } | AtomMaxI32 { .. } | AtomMinU32 { .. }
        | AtomMaxU32 { .. } | AtomAndB32 { .. } | AtomOrB32 { .. } | AtomXorB32 { .. } | AtomXchgB32 { .. }
        | AtomCasB32 { .. } | AtomIncU32 { .. } | AtomDecU32 { .. } | AtomFaddF32 { .. } | AtomA64AddU32 { .. }
        | AtomA64SubU32 { .. } | AtomA64MinI32 { .. } | AtomA64MaxI32 { .. } | AtomA64MinU32 { .. }
        | AtomA64MaxU32 { .. } | AtomA64AndB32 { .. } | AtomA64OrB32 { .. } | AtomA64XorB32 { .. }
        | AtomA64XchgB32 { .. } | AtomA64CasB32 { .. } | AtomA64IncU32 { .. } | AtomA64DecU32 { .. }
        | AtomA64FaddF32 { .. } => Lowered::Helper,
        ULdB32 { .. } | ULdB64 { .. } | ULdB128 { .. } | ULdB256 { .. } | UStB32 { .. } | UStB64 { .. } => Lowered::Helper,
        ImgLoad { .. } | ImgStore { .. } | ImgSample { .. } | ImgQuery { .. } => Lowered::Helper,
    }
}

fn regs(a: &Access) -> usize {
    (a.bytes as usize / 4).max(1)
}

fn lowerable(fx: &Fx, a: &Access) -> bool {
    let n = regs(a);
    let cached = (a.rd.idx()..a.rd.idx() + n).all(|r| r < VREGS && fx.vvars[r].is_some());
    let space_ok = matches!(a.sp, Sp::Global | Sp::Shared) || a.sp == Sp::Constant && a.dir != Dir::Store;
    cached && space_ok && a.rd.idx() + n <= VREGS
}

fn access(fx: &mut Fx, site: &Site, a: Access) -> Lowered {
    if !lowerable(fx, &a) {
        return Lowered::Helper;
    }
    let off = fx.v(a.rs1);
    let (base, window) = check(fx, &a, off);
    let (fast, slow, join) = (fx.b.create_block(), fx.b.create_block(), fx.b.create_block());
    fx.b.set_cold_block(slow);
    let ok = fx.b.ins().icmp_imm_u(IntCC::NotEqual, window, 0);
    fx.b.ins().brif(ok, fast, &[], slow, &[]);
    fx.b.switch_to_block(slow);
    fx.call_interp(site.pc, site.index);
    fx.b.ins().jump(join, &[]);
    fx.b.switch_to_block(fast);
    let lane_ptrs = lane_pointers(fx, off, base, window);
    match a.dir {
        Dir::Load { signed } => load(fx, &a, &lane_ptrs, signed),
        Dir::Store => store(fx, &a, &lane_ptrs),
    }
    fx.b.ins().jump(join, &[]);
    fx.b.switch_to_block(join);
    Lowered::Native
}

/// Proves the access exact: returns the lowest active offset and the host address of the lowest lane's
/// access, or 0 when the instruction must go to the interpreter (misaligned lanes, a fault, EXEC = 0).
fn check(fx: &mut Fx, a: &Access, off: Vec32) -> (Value, Value) {
    let lo_id = fx.active_or(off, u32::MAX);
    let hi_id = fx.active_or(off, 0);
    let min = fx.fold(lo_id, |f, x, y| f.b.ins().umin(x, y));
    let max = fx.fold(hi_id, |f, x, y| f.b.ins().umax(x, y));
    let ors = fx.fold(hi_id, |f, x, y| f.b.ins().bor(x, y));
    let start = base_plus_imm(fx, a);
    let (min64, max64) = (fx.b.ins().uextend(I64, min), fx.b.ins().uextend(I64, max));
    let lo = fx.b.ins().iadd(start, min64);
    let hi = fx.b.ins().iadd(start, max64);
    let hi = fx.b.ins().iadd_imm_s(hi, a.bytes as i64);
    // Every lane aligned: the start and every offset are multiples of the access size (sufficient, and exact
    // for the usual case; anything else takes the interpreter, which is always right).
    let ors64 = fx.b.ins().uextend(I64, ors);
    let low = fx.b.ins().bor(ors64, start);
    let low = fx.b.ins().band_imm_u(low, a.bytes as i64 - 1);
    let aligned = fx.b.ins().icmp_imm_u(IntCC::Equal, low, 0);
    let w = window(fx, a, lo, hi);
    let zero = fx.b.ins().iconst(I64, 0);
    (min, fx.b.ins().select(aligned, w, zero))
}

/// u[rs2]:u[rs2+1] + sext(imm) for global and constant; for shared, the 32-bit u[rs2] + imm (an access whose
/// lanes would wrap mod 2^32 lands past the end of shared memory and so takes the interpreter).
fn base_plus_imm(fx: &mut Fx, a: &Access) -> Value {
    let lo = fx.u(a.rs2);
    let lo64 = fx.b.ins().uextend(I64, lo);
    let base = if a.sp == Sp::Shared {
        lo64
    } else {
        let hi = fx.u(UReg(a.rs2.0 + 1));
        let hi64 = fx.b.ins().uextend(I64, hi);
        let hi64 = fx.b.ins().ishl_imm_u(hi64, 32);
        fx.b.ins().bor(lo64, hi64)
    };
    let imm = fx.b.ins().iconst(I64, a.imm as i64);
    let sum = fx.b.ins().iadd(base, imm);
    if a.sp == Sp::Shared {
        // The shared offset base wraps mod 2^32 like the interpreter's.
        let s32 = fx.b.ins().ireduce(I32, sum);
        fx.b.ins().uextend(I64, s32)
    } else {
        sum
    }
}

fn window(fx: &mut Fx, a: &Access, lo: Value, hi: Value) -> Value {
    let sp = fx.b.ins().iconst(I32, a.sp as i64);
    let write = fx.b.ins().iconst(I32, (a.dir == Dir::Store) as i64);
    let f = fx.b.ins().iconst(I64, fx.helpers.window as i64);
    let sig = fx.helpers.window_sig;
    let call = fx.b.ins().call_indirect(sig, f, &[fx.ctx, sp, lo, hi, write]);
    fx.b.inst_results(call)[0]
}

/// Host address of each lane's access: window + (offset - min). Inactive lanes use the window itself (a valid
/// address), so no lane ever touches memory outside the checked range.
fn lane_pointers(fx: &mut Fx, off: Vec32, min: Value, window: Value) -> [Value; LANES] {
    let minv = fx.b.ins().splat(I32X4, min);
    let exec = fx.exec_val();
    let full = fx.full_exec;
    let rel: Vec32 = std::array::from_fn(|k| {
        let d = fx.b.ins().isub(off[k], minv);
        if full {
            return d;
        }
        let m = fx.lane_mask(exec, k);
        let zero = fx.b.ins().iconst(I32, 0);
        let z = fx.b.ins().splat(I32X4, zero);
        fx.b.ins().bitselect(m, d, z)
    });
    std::array::from_fn(|l| {
        let r = fx.b.ins().extractlane(rel[l / 4], (l % 4) as u8);
        let r = fx.b.ins().uextend(I64, r);
        fx.b.ins().iadd(window, r)
    })
}

fn flags() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

fn load(fx: &mut Fx, a: &Access, ptrs: &[Value; LANES], signed: bool) {
    for reg in 0..regs(a) {
        let zero = fx.b.ins().iconst(I32, 0);
        let mut vecs: Vec32 = [fx.b.ins().splat(I32X4, zero); VECS];
        for (l, p) in ptrs.iter().enumerate() {
            let x = load_one(fx, a.bytes, signed, *p, reg as i32 * 4);
            vecs[l / 4] = fx.b.ins().insertlane(vecs[l / 4], x, (l % 4) as u8);
        }
        fx.set_v(VReg(a.rd.0 + reg as u8), vecs);
    }
}

fn load_one(fx: &mut Fx, bytes: u32, signed: bool, p: Value, off: i32) -> Value {
    match (bytes, signed) {
        (1, false) => fx.b.ins().uload8(I32, flags(), p, off),
        (1, true) => fx.b.ins().sload8(I32, flags(), p, off),
        (2, false) => fx.b.ins().uload16(I32, flags(), p, off),
        (2, true) => fx.b.ins().sload16(I32, flags(), p, off),
        _ => fx.b.ins().load(I32, flags(), p, off),
    }
}

/// Lane by lane, ascending (the highest lane wins an overlap); inactive lanes store to a scratch slot.
fn store(fx: &mut Fx, a: &Access, ptrs: &[Value; LANES]) {
    let data: Vec<Vec32> = (0..regs(a)).map(|r| fx.v(VReg(a.rd.0 + r as u8))).collect();
    let scratch = if fx.full_exec { None } else { Some(scratch_slot(fx)) };
    let exec = fx.exec_val();
    for (l, p) in ptrs.iter().enumerate() {
        let p = match scratch {
            None => *p,
            Some(s) => {
                let on = fx.b.ins().band_imm_u(exec, 1i64 << l);
                fx.b.ins().select(on, *p, s)
            }
        };
        for (r, d) in data.iter().enumerate() {
            let x = fx.b.ins().extractlane(d[l / 4], (l % 4) as u8);
            store_one(fx, a.bytes, x, p, r as i32 * 4);
        }
    }
}

fn store_one(fx: &mut Fx, bytes: u32, x: Value, p: Value, off: i32) {
    match bytes {
        1 => fx.b.ins().istore8(flags(), x, p, off),
        2 => fx.b.ins().istore16(flags(), x, p, off),
        _ => fx.b.ins().store(flags(), x, p, off),
    };
}

fn scratch_slot(fx: &mut Fx) -> Value {
    let slot = fx.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 16, 4));
    fx.b.ins().stack_addr(I64, slot, 0)
}
