//! Doc comments of the generated code, written from the YAML: every public item of `isa_generated.rs` says
//! what the spec says of it (an instruction's text, format and opcode; an operand's kind, field bits and
//! direction; an enum value's encoding), so the crate can deny missing docs without anyone editing the output.

use crate::facts::{RegFact, Width};
use crate::model::{kind_of, serde_value::Scalar, Insn, Kind, Operand, Spec};
use crate::vocab::Dir;

/// Spec prose as doc text: one line, and brackets and angle brackets (`<field>`) escaped so rustdoc reads
/// them neither as links nor as HTML.
pub fn escape(text: &str) -> String {
    text.replace('\n', " ").replace('[', "\\[").replace(']', "\\]").replace('<', "&lt;").replace('>', "&gt;")
}

/// `text` as `///` lines at `indent`, one per line of `text`.
pub fn doc_lines(indent: &str, text: &str) -> String {
    text.lines().map(|l| if l.is_empty() { format!("{indent}///\n") } else { format!("{indent}/// {l}\n") }).collect()
}

/// The doc of an instruction's enum variant: its assembly syntax and English text, then its encoding,
/// timing and flags.
pub fn insn_variant(m: &Spec, i: &Insn) -> String {
    let fmt = m.formats.iter().find(|f| f.name == i.def.format).expect("format checked at resolve time");
    let fixed: Vec<String> = i.fixed.iter().skip(1).map(|(n, v)| format!("{n}={v:#x}")).collect();
    let fixed = if fixed.is_empty() { String::new() } else { format!(", `{}`", fixed.join(" ")) };
    let mut text = format!("`{} {}`: {}\n\n", i.def.mnemonic, i.def.syntax, escape(&i.def.en));
    text += &format!(
        "Format `{}` ({}, {} bits), opcode `{:#04x}`{fixed}; group `{}`, unit `{}`; latency `{}`",
        fmt.name,
        escape(&fmt.en),
        fmt.width,
        i.def.opcode,
        i.group_name,
        i.unit,
        i.def.latency
    );
    if !i.def.flags.trim().is_empty() {
        text += &format!("; flags `{}`", i.def.flags.trim());
    }
    text += ".";
    if let Some(sem) = i.def.sem.as_deref().filter(|s| !s.trim().is_empty()) {
        text += &format!("\n\nSemantics: `{}`", sem.replace('\n', " ").replace('`', "'"));
    }
    text
}

/// The doc of one operand field of an instruction's enum variant: its kind and what the kind means, how it
/// is read or written, where its bits lie, and its default when it may be omitted.
pub fn operand_field(kinds: &[Kind], op: &Operand, reg: Option<&RegFact>) -> String {
    let k = kind_of(kinds, &op.kind);
    let mut text = format!(
        "Operand `{}`, kind `{}`: {}{}",
        op.name,
        op.kind,
        escape(&k.def.doc),
        value_unit(k).unwrap_or_default()
    );
    if let Some(r) = reg {
        text += &format!("; {}", direction(r));
    }
    text += &format!(". {}.", placement(k, op));
    match (&k.def.default, k.def.class.as_str()) {
        (Some(_), "flag") => text += " Optional in assembly: absent unless written.",
        (Some(d), _) => {
            let d = match d {
                Scalar::Int(v) => v.to_string(),
                Scalar::Str(s) => s.clone(),
            };
            text += &format!(" Optional in assembly (keyword operand), default `{d}`.");
        }
        (None, _) => {}
    }
    text
}

/// Where an operand's bits lie: its own field, another field (`imm:u6@rs1`), or the low bits of a wider
/// field whose high bits are reserved.
fn placement(k: &Kind, op: &Operand) -> String {
    let f = &op.field;
    let msb = f.lsb + k.def.bits - 1;
    let bits = if msb == f.lsb { format!("bit {msb}") } else { format!("bits `[{msb}:{}]`", f.lsb) };
    if f.width() > k.def.bits {
        format!(
            "Encoded in {bits}, the low {} of field `{}` (`[{}:{}]`; its higher bits must be zero)",
            k.def.bits, f.name, f.msb, f.lsb
        )
    } else if f.name != op.name {
        format!("Encoded in field `{}`, {bits}", f.name)
    } else {
        format!("Encoded in {bits}")
    }
}

/// What the carried number counts, where it differs from the encoded field.
fn value_unit(k: &Kind) -> Option<String> {
    match (k.def.class.as_str(), k.def.scale.unwrap_or(1)) {
        ("pcrel", _) => Some(", carried in bytes (a multiple of 4; the field holds the offset / 4)".into()),
        (_, scale) if scale > 1 => Some(format!(", carried in bytes (the field holds the value / {scale})")),
        _ => None,
    }
}

fn direction(r: &RegFact) -> String {
    match r.dir {
        Dir::In => format!("reads {}", width_text(&r.read)),
        Dir::Out => format!("writes {}", width_text(&r.write)),
        Dir::InOut => format!("reads {} and writes {}", width_text(&r.read), width_text(&r.write)),
    }
}

fn width_text(w: &Width) -> String {
    match w {
        Width::Fixed(1) => "1 register".into(),
        Width::Fixed(n) => format!("{n} consecutive registers"),
        Width::Expr(text, _) => format!("`{text}` consecutive registers"),
    }
}

/// The doc of an operand kind's enum value: its assembly spelling, its encoding and its named properties.
pub fn kind_value(k: &Kind, name: &str, raw: u32) -> String {
    let mut text = format!("`{name}`, encoded as {raw:#x} in the {}-bit field", k.def.bits);
    for (prop, table) in &k.props {
        if let Some((_, v)) = table.iter().find(|(r, _)| *r == raw as i64) {
            text += &format!("; `{}.{prop}` = {v}", k.name);
        }
    }
    if k.default_raw == Some(raw) {
        text += "; the default when the operand is omitted";
    }
    text + "."
}

/// The doc of a wait counter: the instructions whose latency names it, those whose `counter_when` raises it
/// instead for some operand values (`ls` for shared memory), and the `wait` operand that waits on it.
pub fn counter(m: &Spec, c: &str) -> String {
    let latency = format!("counter:{c}");
    let ci = m.counters.iter().position(|x| x == c);
    let named: Vec<&str> =
        m.insns.iter().filter(|i| i.def.latency == latency).map(|i| i.def.mnemonic.as_str()).collect();
    let by_text: Vec<&str> = m
        .insns
        .iter()
        .filter(|i| i.facts.counter_when.iter().any(|(k, _)| Some(*k) == ci))
        .map(|i| i.def.mnemonic.as_str())
        .collect();
    let mut text = if named.is_empty() {
        format!("Wait counter `{c}`: no instruction's latency names it")
    } else {
        format!(
            "Wait counter `{c}`: raised by the {} instructions whose latency names it{}",
            named.len(),
            examples(&named)
        )
    };
    if !by_text.is_empty() {
        text += &format!(
            "; {} instructions raise it instead of their own counter for some operand values (`counter_when`){}",
            by_text.len(),
            examples(&by_text)
        );
    }
    if let Some(k) = m.kinds.iter().find(|k| k.name == format!("cnt_{c}")) {
        text += &format!("; a `cnt_{c}` operand of `wait` says: {}", escape(&k.def.doc));
    }
    text + "."
}

/// ` (`a`, `b`, `c`, `d`, …)`: the first few mnemonics of a list, or nothing for an empty one.
fn examples(mnemonics: &[&str]) -> String {
    if mnemonics.is_empty() {
        return String::new();
    }
    let shown: Vec<String> = mnemonics.iter().take(4).map(|n| format!("`{n}`")).collect();
    let more = if mnemonics.len() > shown.len() { ", …" } else { "" };
    format!(" ({}{more})", shown.join(", "))
}
