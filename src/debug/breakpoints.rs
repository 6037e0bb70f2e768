//! Breakpoints: by pc or by source line (the assembler's line table), each with an optional condition on the
//! registers of any active lane and a hit count.

use super::expr::{self, Expr};
use super::DebugError;
use crate::Kernel;

/// Where a breakpoint goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BreakAt {
    /// The instruction at this byte address.
    Pc(u32),
    /// The first instruction of each run of instructions assembled from this source line.
    Line(u32),
}

/// A breakpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Breakpoint {
    /// Its number (breakpoints and watchpoints share the numbering).
    pub id: u32,
    /// Where it was asked for.
    pub at: BreakAt,
    /// The instructions it stops at.
    pub pcs: Vec<u32>,
    /// The condition's text and parsed form: it stops only when the condition holds in some active lane.
    pub condition: Option<(String, Expr)>,
    /// It stops from this hit on (1: at every hit).
    pub from_hit: u64,
    /// Times a wave reached it with its condition holding.
    pub hits: u64,
}

impl Breakpoint {
    /// One line describing it.
    pub fn describe(&self, kernel: &Kernel) -> String {
        let at = match self.at {
            BreakAt::Pc(pc) => format!("pc {pc:#x}{}", line_note(kernel, pc)),
            BreakAt::Line(l) => {
                let pcs: Vec<String> = self.pcs.iter().map(|p| format!("{p:#x}")).collect();
                format!("line {l} (pc {})", pcs.join(", "))
            }
        };
        let cond = self.condition.as_ref().map_or(String::new(), |(t, _)| format!(" if {t}"));
        let from = if self.from_hit > 1 { format!(", stops from hit {}", self.from_hit) } else { String::new() };
        format!("breakpoint {}: {at}{cond}, {} hits{from}", self.id, self.hits)
    }
}

fn line_note(kernel: &Kernel, pc: u32) -> String {
    kernel.source_line(pc).map_or(String::new(), |l| format!(" (line {l})"))
}

/// The instructions a breakpoint at `at` stops at, or why there is none.
pub(crate) fn resolve(kernel: &Kernel, at: BreakAt) -> Result<Vec<u32>, DebugError> {
    let code = &kernel.code;
    match at {
        BreakAt::Pc(pc) => match code.fetch(pc) {
            Ok(_) => Ok(vec![pc]),
            Err(_) => Err(DebugError::new(format!(
                "pc {pc:#x} is not the start of an instruction (the code is 0..{:#x}, 4-aligned)",
                code.len_bytes()
            ))),
        },
        BreakAt::Line(line) => {
            let starts = instruction_starts(kernel);
            let mut pcs = Vec::new();
            let mut previous_line = None;
            for &pc in &starts {
                let l = kernel.source_line(pc);
                if l == Some(line) && previous_line != Some(line) {
                    pcs.push(pc);
                }
                previous_line = l;
            }
            if pcs.is_empty() {
                return Err(no_code_at(kernel, &starts, line));
            }
            Ok(pcs)
        }
    }
}

/// The byte addresses of the instructions in sequence from 0 (a 64-bit instruction's second word skipped).
pub fn instruction_starts(kernel: &Kernel) -> Vec<u32> {
    let code = &kernel.code;
    let mut out = Vec::new();
    let mut pc = 0;
    while pc < code.len_bytes() {
        out.push(pc);
        pc += code.fetch(pc).map_or(4, |(_, len)| len);
    }
    out
}

/// The error for a line without code, naming the nearest lines that have some.
fn no_code_at(kernel: &Kernel, starts: &[u32], line: u32) -> DebugError {
    let lines: Vec<u32> = starts.iter().filter_map(|&pc| kernel.source_line(pc)).collect();
    if lines.is_empty() {
        return DebugError::new(format!("line {line}: the kernel has no line table (it was not assembled from text)"));
    }
    let before = lines.iter().filter(|&&l| l < line).max();
    let after = lines.iter().filter(|&&l| l > line).min();
    let near: Vec<String> = [before, after].into_iter().flatten().map(|l| l.to_string()).collect();
    DebugError::new(format!("line {line} has no code (nearest lines with code: {})", near.join(", ")))
}

/// Parses a breakpoint condition.
pub(crate) fn condition(text: &str) -> Result<(String, Expr), DebugError> {
    let e = expr::parse(text).map_err(|e| DebugError::new(format!("condition: {e}")))?;
    Ok((text.to_string(), e))
}
