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
//! sound) and the pcs that may have produced it. The count saturates at the counter's maximum and the pcs are a
//! finite set, so the analysis terminates on any loop. Every register fact is the generated one
//! (`Insn::reads`, `Insn::writes`, `Insn::reg_uses`); the `wait` fields are found by their operand kinds
//! (`cnt_<counter>`).
//!
//! Besides the hazards it reports, as notes that do not fail a check, the `wait` fields stronger than needed: a
//! field that could be raised (up to its maximum, which does not wait at all) without any new hazard.

mod analysis;
mod cfg;
mod render;

use lanejit_isa::{Counter, Program, Reg};

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
    /// when paths join). Notes: empty.
    pub producers: Vec<Site>,
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
/// starting at each code word, 0 where none does (as `lanejit_isa::assemble_with_lines` gives them).
pub fn check(program: &Program, lines: Option<&[u32]>) -> Vec<Finding> {
    let cfg = cfg::Cfg::new(program);
    let base = analysis::hazards(&cfg, &analysis::Overrides::new());
    let notes = analysis::strong_waits(&cfg, &base);
    let line_at = |pc: u32| lines?.get((pc / 4) as usize).filter(|&&n| n > 0).map(|&n| n as usize);
    let site = |pc: u32| Site { pc, line: line_at(pc) };
    let mut out: Vec<Finding> = base
        .into_iter()
        .map(|(key, producers)| Finding {
            kind: key.kind,
            at: site(key.pc),
            producers: producers.into_iter().map(site).collect(),
            reg: Some(key.reg),
            counter: Counter::ALL[key.counter],
            field: None,
        })
        .collect();
    out.extend(notes.into_iter().map(|n| Finding {
        kind: FindingKind::WaitStrongerThanNeeded,
        at: site(n.pc),
        producers: Vec::new(),
        reg: None,
        counter: Counter::ALL[n.counter],
        field: Some((n.value, n.weakest)),
    }));
    out
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
