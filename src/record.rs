//! Record files: one self-contained launch (the kernel, its launch configuration, every live allocation's
//! bytes before the launch, the schedule, how it ended and a hash of its outputs) that `replay` reproduces on a
//! fresh device with any engine. The format is JSON (bytes as lowercase hex), its first fields a magic
//! string and a format version (docs/schedules.md, "Record files"); a newer version is refused by name.
//!
//! Format 2 adds `kind`: `launch` (this module's [`Record`]; a version-1 file, which has no `kind`, is one) or
//! `fuzz_case` (a divergence `lanejit fuzz` found: one wave state rather than a launch, written and replayed by
//! the tools' fuzzer, `lanejit_cli::fuzz::record`). [`header`] reads what every kind shares.

use crate::explore::Outcome;
use crate::memimage::MemoryImage;
use crate::{Device, Engine, Kernel, LaunchConfig, LaunchError, LaunchStats, Schedule};
use serde::{Deserialize, Serialize};

/// The first field of every record file.
pub const RECORD_MAGIC: &str = "lanejit-record";
/// The format version this lanejit writes and the newest it reads (1: launches only; 2: `kind` added).
pub const RECORD_VERSION: u32 = 2;
/// The `kind` of a recorded launch (and of every version-1 file).
pub const KIND_LAUNCH: &str = "launch";
/// The `kind` of a fuzz divergence (`lanejit fuzz` writes it beside each reproducer).
pub const KIND_FUZZ_CASE: &str = "fuzz_case";

fn kind_launch() -> String {
    KIND_LAUNCH.into()
}

/// One allocation as it was before the launch.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct RecordedAlloc {
    /// Its device address.
    pub addr: u64,
    /// Constant memory.
    pub readonly: bool,
    /// Its bytes, hex.
    pub bytes: String,
}

/// A recorded launch.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// `RECORD_MAGIC`.
    pub magic: String,
    /// The format version (`RECORD_VERSION` when written here).
    pub version: u32,
    /// `KIND_LAUNCH` (absent from version-1 files).
    #[serde(default = "kind_launch")]
    pub kind: String,
    /// The lanejit version that wrote it.
    pub lanejit_version: String,
    /// The kernel as lanejit's container (`LJK1`), hex: code and metadata.
    pub kernel: String,
    /// Workgroups in x, y and z.
    pub grid: [u32; 3],
    /// Workgroup size (`None`: the kernel's).
    pub workgroup: Option<[u32; 3]>,
    /// Shared memory (`None`: the kernel's).
    pub shared_bytes: Option<u32>,
    /// Private memory per lane (`None`: the kernel's).
    pub private_bytes: Option<u32>,
    /// The argument block, hex.
    pub args: String,
    /// The instruction budget.
    pub budget: u64,
    /// The schedule, as `Schedule::parse` reads it.
    pub schedule: String,
    /// The engine it was recorded on (replay may use another).
    pub engine: Engine,
    /// Every live allocation before the launch.
    pub memory: Vec<RecordedAlloc>,
    /// How the launch ended: `Outcome::to_string`.
    pub outcome: String,
    /// `MemoryImage::hash` of writable memory after the launch, hex.
    pub outputs_hash: String,
    /// Per writable allocation: its address and hash after the launch (to name the one that differs).
    pub output_hashes: Vec<(u64, String)>,
}

/// Why a record file cannot be read or replayed.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// Not JSON, cut short, or fields missing or malformed.
    #[error("not a valid record file: {0}")]
    Malformed(String),
    /// The magic string is not `RECORD_MAGIC`.
    #[error("not a lanejit record file (its magic is `{0}`, not `{RECORD_MAGIC}`)")]
    Magic(String),
    /// Written by a newer lanejit.
    #[error(
        "record format version {0} is newer than this lanejit reads ({RECORD_VERSION}): replay it with a newer lanejit"
    )]
    Newer(u32),
    /// The launch could not be set up again (its kernel, memory or configuration).
    #[error("cannot set up the recorded launch: {0}")]
    Setup(String),
    /// A kind of record this reader does not replay (a `fuzz_case` given to [`Record::parse`], say).
    #[error("{0}")]
    Kind(String),
}

/// What every record file starts with, whatever its kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordHeader {
    /// Its format version (at most `RECORD_VERSION`).
    pub version: u32,
    /// Its `kind` (`KIND_LAUNCH` when absent).
    pub kind: String,
}

/// Reads a record file's magic, version and kind: another magic, a missing version or one newer than
/// `RECORD_VERSION` is refused before the rest is read.
pub fn header(text: &str) -> Result<RecordHeader, RecordError> {
    #[derive(Deserialize)]
    struct Header {
        magic: Option<serde_json::Value>,
        version: Option<serde_json::Value>,
        kind: Option<serde_json::Value>,
    }
    let header: Header = serde_json::from_str(text).map_err(|e| RecordError::Malformed(e.to_string()))?;
    match header.magic {
        Some(serde_json::Value::String(m)) if m == RECORD_MAGIC => {}
        Some(m) => return Err(RecordError::Magic(m.to_string().trim_matches('"').to_string())),
        None => return Err(RecordError::Magic(String::new())),
    }
    let version = match header.version.as_ref().and_then(serde_json::Value::as_u64) {
        Some(v) if v > RECORD_VERSION as u64 => return Err(RecordError::Newer(v.min(u32::MAX as u64) as u32)),
        Some(v) => v as u32,
        None => return Err(RecordError::Malformed("`version` is missing or not a whole number".into())),
    };
    let kind = match header.kind {
        None => KIND_LAUNCH.to_string(),
        Some(serde_json::Value::String(k)) if k == KIND_LAUNCH || k == KIND_FUZZ_CASE => k,
        Some(k) => {
            return Err(RecordError::Malformed(format!("`kind` is {k}, not `{KIND_LAUNCH}` or `{KIND_FUZZ_CASE}`")))
        }
    };
    Ok(RecordHeader { version, kind })
}

/// What a replay found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replayed {
    /// How the replay ended (`Outcome::to_string`).
    pub outcome: String,
    /// Its outputs' hash.
    pub outputs_hash: String,
    /// The first difference from the record (`None`: reproduced bit for bit).
    pub difference: Option<String>,
}

impl Record {
    /// Captures everything the launch of `kernel` with `cfg` on `device` reads, before it runs.
    pub fn capture(device: &Device, kernel: &Kernel, cfg: &LaunchConfig) -> Result<Record, RecordError> {
        let table = device.arena.allocations();
        let memory = table
            .iter()
            .map(|a| {
                let bytes = device.read(a.addr, a.size).map_err(|e| RecordError::Setup(e.to_string()))?;
                Ok(RecordedAlloc { addr: a.addr, readonly: a.readonly, bytes: hex(&bytes) })
            })
            .collect::<Result<Vec<_>, RecordError>>()?;
        Ok(Record {
            magic: RECORD_MAGIC.into(),
            version: RECORD_VERSION,
            kind: kind_launch(),
            lanejit_version: crate::BUILD.into(),
            kernel: hex(&lanejit_isa::container::write(&kernel.program)),
            grid: cfg.grid,
            workgroup: cfg.workgroup,
            shared_bytes: cfg.shared_bytes,
            private_bytes: cfg.private_bytes,
            args: hex(&cfg.args),
            budget: cfg.budget,
            schedule: cfg.schedule.to_string(),
            engine: cfg.engine,
            memory,
            outcome: String::new(),
            outputs_hash: String::new(),
            output_hashes: Vec::new(),
        })
    }

    /// Notes how the launch ended and hashes the memory it left.
    pub fn finish(&mut self, device: &Device, result: &Result<LaunchStats, LaunchError>) -> Result<(), RecordError> {
        let (outcome, image) = ending(device, result)?;
        self.outcome = outcome;
        self.outputs_hash = format!("{:016x}", image.hash());
        self.output_hashes = image.region_hashes().into_iter().map(|(a, h)| (a, format!("{h:016x}"))).collect();
        Ok(())
    }

    /// The record as JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    /// Reads a launch record: the magic and version first (a newer version is refused before the rest is
    /// read), then every field strictly. A record of another kind is refused ([`RecordError::Kind`]).
    pub fn parse(text: &str) -> Result<Record, RecordError> {
        let h = header(text)?;
        if h.kind != KIND_LAUNCH {
            return Err(RecordError::Kind(format!(
                "this record is a `{}` (a fuzzer divergence), not a launch: replay it with `lanejit replay`",
                h.kind
            )));
        }
        serde_json::from_str(text).map_err(|e| RecordError::Malformed(e.to_string()))
    }

    /// Runs the recorded launch again on a fresh device with `engine` (one thread) and compares how it ended
    /// and its outputs' hash with the record's.
    pub fn replay(&self, engine: Engine) -> Result<Replayed, RecordError> {
        let setup = |e: String| RecordError::Setup(e);
        let kernel = Kernel::from_bytes(&unhex(&self.kernel, "kernel")?).map_err(|e| setup(e.to_string()))?;
        let schedule = Schedule::parse(&self.schedule).map_err(setup)?;
        let device = Device::new().map_err(|e| setup(e.to_string()))?;
        for a in &self.memory {
            let bytes = unhex(&a.bytes, "memory")?;
            device.arena.alloc_at(a.addr, bytes.len() as u64, a.readonly).map_err(|e| setup(e.to_string()))?;
            device.write(a.addr, &bytes).map_err(|e| setup(e.to_string()))?;
        }
        let cfg = LaunchConfig {
            grid: self.grid,
            workgroup: self.workgroup,
            shared_bytes: self.shared_bytes,
            private_bytes: self.private_bytes,
            args: unhex(&self.args, "args")?,
            budget: self.budget,
            engine,
            threads: Some(1),
            schedule,
            ..Default::default()
        };
        let result = device.launch(&kernel, &cfg);
        if let Err(e @ (LaunchError::Config(_) | LaunchError::Compile(_))) = &result {
            return Err(setup(e.to_string()));
        }
        let (outcome, image) = ending(&device, &result)?;
        let outputs_hash = format!("{:016x}", image.hash());
        let difference = self.first_difference(&outcome, &image);
        Ok(Replayed { outcome, outputs_hash, difference })
    }

    /// The first way a replay's ending and memory differ from the record's.
    fn first_difference(&self, outcome: &str, image: &MemoryImage) -> Option<String> {
        if outcome != self.outcome {
            return Some(format!("the launch ended otherwise: recorded `{}`, replayed `{outcome}`", self.outcome));
        }
        let now: Vec<(u64, String)> =
            image.region_hashes().into_iter().map(|(a, h)| (a, format!("{h:016x}"))).collect();
        let changed =
            self.output_hashes.iter().find(|(a, h)| now.iter().find(|(b, _)| b == a).map(|(_, g)| g) != Some(h));
        match changed {
            Some((a, h)) => Some(format!("the allocation at {a:#x} differs: recorded hash {h}, replayed another")),
            None if format!("{:016x}", image.hash()) != self.outputs_hash => {
                Some(format!("the outputs' hash differs: recorded {}", self.outputs_hash))
            }
            None => None,
        }
    }
}

/// How a launch ended and the writable memory it left.
fn ending(device: &Device, result: &Result<LaunchStats, LaunchError>) -> Result<(String, MemoryImage), RecordError> {
    let outcome = match result {
        Ok(_) => Outcome::Finished.to_string(),
        Err(LaunchError::Trap { trap, .. }) => format!("trapped: {trap}"),
        Err(e) => return Err(RecordError::Setup(e.to_string())),
    };
    let image = MemoryImage::take(device).map_err(|e| RecordError::Setup(e.to_string()))?;
    Ok((outcome, image))
}

/// Bytes as lowercase hex, as record files keep them.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(DIGITS[(b >> 4) as usize] as char);
        out.push(DIGITS[(b & 15) as usize] as char);
    }
    out
}

/// Bytes from lowercase or uppercase hex; the field is named in the error.
pub fn unhex(text: &str, field: &str) -> Result<Vec<u8>, RecordError> {
    let bad = || RecordError::Malformed(format!("`{field}` is not hex bytes"));
    if !text.len().is_multiple_of(2) {
        return Err(bad());
    }
    let digit = |c: u8| (c as char).to_digit(16).ok_or_else(bad);
    text.as_bytes().chunks(2).map(|p| Ok((digit(p[0])? * 16 + digit(p[1])?) as u8)).collect()
}
