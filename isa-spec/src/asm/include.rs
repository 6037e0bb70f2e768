//! The assembler's configuration ([`AsmConfig`]: include resolver and expansion limits) and the resolution of
//! `.include` paths. The library never opens a file itself: `.include` asks the configured [`IncludeResolver`]
//! (the command line's reads from disk through its bounded reader; a test or a fuzzer passes a map), so that
//! assembling from a string works anywhere and reads nothing unless asked to.

use std::collections::{BTreeMap, HashMap};

/// Deepest nesting of `.include` (an include cycle is refused before that, by name).
pub const MAX_INCLUDE_DEPTH: usize = 16;
/// Deepest nesting of macro calls, `.rept`, `.irp` and includes together: a macro that calls itself without end
/// stops here with an error.
pub const MAX_EXPANSION_DEPTH: usize = 100;
/// Default of [`AsmLimits::max_expanded_lines`].
pub const MAX_EXPANDED_LINES: usize = 1 << 20;
/// Default of [`AsmLimits::max_expanded_bytes`].
pub const MAX_EXPANDED_BYTES: usize = 1 << 26;

/// Gives the text of an included file. `path` is the `.include` operand joined to the including file's directory
/// and normalised (`a/./b/../c.s` → `a/c.s`); it also names the file in messages and detects cycles. The text may be
/// at most `max_bytes` long (what is left of [`AsmLimits::max_expanded_bytes`]): a resolver that reads a file should
/// refuse a larger one before reading it. An `Err` is the message the `.include` line reports.
pub trait IncludeResolver {
    /// The text of the file `path`, at most `max_bytes` bytes.
    fn resolve(&self, path: &str, max_bytes: usize) -> Result<String, String>;
}

impl<F: Fn(&str, usize) -> Result<String, String>> IncludeResolver for F {
    fn resolve(&self, path: &str, max_bytes: usize) -> Result<String, String> {
        self(path, max_bytes)
    }
}

fn from_map(text: Option<&String>, path: &str, max_bytes: usize) -> Result<String, String> {
    match text {
        None => Err(format!("no file `{path}`")),
        Some(t) if t.len() > max_bytes => Err(format!("`{path}` is larger than the {max_bytes} bytes left")),
        Some(t) => Ok(t.clone()),
    }
}

/// Files in memory, by normalised path.
impl IncludeResolver for HashMap<String, String> {
    fn resolve(&self, path: &str, max_bytes: usize) -> Result<String, String> {
        from_map(self.get(path), path, max_bytes)
    }
}

/// Files in memory, by normalised path.
impl IncludeResolver for BTreeMap<String, String> {
    fn resolve(&self, path: &str, max_bytes: usize) -> Result<String, String> {
        from_map(self.get(path), path, max_bytes)
    }
}

/// Bounds on what a source may expand to. Lines and bytes count everything the expansion reads beyond the main
/// file's own lines: macro bodies, `.rept` and `.irp` repetitions, included files. A `.rept` whose repetitions
/// would pass them is refused before it expands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AsmLimits {
    /// Most lines (default [`MAX_EXPANDED_LINES`], 1,048,576: far fewer than `MAX_CODE_WORDS`).
    pub max_expanded_lines: usize,
    /// Most bytes of text (default [`MAX_EXPANDED_BYTES`], 64 MiB).
    pub max_expanded_bytes: usize,
}

impl Default for AsmLimits {
    fn default() -> Self {
        AsmLimits { max_expanded_lines: MAX_EXPANDED_LINES, max_expanded_bytes: MAX_EXPANDED_BYTES }
    }
}

/// How to assemble: where `.include` finds files, and the expansion limits. The default has no resolver (an
/// `.include` is then an error) and the default limits.
#[derive(Clone, Copy, Default)]
pub struct AsmConfig<'r> {
    /// Resolves `.include`; `None` refuses every `.include`.
    pub includes: Option<&'r dyn IncludeResolver>,
    /// Expansion limits.
    pub limits: AsmLimits,
}

impl std::fmt::Debug for AsmConfig<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AsmConfig")
            .field("includes", &self.includes.map(|_| "resolver"))
            .field("limits", &self.limits)
            .finish()
    }
}

/// `requested` relative to the directory of `including` (an absolute `requested` stands alone), normalised
/// lexically: `.` parts dropped, `..` removing the part before it (kept at the start of a relative path).
pub fn include_path(including: &str, requested: &str) -> String {
    let dir = match including.rfind('/') {
        Some(i) if !requested.starts_with('/') => &including[..=i],
        _ => "",
    };
    normalize(&format!("{dir}{requested}"))
}

fn normalize(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for p in path.split('/') {
        match p {
            "" | "." => {}
            ".." if parts.last().is_some_and(|l| *l != "..") => {
                parts.pop();
            }
            ".." if absolute => {}
            _ => parts.push(p),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else {
        joined
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_relative_to_the_including_file_and_normalised() {
        assert_eq!(include_path("k.s", "lib.inc"), "lib.inc");
        assert_eq!(include_path("dir/k.s", "lib.inc"), "dir/lib.inc");
        assert_eq!(include_path("dir/sub/k.s", "../lib.inc"), "dir/lib.inc");
        assert_eq!(include_path("dir/k.s", "./a/./b/../c.s"), "dir/a/c.s");
        assert_eq!(include_path("k.s", "../../x.s"), "../../x.s");
        assert_eq!(include_path("/abs/k.s", "x.s"), "/abs/x.s");
        assert_eq!(include_path("dir/k.s", "/etc/x.s"), "/etc/x.s");
        assert_eq!(include_path("/k.s", "../../x.s"), "/x.s");
    }

    #[test]
    fn map_resolvers_refuse_missing_and_large_files() {
        let files: HashMap<String, String> = [("a.s".to_string(), "nop".to_string())].into();
        assert_eq!(files.resolve("a.s", 10).unwrap(), "nop");
        assert_eq!(files.resolve("b.s", 10).unwrap_err(), "no file `b.s`");
        assert!(files.resolve("a.s", 2).unwrap_err().contains("larger"));
        let f = |p: &str, _: usize| Err::<String, String>(format!("no {p}"));
        assert_eq!(f.resolve("x", 1).unwrap_err(), "no x");
    }
}
