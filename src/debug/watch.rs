//! Watchpoints: a range of device, shared or private memory whose writes stop the launch, with the writing
//! wave, its lanes, the pc and the old and new bytes.

use crate::launch::debugged::GuestWrite;
use lanejit_isa::Sp;

/// Where a watched range lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// Device memory (global; constant memory cannot be written by the guest).
    Global,
    /// The shared memory of the workgroup in flight (of every workgroup in turn, or of one: `Watch::workgroup`).
    Shared,
    /// The private memory of one lane of one wave (an offset in the lane's own area).
    Private {
        /// The wave's index in its workgroup.
        wave: usize,
        /// The lane.
        lane: usize,
    },
}

/// A watched range: `len` bytes at `addr` (an offset for shared and private memory).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Watch {
    /// Its number (breakpoints and watchpoints share the numbering).
    pub id: u32,
    /// The space.
    pub space: Space,
    /// First byte.
    pub addr: u64,
    /// Bytes watched (1 to `MAX_WATCH_BYTES`).
    pub len: u32,
    /// Only this workgroup's writes (by linear index), or every workgroup's.
    pub workgroup: Option<u64>,
    /// Writes that stopped the launch so far.
    pub hits: u64,
}

/// Most bytes one watchpoint covers (a few words: the debugger compares them around every instruction).
pub const MAX_WATCH_BYTES: u32 = 64;

/// A write to a watched range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WatchHit {
    /// The watchpoint.
    pub id: u32,
    /// The writing wave's index in its workgroup.
    pub wave: usize,
    /// Its workgroup's id.
    pub workgroup: [u32; 3],
    /// The lanes that wrote into the range (bit i = lane i; lane 0 for a uniform store).
    pub lanes: u32,
    /// The writing instruction.
    pub pc: u32,
    /// The range before the instruction.
    pub old: Vec<u8>,
    /// The range after it.
    pub new: Vec<u8>,
}

impl Watch {
    /// The lanes among `writes` (by wave `wave`) that touched this range.
    pub(crate) fn lanes_writing(&self, wave: usize, writes: &[GuestWrite]) -> u32 {
        let overlaps = |w: &GuestWrite| w.addr < self.addr + self.len as u64 && self.addr < w.addr + w.size as u64;
        let mine = |w: &GuestWrite| match self.space {
            Space::Global => matches!(w.sp, Sp::Global | Sp::Constant),
            Space::Shared => w.sp == Sp::Shared,
            Space::Private { wave: pw, lane } => w.sp == Sp::Private && pw == wave && w.lane == lane,
        };
        writes.iter().filter(|w| mine(w) && overlaps(w)).fold(0, |m, w| m | 1 << w.lane)
    }

    /// One line describing the watchpoint.
    pub fn describe(&self) -> String {
        let wg = self.workgroup.map_or(String::new(), |w| format!(" of workgroup {w}"));
        let place = match self.space {
            Space::Global => format!("global {:#x}", self.addr),
            Space::Shared => format!("shared {:#x}{wg}", self.addr),
            Space::Private { wave, lane } => format!("private {:#x} of wave {wave} lane {lane}{wg}", self.addr),
        };
        format!("watchpoint {}: {} bytes at {place}, {} hits", self.id, self.len, self.hits)
    }
}

/// The bytes as little-endian words in hex (a shorter tail as it is).
pub fn hex_bytes(b: &[u8]) -> String {
    let words: Vec<String> = b
        .chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            format!("{:#x}", u32::from_le_bytes(w))
        })
        .collect();
    words.join(" ")
}
