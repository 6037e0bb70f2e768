//! lanejit's reference interpreter: the golden model every other engine is checked against.
//!
//! Handlers are short and written from the YAML `en` text of each instruction, one file per instruction
//! group (the same split as `isa-spec/groups/`). They run over pre-decoded instructions; both this crate and
//! the JIT match the generated enums exhaustively.

#![deny(missing_docs)]

pub mod ctx;
pub mod exec;
pub mod fp;
pub mod fpmode;
pub mod image;
pub mod memory;
pub mod state;
pub mod trap;

pub mod cmp;
pub mod ctrl;
pub mod mem;
pub mod uniform;
pub mod vfloat;
pub mod vint;
pub mod xlane;

pub use exec::{
    run, run_counting, run_marked, run_profiled, step, Code, Ctx, Flow, InsnCount, Stop, Tracer, WaveEnv,
    MARK_INTERPRETED,
};
pub use lanejit_isa::LANES;
pub use memory::{HostRegion, MemFault, Memory};
pub use state::{lane_on, Lanes, WaveState, FULL_EXEC};
pub use trap::{Trap, TrapKind};
