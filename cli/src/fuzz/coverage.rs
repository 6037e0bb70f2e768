//! Instruction coverage by EXEC class: for every mnemonic, how often the interpreter executed it with a full,
//! a partial and an empty EXEC. A trapping instruction counts as executed (it ran and trapped: traps are part
//! of what is compared), with the EXEC it saw.

use lanejit::wave::WaveOutcome;
use lanejit_interp::{Code, Tracer, TrapKind, WaveState, FULL_EXEC};
use lanejit_isa::{Insn, INSNS};
use std::collections::BTreeMap;

/// The EXEC classes coverage counts: all lanes, some, none.
pub const CLASSES: [&str; 3] = ["full", "partial", "empty"];

/// Corpus cells per instruction (see [`Coverage::cells`]).
pub const CELLS_PER_INSN: usize = 4;

/// Hit counts per instruction (index = `InsnId`) and EXEC class.
#[derive(Clone, Debug)]
pub struct Coverage {
    /// Executions per instruction and EXEC class.
    pub hits: Vec<[u64; 3]>,
    /// Of those, executions that trapped (per instruction).
    pub traps: Vec<u64>,
    /// How runs ended: `end`, or the trap kind.
    pub endings: BTreeMap<&'static str, u64>,
}

impl Default for Coverage {
    fn default() -> Self {
        Coverage { hits: vec![[0; 3]; INSNS.len()], traps: vec![0; INSNS.len()], endings: BTreeMap::new() }
    }
}

/// The class (index into [`CLASSES`]) of an EXEC mask.
pub fn exec_class(exec: u32) -> usize {
    match exec {
        FULL_EXEC => 0,
        0 => 2,
        _ => 1,
    }
}

impl Coverage {
    /// Counts one execution of `insn` under `exec`.
    pub fn add(&mut self, insn: &Insn, exec: u32) {
        self.hits[insn.id().0 as usize][exec_class(exec)] += 1;
    }

    /// Adds another run's counts.
    pub fn merge(&mut self, o: &Coverage) {
        for (a, b) in self.hits.iter_mut().zip(&o.hits) {
            for c in 0..3 {
                a[c] += b[c];
            }
        }
        for (a, b) in self.traps.iter_mut().zip(&o.traps) {
            *a += b;
        }
        for (k, n) in &o.endings {
            *self.endings.entry(k).or_default() += n;
        }
    }

    /// Share of (mnemonic, EXEC class) cells hit, in percent.
    pub fn percent(&self) -> f64 {
        let hit = self.hits.iter().flatten().filter(|&&n| n > 0).count();
        100.0 * hit as f64 / (3 * self.hits.len()) as f64
    }

    /// The cells a corpus keeps programs for, as indices `CELLS_PER_INSN * insn + k`: k = 0, 1, 2 the EXEC
    /// classes of [`CLASSES`], 3 a trapping execution.
    pub fn cells(&self) -> Vec<usize> {
        let hit = self.hits.iter().zip(&self.traps).enumerate().flat_map(|(i, (h, &t))| {
            (0..3).filter(move |&c| h[c] > 0).chain((t > 0).then_some(3)).map(move |k| CELLS_PER_INSN * i + k)
        });
        hit.collect()
    }

    /// Mnemonics executed at all.
    pub fn mnemonics_hit(&self) -> usize {
        self.hits.iter().filter(|h| h.iter().any(|&n| n > 0)).count()
    }

    /// The report of `lanejit fuzz --coverage`: totals per class, then every mnemonic missing a class.
    pub fn report(&self) -> String {
        let n = self.hits.len();
        let mut s = format!(
            "coverage: {:.2}% of {} mnemonic x EXEC cells; {} of {n} mnemonics executed\n",
            self.percent(),
            3 * n,
            self.mnemonics_hit()
        );
        for (c, name) in CLASSES.iter().enumerate() {
            let k = self.hits.iter().filter(|h| h[c] > 0).count();
            let total: u64 = self.hits.iter().map(|h| h[c]).sum();
            s += &format!("  {name:<8} EXEC: {k:>4} of {n} mnemonics ({total} executions)\n");
        }
        let missing: Vec<String> = INSNS
            .iter()
            .zip(&self.hits)
            .filter(|(_, h)| h.contains(&0))
            .map(|(i, h)| {
                let m: Vec<&str> = (0..3).filter(|&c| h[c] == 0).map(|c| CLASSES[c]).collect();
                format!("  {:<20} missing {}", i.mnemonic, m.join(", "))
            })
            .collect();
        if !missing.is_empty() {
            s += &format!("not covered ({}):\n{}\n", missing.len(), missing.join("\n"));
        }
        let total_traps: u64 = self.traps.iter().sum();
        let only: Vec<&str> = INSNS
            .iter()
            .zip(self.hits.iter().zip(&self.traps))
            .filter(|(_, (h, &t))| t > 0 && h.iter().sum::<u64>() == t)
            .map(|(i, _)| i.mnemonic)
            .collect();
        s += &format!(
            "trapping executions: {total_traps}; mnemonics that only ever trapped ({}): {}\n",
            only.len(),
            only.join(" ")
        );
        let runs: u64 = self.endings.values().sum();
        let endings: Vec<String> =
            self.endings.iter().map(|(k, n)| format!("{k} {:.1}%", 100.0 * *n as f64 / runs.max(1) as f64)).collect();
        s += &format!("runs ended by: {}\n", endings.join(", "));
        s
    }
}

/// Records the interpreter's retired instructions.
pub struct CovTracer<'a> {
    /// Where the counts go.
    pub cov: &'a mut Coverage,
    /// The kernel's decoded code (the pc's instruction).
    pub code: &'a Code,
}

impl Tracer for CovTracer<'_> {
    fn retired(&mut self, _pc: u32, insn: &Insn, before: &WaveState, _after: &WaveState) {
        self.cov.add(insn, before.exec);
    }
}

impl CovTracer<'_> {
    /// Counts the instruction that trapped (a trapping instruction is not retired, so the tracer missed it;
    /// it changed nothing, so the final EXEC is the one it ran with).
    pub fn attempted(&mut self, out: &WaveOutcome) {
        *self.cov.endings.entry(out.trap.as_ref().map_or("end", |t| t.kind.name())).or_default() += 1;
        let Some(t) = &out.trap else { return };
        let ran = matches!(
            t.kind,
            TrapKind::IllegalInsn
                | TrapKind::MemoryFault
                | TrapKind::Misaligned
                | TrapKind::UserTrap
                | TrapKind::Breakpoint
        );
        if let (true, Ok((insn, _))) = (ran, self.code.fetch(t.pc)) {
            self.cov.add(insn, out.state.exec);
            self.cov.traps[insn.id().0 as usize] += 1;
        }
    }
}
