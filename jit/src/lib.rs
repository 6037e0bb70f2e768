//! lanejit's JIT: basic blocks from the decoder, lowered to Cranelift IR over 32-lane values (8 × I32X4 per
//! vector register), compiled to host functions of bounded size (one for a small kernel). Instructions not
//! compiled natively run in the interpreter, called from compiled code; traps are always reported by the
//! interpreter, so they are identical under both engines.

#![deny(missing_docs)]

mod abi;
mod access;
pub mod blocks;
mod clear;
mod fx;
mod lanes;
mod lower;
pub mod mutants;
mod options;
mod plan;
pub mod runtime;

pub use clear::registers_to_clear;
pub use options::{JitOptions, OptLevel, RegAlloc, Report};
pub use plan::{StartFacts, WavePlan, WaveStart};
pub use runtime::mem::{WindowCache, MARK_IDLE, MARK_INTERPRETED};
pub use runtime::{
    block_starts, compile, compile_blocks, compile_more, compile_quick, registers_named, registers_written, run,
    CompiledKernel, Exit, JitError, Lowering, NextWave, Steps, Tier,
};
