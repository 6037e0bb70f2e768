//! Vector loads and stores of one register (8, 16 or 32 bits per lane) under a partial EXEC, inline in the
//! masked variant of optimised code: an elected lane storing a wave's total to shared memory, lanes below a
//! count reading the waves' totals, the tail of a loop over `n` elements. Every active lane is checked before any
//! is done (`lanes.rs`: one lane on its own, more at once on the vectors), then a loop over EXEC's set bits
//! does one host access per lane, lanes ascending so the highest lane wins an overlapping store, as in the
//! interpreter. A lane that fails the check sends the whole instruction to the runtime, whose interpreter
//! reports the fault. The window is the one the contiguous and scattered paths use (`runtime::mem::try_access`
//! fills it), so its span leaves room for `CONTIGUOUS_BYTES` from a lane's address.

use super::super::{Lowered, Site};
use super::lanes::{lane_slot, next_lane, spill, unspill, Lanes};
use super::{base_plus_imm, load_lane, store_lane, window_fields, writes};
use crate::abi::CONTIGUOUS_BYTES;
use crate::access::{Access, Dir};
use crate::fx::Fx;
use cranelift_codegen::ir::{types::*, InstBuilder};

/// Does the masked path lower `a`? Optimised code's masked variant (the full-EXEC one takes the contiguous and
/// scattered paths), one register per lane.
pub fn supports(fx: &Fx, a: &Access) -> bool {
    fx.tier() == crate::abi::Tier::Opt && !fx.full_exec() && a.regs() == 1 && a.bytes <= 4
}

/// Emits the lane loop with the runtime as its cold fallback.
pub fn lower(fx: &mut Fx, site: &Site, a: &Access) -> Lowered {
    fx.note_lowering(site.pc, crate::abi::Lowering::Native);
    let slot = fx.window_slot(site.pc);
    debug_assert_ne!(slot, crate::abi::NO_SLOT, "every compiled vector access has a window slot");
    let [offs, data] = [(); 2].map(|_| lane_slot(fx));
    spill(fx, a.rs1, offs);
    if a.is_store() {
        spill(fx, a.rd, data);
    }
    let exec = fx.exec_val();
    let (w_lo, w_span, w_host) = window_fields(fx, slot);
    // One lane's access may start up to CONTIGUOUS_BYTES - bytes past the window's span.
    let span = fx.b.ins().iadd_imm_s(w_span, (CONTIGUOUS_BYTES - a.bytes as u64) as i64);
    let base = base_plus_imm(fx, a);
    let lanes = Lanes::new(fx, base, (w_lo, span, w_host), a.sp, a.align);
    let host0 = lanes.host0(fx);
    let entry = fx.dirty();
    let [apply, one, done, slow, join] = [(); 5].map(|_| fx.b.create_block());
    fx.b.set_cold_block(slow);
    fx.b.append_block_param(apply, I32);
    // Mutant 169: the lane loop starts without the lowest active lane (its access is never done).
    let first = if crate::mutants::active(169) {
        let less = fx.b.ins().iadd_imm_s(exec, -1);
        fx.b.ins().band(exec, less)
    } else {
        exec
    };
    lanes.check_then(fx, (offs, a.rs1), first, (apply, slow));
    fx.b.switch_to_block(apply);
    let mask = fx.b.block_params(apply)[0];
    let (lane, rest, more) = next_lane(fx, mask);
    fx.b.ins().brif(more, one, &[], done, &[]);
    fx.b.switch_to_block(one);
    let host = lanes.host(fx, host0, offs, lane);
    match a.dir {
        Dir::Load { signed } => {
            let x = load_lane(fx, host, a.bytes, signed);
            lanes.store(fx, data, lane, x);
        }
        Dir::Store => {
            let x = lanes.load(fx, data, lane);
            store_lane(fx, x, host, a.bytes);
        }
    }
    fx.b.ins().jump(apply, &[rest.into()]);
    fx.b.switch_to_block(done);
    if !a.is_store() {
        let v = unspill(fx, data);
        // Mutant 170: the loaded register is written in every lane (inactive lanes get the slot's leftovers).
        if crate::mutants::active(170) {
            fx.set_v_all(a.rd, v);
        } else {
            fx.set_v(a.rd, v);
        }
    }
    fx.b.ins().jump(join, &[]);
    fx.runtime_arm((slow, join), entry, (site.pc, site.index), writes(a));
    Lowered::Native
}
