//! Register and state facts of an instruction entry: `regs` (direction and group width of every register
//! operand), `fmode`, `fcsr`, `flow` and the extended `access`. Every refusal names the entry. The checks at
//! the end tie the facts to the flags they must agree with (`ur`, `fm`, `br`, `sy`, `tr`, `ld`, `st`), so a
//! wrong direction or a forgotten fact contradicts a flag written independently and stops the build.

use crate::expr::{eval, WOp};
use crate::model::{kind_of, InsnDef, Kind, Operand};
use crate::vocab::{AtomicOp, Dir, Flow, MAX_REG_OPERANDS};

/// Widest register group an operand may name (u.ld.b256's 8 uniform registers); anything wider is a typo.
pub const MAX_GROUP: i64 = 8;

/// The operand kind that names memory spaces (`space=<operand>` or `space=sp.<value>`).
pub const SPACE_KIND: &str = "sp";

/// Registers of a group read or written: a constant, or a formula over other operands (0 = not at all).
#[derive(Clone, Debug)]
pub enum Width {
    Fixed(i64),
    Expr(String, Vec<WOp>),
}

pub struct RegFact {
    pub dir: Dir,
    pub read: Width,
    pub write: Width,
}

/// `[operand=value]`: the fact holds only when the operand has this value.
#[derive(Clone, Copy)]
pub struct When {
    pub operand: usize,
    pub value: i64,
}

pub enum Space {
    Operand(usize),
    Fixed(String),
}

pub struct Access {
    /// Bytes per lane (per wave for uniform memory); `None` for `texel` (the image descriptor's texel size).
    pub bytes: Option<u32>,
    pub signed: bool,
    pub data: usize,
    pub space: Space,
    pub align: u32,
    pub atomic: Option<AtomicOp>,
}

pub struct Facts {
    /// One per operand, `None` for operands that are not registers.
    pub regs: Vec<Option<RegFact>>,
    /// (index into the float-mode list of `operand_kinds.yaml`, condition)
    pub fmode: Vec<(usize, Option<When>)>,
    /// (reads, writes, condition)
    pub fcsr: Vec<(bool, bool, Option<When>)>,
    pub flow: Flow,
    /// EXEC: masks the instruction's lanes, read as a value (`re`), written (`we`), written only as a subset of
    /// its old value (YAML `exec: shrinks`), reads vector sources only in active lanes (YAML `lanes: active`).
    pub exec: [bool; 5],
    pub access: Option<Access>,
    /// The counters raised instead of the latency's own under a condition (YAML `latency: counter:vm
    /// ls[sp=shared]`): (counter name, condition).
    pub counter_terms: Vec<(String, When)>,
}

pub fn is_reg(k: &Kind) -> bool {
    matches!(k.def.class.as_str(), "vreg" | "ureg" | "vhalf")
}

/// Splits at spaces outside brackets and parentheses (formulas contain spaces).
pub fn split_top(s: &str) -> Vec<&str> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0i32, None);
    for (i, c) in s.char_indices() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            _ => {}
        }
        if c.is_whitespace() && depth == 0 {
            if let Some(st) = start.take() {
                out.push(&s[st..i]);
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(st) = start {
        out.push(&s[st..]);
    }
    out
}

/// The value of `T` whose YAML spelling is `word`.
pub fn parse_word<T: Copy>(all: &[T], name: impl Fn(T) -> &'static str, word: &str) -> Option<T> {
    all.iter().copied().find(|&x| name(x) == word)
}

/// The YAML spellings of `all`, separated by spaces (for error messages).
pub fn spellings<T: Copy>(all: &[T], name: impl Fn(T) -> &'static str) -> String {
    all.iter().map(|&x| name(x)).collect::<Vec<_>>().join(" ")
}

/// `word` or `word[operand=value]`.
fn split_cond(tok: &str) -> (&str, Option<&str>) {
    match tok.split_once('[') {
        Some((w, rest)) => (w, Some(rest.strip_suffix(']').unwrap_or(rest))),
        None => (tok, None),
    }
}

fn op_index(at: &str, ops: &[Operand], name: &str) -> Result<usize, String> {
    ops.iter().position(|o| o.name == name).ok_or(format!("{at}: `{name}` is not an operand of this entry"))
}

/// The operand values a formula or condition may meet, for the exhaustive checks.
fn values_of(at: &str, k: &Kind) -> Result<Vec<i64>, String> {
    let scale = k.def.scale.unwrap_or(1) as i64;
    match k.def.class.as_str() {
        "flag" => Ok(vec![0, 1]),
        "dmask" => Ok((1..16).collect()), // 0 is illegal at decode
        "enum" => Ok(k.def.values.as_ref().unwrap().0.iter().map(|(_, v)| *v as i64).collect()),
        "uimm" if k.def.bits <= 8 => Ok((0..1i64 << k.def.bits).map(|v| v * scale).collect()),
        c => Err(format!("{at}: a {c} operand of {} bits cannot appear in a formula or condition", k.def.bits)),
    }
}

fn parse_when(at: &str, text: &str, ops: &[Operand], kinds: &[Kind]) -> Result<When, String> {
    let (name, val) = text.split_once('=').ok_or(format!("{at}: condition `[{text}]` is not [operand=value]"))?;
    let operand = op_index(at, ops, name)?;
    let k = kind_of(kinds, &ops[operand].kind);
    let value = match &k.def.values {
        Some(vals) => vals.0.iter().find(|(n, _)| n == val).map(|(_, v)| *v as i64),
        None => crate::model::parse_int(val).map(|v| v as i64),
    }
    .ok_or(format!("{at}: `{val}` is not a value of operand `{name}`"))?;
    if !values_of(at, k)?.contains(&value) {
        return Err(format!("{at}: operand `{name}` never has the value `{val}`"));
    }
    Ok(When { operand, value })
}

/// Tokens of a width formula: numbers, names, and one-character symbols.
fn lex(at: &str, s: &str) -> Result<Vec<String>, String> {
    let (mut out, cs): (Vec<String>, Vec<char>) = (Vec::new(), s.chars().collect());
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_alphanumeric() || c == '_' {
            let st = i;
            while i < cs.len() && (cs[i].is_ascii_alphanumeric() || cs[i] == '_') {
                i += 1;
            }
            out.push(cs[st..i].iter().collect());
        } else if "+-*/?:().".contains(c) {
            out.push(c.to_string());
            i += 1;
        } else {
            return Err(format!("{at}: unexpected `{c}` in width formula `{s}`"));
        }
    }
    Ok(out)
}

/// Recursive-descent compiler of a width formula to postfix code (grammar in the README).
struct Formula<'a> {
    at: &'a str,
    text: &'a str,
    toks: Vec<String>,
    pos: usize,
    ops: &'a [Operand],
    kinds: &'a [Kind],
    code: Vec<WOp>,
    used: Vec<usize>,
}

impl<'a> Formula<'a> {
    fn peek(&self) -> Option<&str> {
        self.toks.get(self.pos).map(|s| s.as_str())
    }
    fn next(&mut self) -> Result<String, String> {
        let t = self.toks.get(self.pos).cloned().ok_or(format!("{}: formula `{}` ends early", self.at, self.text))?;
        self.pos += 1;
        Ok(t)
    }
    fn expect(&mut self, s: &str) -> Result<(), String> {
        let t = self.next()?;
        (t == s).then_some(()).ok_or(format!("{}: expected `{s}`, found `{t}` in formula `{}`", self.at, self.text))
    }
    fn expr(&mut self) -> Result<(), String> {
        self.sum()?;
        if self.peek() == Some("?") {
            self.pos += 1;
            self.expr()?;
            self.expect(":")?;
            self.expr()?;
            self.code.push(WOp::Select);
        }
        Ok(())
    }
    fn sum(&mut self) -> Result<(), String> {
        self.prod()?;
        while let Some(op @ ("+" | "-")) = self.peek() {
            let w = if op == "+" { WOp::Add } else { WOp::Sub };
            self.pos += 1;
            self.prod()?;
            self.code.push(w);
        }
        Ok(())
    }
    fn prod(&mut self) -> Result<(), String> {
        self.atom()?;
        while let Some(op @ ("*" | "/")) = self.peek() {
            let w = if op == "*" { WOp::Mul } else { WOp::Div };
            self.pos += 1;
            self.atom()?;
            self.code.push(w);
        }
        Ok(())
    }
    fn operand(&mut self, name: &str) -> Result<(usize, &'a Kind), String> {
        let i = op_index(self.at, self.ops, name)?;
        let k = kind_of(self.kinds, &self.ops[i].kind);
        if is_reg(k) {
            return Err(format!("{}: formula `{}` uses register operand `{name}`", self.at, self.text));
        }
        self.used.push(i);
        Ok((i, k))
    }
    fn atom(&mut self) -> Result<(), String> {
        let t = self.next()?;
        if t == "(" {
            self.expr()?;
            return self.expect(")");
        }
        if let Ok(n) = t.parse::<i64>() {
            self.code.push(WOp::Lit(n));
            return Ok(());
        }
        if t == "pop" && self.peek() == Some("(") {
            self.pos += 1;
            let name = self.next()?;
            let (i, _) = self.operand(&name)?;
            self.code.push(WOp::Pop(i as u8));
            return self.expect(")");
        }
        let (i, k) = self.operand(&t)?;
        if self.peek() == Some(".") {
            self.pos += 1;
            let prop = self.next()?;
            let table =
                k.props.iter().find(|(n, _)| *n == prop).map(|(_, t)| t.clone()).ok_or(format!(
                    "{}: kind {} has no property `{prop}` (operand_kinds.yaml `props`)",
                    self.at, k.name
                ))?;
            self.code.push(WOp::Prop(i as u8, Box::leak(table.into_boxed_slice())));
        } else if k.def.class == "enum" {
            return Err(format!("{}: enum operand `{t}` needs a property (`{t}.<prop>`) in a formula", self.at));
        } else {
            self.code.push(WOp::Operand(i as u8));
        }
        Ok(())
    }
}

/// Compiles a width (`3` or a formula) and checks it over every combination of the operands it reads: each
/// value must lie in `lo..=MAX_GROUP`.
fn width(at: &str, text: &str, lo: i64, ops: &[Operand], kinds: &[Kind]) -> Result<Width, String> {
    if let Ok(n) = text.trim().parse::<i64>() {
        if !(lo..=MAX_GROUP).contains(&n) {
            return Err(format!("{at}: width {n} is outside {lo}..={MAX_GROUP}"));
        }
        return Ok(Width::Fixed(n));
    }
    let mut f = Formula { at, text, toks: lex(at, text)?, pos: 0, ops, kinds, code: Vec::new(), used: Vec::new() };
    f.expr()?;
    if f.pos != f.toks.len() {
        return Err(format!("{at}: trailing `{}` in formula `{text}`", f.toks[f.pos]));
    }
    f.used.sort();
    f.used.dedup();
    let domains = f.used.iter().map(|&i| values_of(at, kind_of(kinds, &ops[i].kind))).collect::<Result<Vec<_>, _>>()?;
    let mut vals = vec![0i64; ops.len()];
    let mut idx = vec![0usize; domains.len()];
    loop {
        for (n, &i) in f.used.iter().enumerate() {
            vals[i] = domains[n][idx[n]];
        }
        match eval(&f.code, &vals) {
            Some(w) if (lo..=MAX_GROUP).contains(&w) => {}
            w => {
                let when: Vec<String> = f.used.iter().map(|&i| format!("{}={}", ops[i].name, vals[i])).collect();
                let got = w.map_or("no value (a division by zero)".to_string(), |w| w.to_string());
                return Err(format!(
                    "{at}: formula `{text}` gives {got} when {}, not {lo}..={MAX_GROUP}",
                    when.join(" ")
                ));
            }
        }
        // Next combination (odometer); done when every digit wrapped.
        let mut n = 0;
        while n < idx.len() {
            idx[n] += 1;
            if idx[n] < domains[n].len() {
                break;
            }
            idx[n] = 0;
            n += 1;
        }
        if n == idx.len() {
            break;
        }
    }
    Ok(Width::Expr(text.to_string(), f.code))
}

/// `regs`: one `name:dir[width]` per register operand, in syntax order.
fn parse_regs(at: &str, def: &InsnDef, ops: &[Operand], kinds: &[Kind]) -> Result<Vec<Option<RegFact>>, String> {
    let mut out: Vec<Option<RegFact>> = ops.iter().map(|_| None).collect();
    let text = def.regs.as_deref().unwrap_or("");
    let mut last = None;
    for tok in split_top(text) {
        let (name, rest) = tok.split_once(':').ok_or(format!("{at}: regs token `{tok}` is not name:dir[width]"))?;
        let i = op_index(at, ops, name)?;
        let k = kind_of(kinds, &ops[i].kind);
        if !is_reg(k) {
            return Err(format!("{at}: `{name}` is a {} operand, not a register: leave it out of regs", k.def.class));
        }
        if out[i].is_some() || last.is_some_and(|l| l > i) {
            return Err(format!("{at}: regs names `{name}` twice or out of syntax order"));
        }
        last = Some(i);
        let (dir, spec) = match rest.split_once('[') {
            Some((d, s)) => (d, Some(s.strip_suffix(']').ok_or(format!("{at}: `{tok}` lacks its closing `]`"))?)),
            None => (rest, None),
        };
        let Some(dir) = parse_word(&Dir::ALL, Dir::name, dir) else {
            let known = spellings(&Dir::ALL, Dir::name);
            return Err(format!("{at}: `{name}` has direction `{dir}`; use one of: {known}"));
        };
        if k.def.rmw && dir != Dir::InOut {
            return Err(format!("{at}: `{name}` has the read-modify-write kind {}, so it is inout", k.name));
        }
        // Without a width, a pair kind names its pair and any other kind one register. A pair kind may still
        // read fewer (M's rs2 base is one register for shared/private), so the minimum stays 1.
        let default = if k.def.pair { 2 } else { 1 };
        let (r, w) = match spec {
            None => (default.to_string(), default.to_string()),
            Some(s) => match s.split_once(',') {
                Some((r, w)) if dir == Dir::InOut => (r.to_string(), w.to_string()),
                Some(_) => return Err(format!("{at}: `{tok}`: [read, written] widths are for inout operands")),
                None => (s.to_string(), s.to_string()),
            },
        };
        if k.def.class == "vhalf" && (r != "1" || w != "1") {
            return Err(format!("{at}: `{name}` is a register half, its width is 1"));
        }
        let read = if dir.reads() { width(at, &r, 1, ops, kinds)? } else { Width::Fixed(0) };
        let write = if dir.writes() { width(at, &w, 1, ops, kinds)? } else { Width::Fixed(0) };
        out[i] = Some(RegFact { dir, read, write });
    }
    if out.iter().flatten().count() > MAX_REG_OPERANDS {
        return Err(format!("{at}: more than {MAX_REG_OPERANDS} register operands (raise vocab::MAX_REG_OPERANDS)"));
    }
    if let Some(o) = ops.iter().zip(&out).find(|(o, f)| f.is_none() && is_reg(kind_of(kinds, &o.kind))) {
        return Err(format!(
            "{at}: register operand `{}` has no direction: `regs` must list every register operand (e.g. `{}:in`)",
            o.0.name, o.0.name
        ));
    }
    Ok(out)
}

/// `access: "<size> data=<op> space=<op|sp.value> [align=N] [atomic=op]"`.
fn parse_access(at: &str, text: &str, ops: &[Operand], kinds: &[Kind]) -> Result<Access, String> {
    let mut toks = text.split_whitespace();
    let size = toks.next().ok_or(format!("{at}: empty access"))?;
    let (bytes, signed) = match size {
        "texel" => (None, false),
        s => {
            let (b, sg) = crate::model::access_parts(s).ok_or(format!(
                "{at}: access size `{s}` is not texel or u|s|b followed by 8, 16, 32, 64, 96, 128 or 256"
            ))?;
            (Some(b), sg)
        }
    };
    let (mut data, mut space, mut align, mut atomic) = (None, None, None, None);
    for t in toks {
        let (key, val) = t.split_once('=').ok_or(format!("{at}: access item `{t}` is not key=value"))?;
        match key {
            "data" => data = Some(op_index(at, ops, val)?),
            "space" => {
                space = Some(match val.split_once('.') {
                    Some((kind, v)) if kind == SPACE_KIND => {
                        let k = kind_of(kinds, SPACE_KIND);
                        if !k.def.values.as_ref().unwrap().0.iter().any(|(n, _)| n == v) {
                            return Err(format!("{at}: `{v}` is not a memory space"));
                        }
                        Space::Fixed(crate::gen::value_variant(SPACE_KIND, v))
                    }
                    Some(_) => {
                        return Err(format!("{at}: space `{val}` is neither an operand nor {SPACE_KIND}.<value>"))
                    }
                    None => {
                        let i = op_index(at, ops, val)?;
                        if ops[i].kind != SPACE_KIND {
                            return Err(format!("{at}: space operand `{val}` is not of kind {SPACE_KIND}"));
                        }
                        Space::Operand(i)
                    }
                })
            }
            "align" => align = Some(val.parse::<u32>().map_err(|_| format!("{at}: bad alignment `{val}`"))?),
            "atomic" => {
                atomic = Some(parse_word(&AtomicOp::ALL, AtomicOp::name, val).ok_or(format!(
                    "{at}: unknown atomic op `{val}`; known: {}",
                    spellings(&AtomicOp::ALL, AtomicOp::name)
                ))?)
            }
            _ => return Err(format!("{at}: unknown access item `{key}` (data, space, align, atomic)")),
        }
    }
    let data = data.ok_or(format!("{at}: access needs data=<operand>"))?;
    let space = space.ok_or(format!("{at}: access needs space=<operand> or space={SPACE_KIND}.<value>"))?;
    let align = match (align, bytes) {
        (Some(_), None) => return Err(format!("{at}: a texel access is aligned to the texel size; no align=")),
        (None, None) => 0,
        (Some(a), Some(b)) if a.is_power_of_two() && a <= b => a,
        (None, Some(b)) if b.is_power_of_two() => b,
        (a, Some(b)) => return Err(format!("{at}: {b}-byte access needs a power-of-two align= up to {b}, got {a:?}")),
    };
    Ok(Access { bytes, signed, data, space, align, atomic })
}

/// `fmode` (`frm ftz32[rm=dyn]` …) or `fcsr` (`r`, `w`, `rw`, with a condition) terms.
fn terms(text: Option<&str>) -> Vec<(&str, Option<&str>)> {
    text.map(|t| split_top(t).into_iter().map(split_cond).collect()).unwrap_or_default()
}

/// All facts of one entry, checked against its flags. `group_flow` is the group's default `flow`.
pub fn resolve_facts(
    at: &str,
    def: &InsnDef,
    group_flow: Option<&str>,
    ops: &[Operand],
    kinds: &[Kind],
    float_modes: &[String],
) -> Result<Facts, String> {
    let regs = parse_regs(at, def, ops, kinds)?;
    let mut fmode = Vec::new();
    for (word, cond) in terms(def.fmode.as_deref()) {
        let bit = float_modes
            .iter()
            .position(|m| m == word)
            .ok_or(format!("{at}: unknown float mode `{word}`; known: {}", float_modes.join(" ")))?;
        fmode.push((bit, cond.map(|c| parse_when(at, c, ops, kinds)).transpose()?));
    }
    let mut fcsr = Vec::new();
    for (word, cond) in terms(def.fcsr.as_deref()) {
        let (r, w) = match word {
            "r" => (true, false),
            "w" => (false, true),
            "rw" => (true, true),
            _ => return Err(format!("{at}: fcsr `{word}` is not r, w or rw")),
        };
        fcsr.push((r, w, cond.map(|c| parse_when(at, c, ops, kinds)).transpose()?));
    }
    let flow = def.flow.as_deref().or(group_flow).ok_or(format!("{at}: no `flow:` and the group gives no default"))?;
    let flow = parse_word(&Flow::ALL, Flow::name, flow)
        .ok_or(format!("{at}: unknown flow `{flow}`; known: {}", spellings(&Flow::ALL, Flow::name)))?;
    let access = def.access.as_deref().map(|a| parse_access(at, a, ops, kinds)).transpose()?;
    let has = |f: &str| def.flags.split_whitespace().any(|x| x == f);
    let class = |i: usize| kind_of(kinds, &ops[i].kind).def.class.as_str();
    let writes = |c: &[&str]| {
        regs.iter().enumerate().any(|(i, r)| r.as_ref().is_some_and(|r| r.dir.writes()) && c.contains(&class(i)))
    };
    let vector_operand = (0..ops.len()).any(|i| class(i) == "vreg");
    // EXEC masks an instruction that writes vector registers or accesses memory lane by lane, unless it
    // ignores EXEC (`ei`); `re` and `we` state value reads and writes.
    let masked = !has("ei") && (writes(&["vreg", "vhalf"]) || (has("ld") || has("st")) && vector_operand);
    // Every EXEC writer says how (`exec: shrinks` when the new EXEC is always a subset of the old one, `exec:
    // sets` otherwise); no other entry may say it.
    let shrinks = match (has("we"), def.exec.as_deref()) {
        (true, Some("shrinks")) => true,
        (true, Some("sets")) => false,
        (true, Some(x)) => return Err(format!("{at}: `exec: {x}` is not shrinks or sets")),
        (true, None) => return Err(format!("{at}: writes EXEC (flag we) but has no `exec: shrinks|sets`")),
        (false, Some(_)) => {
            return Err(format!("{at}: `exec:` on an instruction that does not write EXEC (no flag we)"))
        }
        (false, None) => false,
    };
    let active_reads = active_reads(at, def, &has)?;
    let mut counter_terms = Vec::new();
    for (word, cond) in terms(def.latency.split_once(' ').map(|(_, rest)| rest)) {
        let cond = cond.ok_or(format!("{at}: latency term `{word}` has no [operand=value] condition"))?;
        counter_terms.push((word.to_string(), parse_when(at, cond, ops, kinds)?));
    }
    // The `en` text states the same fact in words ("Raises vm (ls instead if sp = shared)"): a term without
    // its sentence, or the sentence without its term, is a typo in one of them.
    let en = def.en.split_whitespace().collect::<Vec<_>>().join(" ");
    for (c, _) in &counter_terms {
        if !en.contains(&format!("{c} instead if ")) {
            return Err(format!("{at}: latency term `{c}[..]` is not stated in the en text (`{c} instead if ...`)"));
        }
    }
    if counter_terms.is_empty() && en.contains(" instead if ") {
        return Err(format!(
            "{at}: the en text raises another counter `instead if ...`; the latency has no term for it"
        ));
    }
    let facts = Facts {
        regs,
        fmode,
        fcsr,
        flow,
        exec: [masked, has("re"), has("we"), shrinks, active_reads],
        access,
        counter_terms,
    };
    check_against_flags(at, def, &facts, ops, kinds, &has)?;
    Ok(facts)
}

/// YAML `lanes: active`: only on an instruction that reads EXEC (flag `re`) and is not EXEC-masked already,
/// whose `en` text says the lanes it reads are the active ones ("active lane", "in EXEC").
fn active_reads(at: &str, def: &InsnDef, has: &dyn Fn(&str) -> bool) -> Result<bool, String> {
    match def.lanes.as_deref() {
        None => Ok(false),
        Some("active") if !has("re") => {
            Err(format!("{at}: `lanes: active` but the instruction does not read EXEC (no flag re)"))
        }
        Some("active") if !(def.en.contains("active") || def.en.contains("in EXEC")) => {
            Err(format!("{at}: `lanes: active` but the en text does not say which lanes are read (active, in EXEC)"))
        }
        Some("active") => Ok(true),
        Some(x) => Err(format!("{at}: `lanes: {x}` is not `active`")),
    }
}

/// Each stated fact must agree with the flags, which were written independently (seed 000's by the user).
fn check_against_flags(
    at: &str,
    def: &InsnDef,
    f: &Facts,
    ops: &[Operand],
    kinds: &[Kind],
    has: &dyn Fn(&str) -> bool,
) -> Result<(), String> {
    let ureg_written = f
        .regs
        .iter()
        .zip(ops)
        .any(|(r, o)| r.as_ref().is_some_and(|r| r.dir.writes()) && kind_of(kinds, &o.kind).def.class == "ureg");
    if ureg_written != has("ur") {
        return Err(format!("{at}: flag `ur` says {}, regs say {ureg_written}: a direction is wrong", has("ur")));
    }
    if f.fmode.is_empty() == has("fm") {
        return Err(format!("{at}: flag `fm` and `fmode` disagree (fm needs the float modes the result depends on)"));
    }
    let (flow, name) = (f.flow, f.flow.name());
    if flow.changes_pc() != has("br") || flow.synchronises() != has("sy") {
        return Err(format!("{at}: flow `{name}` disagrees with the flags `br`/`sy` ({})", def.flags));
    }
    if flow == Flow::Trap && !has("tr") {
        return Err(format!("{at}: flow `trap` needs flag `tr`"));
    }
    if flow.pc_relative() && !ops.iter().any(|o| kind_of(kinds, &o.kind).def.class == "pcrel") {
        return Err(format!("{at}: flow `{name}` has a PC-relative target, but no pcrel operand"));
    }
    let (ld, st) = (has("ld"), has("st"));
    let Some(a) = &f.access else {
        return match ld || st {
            true => Err(format!("{at}: a load, store or atomic needs `access:` (u8, s16, b32, …, texel)")),
            false => Ok(()),
        };
    };
    if !(ld || st) {
        return Err(format!("{at}: `access` on an instruction that is not a load, store or atomic"));
    }
    if a.atomic.is_some() != (ld && st) {
        return Err(format!("{at}: atomic=<op> is for (and required on) instructions that both load and store"));
    }
    let (want, what) = match (ld, st) {
        (true, true) => (Dir::InOut, "read-modify-write"),
        (true, false) => (Dir::Out, "load"),
        _ => (Dir::In, "store"),
    };
    let data = f.regs[a.data].as_ref().ok_or(format!("{at}: access data `{}` is not a register", ops[a.data].name))?;
    if data.dir != want {
        let name = ops[a.data].name.as_str();
        return Err(format!("{at}: access data `{name}` is {:?}, a {what} makes it {want:?}", data.dir));
    }
    // One register per started 4 bytes: what the load returns, the store sends, the atomic returns.
    if let Some(b) = a.bytes {
        let n = b.div_ceil(4) as i64;
        let moved = if st && !ld { &data.read } else { &data.write };
        let read_ok = !(ld && st) || matches!(data.read, Width::Fixed(r) if r >= n);
        if !matches!(moved, Width::Fixed(w) if *w == n) || !read_ok {
            return Err(format!(
                "{at}: a {b}-byte access moves {n} register(s) per lane; `{}`'s width disagrees",
                ops[a.data].name
            ));
        }
    }
    Ok(())
}
