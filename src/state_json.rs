//! The JSON wave state of `lanejit wave --init STATE.json --dump OUT.json`:
//! `{"exec": u32, "v": {"<n>": [32 × u32]}, "u": {"<n>": u32}, "fcsr": u32, "pc": u32,
//!   "memory": [{"addr": u64, "hex": "…", "readonly": bool}]}`, every key optional. The dump has the same
//! shape with every non-zero register, EXEC, `"trap"` (null or a report) and `"retired"`.

use lanejit_interp::{Trap, WaveState, LANES};
use lanejit_isa::{UREGS, VREGS};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StateJson {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exec: Option<u32>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub v: BTreeMap<String, Vec<u32>>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub u: BTreeMap<String, u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fcsr: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pc: Option<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub memory: Vec<MemJson>,
    /// Output only: `null` when the wave ended normally.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trap: Option<Option<TrapJson>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retired: Option<u64>,
    /// Input only: how many instructions the run may retire (`lanejit wave --budget` overrides it). A fuzzer
    /// reproducer found with a cut budget carries it, so that it replays as found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<u64>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct MemJson {
    pub addr: u64,
    pub hex: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub readonly: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct TrapJson {
    pub kind: String,
    pub pc: u32,
    pub wave: u32,
    pub lanes: u32,
    pub addrs: Vec<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<u32>,
    pub detail: String,
}

impl From<&Trap> for TrapJson {
    fn from(t: &Trap) -> Self {
        TrapJson { kind: t.kind.name().into(), pc: t.pc, wave: t.wave, lanes: t.lanes, addrs: t.addrs.clone(), code: t.code, detail: t.detail.clone() }
    }
}

fn reg_index(key: &str, file: char, count: usize) -> Result<usize, String> {
    let n = key.strip_prefix(file).unwrap_or(key);
    match n.parse::<usize>() {
        Ok(i) if i < count => Ok(i),
        _ => Err(format!("register key `{key}` is not a {file} register number 0..{}", count - 1)),
    }
}

pub fn parse_hex(s: &str) -> Result<Vec<u8>, String> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    if s.len() % 2 != 0 {
        return Err(format!("hex string has an odd number of digits ({})", s.len()));
    }
    (0..s.len()).step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).map_err(|_| format!("bad hex byte `{}` at offset {i}", &s[i..i + 2])))
        .collect()
}

pub fn to_hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

impl StateJson {
    /// The wave state this JSON describes (EXEC defaults to all lanes).
    pub fn to_wave(&self) -> Result<WaveState, String> {
        let mut w = WaveState { exec: self.exec.unwrap_or(u32::MAX), fcsr: self.fcsr.unwrap_or(0), pc: self.pc.unwrap_or(0), ..Default::default() };
        for (k, lanes) in &self.v {
            let i = reg_index(k, 'v', VREGS)?;
            if lanes.len() != LANES {
                return Err(format!("v{i} has {} values, expected {LANES}", lanes.len()));
            }
            w.v[i].copy_from_slice(lanes);
        }
        for (k, x) in &self.u {
            w.u[reg_index(k, 'u', UREGS)?] = *x;
        }
        Ok(w)
    }

    /// Every non-zero register of `w`, EXEC, the trap and the retired count.
    pub fn from_wave(w: &WaveState, trap: Option<&Trap>, memory: Vec<MemJson>) -> StateJson {
        StateJson {
            exec: Some(w.exec),
            v: (0..VREGS).filter(|&i| w.v[i] != [0; LANES]).map(|i| (i.to_string(), w.v[i].to_vec())).collect(),
            u: (0..UREGS).filter(|&i| w.u[i] != 0).map(|i| (i.to_string(), w.u[i])).collect(),
            fcsr: (w.fcsr != 0).then_some(w.fcsr),
            pc: Some(w.pc),
            memory,
            trap: Some(trap.map(TrapJson::from)),
            retired: Some(w.retired),
            budget: None,
        }
    }
}
