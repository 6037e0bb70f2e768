//! Static wait-hazard checking (issue 15, item 2): which uses of a register may come before the `wait` that
//! covers the asynchronous operation writing it (or still reading it), on some path through the kernel.
//!
//! Memory and transcendental instructions are asynchronous: each raises a wait counter (the YAML `latency:
//! counter:C`, or its `counter_when` for some operand values, `Insn::counter`), the operations of one counter
//! complete in issue order, and after `wait c=N` all but the newest N operations of c have completed. The
//! engines complete every access at issue, so a missing `wait` is invisible when a kernel runs here; this check
//! finds it without running anything.
//!
//! The analysis is a forward data-flow analysis over the kernel's basic blocks (`lanejit_jit::blocks`): its state
//! is, for every counter, the registers its outstanding operations will write (loads, atomics, image and
//! transcendental results) or still read (the data of stores and atomics), each with the number of younger
//! operations of that counter issued since (the least over every path that reaches the point, so that a join is
//! sound) and the pcs that may have produced it (the lowest [`MAX_PRODUCERS`], so that a state stays small). The
//! count saturates at the counter's maximum and the pcs are a finite set, so the analysis terminates on any loop.
//! Indirect jumps reach their possible targets through one shared node (`cfg`), so the graph is linear in the
//! kernel, and [`check_limited`] stops at a deadline. Every register fact is the generated one
//! (`Insn::reads`, `Insn::writes`, `Insn::reg_uses`); the `wait` fields are found by their operand kinds
//! (`cnt_<counter>`).
//!
//! Besides the hazards it reports, as notes that do not fail a check, the `wait` fields stronger than needed: a
//! field that could be raised (up to its maximum, which does not wait at all) without any new hazard.

mod analysis;
mod cfg;
mod notes;
mod producers;
mod render;

use lanejit_isa::{Counter, Program, Reg};
use std::time::{Duration, Instant};

pub use producers::MAX_PRODUCERS;
pub use render::{render_json, render_text};

/// What a finding says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FindingKind {
    /// A register an outstanding operation will write (a load's, an atomic's, an image or transcendental
    /// result) is read before a `wait` covers the operation: the read may see the old value.
    ReadBeforeWait,
    /// A register an outstanding operation will write is overwritten before a `wait` covers the operation: the
    /// late result may replace the new value.
    OverwriteBeforeWait,
    /// A register an outstanding store or atomic still reads (its data) is overwritten before a `wait` covers
    /// it: the operation may send the new value.
    StoreSourceOverwritten,
    /// A note, not a hazard: a field of this `wait` could be raised without any new hazard.
    WaitStrongerThanNeeded,
}

impl FindingKind {
    /// Every kind, hazards first.
    pub const ALL: [FindingKind; 4] = [
        FindingKind::ReadBeforeWait,
        FindingKind::OverwriteBeforeWait,
        FindingKind::StoreSourceOverwritten,
        FindingKind::WaitStrongerThanNeeded,
    ];

    /// A hazard (the kernel may compute wrong results on hardware), as opposed to a note.
    pub fn is_hazard(self) -> bool {
        self != FindingKind::WaitStrongerThanNeeded
    }

    /// The kind's name in reports (text and JSON).
    pub fn name(self) -> &'static str {
        match self {
            FindingKind::ReadBeforeWait => "read_before_wait",
            FindingKind::OverwriteBeforeWait => "overwrite_before_wait",
            FindingKind::StoreSourceOverwritten => "store_source_overwritten",
            FindingKind::WaitStrongerThanNeeded => "wait_stronger_than_needed",
        }
    }
}

/// An instruction a finding names: its byte address and, for a kernel assembled from text, its source line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Site {
    /// Byte address of the instruction.
    pub pc: u32,
    /// Its source line (from 1), when the kernel was assembled from text (`lanejit_isa::assemble_with_lines`).
    pub line: Option<usize>,
}

/// One finding of [`check`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// What it is.
    pub kind: FindingKind,
    /// The using instruction (hazards) or the `wait` (notes).
    pub at: Site,
    /// Hazards: every instruction whose outstanding operation may be the one not yet waited for (more than one
    /// when paths join), the lowest [`MAX_PRODUCERS`] of them. Notes: empty.
    pub producers: Vec<Site>,
    /// Hazards: more instructions than `producers` lists may be the one (their pcs are above those listed).
    pub more_producers: bool,
    /// Hazards: the register. Notes: `None`.
    pub reg: Option<Reg>,
    /// The wait counter of the operation (hazards) or of the `wait` field (notes).
    pub counter: Counter,
    /// Notes: the field's value and the largest value it could have without a new hazard (the counter's
    /// maximum: the `wait` need not wait on that counter at all).
    pub field: Option<(u32, u32)>,
}

/// Every finding on a program, hazards first (by pc, register), then notes (by pc, counter). `lines` gives
/// source lines for the report, when the program was assembled from text: the line (from 1) of the instruction
/// starting at each code word, 0 where none does (as `lanejit_isa::assemble_with_lines` gives them). No deadline:
/// [`check_limited`] takes one.
pub fn check(program: &Program, lines: Option<&[u32]>) -> Vec<Finding> {
    // Without a deadline the check cannot stop early; the error arm is never taken.
    check_limited(program, lines, CheckLimits::default()).unwrap_or_default()
}

/// The deadline of `lanejit check` when none is given: a launch's default.
pub const DEFAULT_CHECK_DEADLINE: Duration = Duration::from_secs(600);

/// Limits of a check ([`check_limited`]), as a launch has them (`LaunchConfig::deadline`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckLimits {
    /// Wall-clock time the check may take (`None`: no limit). The analysis iterates to a fixed point, once for the
    /// hazards and again for each `wait` field it tries to weaken, so a huge kernel can take long; the deadline
    /// stops it with [`DeadlineExceeded`] instead.
    pub deadline: Option<Duration>,
}

/// The check passed its deadline before it finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the static check passed its wall-clock deadline of {} s", limit.as_secs_f64())]
pub struct DeadlineExceeded {
    /// The deadline given.
    pub limit: Duration,
}

/// [`check`] within `limits`: the findings, or [`DeadlineExceeded`] when the deadline passes first.
pub fn check_limited(
    program: &Program,
    lines: Option<&[u32]>,
    limits: CheckLimits,
) -> Result<Vec<Finding>, DeadlineExceeded> {
    let clock = Clock::start(limits.deadline);
    let cfg = cfg::Cfg::new(program);
    let base = analysis::hazards(&cfg, &analysis::Overrides::new(), &clock)?;
    let notes = notes::strong_waits(&cfg, &base, &clock)?;
    let line_at = |pc: u32| lines?.get((pc / 4) as usize).filter(|&&n| n > 0).map(|&n| n as usize);
    let site = |pc: u32| Site { pc, line: line_at(pc) };
    let mut out: Vec<Finding> = base
        .into_iter()
        .map(|(key, producers)| Finding {
            kind: key.kind,
            at: site(key.pc),
            producers: producers.pcs().map(site).collect(),
            more_producers: producers.more(),
            reg: Some(key.reg),
            counter: Counter::ALL[key.counter],
            field: None,
        })
        .collect();
    out.extend(notes.into_iter().map(|n| Finding {
        kind: FindingKind::WaitStrongerThanNeeded,
        at: site(n.pc),
        producers: Vec::new(),
        more_producers: false,
        reg: None,
        counter: Counter::ALL[n.counter],
        field: Some((n.value, n.weakest)),
    }));
    Ok(out)
}

/// When the check must stop.
pub(crate) struct Clock {
    /// `None`: never (no deadline, or one too far to represent).
    at: Option<Instant>,
    limit: Duration,
}

impl Clock {
    fn start(deadline: Option<Duration>) -> Clock {
        let at = deadline.and_then(|d| Instant::now().checked_add(d));
        Clock { at, limit: deadline.unwrap_or_default() }
    }

    /// `Err` once the deadline has passed (a clock read costs tens of nanoseconds, far less than the block of
    /// analysis between two reads).
    pub(crate) fn check(&self) -> Result<(), DeadlineExceeded> {
        match self.at {
            Some(at) if Instant::now() >= at => Err(DeadlineExceeded { limit: self.limit }),
            _ => Ok(()),
        }
    }
}

/// The number of hazards among `findings` (notes do not count).
pub fn hazard_count(findings: &[Finding]) -> usize {
    findings.iter().filter(|f| f.kind.is_hazard()).count()
}

/// A register's name in assembly (`v3`, `u10`).
pub fn reg_name(r: Reg) -> String {
    match r {
        Reg::V(v) => format!("v{}", v.0),
        Reg::U(u) => format!("u{}", u.0),
    }
}
