//! Scopes, variables, evaluate and memory requests. A variables reference packs the wave, what it lists and an
//! index: `(wave + 1) << 16 | kind << 8 | index` (vector registers as 32-lane arrays, uniform registers, the
//! wave's pc / EXEC / fcsr, EXEC's lane bits, shared memory words).

use super::server::Server;
use super::wire::{base64_decode, base64_encode};
use lanejit::debug::expr::{parse_u64, Value as Word};
use lanejit::debug::Space;
use lanejit::LANES;
use serde_json::{json, Value};

const VECTORS: i64 = 1;
const UNIFORMS: i64 = 2;
const WAVE: i64 = 3;
const SHARED: i64 = 4;
const LANES_OF: i64 = 5;
const EXEC_BITS: i64 = 6;
/// Shared memory words the scope lists (`readMemory` reads the rest).
const SHARED_WORDS: u64 = 64;

fn reference(wave: usize, kind: i64, index: usize) -> i64 {
    (wave as i64 + 1) << 16 | kind << 8 | index as i64
}

fn unpack(r: i64) -> Option<(usize, i64, usize)> {
    let wave = (r >> 16) - 1;
    (r > 0 && wave >= 0).then_some((wave as usize, r >> 8 & 0xff, (r & 0xff) as usize))
}

fn frame_wave(s: &mut Server, args: &Value) -> Result<usize, String> {
    match args["frameId"].as_i64() {
        Some(f) if f >= 1 => {
            s.session.set_focus(f as usize - 1).map_err(|e| e.to_string())?;
            Ok(f as usize - 1)
        }
        Some(f) => Err(format!("no frame {f}")),
        None => Ok(s.session.focus()),
    }
}

pub(super) fn scopes(s: &mut Server, args: &Value) -> Result<Value, String> {
    let wave = frame_wave(s, args)?;
    let (vs, us) = s.target.kernel.registers_named().clone();
    let mut out = vec![
        json!({"name": "Vector registers", "variablesReference": reference(wave, VECTORS, 0),
            "namedVariables": vs.len(), "expensive": false, "presentationHint": "registers"}),
        json!({"name": "Uniform registers", "variablesReference": reference(wave, UNIFORMS, 0),
            "namedVariables": us.len(), "expensive": false, "presentationHint": "registers"}),
        json!({"name": "Wave", "variablesReference": reference(wave, WAVE, 0), "namedVariables": 5,
            "expensive": false}),
    ];
    if s.target.cfg.shared_bytes.unwrap_or(s.target.kernel.program.meta.shared_bytes) > 0 {
        out.push(json!({"name": "Shared memory", "variablesReference": reference(wave, SHARED, 0),
            "expensive": false}));
    }
    Ok(json!({"scopes": out}))
}

fn lanes_text(l: &[u32; LANES]) -> String {
    format!("[{}]", l.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", "))
}

pub(super) fn variables(s: &mut Server, args: &Value) -> Result<Value, String> {
    let r = args["variablesReference"].as_i64().unwrap_or(0);
    let (wave, kind, index) = unpack(r).ok_or(format!("no variables reference {r}"))?;
    let w = s.session.wave(wave).ok_or(format!("no wave {wave} in flight"))?.clone();
    let (vs, us) = s.target.kernel.registers_named().clone();
    let var = |name: String, value: String, eval: Option<String>| {
        let mut v = json!({"name": name, "value": value, "variablesReference": 0});
        if let Some(e) = eval {
            v["evaluateName"] = e.into();
        }
        v
    };
    let vars: Vec<Value> = match kind {
        VECTORS => vs
            .iter()
            .map(|&v| {
                let mut x = var(format!("v{v}"), lanes_text(&w.v[v]), Some(format!("v{v}")));
                x["variablesReference"] = reference(wave, LANES_OF, v).into();
                x["indexedVariables"] = LANES.into();
                x["type"] = "u32[32]".into();
                x
            })
            .collect(),
        LANES_OF => (0..LANES)
            .map(|l| var(format!("[{l}]"), w.v[index][l].to_string(), Some(format!("v{index}[{l}]"))))
            .collect(),
        UNIFORMS => us.iter().map(|&u| var(format!("u{u}"), format!("{:#x}", w.u[u]), Some(format!("u{u}")))).collect(),
        WAVE => {
            let info = s.session.waves().into_iter().find(|i| i.wave == wave);
            let wg = info.map_or(String::new(), |i| format!("{:?}", i.workgroup));
            let mut exec = var("exec".into(), format!("{:#010x}", w.exec), Some("exec".into()));
            exec["variablesReference"] = reference(wave, EXEC_BITS, 0).into();
            exec["namedVariables"] = LANES.into();
            vec![
                var("pc".into(), format!("{:#x}", w.pc), Some("pc".into())),
                exec,
                var("fcsr".into(), format!("{:#x}", w.fcsr), Some("fcsr".into())),
                var("workgroup".into(), wg, None),
                var("wave".into(), wave.to_string(), None),
            ]
        }
        EXEC_BITS => (0..LANES).map(|l| var(format!("lane {l}"), (w.exec >> l & 1).to_string(), None)).collect(),
        SHARED => {
            let n = (s.target.cfg.shared_bytes.unwrap_or(s.target.kernel.program.meta.shared_bytes) as u64 / 4)
                .min(SHARED_WORDS);
            let bytes = s.session.read_memory(Space::Shared, 0, n * 4).map_err(|e| e.to_string())?;
            (bytes.chunks(4).enumerate())
                .map(|(i, c)| {
                    let word = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                    var(format!("shared[{}]", i * 4), format!("{word:#x}"), Some(format!("shared[{}]", i * 4)))
                })
                .collect()
        }
        _ => return Err(format!("no variables reference {r}")),
    };
    Ok(json!({"variables": vars}))
}

pub(super) fn set_variable(s: &mut Server, args: &Value) -> Result<Value, String> {
    let r = args["variablesReference"].as_i64().unwrap_or(0);
    let (wave, kind, index) = unpack(r).ok_or(format!("no variables reference {r}"))?;
    let name = args["name"].as_str().unwrap_or("");
    let value = args["value"].as_str().unwrap_or("");
    s.session.set_focus(wave).map_err(|e| e.to_string())?;
    let target = match kind {
        LANES_OF => format!("v{index}{name}"),
        VECTORS | UNIFORMS | WAVE | SHARED => name.to_string(),
        EXEC_BITS => {
            let lane: u32 = name.trim_start_matches("lane ").parse().map_err(|_| format!("no lane `{name}`"))?;
            let on = parse_u64(value).map_err(|e| e.to_string())? != 0;
            let exec = s.session.wave(wave).map_or(0, |w| w.exec);
            let new = if on { exec | 1 << lane } else { exec & !(1 << lane) };
            s.session.assign("exec", &new.to_string()).map_err(|e| e.to_string())?;
            return Ok(json!({"value": (on as u32).to_string()}));
        }
        _ => return Err(format!("`{name}` cannot be set")),
    };
    s.session.assign(&target, value).map_err(|e| e.to_string())?;
    let now = s.session.evaluate(&target).map_err(|e| e.to_string())?;
    Ok(json!({"value": word_text(&now)}))
}

fn word_text(v: &Word) -> String {
    match v {
        Word::Scalar(x) => format!("{x} ({x:#x})"),
        Word::Lanes(l) => lanes_text(l),
    }
}

/// The position of an assignment's `=` (not part of `==`, `!=`, `<=`, `>=`).
fn assignment(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    (0..b.len()).find(|&i| b[i] == b'=' && (i == 0 || !b"=!<>".contains(&b[i - 1])) && b.get(i + 1) != Some(&b'='))
}

pub(super) fn evaluate(s: &mut Server, args: &Value) -> Result<Value, String> {
    frame_wave(s, args)?;
    let text = args["expression"].as_str().unwrap_or("").trim();
    if let Some(at) = assignment(text) {
        s.session.assign(text[..at].trim(), text[at + 1..].trim()).map_err(|e| e.to_string())?;
    }
    let shown = assignment(text).map_or(text, |at| text[..at].trim());
    let v = s.session.evaluate(shown).map_err(|e| e.to_string())?;
    let mut body = json!({"result": word_text(&v), "variablesReference": 0});
    if let (Word::Lanes(_), Some(r)) = (&v, shown.strip_prefix('v').and_then(|r| r.parse::<usize>().ok())) {
        body["variablesReference"] = reference(s.session.focus(), LANES_OF, r).into();
        body["indexedVariables"] = LANES.into();
    }
    Ok(body)
}

/// A memory reference: `0xADDR` (global), `shared:OFF`, or `private:WAVE:LANE:OFF`.
fn memory_reference(r: &str) -> Result<(Space, u64), String> {
    let parts: Vec<&str> = r.split(':').collect();
    let num = |x: &str| parse_u64(x).map_err(|e| e.to_string());
    match parts.as_slice() {
        ["shared", off] => Ok((Space::Shared, num(off)?)),
        ["private", w, l, off] => Ok((Space::Private { wave: num(w)? as usize, lane: num(l)? as usize }, num(off)?)),
        [a] => Ok((Space::Global, num(a)?)),
        _ => Err(format!("`{r}`: memory references are 0xADDR, shared:OFF or private:WAVE:LANE:OFF")),
    }
}

fn located(args: &Value) -> Result<(Space, u64, String), String> {
    let r = args["memoryReference"].as_str().unwrap_or("");
    let (space, base) = memory_reference(r)?;
    let addr = base.checked_add_signed(args["offset"].as_i64().unwrap_or(0)).ok_or("the offset wraps around")?;
    let shown = match space {
        Space::Global => format!("{addr:#x}"),
        Space::Shared => format!("shared:{addr:#x}"),
        Space::Private { wave, lane } => format!("private:{wave}:{lane}:{addr:#x}"),
    };
    Ok((space, addr, shown))
}

pub(super) fn read_memory(s: &mut Server, args: &Value) -> Result<Value, String> {
    let (space, addr, shown) = located(args)?;
    let count = args["count"].as_u64().unwrap_or(0);
    let bytes = s.session.read_memory(space, addr, count).map_err(|e| e.to_string())?;
    Ok(json!({"address": shown, "data": base64_encode(&bytes)}))
}

pub(super) fn write_memory(s: &mut Server, args: &Value) -> Result<Value, String> {
    let (space, addr, _) = located(args)?;
    let data = base64_decode(args["data"].as_str().unwrap_or(""))?;
    s.session.write_memory(space, addr, &data).map_err(|e| e.to_string())?;
    Ok(json!({"bytesWritten": data.len()}))
}
