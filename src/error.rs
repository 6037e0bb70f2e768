//! The library's typed errors: each says what was wrong in its message and carries the values as fields, so
//! that a harness can match on them and `?` carries them into `anyhow` or `Box<dyn Error>`.

pub use lanejit_isa::container::ContainerError;
pub use lanejit_jit::JitError;

/// A host copy that reaches outside every live allocation (the copy did nothing).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{addr:#x}+{len} is outside every allocation")]
pub struct MemoryError {
    /// The first device address of the copy.
    pub addr: u64,
    /// Its length in bytes.
    pub len: u64,
}

/// For callers whose errors are strings (the bundled examples' checks, the command-line tools): `?` keeps working.
impl From<MemoryError> for String {
    fn from(e: MemoryError) -> String {
        e.to_string()
    }
}

/// Why a single-wave run (`wave::run_wave`) did not start; a run that starts ends in a `WaveOutcome`, with or
/// without a trap.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WaveError {
    /// The initial state is malformed (a register key, a vector's length, hex, an fcsr the ISA cannot hold).
    #[error("bad initial state: {0}")]
    State(String),
    /// The state's memory ranges cannot be placed (overlapping, outside the device range, too many).
    #[error("initial memory: {0}")]
    Memory(String),
    /// A limit beyond what a run allows (a deadline past `MAX_DEADLINE`).
    #[error("{0}")]
    Limits(String),
    /// The JIT could not compile the kernel.
    #[error("{0}")]
    Compile(JitError),
}

/// For callers whose errors are strings (the fuzzer, the conformance runner): `?` keeps working.
impl From<WaveError> for String {
    fn from(e: WaveError) -> String {
        e.to_string()
    }
}

/// A launch configuration the launch refused before anything ran.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
#[allow(missing_docs)] // each field is named in its variant's message
pub enum ConfigError {
    /// The workgroup shape: an empty dimension or more than the ISA's most threads.
    #[error("{0}")]
    Workgroup(String),
    /// The grid shape: an empty dimension or more than `MAX_GRID_WORKGROUPS` workgroups.
    #[error("{0}")]
    Grid(String),
    /// Shared memory beyond `MAX_SHARED_BYTES`.
    #[error("shared memory {bytes} bytes exceeds {limit}")]
    SharedMemory { bytes: u32, limit: u32 },
    /// Private memory per lane beyond the ISA's limit, or not a multiple of 4.
    #[error("{0}")]
    PrivateMemory(String),
    /// An argument block longer than `MAX_ARG_BYTES`.
    #[error("{given} argument bytes exceed the limit of {limit} (MAX_ARG_BYTES)")]
    ArgsTooLong { given: usize, limit: u32 },
    /// An argument block shorter than the kernel's `.args`.
    #[error("the kernel declares .args {declared} (bytes of arguments) but the launch gives {given}")]
    ArgsTooShort { declared: u32, given: usize },
    /// A thread count outside 1..=`MAX_THREADS`.
    #[error("{requested} worker threads: the limit is 1..={limit} (MAX_THREADS)")]
    Threads { requested: usize, limit: usize },
    /// A deadline longer than `MAX_DEADLINE`.
    #[error("deadline of {} s exceeds the limit of {} s (MAX_DEADLINE)", requested.as_secs_f64(), limit.as_secs())]
    Deadline { requested: std::time::Duration, limit: std::time::Duration },
    /// The argument block could not be placed in device memory.
    #[error("argument buffer: {0}")]
    ArgsBuffer(crate::AllocError),
    /// The host refused to start worker threads.
    #[error("worker threads: {0}")]
    ThreadPool(String),
    /// `Checks::buffers` on a device that does not track which of its bytes were written.
    #[error("the buffers check needs a device that tracks its memory: call Device::track_uninit_memory before making the buffers")]
    UntrackedMemory,
    /// A checking launch (`LaunchConfig::check`) with a schedule other than `fixed`.
    #[error("checkers run the fixed schedule (one workgroup at a time): schedule {0} does not go with them")]
    ScheduleWithChecks(String),
    /// A timeline or profile with checkers or another schedule than `fixed`, or a timeline file that cannot
    /// be created (before the launch) or written (after it).
    #[error("{0}")]
    Observer(String),
    /// Device memory exploration or replay copies could not be read or written back.
    #[error("device memory: {0}")]
    Memory(String),
}
