//! The disassembler: [`Program`] → assembly text that reassembles to the same bytes. Table-driven, like
//! the assembler: operands are printed by kind class, keyword operands equal to their default are left out,
//! source modifiers are printed on their register (`-v2`, `|v2|`, `-|v2|`).
//!
//! Layout: the metadata directives, then per instruction its label lines (the program's own labels, and
//! `L_0040:` for every pc-relative target inside the code), `    <text>` padded, and a comment
//! `; 0040: 0x11223344 0x55667788` with the address and raw words. A word that does not decode prints as
//! `.word 0x…  ; 0040: illegal: <reason>`, and decoding resumes at the next word. A module lists its kernels one
//! after the other ([`disassemble_module`]), each from its `.kernel` line.

use crate::asm::{bare_candidates, is_ident, is_keyword, modifier_bit, modifier_operand, quote_name, Program};
use crate::codec::decode_at;
use crate::meta::*;
use crate::Insn;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt::Write;

/// Column where the address comment starts.
const COMMENT_COL: usize = 40;

enum Item {
    Insn(Insn, usize),
    Illegal(String),
}

/// Disassembles a whole program, metadata first.
pub fn disassemble(p: &Program) -> String {
    let code = &p.words;
    let mut items: Vec<(usize, Item)> = Vec::new();
    let mut at = 0;
    while at < code.len() {
        match decode_at(code, at) {
            Ok((insn, len)) => match unprintable(&insn) {
                None => {
                    items.push((at, Item::Insn(insn, len)));
                    at += len;
                }
                Some(reason) => {
                    items.push((at, Item::Illegal(reason)));
                    at += 1;
                }
            },
            Err(e) => {
                items.push((at, Item::Illegal(e.reason.to_string())));
                at += 1;
            }
        }
    }
    let end = (code.len() * 4) as u64;
    // Labels can only stand where a line starts: at an item or at the end of the code.
    let bounds: BTreeSet<u64> = items.iter().map(|(a, _)| (*a * 4) as u64).chain([end]).collect();
    let mut names: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    let mut used: HashSet<String> = HashSet::new();
    for (name, &addr) in &p.labels {
        if is_ident(name) && bounds.contains(&(addr as u64)) {
            names.entry(addr).or_default().push(name.clone());
            used.insert(name.clone());
        }
    }
    for (at, item) in &items {
        let Item::Insn(insn, _) = item else { continue };
        let vals = insn.operand_values();
        for (op, &v) in insn.id().info().operands.iter().zip(vals.as_slice()) {
            let target = (*at * 4) as i64 + v;
            if op.kind().class != KindClass::PcRel || target < 0 || !bounds.contains(&(target as u64)) {
                continue;
            }
            let entry = names.entry(target as u32).or_default();
            if entry.is_empty() {
                let base = format!("L_{target:04x}");
                let mut name = base.clone();
                let mut n = 1;
                while used.contains(&name) {
                    name = format!("{base}_{n}");
                    n += 1;
                }
                used.insert(name.clone());
                entry.push(name);
            }
        }
    }
    let first: BTreeMap<u32, String> = names.iter().map(|(a, v)| (*a, v[0].clone())).collect();

    let m = &p.meta;
    let mut out = String::new();
    let _ = writeln!(out, ".kernel {}", quote_name(&m.name));
    let _ = writeln!(out, ".workgroup {}, {}, {}", m.workgroup[0], m.workgroup[1], m.workgroup[2]);
    let _ = writeln!(out, ".shared {}", m.shared_bytes);
    let _ = writeln!(out, ".args {}", m.arg_bytes);
    let _ = writeln!(out, ".private {}", m.private_bytes);
    let label_lines = |out: &mut String, addr: u64| {
        if let Some(v) = u32::try_from(addr).ok().and_then(|a| names.get(&a)) {
            for n in v {
                let _ = writeln!(out, "{n}:");
            }
        }
    };
    for (at, item) in &items {
        let pc = (*at * 4) as u32;
        label_lines(&mut out, pc as u64);
        let (text, comment) = match item {
            Item::Insn(insn, len) => {
                let raw: Vec<String> = code[*at..*at + len].iter().map(|w| format!("{w:#010x}")).collect();
                (format_insn(insn, pc, &first), raw.join(" "))
            }
            Item::Illegal(reason) => (format!(".word {:#010x}", code[*at]), format!("illegal: {reason}")),
        };
        let _ = writeln!(out, "    {text:<w$} ; {pc:04x}: {comment}", w = COMMENT_COL - 4);
    }
    label_lines(&mut out, end);
    out
}

/// Disassembles every kernel of a module (an ELF file's, `elf_kernel::read_all`), in order, each under its own
/// `.kernel` line: the text reassembles (`assemble_module`) to the same kernels, code and metadata, so
/// `lanejit asm` writes the same file again. Labels are per kernel there, as the assembler scopes them.
pub fn disassemble_module(programs: &[Program]) -> String {
    let listings: Vec<String> = programs.iter().map(disassemble).collect();
    listings.join("\n")
}

/// Why a decoded instruction cannot be written in assembly (so it prints as `.word`): a value the
/// assembler rejects although the decoder accepts it.
fn unprintable(insn: &Insn) -> Option<String> {
    let info = insn.id().info();
    let vals = insn.operand_values();
    for (op, &v) in info.operands.iter().zip(vals.as_slice()) {
        let k = op.kind();
        match k.class {
            KindClass::DMask if v == 0 => return Some(format!("{}: dmask 0 names no component", info.mnemonic)),
            KindClass::Enum if k.value_name(v as u32).is_none() => {
                return Some(format!("{}: operand {} has no value {v}", info.mnemonic, op.name))
            }
            _ => {}
        }
    }
    None
}

/// One instruction as assembly text. `labels` maps byte addresses to names for pc-relative operands
/// (targets without a name print as a signed byte offset, `+8`).
pub fn format_insn(insn: &Insn, pc: u32, labels: &BTreeMap<u32, String>) -> String {
    let info = insn.id().info();
    let vals = insn.operand_values();
    let vals = vals.as_slice();
    let mods = [false, true].map(|abs| modifier_operand(info, abs).map_or(0, |i| vals[i]));
    let mut shown = [0i64; 2];
    let mut parts: Vec<String> = Vec::new();
    for (i, op) in info.operands.iter().enumerate() {
        if is_keyword(op) {
            continue;
        }
        let mut s = format_value(op, vals[i], pc, labels);
        if let Some(bit) = modifier_bit(op) {
            if mods[1] >> bit & 1 != 0 {
                s = format!("|{s}|");
                shown[1] |= 1 << bit;
            }
            if mods[0] >> bit & 1 != 0 {
                s = format!("-{s}");
                shown[0] |= 1 << bit;
            }
        }
        parts.push(s);
    }
    for (i, op) in info.operands.iter().enumerate() {
        let k = op.kind();
        let Some(default) = k.default else { continue };
        let v = vals[i];
        if k.class == KindClass::SrcMod {
            // Bits that name no register operand of this instruction can only be written as a keyword.
            let abs = modifier_operand(info, true) == Some(i);
            let rest = v & !shown[abs as usize];
            if rest != 0 {
                parts.push(format!("{}={rest:#x}", op.name));
            }
            continue;
        }
        if v == k.decode_value(default) {
            continue;
        }
        let bare = |word: &str| bare_candidates(info, word) == [i];
        parts.push(match k.class {
            KindClass::Flag if v == 1 && bare(op.name) => op.name.to_string(),
            KindClass::Enum => match k.value_name(v as u32) {
                Some(name) if bare(name) => name.to_string(),
                _ => format!("{}={}", op.name, format_value(op, v, pc, labels)),
            },
            _ => format!("{}={}", op.name, format_value(op, v, pc, labels)),
        });
    }
    if parts.is_empty() {
        info.mnemonic.to_string()
    } else {
        format!("{} {}", info.mnemonic, parts.join(", "))
    }
}

/// An operand value in assembly syntax, by kind class.
fn format_value(op: &OperandInfo, v: i64, pc: u32, labels: &BTreeMap<u32, String>) -> String {
    let k = op.kind();
    match k.class {
        KindClass::VReg | KindClass::UReg => {
            let p = if k.class == KindClass::VReg { 'v' } else { 'u' };
            if k.pair {
                format!("{p}{v}:{p}{}", v + 1)
            } else {
                format!("{p}{v}")
            }
        }
        KindClass::VHalf => format!("v{}.{}", v & 0x7f, if v & 0x80 != 0 { 'h' } else { 'l' }),
        KindClass::SImm | KindClass::SrcMod => v.to_string(),
        KindClass::UImm => {
            if v <= 0xffff {
                v.to_string()
            } else {
                format!("{v:#x}")
            }
        }
        KindClass::Bits => {
            let s = v as u32 as i32;
            if (-0x10000..=0xffff).contains(&(s as i64)) {
                s.to_string()
            } else {
                format!("{:#010x}", v as u32)
            }
        }
        KindClass::PcRel => {
            let target = pc as i64 + v;
            match u32::try_from(target).ok().and_then(|t| labels.get(&t)) {
                Some(name) => name.clone(),
                None => format!("{v:+}"),
            }
        }
        KindClass::Enum => k.value_name(v as u32).map_or_else(|| v.to_string(), str::to_string),
        KindClass::Flag => v.to_string(),
        KindClass::DMask => "rgba".chars().enumerate().filter(|(b, _)| v >> b & 1 != 0).map(|(_, c)| c).collect(),
    }
}
