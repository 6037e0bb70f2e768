//! Planted bugs for measuring the fuzzer's sensitivity (`lanejit fuzz --mutant ID`, tests/fuzz.rs).
//!
//! A lowering that has a mutant asks `mutants::active(ID)` while it emits code and, when it is active, emits a
//! deliberately wrong variant (an off-by-one shift mask, a missing EXEC blend, a swapped operand, …). The
//! check happens at compile time, never in compiled code, so a build with no mutant selected pays one relaxed
//! atomic load per lowered instruction and nothing at run time. Because the choice is baked into the code
//! when a kernel is compiled, select the mutant before compiling (kernels compiled earlier keep their code).
//!
//! IDs are small integers, one per planted bug, listed with a one-line description in `CATALOGUE` so that a
//! sensitivity run can name what it failed to catch.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// No mutant selected.
const NONE: u32 = u32::MAX;

static ACTIVE: AtomicU32 = AtomicU32::new(NONE);

/// Is planted bug `id` switched on?
#[inline]
pub fn active(id: u32) -> bool {
    ACTIVE.load(Relaxed) == id
}

/// Selects the planted bug to compile in (`None`: the correct JIT). Process-wide: tests that set it must not
/// run concurrently with other JIT tests in the same process.
pub fn set(id: Option<u32>) {
    ACTIVE.store(id.unwrap_or(NONE), Relaxed);
}

/// The selected mutant, if any.
pub fn current() -> Option<u32> {
    match ACTIVE.load(Relaxed) {
        NONE => None,
        id => Some(id),
    }
}

/// `(id, where, what)` of every planted bug; empty until the lowerings plant them.
pub const CATALOGUE: &[(u32, &str, &str)] = &[];
