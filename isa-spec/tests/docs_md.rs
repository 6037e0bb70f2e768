//! `docs/isa.md` is the generator's Markdown (`docs::markdown`), committed. The workspace's `tests/docs_fresh.rs`
//! checks it too, but needs the whole workspace built; this one needs only this crate, and rewrites the file with
//! `LANEJIT_BLESS=1 cargo test --release -p lanejit-isa --test docs_md` after a deliberate change to the YAML.

const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/isa.md");

#[test]
fn committed_isa_reference_matches_the_generator() {
    let fresh = lanejit_isa::docs::markdown();
    if std::env::var_os("LANEJIT_BLESS").is_some() {
        std::fs::write(PATH, &fresh).expect("write docs/isa.md");
    }
    let committed = std::fs::read_to_string(PATH).unwrap_or_default();
    assert!(
        committed == fresh,
        "docs/isa.md is stale: LANEJIT_BLESS=1 cargo test --release -p lanejit-isa --test docs_md"
    );
}

#[test]
fn the_reference_shows_directions_and_widths() {
    let md = lanejit_isa::docs::markdown();
    let row = |m: &str| md.lines().find(|l| l.starts_with(&format!("| `{m}` |"))).unwrap_or_else(|| panic!("{m}"));
    assert!(row("ld.b96").contains("`rd:out[3] rs1:in rs2:in[sp.base_regs]`"));
    assert!(row("st.b32").contains("`rd:in rs1:in rs2:in[sp.base_regs]`"));
    assert!(row("atom.cas.b32").contains("rd:inout[2,1]") && row("atom.cas.b32").contains("atomic=cas"));
    assert!(row("img.load").contains("pop(dmask)"));
    assert!(row("f.add.f32").contains("fmode `frm[rm=dyn] ftz32`") && row("f.add.f32").contains("EXEC mask"));
    assert!(row("exec.and.save").contains("EXEC read+write"));
    assert!(row("csr.rw").contains("fcsr `rw[csr=fcsr]`"));
    assert!(row("end").contains("flow end"));
    assert!(md.contains("| `ftz16` | 0x10 |"));
    assert!(md.contains("coords: 1d=1 2d=2 3d=3 1d_array=2 2d_array=3"));
}
