//! Uniform memory (`u.ld.bN`, `u.st.bN`): one access per wave at A = u[rs1]:u[rs1+1] + sext(imm), whatever EXEC.
//! Inline when A is aligned to the access size and [A, A + bytes) lies inside the instruction's cached window
//! (filled by `runtime::helper_mem` after the first access the interpreter did: the kernel-argument loads of
//! every wave after the first then cost a few host loads); anything else calls the runtime, which has the
//! interpreter execute the instruction, so faults are the golden model's.

use super::super::{Lowered, Site};
use crate::fx::Fx;
use cranelift_codegen::ir::{condcodes::IntCC, types::*, InstBuilder, MemFlagsData, Value};
use lanejit_isa::{MemInsn, UReg};

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
    let (ok, host) = inline_check(fx, a, slot);
    let (fast, slow, join) = (fx.b.create_block(), fx.b.create_block(), fx.b.create_block());
    fx.b.set_cold_block(slow);
    fx.b.ins().brif(ok, fast, &[], slow, &[]);
    fx.b.switch_to_block(slow);
    let loaded: Vec<usize> = if a.store { Vec::new() } else { (a.rd.idx()..a.rd.idx() + a.words()).collect() };
    fx.call_mem(site.pc, site.index, (Vec::new(), loaded));
    fx.b.ins().jump(join, &[]);
    fx.b.switch_to_block(fast);
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
    let lo = fx.u(a.rs1);
    let hi = fx.u(UReg(a.rs1.0 + 1));
    let lo64 = fx.b.ins().uextend(I64, lo);
    let hi64 = fx.b.ins().uextend(I64, hi);
    let hi64 = fx.b.ins().ishl_imm_u(hi64, 32);
    let base = fx.b.ins().bor(lo64, hi64);
    let addr = fx.b.ins().iadd_imm_s(base, a.imm as i64);
    // Mutant 130: the alignment test dropped.
    let mask = if crate::mutants::active(130) { 0 } else { a.bytes as i64 - 1 };
    let low_bits = fx.b.ins().band_imm_u(addr, mask);
    let aligned = fx.b.ins().icmp_imm_u(IntCC::Equal, low_bits, 0);
    let (inside, rel, w_host) = super::in_window(fx, slot, addr);
    let ok = fx.b.ins().band(aligned, inside);
    (ok, fx.b.ins().iadd(w_host, rel))
}
