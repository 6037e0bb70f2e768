//! Group `mem`: vector loads and stores with a uniform base and per-lane 32-bit offsets run natively when one
//! check proves them exact: the active lanes' address range [lo, hi) lies in one region the memory grants
//! (`Memory::host_window`, one call per instruction) and every lane is aligned. Otherwise the interpreter runs
//! the instruction, so faults are reported by the golden model. Atomics, per-lane pointers, 12-byte accesses,
//! uniform memory and image ops always take the interpreter.

use super::{Lowered, Site};
use crate::fx::{Fx, Vec32};
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
    lanes_mem(fx, &a, off, base, window);
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

/// Each lane's byte offset from the window (offset - min); inactive lanes get 0, the window itself, which is a
/// valid address, so no lane ever touches memory outside the checked range.
fn relative_offsets(fx: &mut Fx, off: Vec32, min: Value) -> Vec32 {
    let minv = fx.b.ins().splat(I32X4, min);
    let exec = fx.exec_val();
    let full = fx.full_exec;
    std::array::from_fn(|k| {
        let d = fx.b.ins().isub(off[k], minv);
        if full {
            return d;
        }
        let m = fx.lane_mask(exec, k);
        let zero = fx.b.ins().iconst(I32, 0);
        let z = fx.b.ins().splat(I32X4, zero);
        fx.b.ins().bitselect(m, d, z)
    })
}

/// Performs the per-lane accesses through the out-of-line helper (`runtime::helper_lanes_mem`): offsets and
/// data go through stack slots.
fn lanes_mem(fx: &mut Fx, a: &Access, off: Vec32, min: Value, window: Value) {
    let rel = relative_offsets(fx, off, min);
    let rel_slot = fx.spill(rel);
    let slot = fx.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, (4 * LANES * 4) as u32, 4));
    let regs_addr = fx.b.ins().stack_addr(I64, slot, 0);
    let n = regs(a);
    if a.dir == Dir::Store {
        for r in 0..n {
            let v = fx.v(VReg(a.rd.0 + r as u8));
            for (k, x) in v.iter().enumerate() {
                fx.b.ins().store(MemFlagsData::trusted(), *x, regs_addr, (r * LANES * 4 + k * 16) as i32);
            }
        }
    }
    let signed = matches!(a.dir, Dir::Load { signed: true });
    let op = a.bytes | (n as u32) << 8 | (signed as u32) << 16 | ((a.dir == Dir::Store) as u32) << 17;
    let opv = fx.b.ins().iconst(I32, op as i64);
    let exec = fx.exec_val();
    let f = fx.b.ins().iconst(I64, fx.helpers.lanes_mem as i64);
    let sig = fx.helpers.lanes_mem_sig;
    fx.b.ins().call_indirect(sig, f, &[window, rel_slot, regs_addr, opv, exec]);
    if let Dir::Load { .. } = a.dir {
        for r in 0..n {
            let v: Vec32 = std::array::from_fn(|k| fx.b.ins().load(I32X4, MemFlagsData::trusted(), regs_addr, (r * LANES * 4 + k * 16) as i32));
            fx.set_v(VReg(a.rd.0 + r as u8), v);
        }
    }
}
