//! Group 6, memory: vector loads, stores and atomics (`M`), uniform loads and stores (`UM`), image ops (`T`).
//!
//! Every memory instruction first checks everything that can trap, over all active lanes, and only then
//! touches memory or registers, so that a trapping instruction has no effect. The order of the checks is the
//! YAML's: IllegalInsn (whatever EXEC), write to constant memory, Misaligned, outside an allocation.
//! `cpol` is a cache hint with no functional effect, so every handler ignores it.

mod image;
mod uniform;
mod vector;

use crate::ctx::{Ctx, Flow};
use crate::memory::MemFault;
use crate::trap::{Trap, TrapKind};
pub use image::{pack_components, ImgOp};
use lanejit_isa::{MemInsn, Sp, UReg, VReg};
pub use uniform::uniform_address;
pub use vector::{atomic_word, offset_addresses, AtomOp};
use vector::{Base, Vm};

/// Width, alignment, extension and atomic operation come from the ISA tables (YAML `access`); the handlers
/// below are the same for every width.
pub fn exec(cx: &mut Ctx, i: &MemInsn) -> Result<Flow, Trap> {
    use MemInsn::*;
    let access =
        || lanejit_isa::Insn::Mem(*i).id().info().access.expect("every M and UM instruction states its access");
    match *i {
        LdU8 { rd, rs1, rs2, imm, sp, cpol: _ }
        | LdS8 { rd, rs1, rs2, imm, sp, cpol: _ }
        | LdU16 { rd, rs1, rs2, imm, sp, cpol: _ }
        | LdS16 { rd, rs1, rs2, imm, sp, cpol: _ }
        | LdB32 { rd, rs1, rs2, imm, sp, cpol: _ }
        | LdB64 { rd, rs1, rs2, imm, sp, cpol: _ }
        | LdB96 { rd, rs1, rs2, imm, sp, cpol: _ }
        | LdB128 { rd, rs1, rs2, imm, sp, cpol: _ } => vector::load(cx, off(rd, rs1, rs2, imm, sp), access()),
        StB8 { rd, rs1, rs2, imm, sp, cpol: _ }
        | StB16 { rd, rs1, rs2, imm, sp, cpol: _ }
        | StB32 { rd, rs1, rs2, imm, sp, cpol: _ }
        | StB64 { rd, rs1, rs2, imm, sp, cpol: _ }
        | StB96 { rd, rs1, rs2, imm, sp, cpol: _ }
        | StB128 { rd, rs1, rs2, imm, sp, cpol: _ } => vector::store(cx, off(rd, rs1, rs2, imm, sp), access()),
        LdA64U8 { rd, rs1, imm, sp, cpol: _ }
        | LdA64S8 { rd, rs1, imm, sp, cpol: _ }
        | LdA64U16 { rd, rs1, imm, sp, cpol: _ }
        | LdA64S16 { rd, rs1, imm, sp, cpol: _ }
        | LdA64B32 { rd, rs1, imm, sp, cpol: _ }
        | LdA64B64 { rd, rs1, imm, sp, cpol: _ }
        | LdA64B96 { rd, rs1, imm, sp, cpol: _ }
        | LdA64B128 { rd, rs1, imm, sp, cpol: _ } => vector::load(cx, ptr(rd, rs1, imm, sp), access()),
        StA64B8 { rd, rs1, imm, sp, cpol: _ }
        | StA64B16 { rd, rs1, imm, sp, cpol: _ }
        | StA64B32 { rd, rs1, imm, sp, cpol: _ }
        | StA64B64 { rd, rs1, imm, sp, cpol: _ }
        | StA64B96 { rd, rs1, imm, sp, cpol: _ }
        | StA64B128 { rd, rs1, imm, sp, cpol: _ } => vector::store(cx, ptr(rd, rs1, imm, sp), access()),
        AtomAddU32 { rd, rs1, rs2, imm, sp, cpol: _ }
        | AtomSubU32 { rd, rs1, rs2, imm, sp, cpol: _ }
        | AtomMinI32 { rd, rs1, rs2, imm, sp, cpol: _ }
        | AtomMaxI32 { rd, rs1, rs2, imm, sp, cpol: _ }
        | AtomMinU32 { rd, rs1, rs2, imm, sp, cpol: _ }
        | AtomMaxU32 { rd, rs1, rs2, imm, sp, cpol: _ }
        | AtomAndB32 { rd, rs1, rs2, imm, sp, cpol: _ }
        | AtomOrB32 { rd, rs1, rs2, imm, sp, cpol: _ }
        | AtomXorB32 { rd, rs1, rs2, imm, sp, cpol: _ }
        | AtomXchgB32 { rd, rs1, rs2, imm, sp, cpol: _ }
        | AtomCasB32 { rd, rs1, rs2, imm, sp, cpol: _ }
        | AtomIncU32 { rd, rs1, rs2, imm, sp, cpol: _ }
        | AtomDecU32 { rd, rs1, rs2, imm, sp, cpol: _ }
        | AtomFaddF32 { rd, rs1, rs2, imm, sp, cpol: _ } => vector::atomic(cx, off(rd, rs1, rs2, imm, sp), access()),
        AtomA64AddU32 { rd, rs1, imm, sp, cpol: _ }
        | AtomA64SubU32 { rd, rs1, imm, sp, cpol: _ }
        | AtomA64MinI32 { rd, rs1, imm, sp, cpol: _ }
        | AtomA64MaxI32 { rd, rs1, imm, sp, cpol: _ }
        | AtomA64MinU32 { rd, rs1, imm, sp, cpol: _ }
        | AtomA64MaxU32 { rd, rs1, imm, sp, cpol: _ }
        | AtomA64AndB32 { rd, rs1, imm, sp, cpol: _ }
        | AtomA64OrB32 { rd, rs1, imm, sp, cpol: _ }
        | AtomA64XorB32 { rd, rs1, imm, sp, cpol: _ }
        | AtomA64XchgB32 { rd, rs1, imm, sp, cpol: _ }
        | AtomA64CasB32 { rd, rs1, imm, sp, cpol: _ }
        | AtomA64IncU32 { rd, rs1, imm, sp, cpol: _ }
        | AtomA64DecU32 { rd, rs1, imm, sp, cpol: _ }
        | AtomA64FaddF32 { rd, rs1, imm, sp, cpol: _ } => vector::atomic(cx, ptr(rd, rs1, imm, sp), access()),
        ULdB32 { rd, rs1, imm, cpol: _ }
        | ULdB64 { rd, rs1, imm, cpol: _ }
        | ULdB128 { rd, rs1, imm, cpol: _ }
        | ULdB256 { rd, rs1, imm, cpol: _ } => uniform::load(cx, rd, rs1, imm, access().regs()),
        UStB32 { rd, rs1, imm, cpol: _ } | UStB64 { rd, rs1, imm, cpol: _ } => {
            uniform::store(cx, rd, rs1, imm, access().regs())
        }
        ImgLoad { rd, rs1, rs3, dim, toff, dmask, d16, a16, rsd, voff } => {
            image::load(cx, ImgOp { rd, rs1, rs3, dim, toff, dmask, d16, a16, rsd, voff })
        }
        ImgStore { rd, rs1, rs3, dim, toff, dmask, d16, a16, voff } => {
            image::store(cx, ImgOp { rd, rs1, rs3, dim, toff, dmask, d16, a16, rsd: false, voff })
        }
        ImgSample { rd, rs1, rs3, dim, toff, dmask, d16, a16, voff } => {
            image::sample(cx, ImgOp { rd, rs1, rs3, dim, toff, dmask, d16, a16, rsd: false, voff })
        }
        ImgQuery { rd, rs3, dim, dmask } => image::query(cx, rd, rs3, dim, dmask),
    }
}

/// f2 = 0: uniform base u[rs2] (pair for global/constant) plus the lane's 32-bit offset v[rs1].
fn off(rd: VReg, rs1: VReg, rs2: UReg, imm: i32, sp: Sp) -> Vm {
    Vm { rd, base: Base::Offset { rs1, rs2 }, imm, sp }
}

/// f2 = 1 (`.a64`): the lane's own 64-bit pointer v[rs1]:v[rs1+1].
fn ptr(rd: VReg, rs1: VReg, imm: i32, sp: Sp) -> Vm {
    Vm { rd, base: Base::Pointer { rs1 }, imm, sp }
}

/// The port accesses (byte offset, size) that make up one access of `bytes` bytes: the port handles 1, 2, 4
/// and 8 bytes, so b96, b128 and b256 are done dword by dword (their alignment is checked on the whole).
fn pieces(bytes: u32) -> impl Iterator<Item = (u64, u32)> {
    let (n, size) = if bytes <= 8 { (1, bytes) } else { (bytes / 4, 4) };
    (0..n).map(move |k| (k as u64 * size as u64, size))
}

/// The trap kind of a port verdict: a misaligned piece is Misaligned, anything else (outside every allocation,
/// read-only memory) a MemoryFault.
fn fault_kind(f: MemFault) -> TrapKind {
    match f {
        MemFault::Misaligned => TrapKind::Misaligned,
        MemFault::OutOfBounds | MemFault::ReadOnly => TrapKind::MemoryFault,
    }
}

/// A port refusal after `check` accepted the same access: cannot happen with a consistent port, but is
/// reported as a trap rather than a panic.
fn late_fault(cx: &Ctx, f: MemFault, lanes: u32, addr: u64) -> Trap {
    cx.trap(fault_kind(f), format!("access refused after its check passed: {}", f.describe()))
        .with_lanes(lanes)
        .with_addrs(vec![addr])
}
