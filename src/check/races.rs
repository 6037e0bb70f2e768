//! The race checker: a shadow of each shared-memory byte of the running workgroup holding, for the current
//! barrier interval (epoch), the last write and reads by up to two different waves. An access by another wave
//! that conflicts with them (at least one a write, not both atomic) is a race. Epoch numbers make a barrier's
//! reset free: a shadow entry of an older epoch counts as empty.

use super::{Finding, Findings, Race, RaceKind};

/// One side of a race: who accessed the byte, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SharedAccess {
    /// Wave index in the workgroup.
    pub wave: u32,
    /// The lane.
    pub lane: u32,
    /// The instruction.
    pub pc: u32,
    /// Its source line (when the kernel was assembled from text).
    pub line: Option<u32>,
    /// A write (store or atomic).
    pub write: bool,
    /// An atomic read-modify-write.
    pub atomic: bool,
}

impl SharedAccess {
    pub(crate) fn verb(&self) -> &'static str {
        match (self.atomic, self.write) {
            (true, _) => "atomic",
            (false, true) => "write",
            (false, false) => "read",
        }
    }
}

/// A shadow entry: the access and the epoch it belongs to.
#[derive(Clone, Copy, Debug)]
struct Slot {
    epoch: u32,
    acc: SharedAccess,
}

#[derive(Clone, Copy, Debug, Default)]
struct Byte {
    write: Option<Slot>,
    read: Option<Slot>,
    /// A read by a wave other than `read`'s.
    read2: Option<Slot>,
}

/// Shadow of one workgroup's shared memory.
#[derive(Debug, Default)]
pub(crate) struct RaceShadow {
    bytes: Vec<Byte>,
    epoch: u32,
}

/// One lane's memory access, as the interpreter performed it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LaneAccess {
    /// Its space (the race checker looks at shared accesses only).
    pub(crate) sp: lanejit_isa::Sp,
    pub(crate) lane: u32,
    /// The offset in shared or the lane's private memory; the device address in global and constant memory.
    pub(crate) offset: u64,
    pub(crate) size: u32,
    pub(crate) write: bool,
    pub(crate) atomic: bool,
}

impl RaceShadow {
    /// Starts a workgroup with `shared_bytes` of shared memory: every byte empty.
    pub(crate) fn start(&mut self, shared_bytes: usize) {
        self.bytes.clear();
        self.bytes.resize(shared_bytes, Byte::default());
        self.epoch = 0;
    }

    /// A barrier released the waiting waves: accesses before it are ordered before those after it.
    pub(crate) fn barrier(&mut self) {
        self.epoch += 1;
    }

    /// Records the accesses of one instruction (`wave` at `pc`) and reports conflicts with other waves'.
    pub(crate) fn record(
        &mut self,
        wave: u32,
        pc: u32,
        line: Option<u32>,
        accesses: &[LaneAccess],
        workgroup: [u32; 3],
        out: &mut Findings,
    ) {
        let epoch = self.epoch;
        for a in accesses.iter().filter(|a| a.sp == lanejit_isa::Sp::Shared) {
            let acc = SharedAccess { wave, lane: a.lane, pc, line, write: a.write, atomic: a.atomic };
            for off in a.offset..a.offset + a.size as u64 {
                let Some(b) = self.bytes.get_mut(off as usize) else { continue };
                let live = |s: Option<Slot>| s.filter(|s| s.epoch == epoch).map(|s| s.acc);
                let conflicts =
                    |o: &SharedAccess| o.wave != wave && (o.write || acc.write) && !(o.atomic && acc.atomic);
                let earlier = [live(b.write), live(b.read), live(b.read2)];
                if let Some(first) = earlier.iter().flatten().find(|o| conflicts(o)) {
                    let kind = match (first.write, acc.write) {
                        (true, true) => RaceKind::WriteWrite,
                        (false, _) => RaceKind::ReadWrite,
                        (true, false) => RaceKind::WriteRead,
                    };
                    let first = *first;
                    out.add((1, first.pc, pc, kind as u32), || {
                        Finding::Race(Race { kind, offset: off as u32, first, second: acc, workgroup, occurrences: 1 })
                    });
                }
                let slot = Some(Slot { epoch, acc });
                if acc.write {
                    b.write = slot;
                }
                if !acc.write || acc.atomic {
                    match live(b.read) {
                        None => b.read = slot,
                        Some(r) if r.wave == wave => b.read = slot,
                        Some(_) if live(b.read2).is_none_or(|r2| r2.wave == wave) => b.read2 = slot,
                        Some(_) => {}
                    }
                }
            }
        }
    }
}
