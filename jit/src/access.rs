//! Vector memory instructions as the JIT sees them: the operands of a uniform-base access or atomic, decoded
//! once from the instruction (width, extension and atomic operation from the YAML `access`), with the
//! interpreter's address formula. Used by the lowering (inline paths) and by the runtime's Rust paths.

use lanejit_interp::mem::AtomOp;
use lanejit_interp::WaveState;
use lanejit_isa::{MemInsn, Sp, UReg, VReg, LANES, VREGS};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Dir {
    Load { signed: bool },
    Store,
}

/// A vector access: `bytes` per lane (1, 2, 4, 8, 16), into/out of consecutive registers from `rd`; lane l's
/// address is `u[rs2]:u[rs2+1] + v[rs1][l] + imm` (global, constant), or `(u[rs2] + v[rs1][l] + imm) mod 2^32`
/// (shared).
#[derive(Clone, Copy, Debug)]
pub struct Access {
    pub rd: VReg,
    pub rs1: VReg,
    pub rs2: UReg,
    pub imm: i32,
    pub sp: Sp,
    pub bytes: u32,
    /// Required alignment of each lane's address (YAML `access`: natural for these widths).
    pub align: u32,
    pub dir: Dir,
}

impl Access {
    /// The accesses this module (and the inline path) handle; everything else is the interpreter's.
    pub fn of(i: &MemInsn) -> Option<Access> {
        use MemInsn::*;
        let (rd, rs1, rs2, imm, sp) = match *i {
            LdU8 { rd, rs1, rs2, imm, sp, .. }
            | LdS8 { rd, rs1, rs2, imm, sp, .. }
            | LdU16 { rd, rs1, rs2, imm, sp, .. }
            | LdS16 { rd, rs1, rs2, imm, sp, .. }
            | LdB32 { rd, rs1, rs2, imm, sp, .. }
            | LdB64 { rd, rs1, rs2, imm, sp, .. }
            | LdB128 { rd, rs1, rs2, imm, sp, .. }
            | StB8 { rd, rs1, rs2, imm, sp, .. }
            | StB16 { rd, rs1, rs2, imm, sp, .. }
            | StB32 { rd, rs1, rs2, imm, sp, .. }
            | StB64 { rd, rs1, rs2, imm, sp, .. }
            | StB128 { rd, rs1, rs2, imm, sp, .. } => (rd, rs1, rs2, imm, sp),
            _ => return None,
        };
        // Width and extension come from the ISA tables (YAML `access`), direction from the flags.
        let info = lanejit_isa::Insn::Mem(*i).id().info();
        let acc = info.access?;
        let dir = if info.has(lanejit_isa::flag::ST) { Dir::Store } else { Dir::Load { signed: acc.signed } };
        Some(Access { rd, rs1, rs2, imm, sp, bytes: acc.bytes, align: acc.align, dir }).filter(|a| {
            a.rd.idx() + a.regs() <= VREGS && a.sp != Sp::Private && !(a.sp == Sp::Constant && a.is_store())
        })
    }

    pub fn regs(&self) -> usize {
        (self.bytes as usize / 4).max(1)
    }

    pub fn is_store(&self) -> bool {
        self.dir == Dir::Store
    }

    /// Every lane's address, by the interpreter's rule (`interp/src/mem/vector.rs::addresses`).
    pub(crate) fn addresses(&self, w: &WaveState) -> [u64; LANES] {
        lanejit_interp::mem::offset_addresses(w, self.rs1, self.rs2, self.imm, self.sp)
    }
}

/// An atomic with a uniform base (`atom.*`, not `.a64`): the 32-bit word of each active lane is read, combined
/// with `v[rd]` (and, for cas, the compare value `v[rd+1]`) by the interpreter's own `atomic_word`, and written
/// back in one host atomic operation, lanes ascending as the interpreter goes.
#[derive(Clone, Copy, Debug)]
pub struct Atomic {
    pub at: Access,
    pub op: AtomOp,
}

impl Atomic {
    pub fn of(i: &MemInsn) -> Option<Atomic> {
        use MemInsn::*;
        let (rd, rs1, rs2, imm, sp) = match *i {
            AtomAddU32 { rd, rs1, rs2, imm, sp, .. }
            | AtomSubU32 { rd, rs1, rs2, imm, sp, .. }
            | AtomMinI32 { rd, rs1, rs2, imm, sp, .. }
            | AtomMaxI32 { rd, rs1, rs2, imm, sp, .. }
            | AtomMinU32 { rd, rs1, rs2, imm, sp, .. }
            | AtomMaxU32 { rd, rs1, rs2, imm, sp, .. }
            | AtomAndB32 { rd, rs1, rs2, imm, sp, .. }
            | AtomOrB32 { rd, rs1, rs2, imm, sp, .. }
            | AtomXorB32 { rd, rs1, rs2, imm, sp, .. }
            | AtomXchgB32 { rd, rs1, rs2, imm, sp, .. }
            | AtomCasB32 { rd, rs1, rs2, imm, sp, .. }
            | AtomIncU32 { rd, rs1, rs2, imm, sp, .. }
            | AtomDecU32 { rd, rs1, rs2, imm, sp, .. }
            | AtomFaddF32 { rd, rs1, rs2, imm, sp, .. } => (rd, rs1, rs2, imm, sp),
            _ => return None,
        };
        // Width and operation come from the ISA tables (YAML `access`); the data group from its `regs`.
        let insn = lanejit_isa::Insn::Mem(*i);
        let acc = insn.id().info().access?;
        let op = acc.atomic?;
        let at = Access { rd, rs1, rs2, imm, sp, bytes: acc.bytes, align: acc.align, dir: Dir::Store };
        // Private memory and writes to constant memory are the interpreter's (the latter traps), and so is a
        // data group (cas: value and compare value) past the last register (IllegalInsn).
        let uses = insn.reg_uses();
        let data = uses.as_slice().iter().find(|u| u.operand == acc.data)?;
        let fits = data.first as usize + data.read.max(data.written) as usize <= VREGS;
        (acc.bytes == 4 && fits && matches!(sp, Sp::Global | Sp::Shared)).then_some(Atomic { at, op })
    }
}
