//! Reads the YAML ISA (`formats.yaml`, `operand_kinds.yaml`, `groups/*.yaml`), checks it, and writes the
//! generated tables and enums to `$OUT_DIR/isa_generated.rs`. Any mistake in the spec stops the build with a
//! message naming the file and entry.

#[path = "build/gen.rs"]
mod gen;
#[path = "build/model.rs"]
mod model;

use model::*;
use std::path::{Path, PathBuf};

fn main() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    println!("cargo:rerun-if-changed=formats.yaml");
    println!("cargo:rerun-if-changed=operand_kinds.yaml");
    println!("cargo:rerun-if-changed=groups");
    println!("cargo:rerun-if-changed=build");
    match build(&dir) {
        Ok(code) => {
            let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("isa_generated.rs");
            std::fs::write(out, code).expect("write generated code");
        }
        Err(e) => {
            eprintln!("error in the ISA spec: {e}");
            println!("cargo:warning=ISA spec error: {e}");
            std::process::exit(1);
        }
    }
}

fn parse_yaml<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, String> {
    serde_saphyr::from_str(&read(path)).map_err(|e| format!("{}: {e}", path.display()))
}

fn build(dir: &Path) -> Result<String, String> {
    let ff: FormatsFile = parse_yaml(&dir.join("formats.yaml"))?;
    let formats = ff.formats.0.iter().map(|(n, d)| parse_format(n, d)).collect::<Result<Vec<_>, _>>()?;
    let kf: KindsFile = parse_yaml(&dir.join("operand_kinds.yaml"))?;
    let kinds = kf.operand_kinds.0.iter().map(|(n, d)| check_kind(n, d)).collect::<Result<Vec<_>, _>>()?;
    let flags = kf.flags.0;
    let counters = kf.counters;

    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("groups"))
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    let mut groups = Vec::new();
    let mut insns = Vec::new();
    for path in &files {
        let file = format!("groups/{}", path.file_name().unwrap().to_string_lossy());
        let g: GroupFile = parse_yaml(path)?;
        if groups.iter().any(|(n, name, _, _): &(u32, String, String, String)| *n == g.group || *name == g.name) {
            return Err(format!("{file}: group {} `{}` is defined twice", g.group, g.name));
        }
        groups.push((g.group, g.name.clone(), g.title.clone(), g.unit.clone()));
        for def in &g.instructions {
            let id = insns.len();
            insns.push(resolve_insn(id, &file, &g, def, &formats, &kinds, &flags, &counters)?);
        }
    }
    check_overlaps(&insns)?;
    for f in &formats {
        if !insns.iter().any(|i| i.def.format == f.name) {
            println!("cargo:warning=format {} is not used by any instruction yet", f.name);
        }
    }
    let m = gen::Model {
        formats: &formats,
        kinds: &kinds,
        flags: &flags,
        counters: &counters,
        groups: &groups,
        insns: &insns,
    };
    Ok(gen::generate(&m))
}
