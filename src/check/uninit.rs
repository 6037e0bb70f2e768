//! The uninitialised-read checker: shadow state saying which register lanes and which shared and private bytes
//! hold a value the kernel (or the ABI) put there. The ABI zeroes everything else at wave start, so this ISA
//! reads 0 there; a kernel relying on it is still a bug (hardware and other emulators give garbage). An
//! undefined value is reported where it matters: a memory address, a branch condition or indirect target, a new
//! EXEC, or a store's data (a kernel output when the store is global).
//!
//! Propagation is per lane and conservative: a result lane is defined when every vector source is defined in that
//! lane (in every lane, for cross-lane instructions) and every uniform source is defined; a load from shared or
//! private memory is defined where all its bytes are. Global and constant memory count as defined (the host
//! filled them) unless the launch asks for `buffers`: then the device's own record of its written bytes
//! (`Arena::track_defined`) decides, and a checked store updates it.

use super::{Finding, Findings, LaneAccess, Site, Sources, UninitRead, UninitSink};
use crate::arena::Arena;
use lanejit_isa::{flag, Flow, Insn, RegFile, RegUse, Sp, VReg, LANES, UREGS, VREGS};

const ALL_LANES: u32 = u32::MAX;

/// Which register lanes of one wave are defined.
#[derive(Clone, Debug)]
pub(crate) struct WaveDefined {
    /// Per vector register: its defined lanes.
    v: [u32; VREGS],
    /// Bit r: uniform register r is defined.
    u: u64,
}

impl Default for WaveDefined {
    fn default() -> Self {
        WaveDefined { v: [0; VREGS], u: 0 }
    }
}

/// Registers the ABI sets at wave start: the thread ids v0..v2, the argument address u0:u1, the workgroup id
/// u2..u4.
const ABI_VREGS: usize = 3;
const ABI_UREGS: usize = 5;

const _: () = assert!(UREGS <= 64);

/// How an instruction uses a register operand, for the sinks.
fn sink_of(insn: &Insn, u: &RegUse) -> Option<UninitSink> {
    let info = insn.id().info();
    let data = info.access.map(|a| a.data).or(info.image.map(|a| a.data));
    if data.is_some() && Some(u.operand) != data {
        return Some(UninitSink::Address);
    }
    if data == Some(u.operand) && info.flags.has(flag::ST) {
        return Some(if insn.mem_space() == Some(Sp::Global) {
            UninitSink::KernelOutput
        } else {
            UninitSink::StoreData
        });
    }
    if info.flow.changes_pc() && info.flow != Flow::End {
        return Some(UninitSink::Branch);
    }
    if info.exec.writes {
        return Some(UninitSink::Exec);
    }
    None
}

impl WaveDefined {
    /// A new wave: only what the ABI sets is defined.
    pub(crate) fn start(&mut self) {
        self.v = [0; VREGS];
        self.v[..ABI_VREGS].fill(ALL_LANES);
        self.u = (1 << ABI_UREGS) - 1;
    }

    fn vector(&self, r: u8) -> u32 {
        self.v.get(r as usize).copied().unwrap_or(ALL_LANES)
    }

    fn uniform(&self, r: u8) -> bool {
        (r as usize) >= UREGS || self.u >> r & 1 != 0
    }

    /// Before `insn` runs with `exec`: reports undefined lanes of the registers it sends to a sink.
    pub(crate) fn before(&self, pc: u32, insn: &Insn, exec: u32, site: &Site, out: &mut Findings) {
        let lanes = acting_lanes(insn, exec);
        for u in insn.reg_uses().as_slice().iter().filter(|u| u.read > 0) {
            let Some(sink) = sink_of(insn, u) else { continue };
            for r in u.first..u.first.saturating_add(u.read) {
                let undefined = match u.file {
                    RegFile::V => lanes & !self.vector(r),
                    RegFile::U if !self.uniform(r) => lanes,
                    RegFile::U => 0,
                };
                report(out, site, pc, sink, u.file, r, undefined);
            }
        }
    }

    /// After `insn` at `pc` ran with `exec` (its logged accesses in `log`; for a data-movement cross-lane
    /// instruction, `moved`: its data register and each result lane's source lane): the definedness of what it
    /// wrote, registers and memory. A global atomic on device bytes nothing wrote is reported here.
    pub(crate) fn after(
        &mut self,
        (pc, insn, exec, moved): (u32, &Insn, u32, Option<(VReg, Sources)>),
        log: &[LaneAccess],
        memory: &mut MemoryDefined,
        (site, out): (&Site, &mut Findings),
    ) {
        let info = insn.id().info();
        let uses = insn.reg_uses();
        let data = info.access.map(|a| a.data).or(info.image.map(|a| a.data));
        let moved_data = moved.map(|(d, _)| d.0);
        // Lanes whose sources are all defined (addresses are not a result's source: reported, not propagated; a
        // moved data register is followed lane by lane below).
        let (mut lanes_ok, mut uniform_ok) = (ALL_LANES, true);
        for u in uses.as_slice().iter().filter(|u| u.read > 0 && (data.is_none() || Some(u.operand) == data)) {
            for r in
                (u.first..u.first.saturating_add(u.read)).filter(|&r| u.file == RegFile::U || Some(r) != moved_data)
            {
                match u.file {
                    RegFile::V => lanes_ok &= self.vector(r),
                    RegFile::U => uniform_ok &= self.uniform(r),
                }
            }
        }
        let acting = acting_lanes(insn, exec);
        if let Some((d, sources)) = moved {
            // Each result lane is defined where the lane it read is (inactive lanes included).
            let defined = self.vector(d.0);
            let from = |l: usize| sources[l].is_none_or(|s| defined >> s & 1 != 0);
            lanes_ok &= (0..LANES).filter(|&l| from(l)).fold(0, |m, l| m | 1 << l);
        } else if info.flags.has(flag::XL) && acting & !lanes_ok != 0 {
            lanes_ok = 0;
        }
        if !uniform_ok {
            lanes_ok = 0;
        }
        // A load's result is what memory held (an atomic's, the old value), read before the store part.
        let loads = info.flags.has(flag::LD);
        let result_lanes = if loads { memory.loaded(log) } else { lanes_ok };
        if loads && info.flags.has(flag::ST) && insn.mem_space() == Some(Sp::Global) {
            let address = uses.as_slice().iter().find(|u| u.read > 0 && Some(u.operand) != data);
            if let Some(a) = address {
                report(out, site, pc, UninitSink::AtomicMemory, a.file, a.first, !result_lanes);
            }
        }
        if info.flags.has(flag::ST) {
            memory.store(log, lanes_ok & if loads { result_lanes } else { ALL_LANES });
        }
        let written = if insn.exec().masked { exec } else { ALL_LANES };
        for u in uses.as_slice().iter().filter(|u| u.written > 0) {
            for r in u.first..u.first.saturating_add(u.written) {
                match u.file {
                    RegFile::V if (r as usize) < VREGS => {
                        let v = &mut self.v[r as usize];
                        *v = (*v & !written) | (result_lanes & written);
                    }
                    // A uniform result of vector sources (compares, reductions) needs them in every acting lane.
                    RegFile::U if (r as usize) < UREGS => {
                        let ok = uniform_ok && acting & !result_lanes == 0;
                        self.u = (self.u & !(1 << r)) | ((ok as u64) << r);
                    }
                    _ => {}
                }
            }
        }
    }
}

/// Reports register `r` of `file` reaching `sink` at `pc` undefined in `lanes` (nothing when none).
fn report(out: &mut Findings, site: &Site, pc: u32, sink: UninitSink, file: RegFile, r: u8, lanes: u32) {
    if lanes == 0 {
        return;
    }
    let name = if file == RegFile::V { "v" } else { "u" };
    let reg = (file == RegFile::U) as u32 * 1000 + r as u32;
    out.add((3, pc, reg, sink as u32), || {
        Finding::Uninit(UninitRead {
            sink,
            register: format!("{name}{r}"),
            pc,
            line: (site.lines)(pc),
            lanes,
            workgroup: site.workgroup,
            wave: site.wave,
            occurrences: 1,
        })
    });
}

/// The lanes whose values an instruction uses: EXEC when it is lane-masked or reads EXEC (compares, reductions
/// and scans act on the active lanes), else all. (A shuffle may read an inactive lane's value: `after` follows
/// its source lanes instead.)
fn acting_lanes(insn: &Insn, exec: u32) -> u32 {
    if insn.exec().depends() {
        exec
    } else {
        ALL_LANES
    }
}

/// Which shared bytes of the workgroup, and private bytes of each wave's lanes, hold a written value; and the
/// device memory whose record is consulted, when the launch checks buffers.
#[derive(Debug, Default)]
pub(crate) struct MemoryDefined<'a> {
    /// The device memory, when the launch asks for `buffers`.
    device: Option<&'a Arena>,
    shared: Vec<bool>,
    /// Every wave's private bytes: per wave `LANES` areas of `private_bytes`.
    private: Vec<bool>,
    private_bytes: usize,
    /// The wave whose accesses come next.
    pub(crate) wave: usize,
}

impl<'a> MemoryDefined<'a> {
    /// Nothing written yet; `device` is the device memory whose record counts when buffers are checked.
    pub(crate) fn new(device: Option<&'a Arena>) -> Self {
        MemoryDefined { device, ..MemoryDefined::default() }
    }

    /// A new workgroup of `waves` waves: nothing written.
    pub(crate) fn start(&mut self, shared_bytes: usize, private_bytes: usize, waves: usize) {
        self.shared.clear();
        self.shared.resize(shared_bytes, false);
        self.private.clear();
        self.private.resize(private_bytes * LANES * waves, false);
        self.private_bytes = private_bytes;
    }

    fn bytes(&mut self, a: &LaneAccess) -> &mut [bool] {
        let (area, base) = match a.sp {
            Sp::Shared => (&mut self.shared, 0),
            // Only shared and private accesses come here.
            _ => (&mut self.private, (self.wave * LANES + a.lane as usize) * self.private_bytes),
        };
        let lo = (base + a.offset as usize).min(area.len());
        let hi = (lo + a.size as usize).min(area.len());
        &mut area[lo..hi]
    }

    fn store(&mut self, log: &[LaneAccess], defined_lanes: u32) {
        for a in log.iter().filter(|a| a.write) {
            let defined = defined_lanes >> a.lane & 1 != 0;
            match (a.sp, self.device) {
                (Sp::Shared | Sp::Private, _) => self.bytes(a).fill(defined),
                (Sp::Global | Sp::Constant, Some(device)) => device.mark_defined(a.offset, a.size as u64, defined),
                (Sp::Global | Sp::Constant, None) => {}
            }
        }
    }

    /// The lanes whose load read only defined bytes (device bytes count as defined unless buffers are checked).
    fn loaded(&mut self, log: &[LaneAccess]) -> u32 {
        let mut lanes = ALL_LANES;
        for a in log.iter().filter(|a| !a.write || a.atomic) {
            let defined = match (a.sp, self.device) {
                (Sp::Shared | Sp::Private, _) => self.bytes(a).iter().all(|&d| d),
                (Sp::Global | Sp::Constant, Some(device)) => device.is_defined(a.offset, a.size as u64) != Some(false),
                (Sp::Global | Sp::Constant, None) => true,
            };
            if !defined {
                lanes &= !(1 << a.lane);
            }
        }
        lanes
    }
}
