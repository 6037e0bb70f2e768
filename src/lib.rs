//! lanejit: a JIT-compiling emulator for a 32-lane GPU instruction set.
//!
//! The public API a test harness embeds: a [`Device`] with memory, [`Kernel`]s assembled from text or loaded
//! from bytes, [`launch`](Device::launch)es with statistics and precise trap reports, and single-wave runs
//! ([`wave::run_wave`]) from a JSON state.
//!
//! A vector add, as the README shows it (this text is a doc-test, and `tests/readme.rs` keeps the README's
//! copy identical):
//!
//! ```
//! use lanejit::{Device, Kernel, KernelArgs, LaunchConfig};
//!
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let kernel = Kernel::from_asm("vadd.s", &std::fs::read_to_string("examples/vadd.s")?)?;
//!     let dev = Device::new()?;
//!     let n = 1000u32;
//!     let (a, b, c) = (dev.buffer_of(n as usize)?, dev.buffer_of(n as usize)?, dev.buffer_of::<u32>(n as usize)?);
//!     a.write(&(0..n).collect::<Vec<u32>>())?;
//!     b.write(&(0..n).map(|i| 2 * i).collect::<Vec<u32>>())?;
//!     // The kernel's arguments, as it reads them from u0:u1: three buffer addresses and the count.
//!     let args = KernelArgs::new().ptr(a.addr()).ptr(b.addr()).ptr(c.addr()).u32(n);
//!     let cfg = LaunchConfig { grid: [n.div_ceil(64), 1, 1], args: args.into(), ..Default::default() };
//!     let stats = dev.launch(&kernel, &cfg)?;
//!     let sums = c.read()?;
//!     assert!((0..n).all(|i| sums[i as usize] == 3 * i));
//!     println!("{} instructions retired", stats.retired);
//!     Ok(())
//! } // the buffers are freed here, when they drop
//! ```
//!
//! This crate is the embedding API alone, every public item documented and `Debug`; the command-line tools
//! (the `lanejit` binary, bench, fuzzer, conformance runner, bundled examples) are the `lanejit-cli` crate
//! (`cli/` in the repository), so a harness that depends on `lanejit` builds neither them nor what only they
//! need (clap, anyhow as a dependency of its own, a YAML reader).

#![deny(missing_docs, missing_debug_implementations)]

pub mod arena;
pub mod args;
pub mod blocktime;
pub mod check;
pub mod code_cache;
pub mod compile_log;
mod compile_pool;
pub mod debug;
pub mod engine;
pub mod error;
pub mod explore;
pub mod image;
pub mod launch;
pub mod memimage;
pub mod module;
pub mod profile;
pub mod record;
pub mod state_json;
pub mod static_check;
pub mod tier;
pub mod timeline;
pub mod trace;
pub mod typed;
pub mod wave;
pub mod wavemem;

pub use arena::{Alloc, AllocError, AllocTable, Arena, Buffer, Pages, DEVICE_BASE};
pub use args::KernelArgs;
pub use error::{ConfigError, ContainerError, JitError, MemoryError, WaveError};
pub use image::{Image, ImageError, ImageLayout, ImageSpec};
pub use lanejit_interp::{Trap, TrapKind, WaveState, LANES};
pub use launch::MAX_PCT_DEPTH;
pub use launch::{CancelToken, LaunchConfig, LaunchError, LaunchProgress, LaunchStats, Schedule};
pub use module::Module;
pub use tier::CompileConfig;
pub use typed::TypedBuffer;

/// This build's identity: the package version and, in a git checkout, `+g` and the commit's first 12 hex
/// digits (`.dirty` when tracked files differ from it), e.g. `0.1.0+g692e45d3a1b2`. Record files and fuzz
/// reports carry it, so that `lanejit fuzz merge` refuses reports of builds of different code.
pub const BUILD: &str = env!("LANEJIT_BUILD");

use lanejit_interp::Code;
use lanejit_isa::asm::{AsmErrors, Program};
use lanejit_jit::CompiledKernel;
use std::sync::{Arc, OnceLock};

/// Which engine executes guest code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// The reference interpreter (the golden model).
    #[default]
    Interp,
    /// Compile every block with Cranelift before running: first with the quick tier (the launch waits for
    /// it), then the blocks that run often again with the optimising tier, on the compile threads
    /// (`Kernel::jit_promotion`). For benchmarks of compiled code and for testing the JIT itself.
    Jit,
    /// Tiered, the default (`LaunchConfig::default()`): a launch starts at once in the interpreter, blocks
    /// that run often are compiled with the optimising tier on the compile threads and run compiled from the
    /// next chunk on (`Kernel::auto_tiering`); no launch waits for the compiler, and the compiled code stays
    /// with the kernel (and the code cache) for its later launches.
    Auto,
}

/// Engines this build can run (all of them; kept as a function so that a build without a JIT for the host can
/// say so clearly).
pub fn engine_available(_e: Engine) -> Result<(), String> {
    Ok(())
}

/// An assembled kernel, decoded once and shareable across launches and threads; its compiled code is made once
/// and shared by every clone.
#[derive(Clone)]
pub struct Kernel {
    /// The assembled program: words, labels, metadata (`.kernel`, `.workgroup`, `.shared`, `.args`, `.private`).
    pub program: Program,
    /// The words decoded once, shared by every engine.
    pub code: Arc<Code>,
    jit: Arc<OnceLock<Result<CompiledKernel, JitError>>>,
    quick: Arc<OnceLock<Result<CompiledKernel, JitError>>>,
    /// Block-by-block compilation for `--engine auto`.
    pub auto_tiering: Arc<tier::HotBlocks>,
    /// `--engine jit`: which blocks of the quick code have been recompiled with the optimising tier (after
    /// `JIT_HOT_BLOCK` starts; a threshold of 0 compiles every block with it up front, `u32::MAX` never does).
    pub jit_promotion: Arc<tier::HotBlocks>,
    written: Arc<OnceLock<(Vec<usize>, Vec<usize>)>>,
    to_clear: Arc<OnceLock<(Vec<usize>, Vec<usize>)>>,
    start_facts: Arc<OnceLock<lanejit_jit::StartFacts>>,
    named: Arc<OnceLock<(Vec<usize>, Vec<usize>)>>,
    barrier: Arc<OnceLock<bool>>,
    config: CompileConfig,
    /// Per code word: the source line of the instruction starting there (0: unknown; empty for a kernel not
    /// assembled from text), quoted by `check` findings.
    lines: Arc<Vec<u32>>,
}

impl Kernel {
    /// A kernel compiled and tiered as `CompileConfig::default()` says.
    pub fn from_program(program: Program) -> Kernel {
        Kernel::from_program_with(program, CompileConfig::default())
    }

    /// A kernel compiled and tiered as `config` says.
    pub fn from_program_with(program: Program, config: CompileConfig) -> Kernel {
        let shared = if config.share {
            code_cache::lookup(&program.words, &config)
        } else {
            code_cache::Shared::new(program.words.clone(), &config)
        };
        let code_cache::Shared { code, jit, quick, auto_tiering, jit_promotion } = shared;
        Kernel {
            program,
            code,
            jit,
            quick,
            auto_tiering,
            jit_promotion,
            written: Arc::default(),
            to_clear: Arc::default(),
            start_facts: Arc::default(),
            named: Arc::default(),
            barrier: Arc::default(),
            config,
            lines: Arc::default(),
        }
    }

    /// The same program compiled and tiered as `config` says: what was compiled or counted for another
    /// configuration is not used (with `config.share`, kernels of the same words and configuration share it).
    pub fn with_config(self, config: CompileConfig) -> Kernel {
        let lines = self.lines.clone();
        Kernel { lines, ..Kernel::from_program_with(self.program, config) }
    }

    /// The same kernel quoting `lines` (per code word, the source line of the instruction starting there, 0
    /// where unknown) in `check` findings: for kernels assembled elsewhere (`assemble_with_lines`).
    pub fn with_source_lines(self, lines: Vec<u32>) -> Kernel {
        Kernel { lines: Arc::new(lines), ..self }
    }

    /// The source line of the instruction at byte address `pc`, when the kernel was assembled from text here.
    pub fn source_line(&self, pc: u32) -> Option<u32> {
        self.lines.get((pc / 4) as usize).copied().filter(|&l| l != 0)
    }

    /// How this kernel is compiled and tiered.
    pub fn config(&self) -> &CompileConfig {
        &self.config
    }

    /// Waits until no background compilation of this kernel's tiering is queued or under way, so that the
    /// next launch runs the code compiled for every block found hot so far (benchmarks that want the steady
    /// state; a launch itself never waits).
    pub fn wait_for_compiles(&self) {
        self.auto_tiering.wait_idle();
        self.jit_promotion.wait_idle();
    }

    /// The vector and uniform registers some instruction of the kernel may write (at any word offset):
    /// whatever the kernel does, no other register changes.
    pub fn registers_written(&self) -> &(Vec<usize>, Vec<usize>) {
        self.written.get_or_init(|| lanejit_jit::registers_written(&self.code))
    }

    /// The registers a launch re-zeroes before a wave reuses another wave's state: those the kernel writes,
    /// minus those every wave provably writes before reading them (`lanejit_jit::registers_to_clear`).
    pub fn registers_to_clear(&self) -> &(Vec<usize>, Vec<usize>) {
        self.to_clear.get_or_init(|| lanejit_jit::registers_to_clear(&self.code))
    }

    /// What a launch's wave start writes besides the ABI's values (the clear set, the ids the kernel names,
    /// whether it may overwrite the ABI's registers): `lanejit_jit::StartFacts`.
    pub fn start_facts(&self) -> &lanejit_jit::StartFacts {
        self.start_facts.get_or_init(|| lanejit_jit::StartFacts::of(&self.code))
    }

    /// Some word of the kernel (at any offset) decodes as a `barrier`: without one, every wave of a workgroup
    /// runs to its end before the next one starts.
    pub fn may_wait_at_barrier(&self) -> bool {
        *self.barrier.get_or_init(|| {
            self.code
                .decoded
                .iter()
                .flatten()
                .any(|(insn, _)| matches!(insn, lanejit_isa::Insn::Ctrl(lanejit_isa::CtrlInsn::Barrier)))
        })
    }

    /// The vector and uniform registers some instruction of the kernel names (at any word offset): no other
    /// register's value can matter to it.
    pub fn registers_named(&self) -> &(Vec<usize>, Vec<usize>) {
        self.named.get_or_init(|| lanejit_jit::registers_named(&self.code))
    }

    /// The whole kernel compiled with the optimising tier, on first use.
    pub fn compiled(&self) -> Result<&CompiledKernel, JitError> {
        let compile = || lanejit_jit::compile(&self.code, &self.config.jit);
        let all = || lanejit_jit::block_starts(&self.code);
        self.jit.get_or_init(|| compile_log::logged(&self.code, "opt", all, compile)).as_ref().map_err(Clone::clone)
    }

    /// The whole kernel compiled with the quick tier, on first use.
    pub fn quick(&self) -> Result<&CompiledKernel, JitError> {
        self.quick
            .get_or_init(|| {
                let compile = || lanejit_jit::compile_quick(&self.code, &self.config.jit);
                compile_log::logged(&self.code, "quick", || lanejit_jit::block_starts(&self.code), compile)
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Compiles what `--engine jit` starts with (the quick code, or the optimised code when `jit_promotion` compiles
    /// everything up front), so that a compile error is reported before anything runs.
    pub fn jit_ready(&self) -> Result<(), JitError> {
        if self.jit_promotion.compiles_everything() {
            self.compiled().map(drop)
        } else {
            self.quick().map(drop)
        }
    }

    /// Assembles source text; errors carry file, line and column.
    pub fn from_asm(file_name: &str, src: &str) -> Result<Kernel, AsmErrors> {
        let (program, lines) = lanejit_isa::asm::assemble_with_lines(file_name, src)?;
        Ok(Kernel::from_program(program).with_source_lines(lines))
    }
    /// Loads a binary written by `lanejit asm` (ELF or `LJK1`) or raw little-endian words.
    pub fn from_bytes(bytes: &[u8]) -> Result<Kernel, ContainerError> {
        lanejit_isa::container::read_any(bytes).map(Kernel::from_program)
    }
}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let m = &self.program.meta;
        f.debug_struct("Kernel")
            .field("name", &m.name)
            .field("words", &self.program.words.len())
            .field("workgroup", &m.workgroup)
            .field("shared_bytes", &m.shared_bytes)
            .field("private_bytes", &m.private_bytes)
            .field("arg_bytes", &m.arg_bytes)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// Device memory plus the launch entry point.
pub struct Device {
    /// The device's memory.
    pub arena: Arena,
    /// The worker pool of the last launch with an explicit thread count, kept for the next one with the same
    /// count (starting threads for every launch costs more than a small launch itself).
    pool: std::sync::Mutex<Option<(usize, Arc<rayon::ThreadPool>)>>,
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Device").field("arena", &self.arena).finish()
    }
}

impl Device {
    /// A device with the default address space (`arena::DEFAULT_CAPACITY`; pages committed when touched).
    pub fn new() -> Result<Device, AllocError> {
        Device::with_capacity(arena::DEFAULT_CAPACITY)
    }
    /// A device with `bytes` of address space.
    pub fn with_capacity(bytes: u64) -> Result<Device, AllocError> {
        Device::with_pages(bytes, arena::Pages::Huge)
    }
    /// A device with `bytes` of address space in `pages`.
    pub fn with_pages(bytes: u64, pages: arena::Pages) -> Result<Device, AllocError> {
        Ok(Device { arena: Arena::with_pages(bytes, pages)?, pool: std::sync::Mutex::default() })
    }
    /// From now on, remember which bytes of device memory hold a written value, for the uninit checker's
    /// `Checks::buffers`: a new buffer's bytes are undefined until the host writes them or a kernel stores to
    /// them; buffers alive now count as written. A launch without the uninit checker counts every live byte as
    /// written (it is not watched). Costs a bit per byte of address space, committed where touched.
    pub fn track_uninit_memory(&self) -> Result<(), AllocError> {
        self.arena.track_defined()
    }
    /// A zeroed global buffer, alive until `free`d (or the device is dropped).
    pub fn alloc(&self, bytes: u64) -> Result<Alloc, AllocError> {
        self.arena.alloc(bytes, false)
    }
    /// A constant (read-only to guest code) buffer holding `data`, alive until `free`d.
    pub fn alloc_const(&self, data: &[u8]) -> Result<Alloc, AllocError> {
        self.arena.alloc_filled(data, true)
    }
    /// A zeroed global buffer freed when the returned `Buffer` is dropped.
    pub fn buffer(&self, bytes: u64) -> Result<Buffer<'_>, AllocError> {
        self.arena.buffer(bytes, false)
    }
    /// Frees the allocation starting at `addr`: guest code launched afterwards traps on its addresses, and its
    /// memory reads as zero when it is allocated again. An address that is not a live allocation's start
    /// (freed already, never allocated, or inside one) is an error.
    pub fn free(&self, addr: u64) -> Result<(), AllocError> {
        self.arena.free(addr).map(drop)
    }
    /// Copies `data` to device address `addr`; the whole range must lie in one live allocation.
    pub fn write(&self, addr: u64, data: &[u8]) -> Result<(), MemoryError> {
        self.arena.write_bytes(addr, data)
    }
    /// The `len` bytes at device address `addr`.
    pub fn read(&self, addr: u64, len: u64) -> Result<Vec<u8>, MemoryError> {
        self.arena.read_bytes(addr, len)
    }
    /// Copies `out.len()` bytes at `addr` into `out`, allocating nothing.
    pub fn read_into(&self, addr: u64, out: &mut [u8]) -> Result<(), MemoryError> {
        self.arena.read_into(addr, out)
    }
    /// Writes `data` at `addr` as its bytes in memory (little-endian on every host lanejit runs on), e.g. a
    /// `&[f32]` or `&[u32]`.
    pub fn write_slice<T: bytemuck::NoUninit>(&self, addr: u64, data: &[T]) -> Result<(), MemoryError> {
        self.write(addr, bytemuck::cast_slice(data))
    }
    /// `count` values of `T` at `addr` (the inverse of `write_slice`), copied once, straight into the vector.
    pub fn read_vec<T: bytemuck::Pod>(&self, addr: u64, count: usize) -> Result<Vec<T>, MemoryError> {
        let mut out = vec![T::zeroed(); count];
        self.read_into(addr, bytemuck::cast_slice_mut(&mut out))?;
        Ok(out)
    }
    /// Writes `words` little-endian at `addr`.
    pub fn write_u32s(&self, addr: u64, words: &[u32]) -> Result<(), MemoryError> {
        self.write_slice(addr, words)
    }
    /// `count` little-endian words at `addr`.
    pub fn read_u32s(&self, addr: u64, count: usize) -> Result<Vec<u32>, MemoryError> {
        self.read_vec(addr, count)
    }
    /// A pool of `n` worker threads: this device's last one when `n` matches, else a new one kept for the next
    /// launch. Each device keeps its own, so devices launching with different thread counts do not rebuild
    /// each other's pools.
    pub(crate) fn pool(&self, n: usize) -> Result<Arc<rayon::ThreadPool>, String> {
        let mut last = self.pool.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, p)) = last.as_ref().filter(|(m, _)| *m == n) {
            return Ok(p.clone());
        }
        let p = Arc::new(rayon::ThreadPoolBuilder::new().num_threads(n).build().map_err(|e| e.to_string())?);
        *last = Some((n, p.clone()));
        Ok(p)
    }

    /// Runs `kernel` over `cfg.grid` and waits for it: its statistics, or why it stopped (a bad configuration,
    /// a compile error, or a trap with its report; writes made before a trap stay).
    pub fn launch(&self, kernel: &Kernel, cfg: &LaunchConfig) -> Result<LaunchStats, LaunchError> {
        launch::launch(self, kernel, cfg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A device keeps its pool for the next launch with the same count; another device's launches with
    /// another count do not replace it.
    #[test]
    fn each_device_keeps_its_own_worker_pool() {
        let (a, b) = (Device::with_capacity(1 << 20).unwrap(), Device::with_capacity(1 << 20).unwrap());
        let first = a.pool(2).unwrap();
        let other = b.pool(3).unwrap();
        assert!(Arc::ptr_eq(&first, &a.pool(2).unwrap()), "the same count reuses the pool");
        assert_eq!((first.current_num_threads(), other.current_num_threads()), (2, 3));
        assert!(!Arc::ptr_eq(&first, &a.pool(4).unwrap()), "another count builds another pool");
    }
}
