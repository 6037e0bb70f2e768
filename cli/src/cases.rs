//! Conformance cases as data: YAML files under `tests/cases/`, each case run on every engine.
//!
//! ```yaml
//! cases:
//!   - name: shfl.up keeps the lane's own value when the delta exceeds the lane
//!     code: |
//!       shfl.up.vu v3, v1, u2
//!       end
//!     init: {exec: 0xffffffff, v: {1: iota}, u: {2: 5}, memory: [{addr: 0x100000000, words: [1, 2]}]}
//!     expect: {v: {3: [...]}, trap: {kind: IllegalInsn, pc: 0, lanes: 0x1}}
//! ```
//! Values: integers (negative = two's complement), floats (f32 bits), strings `"0x…"`, `"f32:1.5"`,
//! `"f64lo:2.5"` / `"f64hi:2.5"` (the halves of an f64), `"f16:1.5"`. A vector is a list of 32 values, one value
//! (every lane) or `"iota"` / `"iota*K+B"` (lane * K + B). EXEC defaults to all lanes.
//! Checking is strict: every register, EXEC and memory range not named in `expect` must be unchanged, a trap
//! must be expected to happen, and an expected trap must happen with that kind and pc (and lanes/addrs if given).

use lanejit::state_json::{to_hex, MemJson, StateJson};
use lanejit::wave::{run_wave, DEFAULT_WAVE_BUDGET};
use lanejit::{Engine, Kernel};
use lanejit_interp::{WaveState, LANES};
use lanejit_isa::{UREGS, VREGS};
use serde::Deserialize;
use std::collections::BTreeMap;

/// A case file: `cases:` and its list.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseFile {
    /// The cases, in file order.
    pub cases: Vec<Case>,
}

/// One conformance case: code, the state it starts from and what it must end with.
#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// What the case checks, in a sentence (shown when it fails).
    pub name: String,
    /// Assembly source of the kernel.
    pub code: String,
    /// The initial state (unnamed registers and EXEC take their defaults).
    #[serde(default)]
    pub init: CaseState,
    /// What must differ from the initial state at the end (everything else must be unchanged).
    #[serde(default)]
    pub expect: CaseState,
}

/// A wave state as a case writes it: only the parts named.
#[derive(Deserialize, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct CaseState {
    /// EXEC (default: every lane).
    #[serde(default)]
    pub exec: Option<Val>,
    /// Vector registers by number.
    #[serde(default)]
    pub v: BTreeMap<u32, VecVal>,
    /// Uniform registers by number.
    #[serde(default)]
    pub u: BTreeMap<u32, Val>,
    /// The floating-point control and status register.
    #[serde(default)]
    pub fcsr: Option<Val>,
    /// Memory ranges (initial contents, or expected ones).
    #[serde(default)]
    pub memory: Vec<CaseMem>,
    /// The trap expected (only in `expect`).
    #[serde(default)]
    pub trap: Option<CaseTrap>,
    /// Instructions retired (only in `expect`).
    #[serde(default)]
    pub retired: Option<u64>,
}

/// A memory range of a case.
#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct CaseMem {
    /// Its first device address.
    pub addr: u64,
    /// Its 32-bit words.
    pub words: Vec<Val>,
    /// Read-only to guest code (a constant buffer).
    #[serde(default)]
    pub readonly: bool,
}

/// An expected trap.
#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct CaseTrap {
    /// The trap kind's name, e.g. `IllegalInsn`.
    pub kind: String,
    /// The pc of the trapping instruction.
    pub pc: u32,
    /// The lanes that trapped, when checked.
    #[serde(default)]
    pub lanes: Option<Val>,
    /// The faulting addresses, when checked.
    #[serde(default)]
    pub addrs: Option<Vec<u64>>,
    /// The `trap` instruction's code, when checked.
    #[serde(default)]
    pub code: Option<u32>,
}

/// A 32-bit value as a case writes it (see the module docs).
#[derive(Deserialize, Clone, Debug)]
#[serde(untagged)]
pub enum Val {
    /// An integer (negative: two's complement).
    Int(i64),
    /// A float, stored as f32 bits.
    Float(f64),
    /// `"0x…"`, `"f32:…"`, `"f64lo:…"`, `"f64hi:…"` or `"f16:…"`.
    Str(String),
}

/// A vector register's value as a case writes it.
#[derive(Deserialize, Clone, Debug)]
#[serde(untagged)]
pub enum VecVal {
    /// One value per lane (exactly `LANES` of them).
    List(Vec<Val>),
    /// One value for every lane, or `"iota"` / `"iota*K+B"`.
    One(Val),
}

impl Val {
    /// The value's 32 bits.
    pub fn bits(&self) -> Result<u32, String> {
        match self {
            Val::Int(i) if (i32::MIN as i64..=u32::MAX as i64).contains(i) => Ok(*i as u32),
            Val::Int(i) => Err(format!("{i} does not fit 32 bits")),
            Val::Float(f) => Ok((*f as f32).to_bits()),
            Val::Str(s) => str_bits(s),
        }
    }
}

fn str_bits(s: &str) -> Result<u32, String> {
    let bad = || format!("bad value `{s}`");
    let float = |t: &str| t.parse::<f64>().map_err(|_| bad());
    if let Some(h) = s.strip_prefix("0x") {
        return u32::from_str_radix(&h.replace('_', ""), 16).map_err(|_| bad());
    }
    if let Some(f) = s.strip_prefix("f32:") {
        return Ok((float(f)? as f32).to_bits());
    }
    if let Some(f) = s.strip_prefix("f64lo:") {
        return Ok(float(f)?.to_bits() as u32);
    }
    if let Some(f) = s.strip_prefix("f64hi:") {
        return Ok((float(f)?.to_bits() >> 32) as u32);
    }
    if let Some(f) = s.strip_prefix("f16:") {
        return Ok(crate::cases::f16_bits(float(f)?) as u32);
    }
    match s {
        "inf" => Ok(f32::INFINITY.to_bits()),
        "-inf" => Ok(f32::NEG_INFINITY.to_bits()),
        "nan" => Ok(0x7fc0_0000),
        _ => s.parse::<i64>().map_err(|_| bad()).and_then(|i| Val::Int(i).bits()),
    }
}

/// f64 → binary16 bits, round to nearest even (for writing test data only).
pub fn f16_bits(x: f64) -> u16 {
    use rustc_apfloat::{ieee::Half, Float, FloatConvert};
    let d = rustc_apfloat::ieee::Double::from_bits(x.to_bits() as u128);
    let mut lost = false;
    let h: Half = d.convert(&mut lost).value;
    h.to_bits() as u16
}

impl VecVal {
    /// The value of each lane.
    pub fn lanes(&self) -> Result<[u32; LANES], String> {
        match self {
            VecVal::List(v) if v.len() == LANES => {
                let mut out = [0; LANES];
                for (o, x) in out.iter_mut().zip(v) {
                    *o = x.bits()?;
                }
                Ok(out)
            }
            VecVal::List(v) => Err(format!("a vector needs {LANES} values, got {}", v.len())),
            VecVal::One(Val::Str(s)) if s.starts_with("iota") => iota(s),
            VecVal::One(x) => Ok([x.bits()?; LANES]),
        }
    }
}

/// `iota`, `iota*K`, `iota+B`, `iota*K+B` (wrapping).
fn iota(s: &str) -> Result<[u32; LANES], String> {
    let rest = &s[4..];
    let (k, b) = match rest.split_once('+') {
        Some((m, b)) => (m, b),
        None => (rest, "0"),
    };
    let k = if k.is_empty() {
        1
    } else {
        k.strip_prefix('*').ok_or(format!("bad iota `{s}`"))?.parse::<i64>().map_err(|_| format!("bad iota `{s}`"))?
    };
    let b = b.parse::<i64>().map_err(|_| format!("bad iota `{s}`"))?;
    Ok(std::array::from_fn(|l| (l as i64 * k + b) as u32))
}

fn words_hex(words: &[Val]) -> Result<String, String> {
    let mut bytes = Vec::new();
    for w in words {
        bytes.extend(w.bits()?.to_le_bytes());
    }
    Ok(to_hex(&bytes))
}

/// The `lanejit wave` state of a case's `init`.
pub fn init_state(c: &CaseState) -> Result<StateJson, String> {
    let mut s = StateJson {
        exec: c.exec.as_ref().map(Val::bits).transpose()?,
        fcsr: c.fcsr.as_ref().map(Val::bits).transpose()?,
        ..Default::default()
    };
    for (r, v) in &c.v {
        s.v.insert(r.to_string(), v.lanes()?.to_vec());
    }
    for (r, x) in &c.u {
        s.u.insert(r.to_string(), x.bits()?);
    }
    for m in &c.memory {
        s.memory.push(MemJson { addr: m.addr, hex: words_hex(&m.words)?, readonly: m.readonly });
    }
    Ok(s)
}

/// Runs one case on one engine; `Err` lists every mismatch.
pub fn run_case(case: &Case, engine: Engine) -> Result<(), String> {
    run_case_with(case, engine, &lanejit::CompileConfig::default())
}

/// `run_case`, the kernel compiled and tiered as `compile` says: the conformance test uses it to pin
/// `--engine jit` to one tier, since the default threshold leaves short cases on the quick tier only.
pub fn run_case_with(case: &Case, engine: Engine, compile: &lanejit::CompileConfig) -> Result<(), String> {
    let kernel =
        Kernel::from_asm(&case.name, &case.code).map_err(|e| format!("assembly failed:\n{e}"))?.with_config(*compile);
    let init = init_state(&case.init)?;
    let start = init.to_wave()?;
    let out = run_wave(&kernel, &init, engine, DEFAULT_WAVE_BUDGET, None)?;
    let mut errs = Vec::new();
    check_regs(&case.expect, &start, &out.state, &mut errs)?;
    check_memory(case, &init, &out.memory, &mut errs)?;
    check_trap(&case.expect, out.trap.as_ref(), &mut errs)?;
    if let Some(r) = case.expect.retired {
        if r != out.state.retired {
            errs.push(format!("retired: expected {r}, got {}", out.state.retired));
        }
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs.join("\n"))
    }
}

fn check_regs(e: &CaseState, start: &WaveState, end: &WaveState, errs: &mut Vec<String>) -> Result<(), String> {
    for r in 0..VREGS {
        let want = match e.v.get(&(r as u32)) {
            Some(v) => v.lanes()?,
            None => start.v[r],
        };
        if want != end.v[r] {
            let diff: Vec<String> = (0..LANES)
                .filter(|&l| want[l] != end.v[r][l])
                .map(|l| format!("lane {l}: expected {:#x}, got {:#x}", want[l], end.v[r][l]))
                .collect();
            errs.push(format!(
                "v{r}{}: {}",
                if e.v.contains_key(&(r as u32)) { "" } else { " (expected unchanged)" },
                diff.join("; ")
            ));
        }
    }
    for r in 0..UREGS {
        let want = match e.u.get(&(r as u32)) {
            Some(x) => x.bits()?,
            None => start.u[r],
        };
        if want != end.u[r] {
            errs.push(format!("u{r}: expected {want:#x}, got {:#x}", end.u[r]));
        }
    }
    let exec = match &e.exec {
        Some(x) => x.bits()?,
        None => start.exec,
    };
    if exec != end.exec {
        errs.push(format!("exec: expected {exec:#010x}, got {:#010x}", end.exec));
    }
    let fcsr = match &e.fcsr {
        Some(x) => x.bits()?,
        None => start.fcsr,
    };
    if fcsr != end.fcsr {
        errs.push(format!("fcsr: expected {fcsr:#x}, got {:#x}", end.fcsr));
    }
    Ok(())
}

fn check_memory(case: &Case, init: &StateJson, after: &[MemJson], errs: &mut Vec<String>) -> Result<(), String> {
    for (m, got) in init.memory.iter().zip(after) {
        let want = match case.expect.memory.iter().find(|x| x.addr == m.addr) {
            Some(x) => words_hex(&x.words)?,
            None => m.hex.clone(),
        };
        if want != got.hex {
            errs.push(format!("memory at {:#x}: expected {want}, got {}", m.addr, got.hex));
        }
    }
    if let Some(x) = case.expect.memory.iter().find(|x| !init.memory.iter().any(|m| m.addr == x.addr)) {
        return Err(format!("expect.memory names {:#x}, which init.memory does not define", x.addr));
    }
    Ok(())
}

fn check_trap(e: &CaseState, got: Option<&lanejit_interp::Trap>, errs: &mut Vec<String>) -> Result<(), String> {
    match (&e.trap, got) {
        (None, None) => {}
        (None, Some(t)) => errs.push(format!("unexpected trap: {t}")),
        (Some(w), None) => {
            errs.push(format!("expected trap {} at pc {:#x}, but the wave ended normally", w.kind, w.pc))
        }
        (Some(w), Some(t)) => {
            if w.kind != t.kind.name() || w.pc != t.pc {
                errs.push(format!("expected trap {} at pc {:#x}, got {t}", w.kind, w.pc));
            }
            if let Some(l) = &w.lanes {
                if l.bits()? != t.lanes {
                    errs.push(format!("trap lanes: expected {:#x}, got {:#x}", l.bits()?, t.lanes));
                }
            }
            if w.addrs.as_ref().is_some_and(|a| *a != t.addrs) {
                errs.push(format!("trap addresses: expected {:x?}, got {:x?}", w.addrs.as_ref().unwrap(), t.addrs));
            }
            if w.code.is_some() && w.code != t.code {
                errs.push(format!("trap code: expected {:?}, got {:?}", w.code, t.code));
            }
        }
    }
    Ok(())
}

/// Loads a case file, with the file name in any error.
pub fn load(path: &std::path::Path) -> Result<CaseFile, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_saphyr::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}
