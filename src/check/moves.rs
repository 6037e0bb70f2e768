//! Which source lane each result lane of a data-movement cross-lane instruction read (shuffles, quad swizzle,
//! readlane), for the uninit checker: a lane may read an inactive lane's never-written value, which the
//! per-lane rule (sources defined in the acting lanes) cannot see. The instruction runs once more on a copy of
//! the wave whose data register holds a marker and the lane number in every lane; the result then names, per
//! lane, the lane it came from (a result without the marker is a constant the instruction made itself).

use lanejit_interp::{step, Ctx, HostRegion, MemFault, Memory, WaveEnv, WaveState, LANES};
use lanejit_isa::{Insn, Sp, VReg, XlaneInsn, UREGS, VREGS};

/// Set in every traced lane's value, so that a constant result (a lane out of range reading 0) is told apart
/// from lane 0's value.
const MARK: u32 = 0x8000_0000;

/// Where each result lane's value came from: `Some(lane)` or `None` (made by the instruction itself).
pub(crate) type Sources = [Option<u8>; LANES];

/// The data register of a data-movement cross-lane instruction; `None` for every other instruction
/// (reductions, scans, votes and derivatives combine lanes, and `writelane` writes its own value).
fn data_register(insn: &Insn) -> Option<VReg> {
    use XlaneInsn::*;
    let Insn::Xlane(x) = insn else { return None };
    Some(match *x {
        ShflIdx { rs1, .. } | ShflUp { rs1, .. } | ShflDown { rs1, .. } | ShflXor { rs1, .. } | ShflRot { rs1, .. } => {
            rs1
        }
        ShflUpVi { rs1, .. } | ShflDownVi { rs1, .. } | ShflXorVi { rs1, .. } | ShflRotVi { rs1, .. } => rs1,
        ShflBcastVi { rs1, .. } | ShflBcastVu { rs1, .. } | ShflUpVu { rs1, .. } | ShflDownVu { rs1, .. } => rs1,
        ShflXorVu { rs1, .. } | ShflRotVu { rs1, .. } | QuadSwizzle { rs1, .. } => rs1,
        Readlane { rs1, .. } | ReadlaneU { rs1, .. } => rs1,
        Writelane { .. } | Readfirst { .. } | FddxFineF32 { .. } | FddxCoarseF32 { .. } | FddyFineF32 { .. } => {
            return None
        }
        FddyCoarseF32 { .. } | XscanAddU32 { .. } | Ballot { .. } | VoteAny { .. } | VoteAll { .. } => return None,
        VoteEq { .. } | XredAddU32 { .. } | XredMinI32 { .. } | XredMaxI32 { .. } | XredMinU32 { .. } => return None,
        XredMaxU32 { .. } | XredAndB32 { .. } | XredOrB32 { .. } | XredXorB32 { .. } => return None,
    })
}

/// For a data-movement instruction about to run on `w`: its data register and the source lane of each lane of
/// its result (for a uniform result, entry 0). `None` for other instructions, or when the traced run fails (it
/// then traps for real, and nothing is written).
///
/// `traced` is scratch space: only what the instruction reads is copied into it (the registers it names, EXEC,
/// pc, fcsr), not the whole 16 KiB state, and its result register is cleared (its inactive lanes keep their own
/// definedness, so what they hold does not matter, as long as it carries no marker).
pub(crate) fn sources(
    insn: &Insn,
    w: &WaveState,
    traced: &mut WaveState,
    env: &WaveEnv,
    (pc, len, code_len): (u32, u32, u32),
) -> Option<(VReg, Sources)> {
    let data = data_register(insn)?;
    let uses = insn.reg_uses();
    (traced.exec, traced.pc, traced.fcsr) = (w.exec, w.pc, w.fcsr);
    for u in uses.as_slice() {
        for r in u.first as usize..u.first as usize + u.read.max(u.written) as usize {
            match (u.file, u.read > 0) {
                (lanejit_isa::RegFile::V, true) if r < VREGS => traced.v[r] = w.v[r],
                (lanejit_isa::RegFile::V, false) if r < VREGS => traced.v[r] = [0; LANES],
                (lanejit_isa::RegFile::U, true) if r < UREGS => traced.u[r] = w.u[r],
                (lanejit_isa::RegFile::U, false) if r < UREGS => traced.u[r] = 0,
                _ => {}
            }
        }
    }
    traced.v[data.idx()] = std::array::from_fn(|l| MARK | l as u32);
    step(&mut Ctx { w: traced, mem: &mut NoMemory, env, pc, len, code_len }, insn).ok()?;
    let rd = uses.as_slice().iter().find(|u| u.written > 0)?;
    let from = |v: u32| (v & MARK != 0).then_some((v & !MARK) as u8);
    let sources = match rd.file {
        lanejit_isa::RegFile::V => std::array::from_fn(|l| from(traced.v[rd.first as usize][l])),
        lanejit_isa::RegFile::U => {
            std::array::from_fn(|l| if l == 0 { from(traced.u[rd.first as usize]) } else { None })
        }
    };
    Some((data, sources))
}

/// Data movement touches no memory.
struct NoMemory;

impl Memory for NoMemory {
    fn check(&self, _: Sp, _: usize, _: u64, _: u32, _: bool) -> Result<(), MemFault> {
        Err(MemFault::OutOfBounds)
    }
    fn load(&mut self, _: Sp, _: usize, _: u64, _: u32) -> Result<u64, MemFault> {
        Err(MemFault::OutOfBounds)
    }
    fn store(&mut self, _: Sp, _: usize, _: u64, _: u32, _: u64) -> Result<(), MemFault> {
        Err(MemFault::OutOfBounds)
    }
    fn rmw32(&mut self, _: Sp, _: usize, _: u64, _: &mut dyn FnMut(u32) -> u32) -> Result<u32, MemFault> {
        Err(MemFault::OutOfBounds)
    }
    fn host_region(&mut self, _: Sp, _: u64, _: bool) -> Option<HostRegion> {
        None
    }
}
