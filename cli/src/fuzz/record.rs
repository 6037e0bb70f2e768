//! Fuzz divergences as record files (`kind: fuzz_case`, record format 2): the case exactly as the oracle ran
//! it (the kernel as lanejit's `LJK1` container, the initial wave state with its memory, how `auto` ran, the
//! optimising tier's register allocator, the install seed, the ignored fields, the planted bug compiled in)
//! and what diverged (the engine, the differences, and the interpreter's and that engine's outcome hashes).
//! `lanejit fuzz` writes one beside each reproducer; `lanejit replay` runs it again: exit 1 while an engine
//! still diverges from the interpreter, 0 once none does (docs/schedules.md, "Fuzz divergences").

use super::campaign::{reproducer_source, Finding};
use super::oracle::{check_kernel_with, outcome_hash, run_reference, AutoMode, CheckOptions, Divergence};
use super::prog::GenProgram;
use lanejit::record::{hex, unhex, RecordError, KIND_FUZZ_CASE, RECORD_MAGIC, RECORD_VERSION};
use lanejit::state_json::StateJson;
use lanejit::{Engine, Kernel};
use lanejit_jit::RegAlloc;
use serde::{Deserialize, Serialize};

/// What diverged when the case was recorded.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct RecordedDivergence {
    /// The engine that differed from the interpreter.
    pub engine: Engine,
    /// The oracle's difference lines.
    pub differences: Vec<String>,
    /// `oracle::outcome_hash` of the interpreter's outcome, hex.
    pub interp_hash: String,
    /// `oracle::outcome_hash` of the diverging engine's outcome, hex (`None`: it failed to run).
    pub engine_hash: Option<String>,
}

/// A fuzz divergence, self-contained.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FuzzRecord {
    /// `RECORD_MAGIC`.
    pub magic: String,
    /// The format version (`RECORD_VERSION`; fuzz cases exist from version 2).
    pub version: u32,
    /// `KIND_FUZZ_CASE`.
    pub kind: String,
    /// The lanejit version that wrote it.
    pub lanejit_version: String,
    /// The program seed that found it (`lanejit fuzz --seed-range SEED..SEED+1` generates it again).
    pub seed: u64,
    /// Which of the program's initial states.
    pub state: usize,
    /// The kernel (the shrunk program when shrinking succeeded) as an `LJK1` container, hex: what replays.
    pub kernel: String,
    /// The same kernel as the reproducer `.s` text: for reading only.
    pub source: String,
    /// Wave 0's initial state, memory included (the other waves' follow from it, as in the campaign).
    pub init: StateJson,
    /// How `auto` ran: `cold` (compiled code taken over mid-run) or `hot`.
    pub auto: String,
    /// The seed of cold `auto`'s install moments.
    pub install_seed: u64,
    /// The optimising tier's register allocator (`backtracking`, users' allocator, or `single_pass`: `fuzz
    /// --backtracking`); records written before the choice existed were compiled with `backtracking`.
    #[serde(default = "users_regalloc", skip_serializing_if = "Option::is_none")]
    pub regalloc: Option<String>,
    /// Difference fields the campaign ignored (`fuzz --ignore`).
    pub ignore: Vec<String>,
    /// The planted JIT bug compiled in when it was found (`fuzz --mutant`), if any.
    pub mutant: Option<u32>,
    /// What diverged.
    pub divergence: RecordedDivergence,
}

/// What a replay of a fuzz record found.
#[derive(Debug, Clone)]
pub struct FuzzReplayed {
    /// The interpreter's outcome hash now.
    pub interp_hash: String,
    /// The divergence now (`None`: every engine compared agrees with the interpreter).
    pub divergence: Option<Divergence>,
    /// How the replay differs from the record, first difference first (empty: reproduced exactly, or no
    /// divergence at all).
    pub changes: Vec<String>,
    /// Why the recorded planted bug is not compiled in (a build without `--features mutants`).
    pub mutant_note: Option<String>,
}

fn users_regalloc() -> Option<String> {
    Some(RegAlloc::Backtracking.name().into())
}

fn hash_hex(h: u64) -> String {
    format!("{h:016x}")
}

fn auto_name(a: AutoMode) -> &'static str {
    match a {
        AutoMode::Cold => "cold",
        AutoMode::Hot => "hot",
    }
}

impl FuzzRecord {
    /// The record of a finding: its shrunk case when shrinking succeeded (what the reproducer `.s` holds), else
    /// the case as generated.
    pub fn of_finding(f: &Finding, ignore: &[String]) -> Result<FuzzRecord, String> {
        let (prog, init, div): (&GenProgram, _, _) = match &f.shrunk {
            Some((p, s, d)) => (p, s, d),
            None => (&f.case.prog, &f.case.init, &f.div),
        };
        let program = prog.render()?;
        Ok(FuzzRecord {
            magic: RECORD_MAGIC.into(),
            version: RECORD_VERSION,
            kind: KIND_FUZZ_CASE.into(),
            lanejit_version: lanejit::BUILD.into(),
            seed: f.case.seed,
            state: f.state,
            kernel: hex(&lanejit_isa::container::write(&program)),
            source: reproducer_source(f, prog, div)?,
            init: init.clone(),
            auto: auto_name(f.mode).into(),
            install_seed: super::oracle::INSTALL_SEED,
            regalloc: Some(f.regalloc.name().into()),
            ignore: ignore.to_vec(),
            mutant: lanejit_jit::mutants::current(),
            divergence: RecordedDivergence {
                engine: div.engine,
                differences: div.diffs.clone(),
                interp_hash: hash_hex(div.reference_hash),
                engine_hash: div.other_hash.map(hash_hex),
            },
        })
    }

    /// The record as JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    /// Reads a fuzz record (its header already checked by `lanejit::record::header`): every field strictly.
    pub fn parse(text: &str) -> Result<FuzzRecord, RecordError> {
        let r: FuzzRecord = serde_json::from_str(text).map_err(|e| RecordError::Malformed(e.to_string()))?;
        if r.kind != KIND_FUZZ_CASE {
            return Err(RecordError::Kind(format!("`kind` is `{}`, not `{KIND_FUZZ_CASE}`", r.kind)));
        }
        Ok(r)
    }

    fn auto_mode(&self) -> Result<AutoMode, RecordError> {
        match self.auto.as_str() {
            "cold" => Ok(AutoMode::Cold),
            "hot" => Ok(AutoMode::Hot),
            other => Err(RecordError::Malformed(format!("`auto` is `{other}`, not `cold` or `hot`"))),
        }
    }

    fn regalloc(&self) -> Result<RegAlloc, RecordError> {
        let name = self.regalloc.as_deref().unwrap_or(RegAlloc::Backtracking.name());
        RegAlloc::parse(name).ok_or_else(|| {
            RecordError::Malformed(format!("`regalloc` is `{name}`, not `backtracking` or `single_pass`"))
        })
    }

    /// Compiles in the recorded planted bug when this build has them (before the kernel is compiled: the choice
    /// is baked into the code); otherwise says why it is absent.
    fn select_mutant(&self) -> Result<Option<String>, RecordError> {
        let Some(id) = self.mutant else {
            lanejit_jit::mutants::set(None).map_err(|e| RecordError::Setup(e.to_string()))?;
            return Ok(None);
        };
        if !lanejit_jit::mutants::CATALOGUE.iter().any(|m| m.0 == id) && lanejit_jit::mutants::ENABLED {
            return Err(RecordError::Malformed(format!("`mutant` {id} is no planted bug of jit/src/mutants.rs")));
        }
        match lanejit_jit::mutants::set(Some(id)) {
            Ok(()) => Ok(None),
            Err(e) => {
                Ok(Some(format!("recorded with planted bug {id}, which this build lacks ({e}): replayed without it")))
            }
        }
    }

    /// Runs the case again: the interpreter, then `only` (or the JIT and `auto`, as the campaign compared them),
    /// each compared with the interpreter, and the result with the record.
    pub fn replay(&self, only: Option<Engine>) -> Result<FuzzReplayed, RecordError> {
        let auto = self.auto_mode()?;
        let program = lanejit_isa::container::read(&unhex(&self.kernel, "kernel")?)
            .map_err(|e| RecordError::Malformed(format!("`kernel`: {e}")))?;
        for m in &self.init.memory {
            unhex(&m.hex, "init.memory")?;
        }
        let mutant_note = self.select_mutant()?;
        let kernel = Kernel::from_program_with(program, crate::fuzz::kernel_config(self.regalloc()?));
        let reference = run_reference(&kernel, &self.init).map_err(RecordError::Setup)?;
        let interp_hash = hash_hex(outcome_hash(&reference));
        let opts = CheckOptions { auto, install_seed: self.install_seed, ignore: &self.ignore, only };
        let divergence = check_kernel_with(&kernel, &self.init, &opts, None).map_err(RecordError::Setup)?;
        let changes = self.changes(&interp_hash, divergence.as_ref(), only);
        Ok(FuzzReplayed { interp_hash, divergence, changes, mutant_note })
    }

    /// How a replay differs from the record: the interpreter's outcome, then the divergence.
    fn changes(&self, interp_hash: &str, now: Option<&Divergence>, only: Option<Engine>) -> Vec<String> {
        let was = &self.divergence;
        let mut out = Vec::new();
        if interp_hash != was.interp_hash {
            out.push(format!(
                "the interpreter's outcome differs: recorded hash {}, now {interp_hash}",
                was.interp_hash
            ));
        }
        let compared = only.is_none_or(|e| e == was.engine);
        match now {
            None if compared => out.push(format!("{:?} no longer diverges from the interpreter", was.engine)),
            None => {}
            Some(d) if d.engine != was.engine => {
                out.push(format!("{:?} diverges, not the recorded {:?}", d.engine, was.engine))
            }
            Some(d) => {
                if let Some(i) =
                    (0..d.diffs.len().max(was.differences.len())).find(|&i| d.diffs.get(i) != was.differences.get(i))
                {
                    out.push(format!(
                        "difference {} is now `{}`, recorded `{}`",
                        i + 1,
                        d.diffs.get(i).map_or("(none)", |s| s.as_str()),
                        was.differences.get(i).map_or("(none)", |s| s.as_str())
                    ));
                }
                let now_hash = d.other_hash.map(hash_hex);
                if now_hash != was.engine_hash {
                    out.push(format!("{:?}'s outcome hash differs from the recorded one", d.engine));
                }
            }
        }
        out
    }
}

/// `lanejit replay FILE` on a fuzz record: prints what was recorded and what the replay found; a divergence
/// that is still there is a [`crate::cli::Failed`] (exit 1), bad input any other error (exit 2).
pub fn replay_file(file: &std::path::Path, text: &str, only: Option<Engine>) -> anyhow::Result<()> {
    use anyhow::anyhow;
    let at = |e: RecordError| anyhow!("{}: {e}", file.display());
    let record = FuzzRecord::parse(text).map_err(at)?;
    if only == Some(Engine::Interp) {
        return Err(anyhow!(
            "{}: a fuzz divergence compares an engine with the interpreter: --engine takes jit or auto (default: both)",
            file.display()
        ));
    }
    let was = &record.divergence;
    println!(
        "record: {} (lanejit {}, format {}), fuzz case: seed {:#x} state {}, auto {}, {} allocator{}",
        file.display(),
        record.lanejit_version,
        record.version,
        record.seed,
        record.state,
        record.auto,
        record.regalloc.as_deref().unwrap_or(RegAlloc::Backtracking.name()),
        record.mutant.map_or(String::new(), |m| format!(", planted bug {m}"))
    );
    println!("recorded: {:?} diverged from interp: {}", was.engine, was.differences.first().map_or("", |s| s));
    let r = record.replay(only).map_err(at)?;
    if let Some(note) = &r.mutant_note {
        println!("note: {note}");
    }
    for c in &r.changes {
        println!("changed: {c}");
    }
    match &r.divergence {
        None => {
            println!("no divergence: every engine compared agrees with the interpreter");
            Ok(())
        }
        Some(d) => {
            let how = if r.changes.is_empty() { "reproduced exactly" } else { "diverges otherwise than recorded" };
            println!("still diverges ({how}): {}", d.summary());
            Err(crate::cli::Failed(format!("{:?} still diverges from the interpreter", d.engine)).into())
        }
    }
}

/// Writes `f`'s record as `<reproducer stem>.record.json` beside its reproducer `<stem>.s`.
pub fn write_beside(
    reproducer: &std::path::Path,
    f: &Finding,
    ignore: &[String],
) -> Result<std::path::PathBuf, String> {
    let path = reproducer.with_extension("record.json");
    let text = FuzzRecord::of_finding(f, ignore)?.to_json();
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}
