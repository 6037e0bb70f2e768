//! Reference documentation generated from the tables: `lanejit spec` and the committed `docs/isa.md`.

use crate::{Flow, InsnInfo, KindClass, FLAG_NAMES, FLOAT_MODES, FORMATS, GROUPS, INSNS, KINDS};
use std::fmt::Write;

/// One CSV row per instruction: `variant,format,opcode,field=value,latency,flags`
/// (e.g. `shfl.idx,R,0x2e,f4=0x0,fixed:6,xl`); `group` selects by group name or number.
pub fn csv(group: Option<&str>) -> Result<String, String> {
    let mut o = String::from("variant,format,opcode,field=value,latency,flags\n");
    for i in selected(group)? {
        writeln!(
            o,
            "{},{},{:#04x},{},{},{}",
            i.mnemonic,
            i.format().name,
            i.opcode,
            i.fn_text,
            i.latency_text,
            i.flags_text
        )
        .unwrap();
    }
    Ok(o)
}

fn selected(group: Option<&str>) -> Result<Vec<&'static crate::InsnInfo>, String> {
    let Some(g) = group else { return Ok(INSNS.iter().collect()) };
    let known = GROUPS.iter().any(|x| x.name == g || x.number.to_string() == g);
    if !known {
        let names: Vec<String> = GROUPS.iter().map(|x| format!("{} ({})", x.name, x.number)).collect();
        return Err(format!("unknown group `{g}`; groups: {}", names.join(", ")));
    }
    Ok(INSNS.iter().filter(|i| i.group_name == g || i.group.to_string() == g).collect())
}

/// The whole reference as Markdown.
pub fn markdown() -> String {
    let mut o = String::new();
    o.push_str(
        "# lanejit ISA reference\n\nGenerated from `isa-spec/*.yaml` by `lanejit spec --format md`; do not edit \
        (a test keeps this file equal to the generator's output).\n\n",
    );
    formats_md(&mut o);
    kinds_md(&mut o);
    facts_md(&mut o);
    images_md(&mut o);
    for g in GROUPS.iter() {
        // Every group's title starts "Group N:" and names its unit.
        writeln!(o, "## {} (`{}`)\n", g.title, g.name).unwrap();
        o.push_str("| mnemonic | syntax | format | opcode | fixed | latency | flags | registers and state | semantics |\n|---|---|---|---|---|---|---|---|---|\n");
        for i in INSNS.iter().filter(|i| i.group == g.number) {
            // English only: a seed's own `sem` (Chinese notes) stays in the YAML; formulas are shown.
            let sem =
                if i.sem.is_empty() || !i.sem.is_ascii() { i.en.to_string() } else { format!("{}<br>{}", i.sem, i.en) };
            writeln!(
                o,
                "| `{}` | `{}` | {} | {:#04x} | `{}` | {} | {} | {} | {} |",
                i.mnemonic,
                i.syntax,
                i.format().name,
                i.opcode,
                i.fn_text,
                i.latency_text,
                i.flags_text,
                facts_cell(i),
                sem.replace('|', "\\|")
            )
            .unwrap();
        }
        o.push('\n');
    }
    o
}

/// The `images:` section: formats, descriptor words, sampler bits.
fn images_md(o: &mut String) {
    use crate::{ImageAddressing, ImageFilter, IMAGE_ADDRESSING_SHIFTS, IMAGE_DESCRIPTOR, IMAGE_FILTER_BIT};
    writeln!(
        o,
        "## Images\n\nUsed sizes (width, height, depth or layer count) are 1..={}. \
        Formats (descriptor word D6):\n\n| code | format | component | channels | texel bytes | g b a of one channel |\n|---|---|---|---|---|---|",
        crate::IMAGE_MAX_SIZE
    )
    .unwrap();
    for (code, f) in crate::IMAGE_FORMATS.iter().enumerate() {
        let absent = if f.channels == 1 { f.absent.map(|x| format!("{x:#x}")).join(" ") } else { "-".into() };
        writeln!(o, "| {code} | {} | {:?} | {} | {} | {absent} |", f.name, f.component, f.channels, f.bytes).unwrap();
    }
    o.push_str("\nDescriptor words (u[rs3..rs3+7]):\n\n| word | name | meaning |\n|---|---|---|\n");
    for (k, (name, doc)) in IMAGE_DESCRIPTOR.iter().enumerate() {
        writeln!(o, "| D{k} | {name} | {doc} |").unwrap();
    }
    let filters: Vec<String> = ImageFilter::ALL.iter().map(|f| format!("{} {}", *f as u32, f.name())).collect();
    let modes: Vec<String> = ImageAddressing::ALL.iter().map(|m| format!("{} {}", *m as u32, m.name())).collect();
    writeln!(
        o,
        "\nSampler (D7): bit {IMAGE_FILTER_BIT} filter ({}); addressing of x, y, z from bits {:?} ({}); other bits 0.\n",
        filters.join(", "),
        IMAGE_ADDRESSING_SHIFTS,
        modes.join(", ")
    )
    .unwrap();
}

fn formats_md(o: &mut String) {
    o.push_str("## Encoding formats\n\nBit ranges are `[msb:lsb]`. Bits that are neither an operand nor a fixed field \
        must be zero. Bit 0 of the opcode gives the length (even: 32-bit, odd: 64-bit).\n\n| format | width | fields (high to low) | use |\n|---|---|---|---|\n");
    for f in FORMATS.iter() {
        writeln!(o, "| {} | {} | `{}` | {} |", f.name, f.width, f.bits, f.en).unwrap();
    }
    o.push('\n');
}

fn kinds_md(o: &mut String) {
    o.push_str("## Operand kinds\n\n| kind | class | bits | default | values | meaning |\n|---|---|---|---|---|---|\n");
    for k in KINDS.iter() {
        let mut values: Vec<String> = k.values.iter().map(|(n, v)| format!("{n}={v}")).collect();
        for (p, table) in k.props {
            let t: Vec<String> =
                table.iter().map(|(raw, x)| format!("{}={x}", k.value_name(*raw as u32).unwrap_or("?"))).collect();
            values.push(format!("<br>{p}: {}", t.join(" ")));
        }
        let default = match (k.default, k.class) {
            (None, _) => String::new(),
            (Some(d), KindClass::Enum) => k.value_name(d).unwrap_or("?").to_string(),
            (Some(d), _) => d.to_string(),
        };
        writeln!(o, "| `{}` | {:?} | {} | {default} | {} | {} |", k.name, k.class, k.bits, values.join(" "), k.doc)
            .unwrap();
    }
    o.push_str("\n## Flags\n\n| flag | meaning |\n|---|---|\n");
    for (n, d) in FLAG_NAMES.iter() {
        writeln!(o, "| `{n}` | {d} |").unwrap();
    }
    o.push('\n');
}

/// The register and state facts of one instruction, for its table row.
fn facts_cell(i: &InsnInfo) -> String {
    let mut parts = Vec::new();
    if !i.regs_text.is_empty() {
        parts.push(format!("`{}`", i.regs_text));
    }
    let e = i.exec;
    let exec: Vec<&str> =
        [(e.masked, "mask"), (e.reads, "read"), (e.writes, "write"), (e.active_reads, "active lanes only")]
            .iter()
            .filter(|x| x.0)
            .map(|x| x.1)
            .collect();
    if !exec.is_empty() {
        parts.push(format!("EXEC {}", exec.join("+")));
    }
    if !i.fmode_text.is_empty() {
        parts.push(format!("fmode `{}`", i.fmode_text));
    }
    if !i.fcsr_text.is_empty() {
        parts.push(format!("fcsr `{}`", i.fcsr_text));
    }
    if i.flow != Flow::None {
        parts.push(format!("flow {}", i.flow.name()));
    }
    if !i.access_text.is_empty() {
        parts.push(format!("access `{}`", i.access_text));
    }
    parts.join("<br>").replace('|', "\\|")
}

fn facts_md(o: &mut String) {
    o.push_str(
        "## Registers and state\n\nEach instruction's row lists, from its YAML entry: `regs`, the direction of every \
        register operand (`in`, `out`, `inout`) and, in brackets, the registers of its group when not the kind's \
        (1, or 2 for a pair kind): a number, `[read,written]` for an inout operand whose two differ, or a formula \
        over other operands (`pop(dmask)` counts components, `dim.coords` is a property of the operand kinds table, \
        `c ? a : b`, `/` rounds down). A masked vector write keeps the lanes outside EXEC without being `inout`. \
        EXEC: `mask` (acts only in enabled lanes), `read` (reads it as a value), `write`. `fmode`: the fcsr fields \
        the result depends on, `[operand=value]` when only for that value. `fcsr`: other reads (`r`) and writes \
        (`w`) of fcsr. `flow`: control-flow kind (absent: none). `access`: size per lane (per wave for uniform \
        memory), `data` operand, `space`, `align` (default natural), `atomic` operation.\n\n\
        | float mode | fcsr bits | meaning |\n|---|---|---|\n",
    );
    for m in FLOAT_MODES.iter() {
        writeln!(o, "| `{}` | {:#x} | {} |", m.name, m.fcsr_mask, m.doc).unwrap();
    }
    o.push('\n');
}
