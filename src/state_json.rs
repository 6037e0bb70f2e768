//! The JSON wave state of `lanejit wave --init STATE.json --dump OUT.json`:
//! `{"exec": u32, "v": {"<n>": [32 × u32]}, "u": {"<n>": u32}, "fcsr": u32, "pc": u32,
//!   "memory": [{"addr": u64, "hex": "…", "readonly": bool}]}`, every key optional. The dump has the same
//! shape with every non-zero register, EXEC, `"trap"` (null or a report) and `"retired"`.
//!
//! Input is read strictly ([`StateJson::parse`]): a JSON object, no key twice (`"1"` and `"v1"` name the same
//! register), hex as pairs of hex digits, and an fcsr the ISA can hold.

use lanejit_interp::fpmode::{FCSR_RM_MASK, FCSR_WRITABLE};
use lanejit_interp::{Trap, WaveState, LANES};
use lanejit_isa::{Rm, UREGS, VREGS};
use serde::{Deserialize, Deserializer, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
/// A wave's state as JSON (see the module text): what a single-wave run starts from and what it dumps.
pub struct StateJson {
    /// The EXEC mask (default: every lane).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exec: Option<u32>,
    /// Vector registers by number (`"3"` or `"v3"`), `LANES` words each.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty", deserialize_with = "unique_keys")]
    pub v: BTreeMap<String, Vec<u32>>,
    /// Uniform registers by number (`"5"` or `"u5"`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty", deserialize_with = "unique_keys")]
    pub u: BTreeMap<String, u32>,
    /// The float control and status register.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fcsr: Option<u32>,
    /// The byte offset to start at (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pc: Option<u32>,
    /// Device memory ranges: each becomes an allocation holding its bytes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub memory: Vec<MemJson>,
    /// Output only: `null` when the wave ended normally.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trap: Option<Option<TrapJson>>,
    /// Output only: instructions the run retired.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retired: Option<u64>,
    /// Input only: how many instructions the run may retire (`lanejit wave --budget` overrides it). A fuzzer
    /// reproducer found with a cut budget carries it, so that it replays as found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<u64>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
/// One memory range of a wave state.
pub struct MemJson {
    /// Its first device address.
    pub addr: u64,
    /// Its bytes, two hex digits each.
    pub hex: String,
    /// Constant memory (guest stores trap).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub readonly: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
/// A trap report in a dumped wave state (the fields of `Trap`).
pub struct TrapJson {
    /// The trap kind's name (`TrapKind::name`).
    pub kind: String,
    /// Byte offset of the trapping instruction.
    pub pc: u32,
    /// The wave's index in its workgroup.
    pub wave: u32,
    /// Lanes involved (bit i = lane i).
    pub lanes: u32,
    /// Faulting addresses, in lane order.
    pub addrs: Vec<u64>,
    /// The immediate of `trap imm`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<u32>,
    /// The human-readable detail.
    pub detail: String,
}

impl From<&Trap> for TrapJson {
    fn from(t: &Trap) -> Self {
        TrapJson {
            kind: t.kind.name().into(),
            pc: t.pc,
            wave: t.wave,
            lanes: t.lanes,
            addrs: t.addrs.clone(),
            code: t.code,
            detail: t.detail.clone(),
        }
    }
}

/// A JSON map whose keys must all differ (serde's maps keep the last of two equal keys without a word).
fn unique_keys<'de, D: Deserializer<'de>, V: Deserialize<'de>>(d: D) -> Result<BTreeMap<String, V>, D::Error> {
    struct Visitor<V>(std::marker::PhantomData<V>);
    impl<'de, V: Deserialize<'de>> serde::de::Visitor<'de> for Visitor<V> {
        type Value = BTreeMap<String, V>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an object of registers")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = BTreeMap::new();
            while let Some((k, v)) = map.next_entry::<String, V>()? {
                if out.contains_key(&k) {
                    return Err(serde::de::Error::custom(format!("register key `{k}` appears twice")));
                }
                out.insert(k, v);
            }
            Ok(out)
        }
    }
    d.deserialize_map(Visitor(std::marker::PhantomData))
}

fn reg_index(key: &str, file: char, count: usize) -> Result<usize, String> {
    let n = key.strip_prefix(file).unwrap_or(key);
    // Digits only: `parse` would also take `+1`, a second spelling of the same register.
    match n.parse::<usize>() {
        Ok(i) if i < count && n.bytes().all(|b| b.is_ascii_digit()) => Ok(i),
        _ => Err(format!("register key `{}` is not a {file} register number 0..{}", shorten(key), count - 1)),
    }
}

/// At most 40 characters of a user's text, for an error message.
fn shorten(s: &str) -> String {
    match s.char_indices().nth(40) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// Bytes from hex text: pairs of hex digits, whitespace allowed between pairs (nothing else: no signs, no
/// `0x`, no non-ASCII).
pub fn parse_hex(s: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(s.len() / 2);
    let mut high: Option<u8> = None;
    for (i, c) in s.char_indices() {
        if c.is_whitespace() && high.is_none() {
            continue;
        }
        let digit = c
            .to_digit(16)
            .ok_or_else(|| format!("`{c}` at byte {i} is not a hex digit (expected pairs of 0-9, a-f)"))?
            as u8;
        match high.take() {
            None => high = Some(digit),
            Some(h) => out.push(h << 4 | digit),
        }
    }
    match high {
        Some(_) => Err(format!("hex string ends in half a byte ({} digits, an odd number)", out.len() * 2 + 1)),
        None => Ok(out),
    }
}

/// Refuses fcsr values the ISA says fcsr never holds: bits outside the rounding mode and the two flush bits,
/// or a rounding mode that is not a static one (`dyn` and the reserved encodings).
pub fn check_fcsr(fcsr: u32) -> Result<(), String> {
    if fcsr & !FCSR_WRITABLE != 0 {
        return Err(format!(
            "fcsr {fcsr:#x} sets bits outside {FCSR_WRITABLE:#x} (rounding mode and the two flush bits)"
        ));
    }
    match Rm::from_raw(fcsr & FCSR_RM_MASK) {
        Some(Rm::Dyn) | None => {
            Err(format!("fcsr {fcsr:#x} holds rounding mode {}, not a static mode (0..=4)", fcsr & FCSR_RM_MASK))
        }
        Some(_) => Ok(()),
    }
}

fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

/// `b` as lowercase hex, two digits per byte (`MemJson::hex`).
pub fn to_hex(b: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    // Byte by byte, not through `format!` (a fuzz campaign reads back every state's memory this way).
    let mut s = String::with_capacity(2 * b.len());
    for &x in b {
        s.push(DIGITS[(x >> 4) as usize] as char);
        s.push(DIGITS[(x & 15) as usize] as char);
    }
    s
}

/// Maps each register key to its register, refusing two keys for one register (`"1"` and `"v1"`).
fn unique_registers<V>(map: &BTreeMap<String, V>, file: char, count: usize) -> Result<Vec<(usize, &V)>, String> {
    let mut first_key: Vec<Option<&str>> = vec![None; count];
    let mut out = Vec::with_capacity(map.len());
    for (k, v) in map {
        let i = reg_index(k, file, count)?;
        if let Some(other) = first_key[i].replace(k) {
            return Err(format!("keys `{other}` and `{k}` both name register {file}{i}"));
        }
        out.push((i, v));
    }
    Ok(out)
}

impl StateJson {
    /// Reads a state strictly: the text must be one JSON object (serde would also take an array for a
    /// struct), and the state must pass [`StateJson::to_wave`]'s checks and hold valid hex memory.
    pub fn parse(text: &str) -> Result<StateJson, String> {
        let shape: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if !shape.is_object() {
            return Err(format!("a state must be a JSON object, found {}", json_kind(&shape)));
        }
        if let Some(bad) =
            shape.get("memory").and_then(|m| m.as_array()).and_then(|a| a.iter().find(|m| !m.is_object()))
        {
            return Err(format!("each memory range must be an object {{\"addr\", \"hex\"}}, found {}", json_kind(bad)));
        }
        let state: StateJson = serde_json::from_str(text).map_err(|e| e.to_string())?;
        state.to_wave()?;
        for m in &state.memory {
            parse_hex(&m.hex).map_err(|e| format!("memory at {:#x}: {e}", m.addr))?;
        }
        Ok(state)
    }

    /// The wave state this JSON describes (EXEC defaults to all lanes).
    pub fn to_wave(&self) -> Result<WaveState, String> {
        let fcsr = self.fcsr.unwrap_or(0);
        check_fcsr(fcsr)?;
        let mut w =
            WaveState { exec: self.exec.unwrap_or(u32::MAX), fcsr, pc: self.pc.unwrap_or(0), ..Default::default() };
        for (i, lanes) in unique_registers(&self.v, 'v', VREGS)? {
            if lanes.len() != LANES {
                return Err(format!("v{i} has {} values, expected {LANES}", lanes.len()));
            }
            w.v[i].copy_from_slice(lanes);
        }
        for (i, x) in unique_registers(&self.u, 'u', UREGS)? {
            w.u[i] = *x;
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

#[cfg(test)]
mod tests {
    use super::{parse_hex, to_hex};

    #[test]
    fn hex_round_trips_every_byte() {
        let all: Vec<u8> = (0..=255).collect();
        let hex = to_hex(&all);
        assert_eq!(hex.len(), 512);
        assert_eq!(&hex[..8], "00010203");
        assert_eq!(&hex[hex.len() - 4..], "feff");
        assert_eq!(parse_hex(&hex).unwrap(), all);
    }
}
