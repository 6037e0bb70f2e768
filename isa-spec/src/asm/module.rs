//! Several kernels in one source file: each `.kernel` directive after the first starts the next kernel. The file
//! is expanded once (constants and macros are the file's, and a `.kernel` may come from an include or a macro),
//! then each kernel is assembled on its own (its labels and directives are its own), with line numbers kept, so
//! an error names the line it has in the file.

use super::errors::{ErrorSink, Found};
use super::source::Expanded;
use super::{assemble_lines, expand, lex, push_line_error, AsmConfig, AsmErrors, Program};
use std::collections::HashMap;

/// The expanded line where each kernel starts: 0, then every later line whose first token is `.kernel` (outside
/// comments), when there are several.
fn kernel_starts(x: &Expanded) -> Vec<usize> {
    let directive_lines = x.lines.iter().enumerate().filter(|(_, l)| {
        let body = lex::strip_comment(x.text(l.text)).trim_start();
        body.strip_prefix(".kernel").is_some_and(|rest| rest.is_empty() || rest.starts_with(char::is_whitespace))
    });
    let mut starts: Vec<usize> = directive_lines.map(|(i, _)| i).collect();
    // Lines before the first `.kernel` (comments, or directives written before it) belong to the first kernel.
    match starts.first_mut() {
        Some(first) => *first = 0,
        None => starts.push(0),
    }
    starts
}

/// Every kernel of `src`, in file order; a file without `.kernel`, or with one, is one kernel, as `assemble`
/// makes it. Two kernels of the same name are an error at the second.
pub fn assemble_module(file_name: &str, src: &str) -> Result<Vec<Program>, AsmErrors> {
    assemble_module_with_lines(file_name, src).map(|ps| ps.into_iter().map(|(p, _)| p).collect())
}

/// `assemble_module`, with each kernel's pc → source line map (as `assemble_with_lines` gives it; the lines
/// are the file's).
///
/// Linear in the file: each kernel is assembled from its own lines (numbered as in the file) and names are looked
/// up in a map, so 50,000 kernels take as long as 50,000 kernels' lines (they once took 112 s, each kernel
/// re-reading the file before it).
pub fn assemble_module_with_lines(file_name: &str, src: &str) -> Result<Vec<(Program, Vec<u32>)>, AsmErrors> {
    assemble_module_with_config(file_name, src, &AsmConfig::default())
}

/// [`assemble_module_with_lines`] with a configuration: the resolver `.include` reads files through, and the
/// expansion limits.
pub fn assemble_module_with_config(
    file_name: &str,
    src: &str,
    config: &AsmConfig,
) -> Result<Vec<(Program, Vec<u32>)>, AsmErrors> {
    let mut errors = ErrorSink::new(file_name);
    let x = expand::expand(file_name, src, config, &mut errors);
    let starts = if x.aborted { Vec::new() } else { kernel_starts(&x) };
    let mut programs = Vec::with_capacity(starts.len());
    let mut names: HashMap<String, usize> = HashMap::with_capacity(starts.len());
    for (k, &start) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(x.lines.len());
        let before = errors.total();
        let (p, pc_lines) = assemble_lines(&x, start..end, &mut errors);
        if errors.total() > before {
            continue;
        }
        let line = x.lines.get(start).map_or(1, |l| x.main_line(l));
        if let Some(&first) = names.get(&p.meta.name) {
            let message = format!("a second kernel named `{}` in one module (the first at line {first})", p.meta.name);
            let found = Found { text: &p.meta.name, message: &message, hint: Some("give each `.kernel` its own name") };
            push_line_error(&mut errors, &x, start, 0, found);
        } else {
            names.insert(p.meta.name.clone(), line as usize);
        }
        programs.push((p, pc_lines));
    }
    match errors.finish() {
        None => Ok(programs),
        Some(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_split_at_their_directives_and_keep_line_numbers() {
        let src = "; two kernels\n.kernel a\n  end\n.kernel b ; the second\n  v.add v1, v0, v0\n  end\n";
        let ps = assemble_module("m.s", src).unwrap();
        assert_eq!(ps.iter().map(|p| p.meta.name.as_str()).collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!((ps[0].words.len(), ps[1].words.len()), (1, 2));
        let err = assemble_module("m.s", ".kernel a\n  end\n.kernel b\n  bogus\n").unwrap_err().to_string();
        assert!(err.contains("m.s:4:"), "{err}");
        let err = assemble_module("m.s", ".kernel a\n end\n.kernel a\n end\n").unwrap_err().to_string();
        assert!(err.contains("m.s:3:1") && err.contains("second kernel named `a`"), "{err}");
        assert_eq!(assemble_module("m.s", "  end\n").unwrap()[0].meta.name, "main");
        // `.kernels` is not `.kernel`, and a `.kernel` in a comment starts nothing.
        let mut errors = ErrorSink::new("m.s");
        let x = expand::expand("m.s", ".kernel a\n; .kernel b\n end\n", &AsmConfig::default(), &mut errors);
        assert_eq!(kernel_starts(&x), vec![0]);
    }
}
