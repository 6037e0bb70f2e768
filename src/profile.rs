//! The per-instruction profile of a launch (`LaunchConfig::profile`): how many times a wave retired each
//! instruction and how many lanes were active on average, by block the share of the retired instructions,
//! the tier that ran the block and the time spent compiling it, and, from the samples of a launch with
//! `LaunchConfig::block_time` (`crate::blocktime`), its share of time (`add_block_time`).
//!
//! The counts come from the interpreter (`lanejit_interp::run_profiled`): a profiling launch runs every wave
//! in the interpreter, whatever `LaunchConfig::engine` says, so its counts are exactly what the golden model
//! retires and its results what every engine computes. Compiled code keeps no per-instruction counters
//! (counting in it would slow every launch, or need a second kind of compiled code); what the JIT did with
//! each block — the tier that ran it and its compile time — comes from the tiering state and the compile log
//! after a normal launch of the kernel (`block_rows`).

use crate::{Engine, Kernel};
pub use lanejit_interp::InsnCount;
use std::collections::BTreeMap;

/// A launch's per-instruction counts (`LaunchStats::profile`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Profile {
    /// Per code word (`pc / 4`): times a wave retired the instruction starting there, and the active lanes
    /// summed over those times (zero for words inside a 64-bit instruction and instructions never run).
    pub counts: Vec<InsnCount>,
}

/// One instruction's row of a profile.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct InsnRow {
    /// Its byte address.
    pub pc: u32,
    /// Its source line, when the kernel was assembled from text.
    pub line: Option<u32>,
    /// Its disassembly.
    pub text: String,
    /// Times a wave retired it.
    pub count: u64,
    /// Active lanes on average when it ran (0 when it never ran), of `LANES`.
    pub active_lanes: f64,
}

/// One block's row of a profile.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct BlockRow {
    /// Byte address of its first instruction.
    pub start: u32,
    /// Byte address just past its last.
    pub end: u32,
    /// Instructions retired in it.
    pub count: u64,
    /// Its share of all retired instructions (0 to 1).
    pub share: f64,
    /// What ran it at the end of the launch: `interp`, `quick` or `opt`.
    pub tier: &'static str,
    /// Milliseconds of compilation attributed to it: each compilation that included it, divided evenly among
    /// the blocks it compiled.
    pub compile_ms: f64,
    /// Samples of a launch with `LaunchConfig::block_time` that found a worker in it (`add_block_time`), in
    /// compiled code and in the interpreter.
    pub samples: u64,
    /// Of `samples`, those in the interpreter.
    pub interpreted_samples: u64,
    /// Its share of the launch's time spent in the kernel's code (0 to 1): its part of all the samples that
    /// found a worker running the kernel. `None` without samples.
    pub time_share: Option<f64>,
}

/// Fills in the blocks' time from a launch's samples (`LaunchStats::block_time`).
pub fn add_block_time(rows: &mut [BlockRow], time: &crate::blocktime::BlockTime) {
    let total = time.samples();
    for r in rows {
        let (compiled, interpreted) = time.in_range(r.start, r.end);
        r.samples = compiled + interpreted;
        r.interpreted_samples = interpreted;
        r.time_share = (total > 0).then(|| r.samples as f64 / total as f64);
    }
}

impl Profile {
    /// An empty profile of a kernel of `words` code words.
    pub(crate) fn new(words: usize) -> Profile {
        Profile { counts: vec![InsnCount::default(); words] }
    }

    /// Adds another worker's counts.
    pub(crate) fn add(&mut self, other: &[InsnCount]) {
        for (a, b) in self.counts.iter_mut().zip(other) {
            a.count += b.count;
            a.lanes += b.lanes;
        }
    }

    /// Instructions retired (equals `LaunchStats::retired`).
    pub fn retired(&self) -> u64 {
        self.counts.iter().map(|c| c.count).sum()
    }

    /// Instructions times their active lanes (equals `LaunchStats::lane_ops`).
    pub fn lane_ops(&self) -> u64 {
        self.counts.iter().map(|c| c.lanes).sum()
    }

    /// A row per instruction of `kernel` (every instruction, run or not), in address order.
    pub fn insn_rows(&self, kernel: &Kernel) -> Vec<InsnRow> {
        let labels: BTreeMap<u32, String> = kernel.program.labels.iter().map(|(k, &v)| (v, k.clone())).collect();
        let mut rows = Vec::new();
        let mut pc = 0u32;
        while let Ok((insn, len)) = kernel.code.fetch(pc) {
            let c = self.counts.get((pc / 4) as usize).copied().unwrap_or_default();
            rows.push(InsnRow {
                pc,
                line: kernel.source_line(pc),
                text: lanejit_isa::disasm::format_insn(insn, pc, &labels),
                count: c.count,
                active_lanes: if c.count == 0 { 0.0 } else { c.lanes as f64 / c.count as f64 },
            });
            pc += len;
        }
        rows
    }

    /// A row per block of `kernel` (as the JIT divides it), with the tier `engine` ran it in and its compile
    /// time, read from the kernel's tiering state and the compile log: call it after a launch on `engine`.
    pub fn block_rows(&self, kernel: &Kernel, engine: Engine) -> Vec<BlockRow> {
        let starts = lanejit_jit::block_starts(&kernel.code);
        let total = self.retired().max(1) as f64;
        let code_end = kernel.code.len_bytes();
        // `auto` with a threshold of 0 runs what `--engine jit` runs.
        let engine = match engine {
            Engine::Auto if kernel.auto_tiering.compiles_everything() => Engine::Jit,
            e => e,
        };
        let opt_blocks = optimised_blocks(kernel, engine);
        let compile_ms = compile_ms_by_block(kernel);
        let rows = starts.iter().enumerate().map(|(i, &start)| {
            let end = starts.get(i + 1).copied().unwrap_or(code_end);
            let count = (start / 4..end / 4).map(|w| self.counts.get(w as usize).map_or(0, |c| c.count)).sum::<u64>();
            let tier = match (engine, opt_blocks.as_ref()) {
                (Engine::Interp, _) => "interp",
                (_, None) => "opt",
                (_, Some(opt)) if opt.contains(&start) => "opt",
                (Engine::Auto, _) => "interp",
                _ => "quick",
            };
            let compile_ms = compile_ms.get(&start).copied().unwrap_or(0.0);
            let share = count as f64 / total;
            BlockRow {
                start,
                end,
                count,
                share,
                tier,
                compile_ms,
                samples: 0,
                interpreted_samples: 0,
                time_share: None,
            }
        });
        rows.collect()
    }
}

/// The blocks in optimised code after launches on `engine` (`None`: every block, the whole kernel compiled
/// up front).
fn optimised_blocks(kernel: &Kernel, engine: Engine) -> Option<Vec<u32>> {
    match engine {
        Engine::Auto => Some(kernel.auto_tiering.compiled_blocks()),
        _ if kernel.jit_promotion.compiles_everything() => None,
        _ => Some(kernel.jit_promotion.compiled_blocks()),
    }
}

/// Compile milliseconds per block start: every logged compilation of the kernel's code, shared evenly among
/// its blocks.
fn compile_ms_by_block(kernel: &Kernel) -> BTreeMap<u32, f64> {
    let mut ms = BTreeMap::new();
    for c in crate::compile_log::compilations(&kernel.code) {
        let Some(took) = c.took else { continue };
        let each = took.as_secs_f64() * 1e3 / c.blocks.len().max(1) as f64;
        for &b in &c.blocks {
            *ms.entry(b).or_insert(0.0) += each;
        }
    }
    ms
}
