//! The kernels of `tests/check_dyn/` by name, shared by the dynamic checker tests (`#[path]`-included).

/// The source of `tests/check_dyn/NAME.s`.
pub fn source(name: &str) -> String {
    let path = format!("{}/tests/check_dyn/{name}.s", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The 1-based line of `name`'s source marked `PLANTED`, if it has one (fixed twins do not).
pub fn planted_line(name: &str) -> Option<u64> {
    source(name).lines().position(|l| l.contains("PLANTED")).map(|i| i as u64 + 1)
}
