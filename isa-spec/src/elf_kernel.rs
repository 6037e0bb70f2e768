//! Kernels as ELF files (`lanejit asm -o k.elf`), so that standard tools can read them:
//!
//! - an ELF64 little-endian relocatable file (`ET_REL`) for machine [`ELF_MACHINE`] (0x4c4a, "LJ": no
//!   architecture is registered for this ISA, and this value is far from the assigned ones);
//! - per kernel, the code in `.text.<kernel name>` (allocated, executable, 4-byte aligned), little-endian 32-bit
//!   words, and a global `FUNC` symbol named after the kernel, covering its code (`readelf -s`);
//! - the metadata as one line of JSON per kernel in `.lanejit.meta` (`readelf -p .lanejit.meta`): name,
//!   workgroup, shared bytes, argument bytes, private bytes per lane, and the format version.
//!
//! A file may hold several kernels (a module, `assemble_module`); [`read`] takes a file of one.
//!
//! The reader takes the metadata section, checks it as the `LJK1` reader does (`KernelMeta::validate`, the size
//! limits), then the code section it names; every malformed input is a [`ContainerError`], never a panic.

use crate::asm::{KernelMeta, Program};
use crate::container::{check_code_len, words, ContainerError};
use object::build::elf::{Builder, SectionData};
use object::{elf, Endianness};
use std::collections::{BTreeMap, HashMap, HashSet};

/// The ELF `e_machine` of lanejit kernels.
pub const ELF_MACHINE: u16 = 0x4c4a;
/// The ELF magic: a file starting with it is read as an ELF kernel.
pub const ELF_MAGIC: [u8; 4] = *b"\x7fELF";
/// The metadata section's name.
pub const META_SECTION: &str = ".lanejit.meta";
/// Kernel names an error about a module lists (then `…`).
const NAMES_LISTED: usize = 10;
/// Version of the metadata layout.
const FORMAT_VERSION: u32 = 1;

#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Meta {
    format: u32,
    name: String,
    workgroup: [u32; 3],
    shared_bytes: u32,
    arg_bytes: u32,
    private_bytes: u32,
}

fn text_section(name: &str) -> String {
    format!(".text.{name}")
}

/// The ELF file of a program (labels are not stored).
pub fn write(p: &Program) -> Vec<u8> {
    write_all(std::slice::from_ref(p))
}

/// The ELF file of several programs (a module; names are the caller's to keep distinct, and valid as
/// `KernelMeta::validate` checks them: an ELF string table cannot hold a NUL).
pub fn write_all(programs: &[Program]) -> Vec<u8> {
    let mut meta_json = Vec::new();
    for p in programs {
        let m = &p.meta;
        let meta = Meta {
            format: FORMAT_VERSION,
            name: m.name.clone(),
            workgroup: m.workgroup,
            shared_bytes: m.shared_bytes,
            arg_bytes: m.arg_bytes,
            private_bytes: m.private_bytes,
        };
        meta_json.extend(serde_json::to_vec(&meta).expect("plain fields serialise"));
        meta_json.push(b'\n');
    }
    let codes: Vec<Vec<u8>> = programs.iter().map(|p| p.words.iter().flat_map(|w| w.to_le_bytes()).collect()).collect();
    let text_names: Vec<String> = programs.iter().map(|p| text_section(&p.meta.name)).collect();

    let mut b = Builder::new(Endianness::Little, true);
    b.header.e_type = elf::ET_REL;
    b.header.e_machine = elf::Machine(ELF_MACHINE);
    let shstrtab = b.sections.add();
    shstrtab.name = b".shstrtab"[..].into();
    shstrtab.sh_type = elf::SHT_STRTAB;
    shstrtab.data = SectionData::SectionString;
    let mut text_ids = Vec::new();
    for (name, code) in text_names.iter().zip(&codes) {
        let text = b.sections.add();
        text.name = name.as_bytes().into();
        text.sh_type = elf::SHT_PROGBITS;
        text.sh_flags = elf::SHF_ALLOC | elf::SHF_EXECINSTR;
        text.sh_addralign = 4;
        text.data = SectionData::Data(code.as_slice().into());
        text_ids.push(text.id());
    }
    let meta_section = b.sections.add();
    meta_section.name = META_SECTION.as_bytes().into();
    meta_section.sh_type = elf::SHT_PROGBITS;
    meta_section.sh_addralign = 1;
    meta_section.data = SectionData::Data(meta_json.as_slice().into());
    let strtab = b.sections.add();
    strtab.name = b".strtab"[..].into();
    strtab.sh_type = elf::SHT_STRTAB;
    strtab.data = SectionData::String;
    let strtab_id = strtab.id();
    let symtab = b.sections.add();
    symtab.name = b".symtab"[..].into();
    symtab.sh_type = elf::SHT_SYMTAB;
    symtab.sh_addralign = 8;
    symtab.sh_link_section = Some(strtab_id);
    symtab.data = SectionData::Symbol;
    // A symbol of a section at index SHN_LORESERVE (0xff00) or above keeps the index in `.symtab_shndx` (the
    // text sections are at indices 2 up: a module of 65,279 kernels or more needs it).
    if programs.len() + 1 >= elf::SHN_LORESERVE as usize {
        let shndx = b.sections.add();
        shndx.name = b".symtab_shndx"[..].into();
        shndx.sh_type = elf::SHT_SYMTAB_SHNDX;
        shndx.sh_addralign = 4;
        shndx.data = SectionData::SymbolSectionIndex;
    }
    for ((p, code), id) in programs.iter().zip(&codes).zip(text_ids) {
        let sym = b.symbols.add();
        sym.name = p.meta.name.as_bytes().into();
        sym.section = Some(id);
        sym.set_st_info(elf::STB_GLOBAL, elf::STT_FUNC);
        sym.st_size = code.len() as u64;
    }
    let mut out = Vec::new();
    // Names hold no NUL (`KernelMeta::validate`, the assembler), so the string tables take them.
    b.write(&mut out).expect("an ELF of data sections and their symbols always writes");
    out
}

fn bad(msg: impl Into<String>) -> ContainerError {
    ContainerError::BadMeta(msg.into())
}

/// Reads an ELF file of one kernel, written by [`write()`] (or any ELF with the same sections and metadata).
pub fn read(bytes: &[u8]) -> Result<Program, ContainerError> {
    let mut all = read_all(bytes)?;
    if all.len() != 1 {
        // A module may hold 100,000 kernels: the message names the first few.
        let mut names: Vec<&str> = all.iter().take(NAMES_LISTED).map(|p| p.meta.name.as_str()).collect();
        if all.len() > NAMES_LISTED {
            names.push("…");
        }
        return Err(bad(format!("the file holds {} kernels ({}): load it as a module", all.len(), names.join(", "))));
    }
    Ok(all.remove(0))
}

/// Reads every kernel of an ELF file, in the order of its metadata lines.
///
/// Every metadata line is read and checked, and its code section found and measured, before any code is copied:
/// a kernel named twice, or code sections that together exceed the file (section headers may overlap), are
/// refused first, so a small file cannot ask for gigabytes (1,000 lines naming one 4 MiB section once took
/// 4.1 GB). Sections are looked up by name in a map, so a module of 128k kernels loads in linear time.
pub fn read_all(bytes: &[u8]) -> Result<Vec<Program>, ContainerError> {
    let b = Builder::read64(bytes).map_err(|e| bad(format!("not a readable ELF64 file: {e}")))?;
    if b.header.e_machine != elf::Machine(ELF_MACHINE) {
        return Err(bad(format!(
            "ELF machine {:#x} is not a lanejit kernel's ({ELF_MACHINE:#x})",
            b.header.e_machine.0
        )));
    }
    // The first section of a name wins, as a search in file order would find it.
    let mut by_name: HashMap<&[u8], &SectionData> = HashMap::new();
    for s in b.sections.iter() {
        by_name.entry(s.name.as_slice()).or_insert(&s.data);
    }
    let data = |name: &str| match by_name.get(name.as_bytes()) {
        None => Err(bad(format!("no {name} section"))),
        Some(SectionData::Data(d)) => Ok(d.as_slice()),
        Some(_) => Err(bad(format!("section {name} holds no data"))),
    };
    let metas = data(META_SECTION)?;
    let lines = metas.split(|&c| c == b'\n').filter(|l| !l.is_empty());
    let kernels = lines.map(|line| kernel(line, &data)).collect::<Result<Vec<_>, _>>()?;
    check_kernels(&kernels, bytes.len())?;
    Ok(kernels.into_iter().map(|(meta, code)| Program { words: words(code), labels: BTreeMap::new(), meta }).collect())
}

/// Checks the kernels of a file of `file_bytes` bytes before their code is copied: at least one, each name once,
/// and code sections that fit in the file together.
fn check_kernels(kernels: &[(KernelMeta, &[u8])], file_bytes: usize) -> Result<(), ContainerError> {
    if kernels.is_empty() {
        return Err(bad(format!("{META_SECTION} names no kernel")));
    }
    let mut names: HashSet<&str> = HashSet::with_capacity(kernels.len());
    for (meta, _) in kernels {
        if !names.insert(&meta.name) {
            return Err(bad(format!("{META_SECTION} names kernel `{}` twice", meta.name)));
        }
    }
    let code_bytes = kernels.iter().fold(0usize, |sum, (_, code)| sum.saturating_add(code.len()));
    if code_bytes > file_bytes {
        return Err(bad(format!(
            "the kernels' code sections take {code_bytes} bytes, more than the file's {file_bytes} (sections overlap)"
        )));
    }
    Ok(())
}

/// One metadata line, checked, with its code section (checked for size, not yet copied).
fn kernel<'a>(
    line: &[u8],
    data: &impl Fn(&str) -> Result<&'a [u8], ContainerError>,
) -> Result<(KernelMeta, &'a [u8]), ContainerError> {
    let meta: Meta = serde_json::from_slice(line).map_err(|e| bad(format!("{META_SECTION}: {e}")))?;
    if meta.format != FORMAT_VERSION {
        return Err(bad(format!("{META_SECTION} format {} (this lanejit reads {FORMAT_VERSION})", meta.format)));
    }
    let code = data(&text_section(&meta.name))?;
    check_code_len(code.len())?;
    let meta = KernelMeta {
        name: meta.name,
        workgroup: meta.workgroup,
        shared_bytes: meta.shared_bytes,
        arg_bytes: meta.arg_bytes,
        private_bytes: meta.private_bytes,
    };
    meta.validate().map_err(ContainerError::BadMeta)?;
    Ok((meta, code))
}
