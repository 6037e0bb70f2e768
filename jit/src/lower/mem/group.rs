//! Runs of vector accesses that differ only in their immediate (same offset register, base register, space,
//! direction and width, none of the registers written in between): one check where the first of them begins
//! admits them all, so each pays a test of that one boolean instead of its own window check. An unrolled loop
//! over a tile in shared memory is such a run: matrix multiply's 16 loads `ld.b32 vK, v9, u20, 1024 + 64·k`
//! each checked the same offsets against the same shared window.
//!
//! The check is the per-lane one of `gather.rs` widened by the run's spread of immediates: every lane of the
//! run's lowest and highest access lies in the first access's window, and the lanes' low bits make every
//! access aligned (the immediates differ by multiples of the alignment). An access whose run failed the check
//! takes its own checks, then the runtime, exactly as outside a run.

use super::{base_plus_imm, gather, window_check, window_fields};
use crate::abi::CONTIGUOUS_BYTES;
use crate::access::Access;
use crate::blocks::Op;
use crate::fx::{Admission, Fx};
use cranelift_codegen::ir::{condcodes::IntCC, InstBuilder, Value};
use lanejit_isa::{Insn, RegFile};

/// Largest spread of immediates a run covers: the check adds it to the largest lane's offset, so a run far
/// wider than any window would only fail it.
const MAX_SPREAD: i64 = 1 << 16;

/// The admission of the access at `pc`, as (ok, host address of its base): recorded by its run's first access,
/// or, when `a` begins a run of two or more in `rest` (the instructions after it in its segment), checked here
/// for the whole run. None when the access is in no run. Called where the access begins, before its first
/// branch, after `gather::facts`.
pub fn admission(fx: &mut Fx, pc: u32, a: &Access, rest: &[Op], lanes: &gather::LaneFacts) -> Option<(Value, Value)> {
    fx.run_admission((pc, a.imm), |fx| {
        let members = run_after(a, rest);
        if members.is_empty() {
            return None;
        }
        let imms = || members.iter().map(|&(_, imm)| imm).chain([a.imm]);
        let (lo, hi) = (imms().min()?, imms().max()?);
        let (ok, host) = check(fx, a, fx.window_slot(pc), lanes, (lo, hi));
        Some((Admission { ok, host, imm: lo }, members.into_iter().map(|m| m.0).collect()))
    })
}

/// The accesses after `a` in `rest` that one check can admit with it: (pc, immediate) of each, up to the first
/// instruction that writes `a`'s offset or base registers (an access that writes them is the run's last).
fn run_after(a: &Access, rest: &[Op]) -> Vec<(u32, i32)> {
    let mut run = Vec::new();
    if loads_into_offsets(a) {
        return run;
    }
    for op in rest {
        if let Insn::Mem(m) = &op.insn {
            if let Some(b) = Access::of(m).filter(|b| same_run(a, b)) {
                run.push((op.pc, b.imm));
            }
        }
        let w = op.insn.writes();
        // Mutant 174: a run goes on past a write of its offset register (later accesses trust the old offsets).
        let offsets_written = w.contains(RegFile::V, a.rs1.idx()) && !crate::mutants::active(174);
        if offsets_written || (0..base_regs(a)).any(|k| w.contains(RegFile::U, a.rs2.idx() + k)) {
            break;
        }
    }
    run
}

/// Does `a` load into its own offset register? Later accesses then see other offsets.
fn loads_into_offsets(a: &Access) -> bool {
    !a.is_store() && (a.rd.idx()..a.rd.idx() + a.regs()).contains(&a.rs1.idx())
}

/// Uniform registers holding the base: one for shared memory (32-bit addresses), a pair otherwise.
fn base_regs(a: &Access) -> usize {
    if a.sp == lanejit_isa::Sp::Shared {
        1
    } else {
        2
    }
}

/// Can `b` share `a`'s check? The same registers, space, direction and width, and an immediate a multiple of the
/// alignment away (so both are aligned alike), not far.
fn same_run(a: &Access, b: &Access) -> bool {
    let spread = (i64::from(b.imm) - i64::from(a.imm)).abs();
    (a.rs1, a.rs2, a.sp, a.dir, a.bytes, a.align) == (b.rs1, b.rs2, b.sp, b.dir, b.bytes, b.align)
        && spread <= MAX_SPREAD
        && spread % i64::from(a.align) == 0
}

/// Is every lane of the accesses with immediates `lo..=hi` inside `slot`'s window and aligned? Returns (ok, host
/// address of the lowest access's base); `a` is any access of the run.
fn check(fx: &mut Fx, a: &Access, slot: u32, lanes: &gather::LaneFacts, (lo, hi): (i32, i32)) -> (Value, Value) {
    let lowest = Access { imm: lo, ..*a };
    let start = base_plus_imm(fx, &lowest);
    let (w_lo, w_span, w_host) = window_fields(fx, slot);
    let limit = fx.b.ins().iadd_imm_s(w_span, (CONTIGUOUS_BYTES - gather::read_bytes(a)) as i64);
    let (first_inside, rel0) = window_check(fx, (w_lo, limit, w_host), start);
    // Every lane of the highest access: its offsets reach `hi - lo` further than the lowest one's.
    let room = fx.b.ins().isub(limit, rel0);
    // Mutant 173: the check covers only the run's lowest access (its spread of immediates left out).
    let spread = if crate::mutants::active(173) { 0 } else { i64::from(hi) - i64::from(lo) };
    let room = fx.b.ins().iadd_imm_s(room, -spread);
    let spread_fits = fx.b.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, room, 0);
    let lanes_fit = gather::lanes_ok(fx, a, lanes, start, room);
    let filled = fx.b.ins().icmp_imm_u(IntCC::NotEqual, w_host, 0);
    let mut ok = fx.b.ins().band(first_inside, spread_fits);
    for x in [lanes_fit, filled] {
        ok = fx.b.ins().band(ok, x);
    }
    (ok, fx.b.ins().iadd(w_host, rel0))
}
