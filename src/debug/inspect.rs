//! Inspecting and changing a stopped session: memory of every space, expressions, assignments and the
//! disassembly.

use super::expr::{self, Expr, MemoryReader, Place, Value, WordSpace};
use super::session::{Session, MAX_ACCESS_BYTES};
use super::watch::Space;
use super::{breakpoints, DebugError};
use crate::launch::debugged::Machine;
use lanejit_interp::LANES;
use std::collections::BTreeMap;

impl Session<'_> {
    /// `len` bytes at `addr` of `space` (shared and private memory: of the workgroup in flight).
    pub fn read_memory(&mut self, space: Space, addr: u64, len: u64) -> Result<Vec<u8>, DebugError> {
        if len > MAX_ACCESS_BYTES {
            return Err(DebugError::new(format!("{len} bytes: the debugger reads at most {MAX_ACCESS_BYTES} at once")));
        }
        match space {
            Space::Global => self.machine.device().read(addr, len).map_err(|e| DebugError::new(e.to_string())),
            _ => {
                let buf = self.local(space)?;
                Ok(range(buf.len(), addr, len, space).map(|r| buf[r].to_vec())?)
            }
        }
    }

    /// Writes `data` at `addr` of `space`.
    pub fn write_memory(&mut self, space: Space, addr: u64, data: &[u8]) -> Result<(), DebugError> {
        if data.len() as u64 > MAX_ACCESS_BYTES {
            return Err(DebugError::new(format!("the debugger writes at most {MAX_ACCESS_BYTES} bytes at once")));
        }
        match space {
            Space::Global => self.machine.device().write(addr, data).map_err(|e| DebugError::new(e.to_string())),
            _ => {
                let buf = self.local(space)?;
                let r = range(buf.len(), addr, data.len() as u64, space)?;
                buf[r].copy_from_slice(data);
                Ok(())
            }
        }
    }

    fn local(&mut self, space: Space) -> Result<&mut [u8], DebugError> {
        match space {
            Space::Shared => Ok(self.machine.shared_mut()),
            Space::Private { wave, lane } => self
                .machine
                .private_mut(wave, lane)
                .ok_or_else(|| DebugError::new(format!("wave {wave} lane {lane}: no such wave or lane"))),
            Space::Global => unreachable!("global memory is the device's"),
        }
    }

    /// Evaluates `text` (`expr`) for the focused wave.
    pub fn evaluate(&mut self, text: &str) -> Result<Value, DebugError> {
        self.evaluate_expr(&expr::parse(text)?)
    }

    /// Evaluates a parsed expression for the focused wave.
    pub fn evaluate_expr(&mut self, e: &Expr) -> Result<Value, DebugError> {
        let wave = self.focus;
        let state = self.wave(wave).ok_or_else(no_wave)?.clone();
        expr::eval(e, &state, &mut Reader { machine: &mut self.machine, wave })
    }

    /// The space and address of a memory place for the focused wave (`private[LANE][OFF]`: its lane LANE).
    pub fn resolve_place(&mut self, place: &Place) -> Result<(Space, u64), DebugError> {
        let wave = self.focus;
        let state = self.wave(wave).ok_or_else(no_wave)?.clone();
        let (space, addr) = expr::place(place, &state, &mut Reader { machine: &mut self.machine, wave })?;
        let space = match space {
            WordSpace::Global => Space::Global,
            WordSpace::Shared => Space::Shared,
            WordSpace::Private(lane) => Space::Private { wave, lane },
        };
        Ok((space, addr))
    }

    /// Sets `target` (a register, a lane of one, EXEC, fcsr, pc or a memory word) of the focused wave to the
    /// value of `value`; a vector register without a lane is set in every lane.
    pub fn assign(&mut self, target: &str, value: &str) -> Result<(), DebugError> {
        let v = match self.evaluate(value)? {
            Value::Scalar(x) => x,
            Value::Lanes(_) => return Err(DebugError::new("the value must be one word")),
        };
        let target_expr = expr::parse(target)?;
        let wave = self.focus;
        let state = self.wave(wave).ok_or_else(no_wave)?.clone();
        let w = self.machine.wave_mut(wave).ok_or_else(no_wave)?;
        match &target_expr {
            Expr::V(r) => w.v[*r] = [v; LANES],
            Expr::U(r) => w.u[*r] = v,
            Expr::Exec => w.exec = v,
            Expr::Fcsr => w.fcsr = v,
            Expr::Pc => w.pc = v,
            Expr::Index(base, lane) => {
                let Expr::V(r) = **base else { return Err(DebugError::new(format!("`{target}` cannot be set"))) };
                let lane = match expr::eval(lane, &state, &mut NoMemory)? {
                    Value::Scalar(l) if (l as usize) < LANES => l as usize,
                    _ => return Err(DebugError::new(format!("`{target}`: lanes are 0..{}", LANES - 1))),
                };
                w.v[r][lane] = v;
            }
            Expr::Mem(p) => {
                let (space, addr) = self.resolve_place(p)?;
                self.write_memory(space, addr, &v.to_le_bytes())?;
            }
            _ => return Err(DebugError::new(format!("`{target}` cannot be set"))),
        }
        Ok(())
    }

    /// `count` instructions from `pc` on (each with its text and source line): the disassembly around a pc.
    pub fn disassemble(&self, from: u32, count: usize) -> Vec<(u32, String, Option<u32>)> {
        let k = self.kernel();
        let labels: BTreeMap<u32, String> = k.program.labels.iter().map(|(n, &a)| (a, n.clone())).collect();
        let starts = breakpoints::instruction_starts(k);
        let first = starts.iter().position(|&p| p >= from).unwrap_or(starts.len());
        (starts[first..].iter().take(count))
            .map(|&pc| {
                let text = match k.code.fetch(pc) {
                    Ok((insn, _)) => lanejit_isa::disasm::format_insn(insn, pc, &labels),
                    Err(t) => format!("(illegal: {})", t.detail),
                };
                (pc, text, k.source_line(pc))
            })
            .collect()
    }
}

fn no_wave() -> DebugError {
    DebugError::new("no wave is in flight (the launch has not started or has ended)")
}

/// The range `[addr, addr + len)` of a local buffer of `size` bytes, or why it is outside.
fn range(size: usize, addr: u64, len: u64, space: Space) -> Result<std::ops::Range<usize>, DebugError> {
    match addr.checked_add(len) {
        Some(end) if end <= size as u64 => Ok(addr as usize..end as usize),
        _ => Err(DebugError::new(format!("{len} bytes at {addr:#x} are outside {} ({size} bytes)", space_name(space)))),
    }
}

fn space_name(space: Space) -> &'static str {
    match space {
        Space::Global => "device memory",
        Space::Shared => "shared memory",
        Space::Private { .. } => "the lane's private memory",
    }
}

/// Memory words for expressions: the launch's memory, private memory of wave `wave`.
pub(super) struct Reader<'m, 'a> {
    pub(super) machine: &'m mut Machine<'a>,
    pub(super) wave: usize,
}

impl MemoryReader for Reader<'_, '_> {
    fn word(&mut self, space: WordSpace, addr: u64) -> Result<u32, DebugError> {
        let out = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        match space {
            WordSpace::Global => {
                self.machine.device().read(addr, 4).map(|b| out(&b)).map_err(|e| DebugError::new(e.to_string()))
            }
            WordSpace::Shared => {
                let buf = self.machine.shared_mut();
                range(buf.len(), addr, 4, Space::Shared).map(|r| out(&buf[r]))
            }
            WordSpace::Private(lane) => {
                let wave = self.wave;
                let buf = self.machine.private_mut(wave, lane).ok_or_else(no_wave)?;
                range(buf.len(), addr, 4, Space::Private { wave, lane }).map(|r| out(&buf[r]))
            }
        }
    }
}

/// For lane indices, which read no memory.
struct NoMemory;

impl MemoryReader for NoMemory {
    fn word(&mut self, _: WordSpace, _: u64) -> Result<u32, DebugError> {
        Err(DebugError::new("a lane index cannot read memory"))
    }
}
