//! Loading and checking the YAML ISA. Every refusal names the file and the entry, so that a mistake in the
//! spec is found where it is written, not where the generated code fails to compile.

use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

#[derive(Clone)]
/// A YAML mapping whose order is kept (formats and kinds are documented in the order the spec gives them).
pub struct Ordered<T>(pub Vec<(String, T)>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Ordered<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Ordered<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a mapping")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = m.next_entry::<String, T>()? {
                    out.push((k, v));
                }
                Ok(Ordered(out))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

#[derive(Deserialize)]
pub struct FormatsFile {
    pub formats: Ordered<FormatDef>,
}

#[derive(Deserialize)]
pub struct FormatDef {
    pub width: u32,
    pub bits: String,
    #[serde(rename = "use")]
    pub use_: String,
    /// English for `use` (the generated documents are English).
    pub en: String,
}

#[derive(Deserialize)]
pub struct KindsFile {
    pub operand_kinds: Ordered<KindDef>,
    pub flags: Ordered<String>,
    pub counters: Vec<String>,
    pub float_modes: Ordered<FloatModeDef>,
}

/// A float-mode field of fcsr that an instruction's result may depend on (`fmode`).
#[derive(Deserialize, Clone)]
pub struct FloatModeDef {
    /// The field's bits in fcsr.
    pub mask: u32,
    pub doc: String,
}

#[derive(Deserialize, Clone)]
pub struct KindDef {
    pub class: String,
    pub bits: u32,
    #[serde(default)]
    pub scale: Option<u32>,
    #[serde(default)]
    pub pair: bool,
    #[serde(default)]
    pub rmw: bool,
    #[serde(default)]
    pub default: Option<serde_value::Scalar>,
    #[serde(default)]
    pub values: Option<Ordered<u32>>,
    /// Enum kinds: named per-value numbers that width formulas read as `operand.prop` (`dim.coords`).
    #[serde(default)]
    pub props: Option<Ordered<Ordered<i64>>>,
    pub doc: String,
}

#[derive(Deserialize)]
pub struct GroupFile {
    pub group: u32,
    pub name: String,
    /// English heading (the generated documents are English).
    pub title: String,
    /// The seed's own heading, for the record (groups the seeds define).
    #[serde(default)]
    #[allow(dead_code)]
    pub seed_title: Option<String>,
    pub unit: String,
    /// Default `flow` of the group's entries (control flow is the exception outside group 7).
    #[serde(default)]
    pub flow: Option<String>,
    /// Image facts (format codes, descriptor words, sampler bits); exactly one group file has them.
    #[serde(default)]
    pub images: Option<crate::images::ImagesDef>,
    pub instructions: Vec<InsnDef>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct InsnDef {
    pub mnemonic: String,
    pub syntax: String,
    pub format: String,
    pub opcode: u32,
    #[serde(rename = "fn")]
    pub fn_: String,
    pub latency: String,
    pub flags: String,
    #[serde(default)]
    pub sem: Option<String>,
    pub en: String,
    #[serde(default)]
    pub unit: Option<String>,
    /// Memory instructions: the access each lane (or the wave, for uniform memory) makes: `u|s|b` + bits
    /// (`u8` zero-extends, `s16` sign-extends, `b64` moves raw bits through consecutive registers) or `texel`,
    /// then `data=`, `space=`, `align=`, `atomic=` (see `facts.rs` and the README).
    #[serde(default)]
    pub access: Option<String>,
    /// Direction and width of every register operand: `rd:out[3] rs1:in rs2:in[sp.base_regs]`.
    #[serde(default)]
    pub regs: Option<String>,
    /// fcsr float-mode fields the result depends on: `frm[rm=dyn] ftz32`.
    #[serde(default)]
    pub fmode: Option<String>,
    /// Reads or writes of fcsr other than through `fmode`: `rw[csr=fcsr]`.
    #[serde(default)]
    pub fcsr: Option<String>,
    /// Control-flow kind (default: the group's `flow`).
    #[serde(default)]
    pub flow: Option<String>,
    /// How an EXEC writer writes it: `shrinks` (always a subset of the old EXEC) or `sets`.
    #[serde(default)]
    pub exec: Option<String>,
    /// `active`: an instruction that reads EXEC and its vector sources only in the lanes EXEC enables (a
    /// reduction, a ballot, a compare writing a lane mask): an inactive lane's value never reaches its result.
    #[serde(default)]
    pub lanes: Option<String>,
}

/// A kind's default may be written as a name (`dyn`) or a number (`0`).
pub mod serde_value {
    use serde::Deserialize;
    #[derive(Deserialize, Clone, Debug)]
    #[serde(untagged)]
    pub enum Scalar {
        Int(i64),
        Str(String),
    }
}

/// A field of a format: `name[msb:lsb]`.
#[derive(Clone, Debug)]
pub struct Field {
    pub name: String,
    pub msb: u32,
    pub lsb: u32,
}

impl Field {
    pub fn width(&self) -> u32 {
        self.msb - self.lsb + 1
    }
    pub fn mask(&self) -> u64 {
        (((1u128 << self.width()) - 1) as u64) << self.lsb
    }
    /// `opcode` and `f<N>` take their value from the instruction entry.
    pub fn is_fixed(&self) -> bool {
        self.name == "opcode" || is_function_field(&self.name)
    }
    /// `z`, `z0`, `z1` are reserved.
    pub fn is_reserved(&self) -> bool {
        self.name == "z" || (self.name.starts_with('z') && self.name[1..].chars().all(|c| c.is_ascii_digit()))
    }
}

pub fn is_function_field(name: &str) -> bool {
    name.len() > 1 && name.starts_with('f') && name[1..].chars().all(|c| c.is_ascii_digit())
}

pub struct Format {
    pub name: String,
    pub width: u32,
    pub bits: String,
    pub use_: String,
    pub en: String,
    pub fields: Vec<Field>,
}

impl Format {
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// Parses the seed's bit map and refuses any bit left undefined or defined twice.
pub fn parse_format(name: &str, def: &FormatDef) -> Result<Format, String> {
    let mut fields = Vec::new();
    for tok in def.bits.split_whitespace() {
        let (fname, rest) = tok.split_once('[').ok_or(format!("format {name}: bad field `{tok}`"))?;
        let rest = rest.strip_suffix(']').ok_or(format!("format {name}: bad field `{tok}`"))?;
        let (msb, lsb) = match rest.split_once(':') {
            Some((m, l)) => (m.parse::<u32>(), l.parse::<u32>()),
            None => (rest.parse::<u32>(), rest.parse::<u32>()),
        };
        let (msb, lsb) = (
            msb.map_err(|_| format!("format {name}: bad range in `{tok}`"))?,
            lsb.map_err(|_| format!("format {name}: bad range in `{tok}`"))?,
        );
        if msb < lsb || msb >= def.width {
            return Err(format!("format {name}: field `{tok}` lies outside [{}:0]", def.width - 1));
        }
        fields.push(Field { name: fname.to_string(), msb, lsb });
    }
    let mut covered = 0u64;
    for f in &fields {
        if covered & f.mask() != 0 {
            return Err(format!("format {name}: field `{}` defines a bit twice", f.name));
        }
        covered |= f.mask();
    }
    let all = if def.width == 64 { u64::MAX } else { (1u64 << def.width) - 1 };
    if covered != all {
        return Err(format!("format {name}: bits {:#x} are left undefined", all & !covered));
    }
    if fields.iter().all(|f| f.name != "opcode") {
        return Err(format!("format {name}: no opcode field"));
    }
    if def.width != 32 && def.width != 64 {
        return Err(format!("format {name}: width must be 32 or 64"));
    }
    Ok(Format {
        name: name.into(),
        width: def.width,
        bits: def.bits.clone(),
        use_: def.use_.clone(),
        en: def.en.clone(),
        fields,
    })
}

pub struct Kind {
    pub name: String,
    pub def: KindDef,
    pub default_raw: Option<u32>,
    /// `props`, resolved to (encoded value, property) for every value of the enum.
    pub props: Vec<(String, Vec<(i64, i64)>)>,
}

pub const CLASSES: &[&str] =
    &["vreg", "ureg", "vhalf", "simm", "uimm", "bits", "pcrel", "enum", "flag", "srcmod", "dmask"];

pub fn check_kind(name: &str, def: &KindDef) -> Result<Kind, String> {
    if !CLASSES.contains(&def.class.as_str()) {
        return Err(format!("operand kind {name}: unknown class `{}`", def.class));
    }
    if def.class == "enum" && def.values.is_none() {
        return Err(format!("operand kind {name}: an enum needs `values`"));
    }
    let mut props = Vec::new();
    for (p, table) in def.props.as_ref().map(|p| &p.0[..]).unwrap_or(&[]) {
        let vals = def.values.as_ref().ok_or(format!("operand kind {name}: `props` are for enums"))?;
        if table.0.len() != vals.0.len() {
            return Err(format!("operand kind {name}: property {p} must give every value, once"));
        }
        let mut t = Vec::new();
        for (n, raw) in &vals.0 {
            let v = table.0.iter().find(|(x, _)| x == n).ok_or(format!("operand kind {name}: {p} lacks `{n}`"))?;
            t.push((*raw as i64, v.1));
        }
        props.push((p.clone(), t));
    }
    if def.class == "dmask" {
        // dmask defaults are written as letters of rgba.
        let raw = match &def.default {
            Some(serde_value::Scalar::Str(s)) => Some(dmask_bits(s)?),
            Some(serde_value::Scalar::Int(i)) => Some(*i as u32),
            None => None,
        };
        return Ok(Kind { name: name.into(), def: def.clone(), default_raw: raw, props });
    }
    let default_raw = match &def.default {
        None => None,
        Some(serde_value::Scalar::Int(i)) => Some(*i as u32),
        Some(serde_value::Scalar::Str(s)) => {
            let vals = def.values.as_ref().ok_or(format!("operand kind {name}: named default without values"))?;
            let v = vals
                .0
                .iter()
                .find(|(n, _)| n == s)
                .ok_or(format!("operand kind {name}: default `{s}` is not a value"))?;
            Some(v.1)
        }
    };
    Ok(Kind { name: name.into(), def: def.clone(), default_raw, props })
}

pub fn dmask_bits(s: &str) -> Result<u32, String> {
    let mut m = 0;
    for c in s.chars() {
        m |= 1 << "rgba".find(c).ok_or(format!("dmask `{s}`: letters of rgba only"))?;
    }
    Ok(m)
}

/// One operand of one instruction, resolved against its format.
#[derive(Clone)]
pub struct Operand {
    pub name: String,
    pub kind: String,
    pub field: Field,
}

pub struct Insn {
    pub id: usize,
    pub group: u32,
    pub group_name: String,
    pub file: String,
    pub def: InsnDef,
    pub unit: String,
    pub operands: Vec<Operand>,
    pub fixed: Vec<(String, u32)>,
    /// Bits that decide the instruction: fixed fields and must-be-zero bits.
    pub mask: u64,
    pub match_: u64,
    /// Bits that must be zero (reserved fields, unused operand fields, high bits of narrow operands).
    pub reserved: u64,
    /// Bits of the opcode and fixed fields only.
    pub fixed_mask: u64,
    /// Register directions and widths, float modes, fcsr, EXEC, flow, access.
    pub facts: crate::facts::Facts,
}

pub fn parse_int(s: &str) -> Option<u32> {
    let s = s.trim();
    if let Some(h) = s.strip_prefix("0x") {
        u32::from_str_radix(h, 16).ok()
    } else {
        s.parse().ok()
    }
}

/// What an instruction entry is resolved against: the formats, operand kinds, flags, wait counters and float
/// modes the other YAML files define.
pub struct Tables<'a> {
    pub fmts: &'a [Format],
    pub kinds: &'a [Kind],
    pub flags: &'a [(String, String)],
    pub counters: &'a [String],
    pub float_modes: &'a [String],
}

pub fn resolve_insn(id: usize, file: &str, g: &GroupFile, def: &InsnDef, t: &Tables) -> Result<Insn, String> {
    let Tables { fmts, kinds, flags, counters, float_modes } = *t;
    let at = format!("{file}: `{}`", def.mnemonic);
    let fmt = fmts.iter().find(|f| f.name == def.format).ok_or(format!("{at}: unknown format `{}`", def.format))?;
    if def.opcode == 0 || def.opcode > 0x7f {
        return Err(format!("{at}: opcode {:#x} is not a non-zero 7-bit value", def.opcode));
    }
    let odd = def.opcode & 1 == 1;
    if odd != (fmt.width == 64) {
        return Err(format!(
            "{at}: opcode {:#x} parity does not match the {}-bit format {}",
            def.opcode, fmt.width, fmt.name
        ));
    }
    let mut operands = Vec::new();
    for tok in def.syntax.split_whitespace() {
        let (name, rest) = tok.split_once(':').ok_or(format!("{at}: syntax token `{tok}` is not name:kind"))?;
        let (kind, field) = match rest.split_once('@') {
            Some((k, f)) => (k, f),
            None => (rest, name),
        };
        let k = kinds.iter().find(|k| k.name == kind).ok_or(format!("{at}: unknown operand kind `{kind}`"))?;
        let f = fmt
            .field(field)
            .ok_or(format!("{at}: operand `{name}` names field `{field}`, which format {} lacks", fmt.name))?;
        if f.name == "opcode" || f.is_reserved() {
            return Err(format!("{at}: operand `{name}` cannot occupy field `{field}`"));
        }
        if k.def.bits > f.width() {
            return Err(format!(
                "{at}: operand `{name}` kind {kind} has {} bits, field `{field}` only {}",
                k.def.bits,
                f.width()
            ));
        }
        if operands.iter().any(|o: &Operand| o.field.name == f.name) {
            return Err(format!("{at}: two operands occupy field `{field}`"));
        }
        if operands.iter().any(|o: &Operand| o.name == name) {
            return Err(format!("{at}: operand name `{name}` used twice"));
        }
        operands.push(Operand { name: name.into(), kind: kind.into(), field: f.clone() });
    }
    // Keyword operands (with a default) come last, so positional parsing stays unambiguous.
    let first_kw = operands.iter().position(|o| kind_of(kinds, &o.kind).default_raw.is_some());
    if let Some(p) = first_kw {
        if operands[p..].iter().any(|o| kind_of(kinds, &o.kind).default_raw.is_none()) {
            return Err(format!("{at}: a positional operand follows a keyword operand"));
        }
    }
    let mut fixed = vec![("opcode".to_string(), def.opcode)];
    for part in def.fn_.split_whitespace() {
        let (fname, val) = part.split_once('=').ok_or(format!("{at}: fn `{part}` is not field=value"))?;
        let f = fmt.field(fname).ok_or(format!("{at}: fn names field `{fname}`, which format {} lacks", fmt.name))?;
        if !f.is_fixed() || f.name == "opcode" {
            return Err(format!("{at}: `{fname}` is not a function field"));
        }
        let v = parse_int(val).ok_or(format!("{at}: bad value in `{part}`"))?;
        if (v as u64) >> f.width() != 0 {
            return Err(format!("{at}: `{part}` does not fit the {}-bit field", f.width()));
        }
        if operands.iter().any(|o| o.field.name == fname) || fixed.iter().any(|(n, _)| n == fname) {
            return Err(format!("{at}: field `{fname}` is both fixed and an operand, or fixed twice"));
        }
        fixed.push((fname.into(), v));
    }
    for f in &fmt.fields {
        let used = operands.iter().any(|o| o.field.name == f.name) || fixed.iter().any(|(n, _)| *n == f.name);
        if is_function_field(&f.name) && !used {
            return Err(format!("{at}: function field `{}` of format {} has no value", f.name, fmt.name));
        }
    }
    let (mut fixed_mask, mut match_) = (0u64, 0u64);
    for (n, v) in &fixed {
        let f = fmt.field(n).unwrap();
        fixed_mask |= f.mask();
        match_ |= (*v as u64) << f.lsb;
    }
    let mut free = 0u64;
    for o in &operands {
        let bits = kind_of(kinds, &o.kind).def.bits;
        free |= (((1u128 << bits) - 1) as u64) << o.field.lsb;
    }
    let all = if fmt.width == 64 { u64::MAX } else { (1u64 << 32) - 1 };
    let reserved = all & !free & !fixed_mask;
    let unit = def.unit.clone().unwrap_or_else(|| g.unit.clone());
    check_latency(&at, &def.latency, counters)?;
    for fl in def.flags.split_whitespace() {
        if !flags.iter().any(|(n, _)| n == fl) {
            return Err(format!("{at}: unknown flag `{fl}`"));
        }
    }
    let facts = crate::facts::resolve_facts(&at, def, g.flow.as_deref(), &operands, kinds, float_modes)?;
    Ok(Insn {
        id,
        group: g.group,
        group_name: g.name.clone(),
        file: file.into(),
        def: def.clone(),
        unit,
        operands,
        fixed,
        mask: fixed_mask | reserved,
        match_,
        reserved,
        fixed_mask,
        facts,
    })
}

/// `(bytes, signed)` of an access text such as `s16`.
pub fn access_parts(a: &str) -> Option<(u32, bool)> {
    let (kind, bits) = a.split_at(1);
    let bits: u32 = bits.parse().ok().filter(|b| [8, 16, 32, 64, 96, 128, 256].contains(b))?;
    match kind {
        "u" | "b" if bits >= 8 => Some((bits / 8, false)),
        "s" if bits <= 16 => Some((bits / 8, true)),
        _ => None,
    }
}

/// `fixed:N`, or `counter:C` optionally followed by terms `C2[operand=value]` (the counter raised instead when
/// the operand has that value, e.g. `ls[sp=shared]`; the terms are resolved with the other facts).
fn check_latency(at: &str, lat: &str, counters: &[String]) -> Result<(), String> {
    let mut words = lat.split_whitespace();
    let head = words.next().unwrap_or_default();
    for term in words {
        let c = term.split_once('[').map_or(term, |(c, _)| c);
        if !head.starts_with("counter:") || !counters.iter().any(|x| x == c) || !term.ends_with(']') {
            return Err(format!("{at}: latency term `{term}` is not <known counter>[operand=value] after counter:C"));
        }
    }
    match head.split_once(':') {
        Some(("fixed", n)) if n.parse::<u32>().is_ok() => Ok(()),
        Some(("counter", c)) if counters.iter().any(|x| x == c) => Ok(()),
        _ => Err(format!("{at}: latency `{lat}` is neither fixed:N nor counter:<known counter>")),
    }
}

pub fn kind_of<'a>(kinds: &'a [Kind], name: &str) -> &'a Kind {
    kinds.iter().find(|k| k.name == name).expect("kind checked at resolve time")
}

/// Refuses encodings that overlap, duplicate mnemonics and one opcode used by two formats.
pub fn check_overlaps(insns: &[Insn]) -> Result<(), String> {
    let mut by_mnemonic = BTreeMap::new();
    let mut opcode_format: BTreeMap<u32, (&str, &str)> = BTreeMap::new();
    for i in insns {
        if let Some(prev) = by_mnemonic.insert(i.def.mnemonic.as_str(), i.file.as_str()) {
            return Err(format!("{}: mnemonic `{}` is defined twice (also in {prev})", i.file, i.def.mnemonic));
        }
        let e = opcode_format.entry(i.def.opcode).or_insert((i.def.format.as_str(), i.def.mnemonic.as_str()));
        if e.0 != i.def.format {
            return Err(format!(
                "{}: `{}` uses opcode {:#x} with format {}, but `{}` uses it with format {}",
                i.file, i.def.mnemonic, i.def.opcode, i.def.format, e.1, e.0
            ));
        }
    }
    for (n, a) in insns.iter().enumerate() {
        for b in &insns[n + 1..] {
            let common = a.mask & b.mask;
            if (a.match_ ^ b.match_) & common == 0 {
                return Err(format!(
                    "{}: `{}` overlaps `{}` ({}): some word decodes as both",
                    a.file, a.def.mnemonic, b.def.mnemonic, b.file
                ));
            }
        }
    }
    Ok(())
}

/// The whole checked spec: what the generator turns into code.
pub struct Spec {
    pub formats: Vec<Format>,
    pub kinds: Vec<Kind>,
    pub flags: Vec<(String, String)>,
    pub counters: Vec<String>,
    pub float_modes: Vec<(String, FloatModeDef)>,
    pub groups: Vec<(u32, String, String, String)>,
    pub insns: Vec<Insn>,
    /// The `images:` section, if a group file has one (the real spec must; small test specs need not).
    pub images: Option<crate::images::ImagesDef>,
}

fn parse_yaml<T: serde::de::DeserializeOwned>(what: &str, text: &str) -> Result<T, String> {
    serde_saphyr::from_str(text).map_err(|e| format!("{what}: {e}"))
}

/// Loads `formats.yaml`, `operand_kinds.yaml` and `groups/*.yaml` (in file-name order) from `dir`.
pub fn load(dir: &Path) -> Result<Spec, String> {
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir.join("groups"))
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    let groups: Vec<(String, String)> =
        files.iter().map(|p| (format!("groups/{}", p.file_name().unwrap().to_string_lossy()), read(p))).collect();
    load_texts(&read(&dir.join("formats.yaml")), &read(&dir.join("operand_kinds.yaml")), &groups)
}

/// Loads the spec from the files' texts: `groups` holds (file name, text) pairs in order. Tests feed small
/// specs through here to see the loader refuse them.
pub fn load_texts(formats: &str, kinds: &str, group_files: &[(String, String)]) -> Result<Spec, String> {
    let ff: FormatsFile = parse_yaml("formats.yaml", formats)?;
    let formats = ff.formats.0.iter().map(|(n, d)| parse_format(n, d)).collect::<Result<Vec<_>, _>>()?;
    let kf: KindsFile = parse_yaml("operand_kinds.yaml", kinds)?;
    let kinds = kf.operand_kinds.0.iter().map(|(n, d)| check_kind(n, d)).collect::<Result<Vec<_>, _>>()?;
    let (flags, counters, float_modes) = (kf.flags.0, kf.counters, kf.float_modes.0);
    let mode_names: Vec<String> = float_modes.iter().map(|(n, _)| n.clone()).collect();
    let mut groups = Vec::new();
    let mut insns = Vec::new();
    let mut images: Option<crate::images::ImagesDef> = None;
    for (file, text) in group_files {
        let g: GroupFile = parse_yaml(file, text)?;
        if let Some(d) = &g.images {
            if images.is_some() {
                return Err(format!("{file}: a second `images:` section (only one group file may have one)"));
            }
            crate::images::check(file, d)?;
            images = Some(d.clone());
        }
        if groups.iter().any(|(n, name, _, _): &(u32, String, String, String)| *n == g.group || *name == g.name) {
            return Err(format!("{file}: group {} `{}` is defined twice", g.group, g.name));
        }
        groups.push((g.group, g.name.clone(), g.title.clone(), g.unit.clone()));
        for def in &g.instructions {
            let id = insns.len();
            let tables =
                Tables { fmts: &formats, kinds: &kinds, flags: &flags, counters: &counters, float_modes: &mode_names };
            insns.push(resolve_insn(id, file, &g, def, &tables)?);
        }
    }
    check_overlaps(&insns)?;
    Ok(Spec { formats, kinds, flags, counters, float_modes, groups, insns, images })
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}
