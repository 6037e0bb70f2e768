//! The wait checker: per wave, the outstanding operations of each wait counter, oldest first, with the
//! registers each will still write (loads, atomics, transcendental results) or still read (a store's data).
//! Counters complete in issue order, so `wait c=N` retires all but the newest N operations of `c` (the `wait`
//! text of `isa-spec/groups/7-ctrl.yaml`); the engines complete every access at issue, so this bookkeeping is
//! the only place a missing `wait` shows.

use super::{Finding, Findings, HazardKind, WaitHazard};
use lanejit_isa::{flag, Counter, CtrlInsn, Insn, RegFile, RegUse, LANES};
use std::collections::VecDeque;

/// All lanes of a wave.
const ALL_LANES: u32 = if LANES == 32 { u32::MAX } else { (1 << LANES) - 1 };

/// One issued, not yet waited-for operation.
#[derive(Clone, Debug)]
struct Outstanding {
    pc: u32,
    /// A store: its registers are sources it still reads; else results it will still write.
    store: bool,
    /// The registers, (file, number).
    regs: Vec<(RegFile, u8)>,
    /// The lanes it acted on (EXEC at issue).
    lanes: u32,
}

/// The outstanding operations of one wave, one queue per counter in `Counter::ALL` order.
#[derive(Debug, Default)]
pub(crate) struct WaveWaits {
    queues: [VecDeque<Outstanding>; Counter::ALL.len()],
}

/// Where a hazard happened, for its report.
pub(crate) struct Site<'a> {
    pub(crate) workgroup: [u32; 3],
    pub(crate) wave: u32,
    pub(crate) lines: &'a dyn Fn(u32) -> Option<u32>,
}

impl WaveWaits {
    /// Forgets every operation (a new wave).
    pub(crate) fn clear(&mut self) {
        self.queues.iter_mut().for_each(VecDeque::clear);
    }

    /// Before `insn` at `pc` executes with `exec`: reports every register it reads or writes that an
    /// outstanding operation still owns.
    pub(crate) fn before(&self, pc: u32, insn: &Insn, exec: u32, site: &Site, out: &mut Findings) {
        if self.queues.iter().all(VecDeque::is_empty) {
            return;
        }
        let uses = insn.reg_uses();
        // A lane-masked instruction (not cross-lane) uses only its active lanes' values.
        let lanes = if insn.exec().masked && !insn.id().info().flags.has(flag::XL) { exec } else { ALL_LANES };
        // Each (producer, register) once per execution, however many of its operations are outstanding.
        let mut met: Vec<(u32, u32)> = Vec::new();
        for (ci, q) in self.queues.iter().enumerate() {
            for op in q {
                for &(file, r) in &op.regs {
                    let Some(kind) = conflict(uses.as_slice(), file, r, op.store) else { continue };
                    let hit = if file == RegFile::V { op.lanes & lanes } else { op.lanes };
                    let reg = (file == RegFile::U) as u32 * 1000 + r as u32;
                    if hit == 0 && file == RegFile::V || met.contains(&(op.pc, reg)) {
                        continue;
                    }
                    met.push((op.pc, reg));
                    out.add((0, pc, op.pc, reg), || {
                        Finding::Wait(WaitHazard {
                            kind,
                            counter: Counter::ALL[ci].name(),
                            register: format!("{}{r}", if file == RegFile::V { "v" } else { "u" }),
                            pc,
                            line: (site.lines)(pc),
                            producer_pc: op.pc,
                            producer_line: (site.lines)(op.pc),
                            lanes: hit,
                            workgroup: site.workgroup,
                            wave: site.wave,
                            occurrences: 1,
                        })
                    });
                }
            }
        }
    }

    /// After `insn` at `pc` retired (issued with `exec`): a `wait` retires operations, a memory or
    /// transcendental instruction adds one to its counter.
    pub(crate) fn after(&mut self, pc: u32, insn: &Insn, exec: u32) {
        if let Insn::Ctrl(CtrlInsn::Wait { .. }) = insn {
            self.wait(insn);
            return;
        }
        let Some(counter) = insn.counter() else { return };
        let info = insn.id().info();
        let store = info.flags.has(flag::ST) && !info.flags.has(flag::LD);
        let data = info.access.map(|a| a.data).or(info.image.map(|a| a.data));
        let mut regs = Vec::new();
        for u in insn.reg_uses().as_slice() {
            // A store still reads its data operand; anything else still writes every result register.
            let n = if store {
                if Some(u.operand) == data {
                    u.read
                } else {
                    0
                }
            } else {
                u.written
            };
            regs.extend((u.first..u.first.saturating_add(n)).map(|r| (u.file, r)));
        }
        if !regs.is_empty() {
            let ci = Counter::ALL.iter().position(|&c| c == counter).unwrap_or(0);
            let q = &mut self.queues[ci];
            // A counter holds at most its maximum: hardware stalls the next issue until the oldest completes.
            if q.len() >= counter_max(counter) {
                q.pop_front();
            }
            q.push_back(Outstanding { pc, store, regs, lanes: exec });
        }
    }

    /// `wait`: each counter whose field is below its maximum keeps only its newest `field` operations.
    fn wait(&mut self, insn: &Insn) {
        let info = insn.id().info();
        let vals = insn.operand_values();
        for (i, op) in info.operands.iter().enumerate() {
            let Some(ci) = Counter::ALL.iter().position(|c| c.name() == op.name) else { continue };
            let field = vals.as_slice()[i];
            let max = (1i64 << op.field_bits) - 1;
            if field < max {
                let q = &mut self.queues[ci];
                while q.len() as i64 > field {
                    q.pop_front();
                }
            }
        }
    }
}

/// The largest count counter `c` holds: the maximum of its `wait` field (`wait vm=63` does not wait on vm).
fn counter_max(c: Counter) -> usize {
    c.wait_max() as usize
}

/// How an instruction's register operands conflict with register `r` of `file` owned by an outstanding
/// operation (a store still reading it, or a load still writing it).
fn conflict(uses: &[RegUse], file: RegFile, r: u8, store: bool) -> Option<HazardKind> {
    let within = |first: u8, n: u8| n > 0 && r >= first && (r as u16) < first as u16 + n as u16;
    let reads = uses.iter().any(|u| u.file == file && within(u.first, u.read));
    let writes = uses.iter().any(|u| u.file == file && within(u.first, u.written));
    match (store, reads, writes) {
        (true, _, true) => Some(HazardKind::StoreSourceOverwritten),
        (true, _, false) => None,
        (false, true, _) => Some(HazardKind::ReadBeforeWait),
        (false, false, true) => Some(HazardKind::OverwriteBeforeWait),
        (false, false, false) => None,
    }
}
