//! `--trace`: one line per retired instruction with EXEC and the registers it wrote.

use lanejit_interp::{Tracer, WaveState, LANES};
use lanejit_isa::{Insn, UREGS, VREGS};
use std::io::Write;

/// A `Tracer` that writes one line per retired instruction: pc, EXEC, the instruction, and every register lane
/// it changed.
pub struct PrintTracer<W: Write> {
    /// Where the lines go.
    pub out: W,
}

impl<W: Write> Tracer for PrintTracer<W> {
    fn retired(&mut self, pc: u32, insn: &Insn, before: &WaveState, after: &WaveState) {
        let text = lanejit_isa::disasm::format_insn(insn, pc, &Default::default());
        let mut line = format!("{pc:06x}  exec={:08x}  {text}", before.exec);
        for r in (0..VREGS).filter(|&r| before.v[r] != after.v[r]) {
            let lanes: Vec<String> = (0..LANES)
                .filter(|&l| before.v[r][l] != after.v[r][l])
                .map(|l| format!("{l}:{:#x}", after.v[r][l]))
                .collect();
            line += &format!("  v{r}=[{}]", lanes.join(" "));
        }
        for r in (0..UREGS).filter(|&r| before.u[r] != after.u[r]) {
            line += &format!("  u{r}={:#x}", after.u[r]);
        }
        if before.exec != after.exec {
            line += &format!("  exec={:08x}", after.exec);
        }
        // A closed pipe must not panic the emulator; the trace is best-effort output.
        let _ = writeln!(self.out, "{line}");
    }
}

impl<W: Write> std::fmt::Debug for PrintTracer<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PrintTracer").finish_non_exhaustive()
    }
}
