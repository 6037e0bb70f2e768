//! The README's Rust example is the crate's doc-test (which `cargo test` runs), word for word: the README cannot
//! show code that no longer compiles.

fn fenced(text: &str, lang: &str) -> String {
    let open = format!("```{lang}\n");
    let start = text.find(&open).unwrap_or_else(|| panic!("no ```{lang} block")) + open.len();
    let len = text[start..].find("```\n").expect("closing fence");
    text[start..start + len].to_string()
}

#[test]
fn the_readme_rust_example_is_the_crate_doc_test() {
    let root = env!("CARGO_MANIFEST_DIR");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    let lib = std::fs::read_to_string(format!("{root}/src/lib.rs")).unwrap();
    let doc: String = lib
        .lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .map(|l| format!("{}\n", l.strip_prefix(' ').unwrap_or(l)))
        .collect();
    let doc_test = fenced(&doc, "");
    assert_eq!(fenced(&readme, "rust"), doc_test, "README.md's ```rust block differs from src/lib.rs's doc-test");
}
