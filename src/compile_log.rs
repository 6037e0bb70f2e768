//! Every compilation the process ran lately (the whole-kernel tiers and tiering's block compilations): when,
//! on which thread, how long, which blocks and tier. A launch's timeline shows those of its kernel on a
//! compile track, and a profile gives each block its compile time. A compilation takes milliseconds, so
//! logging one (a lock and a push) costs nothing measurable; the log keeps the newest `LOG_ENTRIES`.

use lanejit_interp::Code;
use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Compilations the log keeps (the oldest are dropped first).
pub const LOG_ENTRIES: usize = 4096;

/// One compilation.
#[derive(Clone, Debug)]
pub struct Compilation {
    /// Identifies the kernel's code (`code_id`).
    pub code: usize,
    /// The tier: `quick` (the whole kernel, `--engine jit`'s first code), `opt` (the whole kernel, optimised)
    /// or `opt blocks` (tiering's compilation of hot blocks).
    pub tier: &'static str,
    /// Byte addresses of the blocks compiled.
    pub blocks: Vec<u32>,
    /// When it started.
    pub start: Instant,
    /// How long it took (`None`: still running).
    pub took: Option<Duration>,
    /// The thread that compiles (its name, or `unnamed`).
    pub thread: String,
    /// It succeeded (false while running).
    pub ok: bool,
    /// Numbers the compilations of the process.
    seq: u64,
}

#[derive(Default)]
struct Log {
    entries: VecDeque<Compilation>,
    next: u64,
}

fn log() -> &'static Mutex<Log> {
    static LOG: Mutex<Log> = Mutex::new(Log { entries: VecDeque::new(), next: 0 });
    &LOG
}

/// The identity of a kernel's decoded code in the log (its address, stable while the kernel lives).
pub fn code_id(code: &Code) -> usize {
    code as *const Code as usize
}

/// Runs `compile` and logs it as a compilation of `blocks` of `code` with `tier` (logged when it starts, so
/// that a compilation still running when a launch ends shows in its timeline too).
pub(crate) fn logged<T, E>(
    code: &Code,
    tier: &'static str,
    blocks: impl FnOnce() -> Vec<u32>,
    compile: impl FnOnce() -> Result<T, E>,
) -> Result<T, E> {
    let thread = std::thread::current().name().unwrap_or("unnamed").to_string();
    let start = Instant::now();
    let seq = {
        let mut log = log().lock().expect("compile log");
        let seq = log.next;
        log.next += 1;
        if log.entries.len() == LOG_ENTRIES {
            log.entries.pop_front();
        }
        let entry =
            Compilation { code: code_id(code), tier, blocks: blocks(), start, took: None, thread, ok: false, seq };
        log.entries.push_back(entry);
        seq
    };
    let result = compile();
    let took = start.elapsed();
    let mut log = log().lock().expect("compile log");
    if let Some(c) = log.entries.iter_mut().rev().find(|c| c.seq == seq) {
        (c.took, c.ok) = (Some(took), result.is_ok());
    }
    result
}

/// The logged compilations of `code` running at or after `since` (finished then or later, or still
/// running), oldest first.
pub fn compilations_since(code: &Code, since: Instant) -> Vec<Compilation> {
    let id = code_id(code);
    let log = log().lock().expect("compile log");
    let recent = |c: &&Compilation| c.took.is_none_or(|t| c.start + t >= since);
    log.entries.iter().filter(|c| c.code == id).filter(recent).cloned().collect()
}

/// Every logged compilation of `code`, oldest first.
pub fn compilations(code: &Code) -> Vec<Compilation> {
    let id = code_id(code);
    log().lock().expect("compile log").entries.iter().filter(|c| c.code == id).cloned().collect()
}
