//! The `images:` section of a group file (6-mem.yaml): format codes, texel sizes, descriptor words and sampler
//! bits, checked here and generated into lanejit_isa's image tables, so that no engine or tool retypes them.

use crate::model::Ordered;
use serde::Deserialize;
use std::fmt::Write;

/// The section as written.
#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct ImagesDef {
    pub max_size: u32,
    pub descriptor: Vec<WordDef>,
    pub component_bytes: Ordered<u32>,
    pub formats: Ordered<ImageFormatDef>,
    pub sampler: SamplerDef,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct WordDef {
    pub name: String,
    pub doc: String,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct ImageFormatDef {
    pub code: u32,
    pub component: String,
    pub channels: u32,
    pub bytes: u32,
    #[serde(default)]
    pub absent: Option<Vec<u32>>,
    pub doc: String,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct SamplerDef {
    pub filter: FilterDef,
    pub addressing: AddressingDef,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct FilterDef {
    pub bit: u32,
    pub values: Ordered<u32>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct AddressingDef {
    pub bits: u32,
    pub axes: Ordered<u32>,
    pub values: Ordered<u32>,
}

/// Descriptor words the engines address by name: the section must list exactly these, in this order.
const WORDS: [&str; 8] = ["base_lo", "base_hi", "width", "height", "layers", "pitch", "format", "sampler"];
/// Component kinds the conversions know.
const COMPONENTS: [&str; 4] = ["u32", "f32", "unorm8", "f16"];

/// Checks the section: every refusal names `file` and the entry.
pub fn check(file: &str, d: &ImagesDef) -> Result<(), String> {
    let at = format!("{file}: images");
    if d.max_size == 0 || d.max_size > 1 << 16 {
        return Err(format!("{at}.max_size {} is not in 1..=65536", d.max_size));
    }
    let names: Vec<&str> = d.descriptor.iter().map(|w| w.name.as_str()).collect();
    if names != WORDS {
        return Err(format!("{at}.descriptor must name the words {WORDS:?} in order, not {names:?}"));
    }
    let kinds: Vec<&str> = d.component_bytes.0.iter().map(|(n, _)| n.as_str()).collect();
    if kinds != COMPONENTS {
        return Err(format!("{at}.component_bytes must list {COMPONENTS:?} in order, not {kinds:?}"));
    }
    for (i, (name, f)) in d.formats.0.iter().enumerate() {
        check_format(&at, i, name, f, d)?;
    }
    check_sampler(&at, &d.sampler)
}

fn check_format(at: &str, i: usize, name: &str, f: &ImageFormatDef, d: &ImagesDef) -> Result<(), String> {
    let at = format!("{at}.formats.{name}");
    if f.code != i as u32 {
        return Err(format!("{at}: code {} must be its position {i} (codes are dense from 0)", f.code));
    }
    let per = d
        .component_bytes
        .0
        .iter()
        .find(|(n, _)| *n == f.component)
        .map(|(_, b)| *b)
        .ok_or_else(|| format!("{at}: component `{}` is not in images.component_bytes", f.component))?;
    if f.channels != 1 && f.channels != 4 {
        return Err(format!("{at}: channels {} must be 1 or 4", f.channels));
    }
    if f.bytes != f.channels * per || !f.bytes.is_power_of_two() {
        return Err(format!("{at}: bytes {} is not channels * component bytes = {}", f.bytes, f.channels * per));
    }
    match (&f.absent, f.channels) {
        (Some(a), 1) if a.len() == 3 => Ok(()),
        (None, 4) => Ok(()),
        _ => Err(format!("{at}: a one-channel format needs `absent` (3 values for g b a), a four-channel one none")),
    }
}

fn check_sampler(at: &str, s: &SamplerDef) -> Result<(), String> {
    let filter_values: Vec<u32> = s.filter.values.0.iter().map(|(_, v)| *v).collect();
    if filter_values != [0, 1] {
        return Err(format!("{at}.sampler.filter: values must be 0 and 1 (one bit), not {filter_values:?}"));
    }
    let a = &s.addressing;
    let axes: Vec<&str> = a.axes.0.iter().map(|(n, _)| n.as_str()).collect();
    if axes != ["x", "y", "z"] {
        return Err(format!("{at}.sampler.addressing.axes must be x, y, z in order, not {axes:?}"));
    }
    let mut used = 1u32 << s.filter.bit;
    for (axis, shift) in &a.axes.0 {
        let field = ((1u32 << a.bits) - 1) << shift;
        if used & field != 0 || shift + a.bits > 32 {
            return Err(format!("{at}.sampler.addressing.axes.{axis}: bits overlap another field or leave D7"));
        }
        used |= field;
    }
    for (mode, v) in &a.values.0 {
        if *v >= 1 << a.bits {
            return Err(format!("{at}.sampler.addressing.values.{mode}: {v} does not fit {} bits", a.bits));
        }
    }
    Ok(())
}

/// Rust for the checked section.
pub fn generate(d: &ImagesDef, o: &mut String) {
    let used = sampler_mask(&d.sampler);
    writeln!(o, "/// Largest image width, height, depth or layer count (`images.max_size`).").unwrap();
    writeln!(o, "pub const IMAGE_MAX_SIZE: u32 = {};", d.max_size).unwrap();
    writeln!(o, "/// Dwords in an image descriptor (u[rs3..rs3+{}]).", d.descriptor.len() - 1).unwrap();
    writeln!(o, "pub const IMAGE_DESCRIPTOR_WORDS: usize = {};", d.descriptor.len()).unwrap();
    o.push_str("/// The descriptor words D0.. in order: (name, meaning).\n");
    writeln!(o, "pub static IMAGE_DESCRIPTOR: [(&str, &str); {}] = [", d.descriptor.len()).unwrap();
    for w in &d.descriptor {
        writeln!(o, "  ({:?}, {:?}),", w.name, w.doc).unwrap();
    }
    o.push_str("];\n");
    for (i, w) in d.descriptor.iter().enumerate() {
        writeln!(o, "/// Index of descriptor word D{i}: {}.", w.doc).unwrap();
        writeln!(o, "pub const IMAGE_WORD_{}: usize = {i};", w.name.to_ascii_uppercase()).unwrap();
    }
    gen_component(d, o);
    gen_formats(d, o);
    writeln!(
        o,
        "/// Bit of the filter in the sampler word D7.\npub const IMAGE_FILTER_BIT: u32 = {};",
        d.sampler.filter.bit
    )
    .unwrap();
    let a = &d.sampler.addressing;
    let shifts: Vec<String> = a.axes.0.iter().map(|(_, s)| s.to_string()).collect();
    writeln!(o, "/// Lowest bit of the x, y, z addressing fields in D7.").unwrap();
    writeln!(o, "pub const IMAGE_ADDRESSING_SHIFTS: [u32; 3] = [{}];", shifts.join(", ")).unwrap();
    writeln!(o, "/// Width in bits of each addressing field.\npub const IMAGE_ADDRESSING_BITS: u32 = {};", a.bits)
        .unwrap();
    writeln!(o, "/// The D7 bits a sampler may set (img.sample refuses any other).").unwrap();
    writeln!(o, "pub const IMAGE_SAMPLER_MASK: u32 = {used:#x};").unwrap();
    gen_value_enum(o, "ImageFilter", "An image filter (sampler bit `IMAGE_FILTER_BIT`).", &d.sampler.filter.values);
    gen_value_enum(o, "ImageAddressing", "An addressing mode of one sampler axis.", &a.values);
}

fn sampler_mask(s: &SamplerDef) -> u32 {
    let field = (1u32 << s.addressing.bits) - 1;
    s.addressing.axes.0.iter().fold(1 << s.filter.bit, |m, (_, shift)| m | field << shift)
}

fn gen_component(d: &ImagesDef, o: &mut String) {
    o.push_str("/// How an image format keeps each stored component.\n");
    o.push_str("#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]\npub enum ImageComponent {\n");
    for (n, b) in &d.component_bytes.0 {
        writeln!(o, "    /// `{n}`: {b} byte(s) per component.\n    {},", crate::gen::camel(n)).unwrap();
    }
    o.push_str("}\nimpl ImageComponent {\n    /// Bytes of one stored component.\n");
    o.push_str("    pub const fn bytes(self) -> u32 {\n        match self {\n");
    for (n, b) in &d.component_bytes.0 {
        writeln!(o, "            ImageComponent::{} => {b},", crate::gen::camel(n)).unwrap();
    }
    o.push_str("        }\n    }\n}\n\n");
}

fn gen_formats(d: &ImagesDef, o: &mut String) {
    let fs = &d.formats.0;
    o.push_str("/// An image format (descriptor word D6).\n");
    o.push_str("#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]\npub enum ImageFormat {\n");
    for (n, f) in fs {
        writeln!(o, "    /// `{n}` (code {}): {}.\n    {} = {},", f.code, f.doc, crate::gen::camel(n), f.code).unwrap();
    }
    o.push_str("}\n");
    o.push_str("/// The facts of one image format.\n#[derive(Clone, Copy, Debug, PartialEq, Eq)]\n");
    o.push_str("pub struct ImageFormatInfo {\n    /// The name assembly and tools use.\n    pub name: &'static str,\n");
    o.push_str("    /// How each stored component is kept.\n    pub component: ImageComponent,\n");
    o.push_str("    /// Stored components, in r g b a order (1 or 4).\n    pub channels: u32,\n");
    o.push_str("    /// Texel size B in bytes.\n    pub bytes: u32,\n");
    o.push_str("    /// The 32-bit values returned for g, b, a when the format has one channel.\n");
    o.push_str("    pub absent: [u32; 3],\n}\n");
    writeln!(o, "/// The image formats of `images.formats`, indexed by code.").unwrap();
    writeln!(o, "pub static IMAGE_FORMATS: [ImageFormatInfo; {}] = [", fs.len()).unwrap();
    for (n, f) in fs {
        let absent = f.absent.clone().unwrap_or_else(|| vec![0, 0, 0]);
        writeln!(
            o,
            "  ImageFormatInfo {{ name: {n:?}, component: ImageComponent::{}, channels: {}, bytes: {}, absent: {:?} }},",
            crate::gen::camel(&f.component),
            f.channels,
            f.bytes,
            absent
        )
        .unwrap();
    }
    o.push_str("];\nimpl ImageFormat {\n    /// Every format, by code.\n");
    let all: Vec<String> = fs.iter().map(|(n, _)| format!("ImageFormat::{}", crate::gen::camel(n))).collect();
    writeln!(o, "    pub const ALL: [ImageFormat; {}] = [{}];", fs.len(), all.join(", ")).unwrap();
    o.push_str("    /// The format of code `c` (D6), or `None` for a code no format has.\n");
    o.push_str("    pub fn from_code(c: u32) -> Option<Self> {\n        Self::ALL.get(c as usize).copied()\n    }\n");
    o.push_str("    /// The format's code (D6).\n    pub const fn code(self) -> u32 {\n        self as u32\n    }\n");
    o.push_str("    /// The format's facts.\n    pub fn info(self) -> &'static ImageFormatInfo {\n");
    o.push_str("        &IMAGE_FORMATS[self as usize]\n    }\n}\n\n");
}

fn gen_value_enum(o: &mut String, ty: &str, doc: &str, values: &Ordered<u32>) {
    writeln!(o, "/// {doc}\n#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]\npub enum {ty} {{").unwrap();
    for (i, (n, v)) in values.0.iter().enumerate() {
        let default = if i == 0 { "    #[default]\n" } else { "" };
        writeln!(o, "    /// `{n}`, field value {v}.\n{default}    {} = {v},", crate::gen::camel(n)).unwrap();
    }
    writeln!(o, "}}\nimpl {ty} {{").unwrap();
    let all: Vec<String> = values.0.iter().map(|(n, _)| format!("{ty}::{}", crate::gen::camel(n))).collect();
    writeln!(o, "    /// Every value.\n    pub const ALL: [{ty}; {}] = [{}];", values.0.len(), all.join(", ")).unwrap();
    o.push_str("    /// The value of a field, or `None` for a field value no mode has.\n");
    o.push_str("    pub fn from_field(f: u32) -> Option<Self> {\n        Self::ALL.iter().copied().find(|m| *m as u32 == f)\n    }\n");
    o.push_str("    /// The YAML name.\n    pub fn name(self) -> &'static str {\n        match self {\n");
    for (n, _) in &values.0 {
        writeln!(o, "            {ty}::{} => {n:?},", crate::gen::camel(n)).unwrap();
    }
    o.push_str("        }\n    }\n}\n\n");
}
