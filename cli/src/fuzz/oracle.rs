//! The differential oracle: one case on the interpreter (the golden model), the JIT and `auto`, and a
//! comparison of everything a wave leaves behind: every register, EXEC, fcsr, pc, the retired and lane-op
//! counts, the trap report (kind, pc, lanes, addresses, code, detail) and every memory range. A multi-wave case
//! (`group`) compares all of that for every wave, and the workgroup's shared memory.

use super::coverage::{CovTracer, Coverage};
use super::group::{run_case_installing, GroupOutcome};
use lanejit::state_json::StateJson;
use lanejit::wave::WaveOutcome;
use lanejit::{Engine, Kernel};
use lanejit_interp::{Tracer, LANES};
use lanejit_isa::asm::Program;
use lanejit_isa::{UREGS, VREGS};
use lanejit_jit::RegAlloc;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Instruction budget of one fuzz run: generated programs retire at most a few thousand instructions, so a run
/// that reaches it has found a loop that should have ended (reported as BudgetExceeded, compared like any trap).
pub const FUZZ_BUDGET: u64 = 20_000;

/// How `auto` is run: `Cold` starts in the interpreter and compiles blocks as they start twice, taking the
/// compiled code at moments drawn from a fixed seed (after any instruction: `WaveLimits::install_seed`); `Hot`
/// compiles every block before the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AutoMode {
    /// `auto` starts interpreting and switches to compiled blocks mid-run.
    Cold,
    /// `auto` runs compiled code from the start.
    Hot,
}

/// Engines disagree (or one failed to run): which engine, what differs, and both final states.
#[derive(Clone, Debug)]
pub struct Divergence {
    /// The engine that differs from the interpreter.
    pub engine: Engine,
    /// Each difference, in words.
    pub diffs: Vec<String>,
    /// The interpreter's final state (when it ran).
    pub reference: Option<StateJson>,
    /// The other engine's final state (when it ran).
    pub other: Option<StateJson>,
    /// `outcome_hash` of the interpreter's whole outcome (every wave, shared memory).
    pub reference_hash: u64,
    /// `outcome_hash` of the other engine's (`None`: it failed to run).
    pub other_hash: Option<u64>,
}

impl Divergence {
    /// One line: the engine and the first differences.
    pub fn summary(&self) -> String {
        let mut s = format!("{:?} differs from interp: ", self.engine);
        let n = self.diffs.len();
        s += &self.diffs.iter().take(4).cloned().collect::<Vec<_>>().join("; ");
        if n > 4 {
            s += &format!("; … ({n} differences)");
        }
        s
    }
}

/// The seed of the moments cold `auto` installs compiled code at (`WaveLimits::install_seed`).
pub const INSTALL_SEED: u64 = 0x5eed_1257_a11e_d000;

/// How the oracle runs a case besides its program and state: what a fuzz record keeps to replay it as found.
#[derive(Clone, Debug)]
pub struct CheckOptions<'a> {
    /// How `auto` runs.
    pub auto: AutoMode,
    /// The seed of cold `auto`'s install moments (`INSTALL_SEED` in campaigns).
    pub install_seed: u64,
    /// Difference lines starting with one of these (`lane_ops`, `trap`, `v`, …) do not count.
    pub ignore: &'a [String],
    /// Compare only this engine with the interpreter (`None`: the JIT, then `auto`).
    pub only: Option<Engine>,
}

impl<'a> CheckOptions<'a> {
    /// A campaign's options: every engine, the fixed install seed.
    pub fn campaign(auto: AutoMode, ignore: &'a [String]) -> Self {
        CheckOptions { auto, install_seed: INSTALL_SEED, ignore, only: None }
    }
}

/// A 64-bit FNV-1a hash of everything the oracle compares of an outcome: each wave's final state as JSON
/// (registers, EXEC, pc, fcsr, retired, trap, memory) and lane-op count, then the shared memory.
pub fn outcome_hash(o: &GroupOutcome) -> u64 {
    let fnv = |h: u64, bytes: &[u8]| bytes.iter().fold(h, |h, &b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3));
    let mut h = 0xcbf2_9ce4_8422_2325;
    for w in &o.waves {
        h = fnv(h, serde_json::to_string(&w.to_json()).unwrap_or_default().as_bytes());
        h = fnv(h, &w.state.lane_ops.to_le_bytes());
    }
    fnv(h, &o.shared)
}

/// Runs the interpreter alone on a case, as the oracle runs it (for a replay's reference).
pub fn run_reference(kernel: &Kernel, init: &StateJson) -> Result<GroupOutcome, String> {
    run_one(kernel, init, Engine::Interp, None, None)
}

/// Runs one engine, turning a panic into an error so that a crashing engine is a finding, not a crash.
fn run_one(
    kernel: &Kernel,
    init: &StateJson,
    e: Engine,
    install_seed: Option<u64>,
    tracer: Option<&mut dyn Tracer>,
) -> Result<GroupOutcome, String> {
    let budget = init.budget.unwrap_or(FUZZ_BUDGET);
    match catch_unwind(AssertUnwindSafe(|| run_case_installing(kernel, init, e, budget, install_seed, tracer))) {
        Ok(r) => r,
        Err(p) => Err(format!(
            "panicked: {}",
            p.downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default()
        )),
    }
}

/// Runs `program` from `init` on every engine (the optimising tier compiled with `regalloc`) and compares
/// each with the interpreter. `cov` (if given) counts the interpreter's executed instructions by EXEC class.
/// Differences whose line starts with one of `ignore` (`lane_ops`, `trap`, `v`, …) do not count.
pub fn check(
    program: &Program,
    init: &StateJson,
    (auto, regalloc): (AutoMode, RegAlloc),
    cov: Option<&mut Coverage>,
    ignore: &[String],
) -> Result<Option<Divergence>, String> {
    let kernel = Kernel::from_program_with(program.clone(), crate::fuzz::kernel_config(regalloc));
    check_kernel(&kernel, init, auto, cov, ignore)
}

/// `check` on a kernel that may already be compiled (one compile serves every state a program runs from).
pub fn check_kernel(
    kernel: &Kernel,
    init: &StateJson,
    auto: AutoMode,
    cov: Option<&mut Coverage>,
    ignore: &[String],
) -> Result<Option<Divergence>, String> {
    check_kernel_with(kernel, init, &CheckOptions::campaign(auto, ignore), cov)
}

/// `check_kernel` with every option spelled out (a fuzz record's replay).
pub fn check_kernel_with(
    kernel: &Kernel,
    init: &StateJson,
    opts: &CheckOptions,
    cov: Option<&mut Coverage>,
) -> Result<Option<Divergence>, String> {
    let (auto, ignore) = (opts.auto, opts.ignore);
    let reference = match cov {
        Some(c) => {
            let mut t = CovTracer { cov: c, code: &kernel.code };
            let out = run_one(kernel, init, Engine::Interp, None, Some(&mut t));
            if let Ok(o) = &out {
                t.attempted(&o.waves[o.trap().map_or(0, |(w, _)| w)]);
            }
            out
        }
        None => run_one(kernel, init, Engine::Interp, None, None),
    };
    // The interpreter failing to run at all is a harness error (a bad state), not an engine difference.
    let reference = reference?;
    // The JIT twice: every block in optimised code, then in quick code: alone (hot mode), or with blocks
    // that start twice recompiled with the optimising tier mid-run (cold mode: both tiers run and hand over
    // to each other; it costs an optimising compile per state, so only every other state).
    let quick = if auto == AutoMode::Hot { "quick code: " } else { "quick code, hot blocks optimised: " };
    for (e, label) in [(Engine::Jit, ""), (Engine::Jit, quick), (Engine::Auto, "")] {
        if opts.only.is_some_and(|o| o != e) {
            continue;
        }
        match (e, label.is_empty()) {
            (Engine::Jit, true) => kernel.jit_promotion.reset(0),
            (Engine::Jit, false) => kernel.jit_promotion.reset(if auto == AutoMode::Hot { u32::MAX } else { 2 }),
            // Hot: every block compiled before the first chunk; cold: a threshold of two starts, so blocks that
            // run repeatedly switch to compiled code mid-run while the others stay interpreted.
            _ => kernel.auto_tiering.reset(if auto == AutoMode::Hot { 0 } else { 2 }),
        }
        // Cold `auto` installs compiled blocks after instructions the fixed seed draws (any instruction, mid-block
        // too); the seed stays the same while a finding shrinks, so the moments stay comparable.
        let install = (e == Engine::Auto && auto == AutoMode::Cold).then_some(opts.install_seed);
        match run_one(kernel, init, e, install, None) {
            Ok(out) => {
                let mut diffs = compare_group(&reference, &out);
                diffs.retain(|d| {
                    !ignore.iter().any(|i| {
                        d.strip_prefix(i.as_str()).is_some_and(|r| {
                            r.starts_with([':', ' ']) || r.starts_with(|c: char| c.is_ascii_digit()) && i.len() == 1
                        })
                    })
                });
                if !diffs.is_empty() {
                    if !label.is_empty() {
                        diffs[0] = format!("{label}{}", diffs[0]);
                    }
                    // The states of the first wave that differs (wave 0 when only shared memory does).
                    let w = (0..out.waves.len())
                        .find(|&w| !compare(&reference.waves[w], &out.waves[w]).is_empty())
                        .unwrap_or(0);
                    return Ok(Some(Divergence {
                        engine: e,
                        diffs,
                        reference: Some(reference.waves[w].to_json()),
                        other: Some(out.waves[w].to_json()),
                        reference_hash: outcome_hash(&reference),
                        other_hash: Some(outcome_hash(&out)),
                    }));
                }
            }
            Err(msg) => {
                return Ok(Some(Divergence {
                    engine: e,
                    diffs: vec![format!("{label}engine error: {msg}")],
                    reference: Some(reference.waves[0].to_json()),
                    other: None,
                    reference_hash: outcome_hash(&reference),
                    other_hash: None,
                }));
            }
        }
    }
    Ok(None)
}

fn lanes_diff(name: &str, a: &[u32; LANES], b: &[u32; LANES]) -> Option<String> {
    let bad: Vec<usize> = (0..LANES).filter(|&l| a[l] != b[l]).collect();
    let &l = bad.first()?;
    let mask = bad.iter().fold(0u32, |m, &l| m | 1 << l);
    Some(format!("{name} lanes {mask:#010x} (lane {l}: interp {:#010x}, other {:#010x})", a[l], b[l]))
}

/// Every difference between the reference outcome `a` and `b` of a case, one line each: `compare`'s lines for
/// a single wave; for a workgroup, each wave's with ` (wave k)` appended, then the shared memory.
pub fn compare_group(a: &GroupOutcome, b: &GroupOutcome) -> Vec<String> {
    if a.waves.len() == 1 && b.waves.len() == 1 {
        return compare(&a.waves[0], &b.waves[0]);
    }
    let mut d = Vec::new();
    for (k, (x, y)) in a.waves.iter().zip(&b.waves).enumerate() {
        d.extend(compare(x, y).into_iter().map(|l| format!("{l} (wave {k})")));
    }
    if a.waves.len() != b.waves.len() {
        d.push(format!("waves: interp {}, other {}", a.waves.len(), b.waves.len()));
    }
    if let Some(i) = a.shared.iter().zip(&b.shared).position(|(p, q)| p != q) {
        d.push(format!(
            "shared: first difference at byte {i:#x} (interp {:#04x}, other {:#04x})",
            a.shared[i], b.shared[i]
        ));
    }
    d
}

/// Every difference between the reference outcome `a` and `b`, one line each.
pub fn compare(a: &WaveOutcome, b: &WaveOutcome) -> Vec<String> {
    let mut d = Vec::new();
    let (x, y) = (&a.state, &b.state);
    for r in 0..VREGS {
        d.extend(lanes_diff(&format!("v{r}"), &x.v[r], &y.v[r]));
    }
    for r in 0..UREGS {
        if x.u[r] != y.u[r] {
            d.push(format!("u{r}: interp {:#010x}, other {:#010x}", x.u[r], y.u[r]));
        }
    }
    let scalars = [
        ("exec", x.exec as u64, y.exec as u64),
        ("pc", x.pc as u64, y.pc as u64),
        ("fcsr", x.fcsr as u64, y.fcsr as u64),
        ("retired", x.retired, y.retired),
        ("lane_ops", x.lane_ops, y.lane_ops),
    ];
    for (n, p, q) in scalars {
        if p != q {
            d.push(format!("{n}: interp {p:#x}, other {q:#x}"));
        }
    }
    match (&a.trap, &b.trap) {
        (None, None) => {}
        (Some(t), None) => d.push(format!("trap: interp `{t}`, other none")),
        (None, Some(t)) => d.push(format!("trap: interp none, other `{t}`")),
        (Some(t), Some(u)) if t != u => d.push(format!("trap: interp `{t}`, other `{u}`")),
        _ => {}
    }
    for (m, n) in a.memory.iter().zip(&b.memory) {
        if m.hex != n.hex {
            let first = m.hex.as_bytes().iter().zip(n.hex.as_bytes()).position(|(p, q)| p != q).unwrap_or(0) / 2;
            d.push(format!("memory at {:#x}: first difference at byte {first:#x}", m.addr));
        }
    }
    if a.memory.len() != b.memory.len() {
        d.push("memory: different number of ranges".into());
    }
    d
}
