//! Opt-in dynamic checkers (issue 15): wait hazards per wave, shared-memory races between the waves of a
//! workgroup, barrier misuse and uninitialised reads, reported as typed [`Finding`]s.
//!
//! A launch whose [`LaunchConfig::check`](crate::LaunchConfig::check) names a check runs on the interpreter,
//! one workgroup after another on the calling thread, whatever engine the configuration asks for (the findings
//! are then the same for every engine); without checks nothing in the launch path changes. The findings arrive
//! in [`LaunchStats::findings`](crate::LaunchStats::findings), also when the kernel traps
//! ([`LaunchError::Trap`](crate::LaunchError::Trap) carries the stats).
//!
//! - **waits**: per wave, the outstanding operations of each wait counter (the YAML `latency: counter:C`,
//!   `Insn::counter`) with the registers a load will still write or a store still reads; reading such a load
//!   result, or overwriting it or a store's source, before a `wait` that covers it is a [`WaitHazard`].
//! - **races**: the same shared-memory bytes accessed by two waves of a workgroup between two barriers, at
//!   least one a write and not both atomic: a [`Race`].
//! - **barriers**: a `barrier` reached under a partial EXEC, a wave that ends while the others of its
//!   workgroup wait at a barrier, waves waiting at different barriers: a [`BarrierMisuse`].
//! - **uninit**: a register lane or shared/private byte nothing (nor the ABI) wrote, reaching an address, a
//!   branch, EXEC or a store: an [`UninitRead`]. With **buffers** (opt-in, on a device that tracks its
//!   memory), device-memory bytes neither the host nor a kernel wrote count as undefined too.

mod moves;
mod races;
mod uninit;
mod waits;

pub(crate) use moves::{sources as moved_lanes, Sources};
pub use races::SharedAccess;
pub(crate) use races::{LaneAccess, RaceShadow};
pub(crate) use uninit::{MemoryDefined, WaveDefined};
pub(crate) use waits::{Site, WaveWaits};

use std::collections::HashMap;
use std::fmt;

/// Which checkers a launch runs (`--check waits,races,barriers`); the default runs none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Checks {
    /// Reads and overwrites of registers whose memory or transcendental operation was not waited for.
    pub waits: bool,
    /// Shared-memory races between the waves of a workgroup.
    pub races: bool,
    /// Barriers under partial EXEC, and barriers some waves of a workgroup skip.
    pub barriers: bool,
    /// Values no instruction (nor the ABI) wrote, reaching an address, a branch, EXEC or a store.
    pub uninit: bool,
    /// The uninit checker also watches device memory (implies `uninit`): bytes of a buffer neither the host nor
    /// a kernel wrote are undefined. Opt-in, and the device must track its bytes from before the buffers are
    /// made ([`Device::track_uninit_memory`](crate::Device::track_uninit_memory)); a launch asking for it on a
    /// device that does not is refused (`ConfigError::UntrackedMemory`).
    pub buffers: bool,
}

impl Checks {
    /// Every checker (`buffers`, which needs a device prepared for it, is opt-in on top).
    pub const ALL: Checks = Checks { waits: true, races: true, barriers: true, uninit: true, buffers: false };

    /// No checker is on (the launch runs as without checks).
    pub fn is_empty(&self) -> bool {
        *self == Checks::default()
    }

    /// The uninit checker runs (asked for directly or through `buffers`).
    pub fn uninit_on(&self) -> bool {
        self.uninit || self.buffers
    }

    /// A comma-separated list of `waits`, `races`, `barriers`, `uninit`, `buffers` (or `all`, every one but
    /// `buffers`).
    pub fn parse(text: &str) -> Result<Checks, String> {
        let mut c = Checks::default();
        for word in text.split(',').map(str::trim) {
            match word {
                "waits" => c.waits = true,
                "races" => c.races = true,
                "barriers" => c.barriers = true,
                "all" => c = Checks { buffers: c.buffers, ..Checks::ALL },
                "uninit" => c.uninit = true,
                "buffers" => (c.uninit, c.buffers) = (true, true),
                _ => {
                    return Err(format!("unknown check `{word}`; known: waits, races, barriers, uninit, buffers, all"))
                }
            }
        }
        Ok(c)
    }
}

impl fmt::Display for Checks {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let names = [
            (self.waits, "waits"),
            (self.races, "races"),
            (self.barriers, "barriers"),
            (self.uninit, "uninit"),
            (self.buffers, "buffers"),
        ];
        let on: Vec<&str> = names.iter().filter(|(on, _)| *on).map(|(_, n)| *n).collect();
        f.write_str(&on.join(","))
    }
}

/// One problem a checker found, with where it happened (pcs, source lines, waves, lanes). The same problem met
/// again (in a loop, another wave or workgroup) is counted in `occurrences`, not repeated.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "check", rename_all = "snake_case")]
pub enum Finding {
    /// A register used before the `wait` its producer needs.
    Wait(WaitHazard),
    /// Two waves accessing the same shared bytes between barriers.
    Race(Race),
    /// A barrier used against the launch model.
    Barrier(BarrierMisuse),
    /// A value nothing wrote, used where it matters.
    Uninit(UninitRead),
}

/// Where an undefined value went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UninitSink {
    /// A memory instruction's address (or image descriptor) operand.
    Address,
    /// A branch condition or indirect target.
    Branch,
    /// A new EXEC.
    Exec,
    /// The data of a shared or private store (or atomic).
    StoreData,
    /// The data of a global store: a kernel output.
    KernelOutput,
    /// The old value of a global atomic's memory (with `buffers`): device bytes nothing wrote, combined with the
    /// data into a kernel output. The register named is the atomic's address.
    AtomicMemory,
}

/// A register read where its value matters, in lanes where nothing (neither the kernel nor the ABI) wrote it:
/// the ABI's zero is read, which hardware does not promise.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct UninitRead {
    /// Where the value went.
    pub sink: UninitSink,
    /// The register (`v6`, `u8`).
    pub register: String,
    /// The instruction.
    pub pc: u32,
    /// Its source line.
    pub line: Option<u32>,
    /// The lanes where the value is undefined (all lanes for a uniform register).
    pub lanes: u32,
    /// Workgroup of the first occurrence.
    pub workgroup: [u32; 3],
    /// Wave of the first occurrence.
    pub wave: u32,
    /// Times met.
    pub occurrences: u64,
}

/// How a register was used too early.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HazardKind {
    /// A load's (or atomic's, or transcendental op's) result read before it was waited for.
    ReadBeforeWait,
    /// A register overwritten while a load will still write it (the load's late result would win).
    OverwriteBeforeWait,
    /// A store's source register overwritten before the store was waited for.
    StoreSourceOverwritten,
}

/// A read or overwrite of a register whose producer was not yet waited for.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct WaitHazard {
    /// What went wrong.
    pub kind: HazardKind,
    /// The wait counter the producer raised (`vm`, `vst`, `ls`, `sm`, `tex`, `sfu`).
    pub counter: &'static str,
    /// The register (`v6`, `u8`).
    pub register: String,
    /// The instruction that used it too early, and its source line.
    pub pc: u32,
    /// Source line of `pc` (when the kernel was assembled from text).
    pub line: Option<u32>,
    /// The memory or transcendental instruction that raised the counter.
    pub producer_pc: u32,
    /// Source line of `producer_pc`.
    pub producer_line: Option<u32>,
    /// Lanes affected (the producer's lanes the user acts on; all lanes for a uniform register).
    pub lanes: u32,
    /// Workgroup and wave of the first occurrence.
    pub workgroup: [u32; 3],
    /// Wave index in the workgroup of the first occurrence.
    pub wave: u32,
    /// Times met.
    pub occurrences: u64,
}

/// How two shared-memory accesses conflict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RaceKind {
    /// Two writes.
    WriteWrite,
    /// A read, then a write by another wave.
    ReadWrite,
    /// A write, then a read by another wave.
    WriteRead,
}

/// Two waves of one workgroup accessed the same shared bytes between two barriers, at least one writing, not
/// both atomically.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Race {
    /// The order of the two accesses.
    pub kind: RaceKind,
    /// Shared-memory byte offset of the first conflicting byte.
    pub offset: u32,
    /// The earlier access.
    pub first: SharedAccess,
    /// The later access.
    pub second: SharedAccess,
    /// Workgroup of the first occurrence.
    pub workgroup: [u32; 3],
    /// Times met.
    pub occurrences: u64,
}

/// What was wrong with a barrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BarrierKind {
    /// The barrier was reached with some of the wave's threads disabled in EXEC.
    PartialExec,
    /// A wave ended (at `pc`) while others of its workgroup waited at the barrier at `other_pc` and went on.
    WaveEndedBeforeBarrier,
    /// Waves waited at different barriers (the launch stops with BarrierDeadlock).
    DifferentBarriers,
}

/// A barrier reached under partial EXEC, or by some waves of a workgroup and not others.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct BarrierMisuse {
    /// What was wrong.
    pub kind: BarrierKind,
    /// The barrier (or, for `wave_ended_before_barrier`, the `end`), and its source line.
    pub pc: u32,
    /// Source line of `pc`.
    pub line: Option<u32>,
    /// The wave at `pc`.
    pub wave: u32,
    /// The lanes: EXEC at the barrier for `partial_exec`, else the wave's threads.
    pub lanes: u32,
    /// The barrier the other waves waited at (not for `partial_exec`).
    pub other_pc: Option<u32>,
    /// Source line of `other_pc`.
    pub other_line: Option<u32>,
    /// A wave waiting at `other_pc`.
    pub other_wave: Option<u32>,
    /// Workgroup of the first occurrence.
    pub workgroup: [u32; 3],
    /// Times met.
    pub occurrences: u64,
}

impl Finding {
    /// One line of text, the same whatever engine was asked for.
    pub fn to_text(&self) -> String {
        let at = |pc: u32, line: Option<u32>| match line {
            Some(l) => format!("pc {pc:#x} (line {l})"),
            None => format!("pc {pc:#x}"),
        };
        let times = |n: u64| if n > 1 { format!(" [{n} times]") } else { String::new() };
        match self {
            Finding::Wait(h) => format!(
                "wait hazard: {} of {} at {}, produced by {} (counter {}) not yet waited for; workgroup {:?} wave {} \
                 lanes {:#010x}{}",
                match h.kind {
                    HazardKind::ReadBeforeWait => "read",
                    HazardKind::OverwriteBeforeWait => "overwrite of a pending load result",
                    HazardKind::StoreSourceOverwritten => "overwrite of a pending store's source",
                },
                h.register,
                at(h.pc, h.line),
                at(h.producer_pc, h.producer_line),
                h.counter,
                h.workgroup,
                h.wave,
                h.lanes,
                times(h.occurrences)
            ),
            Finding::Race(r) => format!(
                "shared-memory race ({}) at offset {:#x}: wave {} lane {} {} at {}, then wave {} lane {} {} at {}; \
                 workgroup {:?}{}",
                serde_json::to_value(r.kind).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default(),
                r.offset,
                r.first.wave,
                r.first.lane,
                r.first.verb(),
                at(r.first.pc, r.first.line),
                r.second.wave,
                r.second.lane,
                r.second.verb(),
                at(r.second.pc, r.second.line),
                r.workgroup,
                times(r.occurrences)
            ),
            Finding::Barrier(b) => {
                let what = match b.kind {
                    BarrierKind::PartialExec => format!("barrier under partial EXEC {:#010x}", b.lanes),
                    BarrierKind::WaveEndedBeforeBarrier => "wave ended without reaching the barrier".into(),
                    BarrierKind::DifferentBarriers => "waves wait at different barriers".into(),
                };
                let other = match (b.other_wave, b.other_pc) {
                    (Some(w), Some(pc)) => format!(", while wave {w} waits at {}", at(pc, b.other_line)),
                    _ => String::new(),
                };
                format!(
                    "barrier misuse: {what}: wave {} at {}{other}; workgroup {:?}{}",
                    b.wave,
                    at(b.pc, b.line),
                    b.workgroup,
                    times(b.occurrences)
                )
            }
            Finding::Uninit(u) => format!(
                "uninitialised read: {} reaches {} at {} undefined (never written); workgroup {:?} wave {} lanes \
                 {:#010x}{}",
                u.register,
                serde_json::to_value(u.sink).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default(),
                at(u.pc, u.line),
                u.workgroup,
                u.wave,
                u.lanes,
                times(u.occurrences)
            ),
        }
    }

    /// The finding as a JSON value (`check` names the checker; every field as its Rust name).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.to_text())
    }
}

/// Distinct findings kept by one launch; more are left out (a kernel racing in every byte would otherwise fill
/// memory with reports).
pub const MAX_FINDINGS: usize = 1000;

/// The findings of one launch, each distinct problem once (keyed by its kind and pcs).
#[derive(Debug, Default)]
pub(crate) struct Findings {
    list: Vec<Finding>,
    index: HashMap<(u8, u32, u32, u32), usize>,
}

impl Findings {
    /// Adds `f`, or counts it when the same problem (the same `key`) is already listed.
    pub(crate) fn add(&mut self, key: (u8, u32, u32, u32), f: impl FnOnce() -> Finding) {
        if let Some(&i) = self.index.get(&key) {
            match &mut self.list[i] {
                Finding::Wait(h) => h.occurrences += 1,
                Finding::Race(r) => r.occurrences += 1,
                Finding::Barrier(b) => b.occurrences += 1,
                Finding::Uninit(u) => u.occurrences += 1,
            }
        } else if self.list.len() < MAX_FINDINGS {
            self.index.insert(key, self.list.len());
            self.list.push(f());
        }
    }

    pub(crate) fn into_vec(self) -> Vec<Finding> {
        self.list
    }
}

/// Renders findings as text, one per line (empty when there are none).
pub fn render_text(findings: &[Finding]) -> String {
    findings.iter().map(|f| f.to_text() + "\n").collect()
}

/// Renders findings as a JSON array.
pub fn render_json(findings: &[Finding]) -> serde_json::Value {
    serde_json::Value::Array(findings.iter().map(Finding::to_json).collect())
}
