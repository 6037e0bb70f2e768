//! Uniform memory (`u.ld.bN`, `u.st.bN`): one access per wave at A = u[rs1]:u[rs1+1] + sext(imm), whatever EXEC.
//! Inline when A is aligned to the access size and [A, A + bytes) lies inside the instruction's cached window
//! (filled by `runtime::helper_mem` after the first access the interpreter did: the kernel-argument loads of
//! every wave after the first then cost a few host loads); anything else calls the runtime, which has the
//! interpreter execute the instruction, so faults are the golden model's. A run of them from one address pair
//! (kernel arguments: `u.ld.b64 u6, u0, 0`, `u.ld.b64 u8, u0, 8`, …) is admitted by one check where the first
//! begins, as runs of vector accesses are (`group.rs`); an access whose run fails it takes its own check.

use super::super::{Lowered, Site};
use crate::fx::{Admission, Fx};
use cranelift_codegen::ir::{condcodes::IntCC, types::*, InstBuilder, MemFlagsData, Value};
use lanejit_isa::{Insn, MemInsn, RegFile, UReg};

/// A uniform load or store: `rd` (destination, or the data of a store), the address pair `rs1`, the offset.
pub struct UniformAccess {
    pub rd: UReg,
    pub rs1: UReg,
    pub imm: i32,
    pub bytes: u32,
    pub store: bool,
}

impl UniformAccess {
    /// The uniform memory instructions, with their width from the ISA tables (YAML `access`).
    pub fn of(i: &MemInsn) -> Option<UniformAccess> {
        use MemInsn::*;
        let (rd, rs1, imm) = match *i {
            ULdB32 { rd, rs1, imm, .. }
            | ULdB64 { rd, rs1, imm, .. }
            | ULdB128 { rd, rs1, imm, .. }
            | ULdB256 { rd, rs1, imm, .. }
            | UStB32 { rd, rs1, imm, .. }
            | UStB64 { rd, rs1, imm, .. } => (rd, rs1, imm),
            _ => return None,
        };
        let info = lanejit_isa::Insn::Mem(*i).id().info();
        let bytes = info.access?.bytes;
        // A register group past u63 is the interpreter's IllegalInsn.
        let fits = rd.idx() + words(bytes) <= lanejit_isa::UREGS && rs1.idx() < lanejit_isa::UREGS - 1;
        (fits && bytes.is_power_of_two()).then_some(UniformAccess {
            rd,
            rs1,
            imm,
            bytes,
            store: info.has(lanejit_isa::flag::ST),
        })
    }

    pub fn words(&self) -> usize {
        words(self.bytes)
    }

    /// Guest address of the access, as the interpreter computes it.
    pub fn address(&self, u: &[u32]) -> u64 {
        lanejit_interp::mem::uniform_address(u, self.rs1, self.imm)
    }
}

fn words(bytes: u32) -> usize {
    (bytes as usize).div_ceil(4)
}

pub fn lower(fx: &mut Fx, site: &Site, a: &UniformAccess) -> Lowered {
    fx.note_lowering(site.pc, crate::abi::Lowering::Native);
    let slot = fx.window_slot(site.pc);
    debug_assert_ne!(slot, crate::abi::NO_SLOT, "every compiled uniform access has a window slot");
    let (fast, slow, join) = (fx.b.create_block(), fx.b.create_block(), fx.b.create_block());
    fx.b.append_block_param(fast, I64);
    fx.b.set_cold_block(slow);
    if let Some((ok, host)) = run_admission(fx, site, a) {
        let checked = fx.b.create_block();
        fx.b.ins().brif(ok, fast, &[host.into()], checked, &[]);
        fx.b.switch_to_block(checked);
    }
    let (ok, host) = inline_check(fx, a, slot);
    fx.b.ins().brif(ok, fast, &[host.into()], slow, &[]);
    fx.b.switch_to_block(slow);
    let loaded: Vec<usize> = if a.store { Vec::new() } else { (a.rd.idx()..a.rd.idx() + a.words()).collect() };
    fx.call_mem(site.pc, site.index, (Vec::new(), loaded));
    fx.b.ins().jump(join, &[]);
    fx.b.switch_to_block(fast);
    let host = fx.b.block_params(fast)[0];
    // Checked above: inside the window and aligned to the access size (at least 4).
    let guest = MemFlagsData::new().with_notrap();
    if a.store {
        for k in 0..a.words() {
            let x = fx.u(UReg(a.rd.0 + k as u8));
            fx.b.ins().store(guest, x, host, 4 * k as i32);
        }
    } else {
        // Every word is read before any register is written (rd may overlap rs1).
        let vals: Vec<Value> = (0..a.words()).map(|k| fx.b.ins().load(I32, guest, host, 4 * k as i32)).collect();
        for (k, x) in vals.into_iter().enumerate() {
            fx.set_u(UReg(a.rd.0 + k as u8), x);
        }
    }
    fx.b.ins().jump(join, &[]);
    fx.b.switch_to_block(join);
    Lowered::Native
}

/// (A aligned and [A, A + bytes) inside the window of `slot`, host address of A).
fn inline_check(fx: &mut Fx, a: &UniformAccess, slot: u32) -> (Value, Value) {
    let addr = address(fx, a);
    // Mutant 130: the alignment test dropped.
    let mask = if crate::mutants::active(130) { 0 } else { a.bytes as i64 - 1 };
    let low_bits = fx.b.ins().band_imm_u(addr, mask);
    let aligned = fx.b.ins().icmp_imm_u(IntCC::Equal, low_bits, 0);
    let (inside, rel, w_host) = super::in_window(fx, slot, addr);
    let ok = fx.b.ins().band(aligned, inside);
    (ok, fx.b.ins().iadd(w_host, rel))
}

/// A = u[rs1]:u[rs1+1] + sext(imm).
fn address(fx: &mut Fx, a: &UniformAccess) -> Value {
    let lo = fx.u(a.rs1);
    let hi = fx.u(UReg(a.rs1.0 + 1));
    let lo64 = fx.b.ins().uextend(I64, lo);
    let hi64 = fx.b.ins().uextend(I64, hi);
    let hi64 = fx.b.ins().ishl_imm_u(hi64, 32);
    let base = fx.b.ins().bor(lo64, hi64);
    fx.b.ins().iadd_imm_s(base, a.imm as i64)
}

/// The admission (ok, host address) of `a` by its run's check: recorded by the run's first access, or made here
/// when `a` begins a run of two or more accesses from the same address pair in the same direction (the
/// instructions after it in its segment, up to the first that writes the pair). None outside a run.
fn run_admission(fx: &mut Fx, site: &Site, a: &UniformAccess) -> Option<(Value, Value)> {
    fx.run_admission((site.pc, a.imm), |fx| {
        let run = run_after(a, site.rest);
        let lo = run.iter().map(|m| m.1).chain([a.imm]).min()?;
        // Each access is aligned when the lowest address is aligned to the widest access and each lies a
        // multiple of its own width above it.
        let run: Vec<(u32, i32, u32)> = run.into_iter().filter(|m| (m.1 - lo) % m.2 as i32 == 0).collect();
        if run.is_empty() || (a.imm - lo) % a.bytes as i32 != 0 {
            return None;
        }
        let members = || run.iter().map(|m| (m.1, m.2)).chain([(a.imm, a.bytes)]);
        // Bytes from the lowest address to the end of the farthest access.
        let reach = members().map(|(imm, bytes)| imm - lo + bytes as i32).max()?;
        let widest = members().map(|(_, bytes)| bytes).max()?;
        let (ok, host) = run_check(fx, a, fx.window_slot(site.pc), (lo, reach), widest);
        Some((Admission { ok, host, imm: lo }, run.iter().map(|m| m.0).collect()))
    })
}

/// Largest spread of immediates a run of uniform accesses covers (kernel arguments lie a few words apart).
const MAX_SPREAD: i32 = 4096;

/// The uniform accesses after `a` in `rest` from the same address pair and in the same direction: (pc,
/// immediate, bytes) of each, up to the first instruction that writes the pair (a load that does is the last).
fn run_after(a: &UniformAccess, rest: &[crate::blocks::Op]) -> Vec<(u32, i32, u32)> {
    let pair = [a.rs1.idx(), a.rs1.idx() + 1];
    let mut run = Vec::new();
    if !a.store && (a.rd.idx()..a.rd.idx() + a.words()).any(|r| pair.contains(&r)) {
        return run;
    }
    for op in rest {
        if let Insn::Mem(m) = &op.insn {
            let same = |b: &UniformAccess| b.rs1 == a.rs1 && b.store == a.store && (b.imm - a.imm).abs() <= MAX_SPREAD;
            if let Some(b) = UniformAccess::of(m).filter(same) {
                run.push((op.pc, b.imm, b.bytes));
            }
        }
        let w = op.insn.writes();
        if pair.iter().any(|&r| w.contains(RegFile::U, r)) {
            break;
        }
    }
    run
}

/// Are the `reach` bytes from A + lo inside `slot`'s window, with A + lo aligned to `widest` bytes? Returns (ok,
/// host address of A + lo). The window was cached for `a` (its span is the region's length less `a`'s width).
fn run_check(fx: &mut Fx, a: &UniformAccess, slot: u32, (lo, reach): (i32, i32), widest: u32) -> (Value, Value) {
    let lowest = UniformAccess { imm: lo, ..*a };
    let start = address(fx, &lowest);
    let low_bits = fx.b.ins().band_imm_u(start, widest as i64 - 1);
    let aligned = fx.b.ins().icmp_imm_u(IntCC::Equal, low_bits, 0);
    let (w_lo, w_span, w_host) = super::window_fields(fx, slot);
    // Mutant 175: the check covers only the run's lowest access (the rest of its reach left out).
    let beyond = if crate::mutants::active(175) { 0 } else { i64::from(reach) - i64::from(a.bytes) };
    // start - window.lo + beyond <= span, written so that nothing wraps.
    let wide_enough = fx.b.ins().icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, w_span, beyond);
    let limit = fx.b.ins().iadd_imm_s(w_span, -beyond);
    let (inside, rel) = super::window_check(fx, (w_lo, limit, w_host), start);
    let mut ok = fx.b.ins().band(aligned, wide_enough);
    ok = fx.b.ins().band(ok, inside);
    (ok, fx.b.ins().iadd(w_host, rel))
}
