//! How the JIT compiles, and what it reports while compiling. The library reads no environment variable: an
//! embedder sets these fields, and the `lanejit` command maps its `LANEJIT_JIT_*` variables onto them.

use crate::runtime::{JitError, Tier};
use cranelift_codegen::settings::{self, Configurable};
use std::sync::{Arc, OnceLock};

/// Settings of one compilation. The defaults make the fastest code (see `Tier`); the others exist to measure
/// compile time against code speed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct JitOptions {
    /// Cranelift's optimisation level for the optimising tier (the quick tier always uses `None`).
    pub opt_level: OptLevel,
    /// Cranelift's register allocator for the optimising tier (the quick tier always uses `SinglePass`).
    pub regalloc: RegAlloc,
    /// Diagnostics written to standard error while compiling.
    pub report: Report,
    /// Every compiled block stores its start address on entry where a sampling thread can read it
    /// (`WindowCache::block_mark`): how a profile measures each block's share of time. One store per block
    /// entered, so off by default; code compiled without it is unchanged.
    pub mark_blocks: bool,
}

/// Cranelift's optimisation level (its `opt_level` setting).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum OptLevel {
    /// No optimisation: the fastest compile, the slowest code.
    None,
    /// Optimise for speed (the default).
    #[default]
    Speed,
    /// Optimise for speed and code size.
    SpeedAndSize,
}

/// Cranelift's register allocator (its `regalloc_algorithm` setting).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RegAlloc {
    /// The backtracking allocator: better code, slower to compile (the default).
    #[default]
    Backtracking,
    /// The single-pass allocator: fast to compile, more spills.
    SinglePass,
}

/// What a compilation prints to standard error (all off by default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Report {
    /// Compile time, CLIF size and stack frame per function and per compilation.
    pub timing: bool,
    /// Each function's CLIF.
    pub clif: bool,
    /// The CLIF instruction count of every lowered guest instruction.
    pub insts: bool,
    /// Each function's machine code, as Cranelift's disassembly (after register allocation).
    pub disasm: bool,
}

impl OptLevel {
    /// Cranelift's name of the level (also what `LANEJIT_JIT_OPT` takes).
    pub fn name(self) -> &'static str {
        match self {
            OptLevel::None => "none",
            OptLevel::Speed => "speed",
            OptLevel::SpeedAndSize => "speed_and_size",
        }
    }

    /// The level of that name (`none`, `speed`, `speed_and_size`), or `None` for any other text.
    pub fn parse(s: &str) -> Option<OptLevel> {
        [OptLevel::None, OptLevel::Speed, OptLevel::SpeedAndSize].into_iter().find(|o| o.name() == s)
    }
}

impl RegAlloc {
    /// Cranelift's name of the allocator (also what `LANEJIT_JIT_RA` takes).
    pub fn name(self) -> &'static str {
        match self {
            RegAlloc::Backtracking => "backtracking",
            RegAlloc::SinglePass => "single_pass",
        }
    }

    /// The allocator of that name (`backtracking`, `single_pass`), or `None` for any other text.
    pub fn parse(s: &str) -> Option<RegAlloc> {
        [RegAlloc::Backtracking, RegAlloc::SinglePass].into_iter().find(|r| r.name() == s)
    }
}

pub type TargetIsa = Arc<dyn cranelift_codegen::isa::TargetIsa>;

/// The host ISA with `tier`'s settings, made once per process and setting (detection and flag parsing cost
/// milliseconds): the quick tier has one, the optimising tier one per opt level and allocator.
pub(crate) fn isa(tier: Tier, opts: &JitOptions) -> Result<TargetIsa, JitError> {
    const OPTS: usize = 3;
    const RAS: usize = 2;
    static CELLS: [OnceLock<Result<TargetIsa, String>>; 1 + OPTS * RAS] = [const { OnceLock::new() }; 1 + OPTS * RAS];
    let (opt, ra) = match tier {
        Tier::Quick => (OptLevel::None, RegAlloc::SinglePass),
        Tier::Opt => (opts.opt_level, opts.regalloc),
    };
    let index = match tier {
        Tier::Quick => 0,
        Tier::Opt => 1 + opt as usize * RAS + ra as usize,
    };
    CELLS[index].get_or_init(|| detect_isa(opt, ra).map_err(|e| e.0)).clone().map_err(JitError)
}

fn detect_isa(opt: OptLevel, ra: RegAlloc) -> Result<TargetIsa, JitError> {
    let mut flags = settings::builder();
    let set = |f: &mut settings::Builder, k, v: &str| f.set(k, v).map_err(|e| JitError(e.to_string()));
    set(&mut flags, "opt_level", opt.name())?;
    set(&mut flags, "regalloc_algorithm", ra.name())?;
    set(&mut flags, "enable_verifier", if cfg!(debug_assertions) { "true" } else { "false" })?;
    let isa_builder = cranelift_native::builder().map_err(|e| JitError(e.to_string()))?;
    isa_builder.finish(settings::Flags::new(flags)).map_err(|e| JitError(e.to_string()))
}
