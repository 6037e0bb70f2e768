//! The committed header `include/lanejit.h` is what cbindgen makes of the current `src/lib.rs`: a change to the
//! ABI that forgot to regenerate it fails here. Needs `cbindgen` 0.29.4 on PATH (`.ci/run` installs it).

use std::path::Path;
use std::process::Command;

#[test]
fn the_committed_header_is_fresh() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fresh = std::env::temp_dir().join(format!("lanejit-header-{}.h", std::process::id()));
    let out = Command::new("cbindgen")
        .current_dir(dir)
        .args(["--config", "cbindgen.toml", "--quiet", "--output"])
        .arg(&fresh)
        .output()
        .unwrap_or_else(|e| panic!("cannot run cbindgen ({e}): cargo install cbindgen --version 0.29.4 --locked"));
    assert!(out.status.success(), "cbindgen failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let made = std::fs::read_to_string(&fresh).unwrap();
    let _ = std::fs::remove_file(&fresh);
    let committed = std::fs::read_to_string(dir.join("include/lanejit.h")).unwrap();
    assert!(
        made == committed,
        "include/lanejit.h is stale: in capi/, run cbindgen --config cbindgen.toml --output include/lanejit.h"
    );
}
