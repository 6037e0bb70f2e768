//! Operand parsing, driven entirely by the tables: each operand is parsed according to its kind's
//! [`KindClass`]. Positional operands come first in syntax order; operands whose kind has a default are
//! keyword operands (`name=value`, or a bare enum value / flag name), written last in any order. Source
//! modifiers (`-v2`, `|v2|`, `-|v2|`) on register operand `rsK` set bit K-1 of the `neg` / `abs` operand.

use super::cexpr::{self, Sym};
use super::lex::{self, looks_numeric, parse_int, NumError, Span};
use super::regs::parse_register;
use super::symbols::{SymValue, Symbols};
use crate::meta::*;

/// The names an operand may use: the constants and register aliases as of its line's epoch.
#[derive(Clone, Copy)]
pub(crate) struct Env<'a> {
    pub syms: &'a Symbols,
    pub epoch: u32,
}

impl<'a> Env<'a> {
    fn sym(&self, name: &str) -> Sym {
        super::directives::sym_of(self.syms.get(name, self.epoch))
    }

    /// The constant `name`, if it is one.
    pub(crate) fn constant(&self, name: &str) -> Option<i64> {
        match self.syms.get(name, self.epoch)? {
            SymValue::Int(v) => Some(*v),
            SymValue::Reg(_) => None,
        }
    }

    /// An integer operand: a number, a constant, or an expression of them. A single malformed word keeps the
    /// message of a bad number (`bad`), so that `12x` reads as before constants existed.
    pub(crate) fn int(&self, tok: Span, bad: &dyn Fn() -> PErr) -> Result<i64, PErr> {
        let t = tok.text;
        match parse_int(t) {
            Ok(v) => return Ok(v),
            Err(NumError::TooLarge) if !cexpr::is_compound(t.trim_start_matches(['+', '-'])) => {
                return Err(perr(tok, format!("number `{t}` is too large")));
            }
            Err(_) => {}
        }
        if !cexpr::is_compound(t) {
            return match self.sym(t) {
                Sym::Int(v) if lex::is_ident(t) => Ok(v),
                Sym::Reg => Err(perr(tok, format!("`{t}` is a register alias, not a number"))),
                _ if lex::is_ident(t) => {
                    let mut e = bad();
                    e.hint = Some(format!("{}; no constant `{t}` is defined (`.equ`, `.set`)", NUMBER_SYNTAX));
                    Err(e)
                }
                _ => Err(bad()),
            };
        }
        cexpr::eval(t, &|n| self.sym(n)).map_err(|e| cexpr::to_perr(tok, e))
    }

    /// `tok`, or the register its alias names (the offset stays the token's, for the column).
    pub(crate) fn register<'t>(&self, tok: Span<'t>) -> Span<'t>
    where
        'a: 't,
    {
        match self.syms.alias(tok.text, self.epoch) {
            Some(r) => Span { text: r, off: tok.off },
            None => tok,
        }
    }
}

const NUMBER_SYNTAX: &str = "numbers are decimal, 0x hex or 0b binary, with an optional sign";

/// A parse failure inside a line, before file/line/column are attached.
#[derive(Debug)]
pub(crate) struct PErr {
    pub off: usize,
    pub text: String,
    pub message: String,
    pub hint: Option<String>,
}

pub(crate) fn perr(at: Span, message: String) -> PErr {
    PErr { off: at.off, text: at.text.to_string(), message, hint: None }
}

impl PErr {
    pub fn hint(mut self, h: Option<String>) -> Self {
        self.hint = h;
        self
    }
}

/// A pc-relative operand written as a label, resolved after all labels are known.
pub(crate) struct LabelRef {
    pub operand: usize,
    pub name: String,
    pub off: usize,
    /// For `1b` / `1f`: the label's number, whether forward, and how many of its definitions precede the use.
    pub local: Option<(u32, bool, usize)>,
}

pub(crate) fn is_keyword(op: &OperandInfo) -> bool {
    op.kind().default.is_some()
}

/// Which bit of a neg/abs operand a source operand's modifier sets: `rsK` → bit K-1.
pub(crate) fn modifier_bit(op: &OperandInfo) -> Option<u32> {
    let k: u32 = op.name.strip_prefix("rs")?.parse().ok()?;
    let reg = matches!(op.kind().class, KindClass::VReg | KindClass::UReg | KindClass::VHalf);
    (reg && (1..=16).contains(&k)).then(|| k - 1)
}

/// Index of the instruction's neg (`-`) or abs (`|…|`) operand.
pub(crate) fn modifier_operand(info: &InsnInfo, abs: bool) -> Option<usize> {
    let want = if abs { "abs" } else { "neg" };
    // By operand name, else by kind name (`neg`, `neg2`, …): the tables name them so.
    let srcmods = || info.operands.iter().enumerate().filter(|(_, o)| o.kind().class == KindClass::SrcMod);
    srcmods()
        .find(|(_, o)| o.name == want)
        .or_else(|| srcmods().find(|(_, o)| o.kind().name.starts_with(want)))
        .map(|(i, _)| i)
}

/// Keyword operands a bare token could mean: enum operands having that value name, flags of that name.
pub(crate) fn bare_candidates(info: &InsnInfo, tok: &str) -> Vec<usize> {
    let mut out = Vec::new();
    for (i, op) in info.operands.iter().enumerate() {
        let k = op.kind();
        if !is_keyword(op) {
            continue;
        }
        let hit = match k.class {
            KindClass::Enum => k.values.iter().any(|(n, _)| *n == tok),
            KindClass::Flag => op.name == tok,
            _ => false,
        };
        if hit {
            out.push(i);
        }
    }
    if out.is_empty() && !tok.is_empty() && tok.chars().all(|c| "rgba".contains(c)) {
        out.extend(
            info.operands
                .iter()
                .enumerate()
                .filter(|(_, o)| is_keyword(o) && o.kind().class == KindClass::DMask)
                .map(|(i, _)| i),
        );
    }
    out
}

/// The syntax of an instruction for messages: `shfl.up.vi rd:v, rs1:v, imm:s8 [rm=dyn]`.
pub(crate) fn syntax_text(info: &InsnInfo) -> String {
    let pos: Vec<String> =
        info.operands.iter().filter(|o| !is_keyword(o)).map(|o| format!("{}:{}", o.name, o.kind().name)).collect();
    let kw: Vec<String> = info
        .operands
        .iter()
        .filter(|o| is_keyword(o) && o.kind().class != KindClass::SrcMod)
        .map(|o| {
            let k = o.kind();
            let d = k.default.unwrap_or(0);
            match k.class {
                KindClass::Flag => format!("[{}]", o.name),
                KindClass::Enum => format!("[{}={}]", o.name, k.value_name(d).unwrap_or("?")),
                KindClass::DMask => {
                    let letters: String =
                        "rgba".chars().enumerate().filter(|(b, _)| d >> b & 1 != 0).map(|(_, c)| c).collect();
                    format!("[{}={letters}]", o.name)
                }
                _ => format!("[{}={}]", o.name, k.decode_value(d)),
            }
        })
        .collect();
    let mut s = info.mnemonic.to_string();
    if !pos.is_empty() {
        s += " ";
        s += &pos.join(", ");
    }
    if !kw.is_empty() {
        s += if pos.is_empty() { " " } else { ", " };
        s += &kw.join(", ");
    }
    s
}

/// Parses the operands of one instruction into operand values (syntax order) plus label references.
pub(crate) fn parse_operands(
    info: &'static InsnInfo,
    ops: &[Span],
    mn: Span,
    rest: Span,
    env: &Env,
) -> Result<(Vec<i64>, Vec<LabelRef>), PErr> {
    let n = info.operands.len();
    let mut vals: Vec<Option<i64>> = vec![None; n];
    let mut refs = Vec::new();
    let positional: Vec<usize> = (0..n).filter(|&i| !is_keyword(&info.operands[i])).collect();
    let count_msg = |found: usize| {
        let names: Vec<&str> = positional.iter().map(|&i| info.operands[i].name).collect();
        format!(
            "`{}` takes {} operand{} ({}), found {found}",
            info.mnemonic,
            positional.len(),
            if positional.len() == 1 { "" } else { "s" },
            if names.is_empty() { "none".to_string() } else { names.join(", ") }
        )
    };
    let syntax_hint = || Some(format!("syntax: {}", syntax_text(info)));
    for o in ops {
        if o.text.is_empty() {
            return Err(perr(*o, "missing operand (empty between commas)".into()));
        }
    }
    // A keyword-looking token where a positional operand is due means operands are missing.
    let keyword_like = |t: &str| t.contains('=') || !bare_candidates(info, t).is_empty();
    let count_err = |found: usize| {
        let at = if ops.is_empty() { mn } else { rest };
        perr(at, format!("wrong operand count: {}", count_msg(found))).hint(syntax_hint())
    };
    if ops.len() < positional.len() {
        return Err(count_err(ops.iter().filter(|o| !keyword_like(o.text)).count()));
    }
    let mut srcmods = [0i64; 2]; // bits requested by `-` and `|…|`
    for (slot, &i) in positional.iter().enumerate() {
        let op = &info.operands[i];
        let tok = ops[slot];
        // Modifiers exist on registers only: `-5`, `-inf` or `-label` are values.
        let is_reg = matches!(op.kind().class, KindClass::VReg | KindClass::UReg | KindClass::VHalf);
        let (neg, abs, inner) = if is_reg { strip_modifiers(tok)? } else { (false, false, tok) };
        if neg || abs {
            let bit = modifier_bit(op).ok_or_else(|| {
                perr(tok, format!("operand `{}` of `{}` takes no source modifier", op.name, info.mnemonic))
            })?;
            for (flag, is_abs) in [(neg, false), (abs, true)] {
                if !flag {
                    continue;
                }
                let m = modifier_operand(info, is_abs).filter(|&m| bit < info.operands[m].kind().bits);
                if m.is_none() {
                    let what = if is_abs { "absolute value |…|" } else { "negation -" };
                    return Err(perr(tok, format!("`{}` has no {what} source modifier", info.mnemonic)));
                }
                srcmods[is_abs as usize] |= 1 << bit;
            }
        }
        let parsed = parse_value(info, i, inner, env).map_err(|e| {
            if !keyword_like(tok.text) {
                e
            } else if ops[slot + 1..].iter().any(|o| !keyword_like(o.text)) {
                perr(tok, format!("keyword `{}` before positional operand `{}`: keywords come last", tok.text, op.name))
                    .hint(syntax_hint())
            } else {
                count_err(slot)
            }
        })?;
        match parsed {
            Value::Num(v) => vals[i] = Some(v),
            Value::Label(name) => {
                vals[i] = Some(0);
                refs.push(LabelRef { operand: i, name, off: inner.off, local: None });
            }
        }
    }
    for &tok in &ops[positional.len()..] {
        let (i, v) = parse_keyword(info, tok, &vals, &|| count_msg(ops.len()), env)?;
        vals[i] = Some(v);
    }
    for (abs, bits) in srcmods.iter().enumerate() {
        if *bits != 0 {
            if let Some(m) = modifier_operand(info, abs == 1) {
                vals[m] = Some(vals[m].unwrap_or(0) | bits);
            }
        }
    }
    let out = vals
        .iter()
        .zip(info.operands)
        .map(|(v, op)| v.unwrap_or_else(|| op.kind().decode_value(op.kind().default.unwrap_or(0))))
        .collect();
    Ok((out, refs))
}

/// Whether a token is shaped like a positional value (register, number, modifier) rather than a keyword.
fn looks_like_value(t: &str) -> bool {
    looks_numeric(t) || t.starts_with(['-', '|']) || {
        let b = t.as_bytes();
        b.len() >= 2 && (b[0] == b'v' || b[0] == b'u') && b[1].is_ascii_digit()
    }
}

/// `-|x|` → (neg, abs, x). `|-x|` is rejected: the modifier order is negate after absolute value.
fn strip_modifiers(tok: Span) -> Result<(bool, bool, Span), PErr> {
    let mut t = tok;
    let mut neg = false;
    // A leading `-` is a modifier only before a register-like operand; `-5` is a number.
    if let Some(r) = t.text.strip_prefix('-') {
        let r = lex::trimmed(r, t.off + 1);
        if r.text.starts_with('|') || r.text.starts_with(|c: char| c.is_ascii_alphabetic()) {
            neg = true;
            t = r;
        }
    }
    if let Some(r) = t.text.strip_prefix('|') {
        let inner = r.strip_suffix('|').ok_or_else(|| perr(tok, format!("unmatched `|` in `{}`", tok.text)))?;
        let inner = lex::trimmed(inner, t.off + 1);
        if inner.text.starts_with('-') {
            return Err(perr(tok, format!("write `-|x|` rather than `{}`", tok.text)));
        }
        return Ok((neg, true, inner));
    }
    if t.text.ends_with('|') {
        return Err(perr(tok, format!("unmatched `|` in `{}`", tok.text)));
    }
    Ok((neg, false, t))
}

pub(crate) enum Value {
    Num(i64),
    Label(String),
}

fn parse_keyword(
    info: &InsnInfo,
    tok: Span,
    vals: &[Option<i64>],
    count_msg: &dyn Fn() -> String,
    env: &Env,
) -> Result<(usize, i64), PErr> {
    let keywords: Vec<&str> = info.operands.iter().filter(|o| is_keyword(o)).map(|o| o.name).collect();
    let (i, v) = if let Some((name, value)) = tok.text.split_once('=') {
        let name_sp = lex::trimmed(name, tok.off);
        let value_sp = lex::trimmed(value, tok.off + name.len() + 1);
        let i = info.operands.iter().position(|o| is_keyword(o) && o.name == name_sp.text).ok_or_else(|| {
            let hint = match lex::suggest(name_sp.text, keywords.iter().copied()) {
                Some(s) => Some(format!("did you mean `{s}`?")),
                None if keywords.is_empty() => Some(format!("`{}` has no keyword operands", info.mnemonic)),
                None => Some(format!("keywords of `{}`: {}", info.mnemonic, keywords.join(", "))),
            };
            perr(name_sp, format!("unknown keyword `{}`", name_sp.text)).hint(hint)
        })?;
        if value_sp.text.is_empty() {
            return Err(perr(tok, format!("missing value after `{}=`", name_sp.text)));
        }
        match parse_value(info, i, value_sp, env)? {
            Value::Num(v) => (i, v),
            Value::Label(_) => return Err(perr(value_sp, "a label is not allowed in a keyword operand".into())),
        }
    } else {
        let cands = bare_candidates(info, tok.text);
        match cands.as_slice() {
            [i] => (*i, bare_value(info, *i, tok, env)?),
            [] if keywords.is_empty() || looks_like_value(tok.text) => {
                let mut e = perr(tok, format!("too many operands: {}", count_msg()));
                if !keywords.is_empty() {
                    e.message += &format!(", then keywords ({})", keywords.join(", "));
                }
                return Err(e.hint(Some(format!("syntax: {}", syntax_text(info)))));
            }
            [] => {
                let values = keyword_vocabulary(info);
                let hint = match lex::suggest(tok.text, values.iter().copied()) {
                    Some(s) => Some(format!("did you mean `{s}`?")),
                    None => Some(format!("keywords of `{}`: {}", info.mnemonic, keywords.join(", "))),
                };
                return Err(perr(tok, format!("unknown keyword operand `{}`", tok.text)).hint(hint));
            }
            many => {
                let names: Vec<String> =
                    many.iter().map(|&i| format!("{}={}", info.operands[i].name, tok.text)).collect();
                return Err(perr(tok, format!("ambiguous keyword `{}`", tok.text))
                    .hint(Some(format!("write one of {}", names.join(", ")))));
            }
        }
    };
    if vals[i].is_some() {
        return Err(perr(tok, format!("duplicate keyword `{}`", info.operands[i].name)));
    }
    Ok((i, v))
}

/// Every word a bare keyword operand of this instruction may be (for suggestions).
fn keyword_vocabulary(info: &InsnInfo) -> Vec<&'static str> {
    let mut out = Vec::new();
    for op in info.operands.iter().filter(|o| is_keyword(o)) {
        match op.kind().class {
            KindClass::Enum => out.extend(op.kind().values.iter().map(|(n, _)| *n)),
            _ => out.push(op.name),
        }
    }
    out
}

fn bare_value(info: &InsnInfo, i: usize, tok: Span, env: &Env) -> Result<i64, PErr> {
    match info.operands[i].kind().class {
        KindClass::Flag => Ok(1),
        _ => match parse_value(info, i, tok, env)? {
            Value::Num(v) => Ok(v),
            Value::Label(_) => Err(perr(tok, "a label is not allowed here".into())),
        },
    }
}

/// Parses one operand value (modifiers already stripped) according to its kind class.
pub(crate) fn parse_value(info: &InsnInfo, i: usize, tok: Span, env: &Env) -> Result<Value, PErr> {
    let op = &info.operands[i];
    let k = op.kind();
    if matches!(k.class, KindClass::VReg | KindClass::UReg | KindClass::VHalf) {
        let reg = env.register(tok);
        return parse_register(op, reg, env).map(Value::Num).map_err(|e| match reg.text == tok.text {
            true => e,
            false => e.hint(Some(format!("`{}` is an alias of `{}` (`.reg`)", tok.text, reg.text))),
        });
    }
    let t = tok.text;
    let num = |what: &str| -> Result<i64, PErr> {
        let bad = || perr(tok, format!("bad number `{t}` for {what} `{}`", op.name)).hint(Some(NUMBER_SYNTAX.into()));
        env.int(tok, &bad)
    };
    let range_err = |v: i64| {
        let (lo, hi) = k.encoded_range();
        let unit = if k.class == KindClass::PcRel { 4 } else { k.scale as i64 };
        let what = if k.class == KindClass::PcRel { "branch offset" } else { "immediate" };
        if unit > 1 && v % unit != 0 {
            perr(tok, format!("{what} `{t}` is not a multiple of {unit} ({}:{})", op.name, k.name))
        } else {
            perr(tok, format!("{what} `{t}` out of range {}..={} ({}:{})", lo * unit, hi * unit, op.name, k.name))
        }
    };
    let v = match k.class {
        // Handled above, before the numbers.
        KindClass::VReg | KindClass::UReg | KindClass::VHalf => return parse_register(op, tok, env).map(Value::Num),
        KindClass::SImm | KindClass::UImm => {
            if lex::parse_f32(t).is_some() {
                return Err(perr(tok, format!("`{t}` is not an integer (operand `{}` is {})", op.name, k.doc)));
            }
            let v = num("immediate")?;
            k.encode_value(v).map_err(|_| range_err(v))?;
            v
        }
        KindClass::Bits => {
            let v = match lex::parse_f32(t) {
                Some(Ok(f)) => f.to_bits() as i64,
                Some(Err(m)) => return Err(perr(tok, m)),
                None => num("literal")?,
            };
            // Negative integers are two's complement in the kind's width.
            let (lo, hi) = (-(1i64 << (k.bits - 1)), (1i64 << k.bits) - 1);
            if v < lo || v > hi {
                return Err(perr(tok, format!("literal `{t}` out of range {lo}..={hi} ({}:{})", op.name, k.name)));
            }
            v & hi
        }
        KindClass::PcRel => {
            let constant = env.constant(t).filter(|_| lex::is_ident(t));
            if constant.is_none() && (lex::is_ident(t) || lex::local_label_ref(t).is_some()) {
                return Ok(Value::Label(t.to_string()));
            }
            if constant.is_none()
                && !looks_numeric(t)
                && !t.contains(['(', ')', '+', '-', '*', '/', '%', '<', '>', '&', '|', '^', '~', '!'])
            {
                return Err(perr(tok, format!("expected a label or a byte offset for `{}`, found `{t}`", op.name)));
            }
            let v = num("branch offset")?;
            k.encode_value(v).map_err(|_| range_err(v))?;
            v
        }
        KindClass::Enum => match k.values.iter().find(|(n, _)| *n == t) {
            Some((_, raw)) => k.decode_value(*raw),
            None => {
                let names: Vec<&str> = k.values.iter().map(|(n, _)| *n).collect();
                let hint = lex::suggest(t, names.iter().copied()).map(|s| format!("did you mean `{s}`?"));
                let m = format!("unknown value `{t}` for `{}` (one of {})", op.name, names.join(", "));
                return Err(perr(tok, m).hint(hint));
            }
        },
        KindClass::Flag => match t {
            "0" => 0,
            "1" => 1,
            _ if t == op.name => 1,
            _ => return Err(perr(tok, format!("flag `{}` takes 0 or 1, found `{t}`", op.name))),
        },
        KindClass::SrcMod => {
            let v = num("modifier mask")?;
            k.encode_value(v).map_err(|_| range_err(v))?;
            v
        }
        KindClass::DMask => {
            let mut m = 0i64;
            for c in t.chars() {
                let bit = "rgba"
                    .find(c)
                    .ok_or_else(|| perr(tok, format!("bad dmask `{t}`: letters of rgba, each at most once")))?;
                if m & 1 << bit != 0 {
                    return Err(perr(tok, format!("bad dmask `{t}`: component `{c}` given twice")));
                }
                m |= 1 << bit;
            }
            if m == 0 {
                return Err(perr(tok, "empty dmask: name at least one of r, g, b, a".into()));
            }
            m
        }
    };
    Ok(Value::Num(v))
}
