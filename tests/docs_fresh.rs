//! `docs/isa.md` is generated from the YAML; this test keeps the committed copy fresh.
//! Regenerate with `cargo run --release -- spec > docs/isa.md`.

#[test]
fn committed_isa_reference_matches_the_generator() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/isa.md");
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    let fresh = lanejit_isa::docs::markdown();
    assert!(committed == fresh, "docs/isa.md is stale: run `cargo run --release -- spec > docs/isa.md`");
}

#[test]
fn spec_csv_lists_every_xlane_variant_in_the_documented_shape() {
    let csv = lanejit_isa::docs::csv(Some("xlane")).unwrap();
    assert!(csv.lines().any(|l| l == "shfl.idx,R,0x2e,f4=0x0,fixed:6,xl"));
    assert_eq!(csv.lines().count(), 1 + 37);
    assert!(lanejit_isa::docs::csv(Some("nosuch")).is_err());
}
