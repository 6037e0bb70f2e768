//! The debug core every front end shares (`lanejit debug`, `lanejit dap`): a launch under debug control runs
//! on the interpreter in the fixed order (one workgroup at a time, its waves in turn, each until it ends or
//! waits at a barrier) one instruction at a time, and stops at breakpoints (by pc or source line, with a
//! condition and a hit count), after steps, at writes to watched memory, at every trap (a barrier deadlock
//! included) and when paused. Between stops its waves' registers and every memory space can be read and
//! changed.
//!
//! Nothing here touches the normal launch path: a launch that is not debugged runs exactly as before.

mod breakpoints;
pub mod expr;
mod inspect;
mod session;
mod watch;

pub use crate::launch::debugged::GuestWrite;
pub use breakpoints::{instruction_starts, BreakAt, Breakpoint};
pub use session::{ExitStatus, Resume, Session, StopReason, WaveInfo, WaveRun};
pub use watch::{hex_bytes, Space, Watch, WatchHit, MAX_WATCH_BYTES};

/// A request the debugger refuses (bad breakpoint, expression, address, …), with a precise message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DebugError(pub String);

impl DebugError {
    /// An error saying `message`.
    pub fn new(message: impl Into<String>) -> DebugError {
        DebugError(message.into())
    }
}

impl std::fmt::Display for DebugError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DebugError {}

/// Cancels a running `Session::resume` from another thread: it stops with `StopReason::Paused` at the next
/// instruction boundary.
#[derive(Clone, Debug, Default)]
pub struct PauseHandle(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl PauseHandle {
    /// Asks the session to pause.
    pub fn pause(&self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    /// Takes the request (true once per `pause`): a paused session calls it, and so may a front end that
    /// drops a request made after the session stopped anyway.
    pub fn take(&self) -> bool {
        self.0.swap(false, std::sync::atomic::Ordering::Relaxed)
    }
}
