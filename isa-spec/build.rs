//! Reads the YAML ISA (`formats.yaml`, `operand_kinds.yaml`, `groups/*.yaml`), checks it, and writes the
//! generated tables and enums to `$OUT_DIR/isa_generated.rs`. Any mistake in the spec stops the build with a
//! message naming the file and entry.

#[path = "src/expr.rs"]
mod expr;
#[path = "build/facts.rs"]
mod facts;
#[path = "build/gen.rs"]
mod gen;
#[path = "build/gen_docs.rs"]
mod gen_docs;
#[path = "build/images.rs"]
mod images;
#[path = "build/model.rs"]
mod model;
// The YAML words the library's enums spell (shared with the library; not every method is needed here).
#[allow(dead_code)]
#[path = "src/vocab.rs"]
mod vocab;

use std::path::PathBuf;

fn main() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    println!("cargo:rerun-if-changed=formats.yaml");
    println!("cargo:rerun-if-changed=operand_kinds.yaml");
    println!("cargo:rerun-if-changed=groups");
    println!("cargo:rerun-if-changed=build");
    println!("cargo:rerun-if-changed=src/expr.rs");
    println!("cargo:rerun-if-changed=src/vocab.rs");
    match model::load(&dir) {
        Ok(spec) if spec.images.is_none() => {
            eprintln!("error in the ISA spec: no group file has the `images:` section");
            std::process::exit(1);
        }
        Ok(spec) => {
            for f in &spec.formats {
                if !spec.insns.iter().any(|i| i.def.format == f.name) {
                    println!("cargo:warning=format {} is not used by any instruction yet", f.name);
                }
            }
            let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());
            // Written to a new file and renamed over the old one, never rewritten in place: a target directory
            // whose files are hard links shared with another checkout's (`cp -l`) must not have the other
            // checkout's generated code changed under it, nor get it back from that checkout's builds.
            let tmp = out_dir.join("isa_generated.rs.tmp");
            let _ = std::fs::remove_file(&tmp);
            std::fs::write(&tmp, gen::generate(&spec)).expect("write generated code");
            std::fs::rename(&tmp, out_dir.join("isa_generated.rs")).expect("move generated code into place");
        }
        Err(e) => {
            eprintln!("error in the ISA spec: {e}");
            println!("cargo:warning=ISA spec error: {e}");
            std::process::exit(1);
        }
    }
}
