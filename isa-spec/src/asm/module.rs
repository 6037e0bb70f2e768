//! Several kernels in one source file: each `.kernel` directive after the first starts the next kernel. Each
//! kernel is assembled on its own (its labels and directives are its own), with line numbers kept, so an error
//! names the line it has in the file.

use super::{assemble_with_lines, lex, AsmError, AsmErrors, LineMap, Program};

/// The line index where each kernel starts: 0, then every later line whose first token is `.kernel` (outside
/// comments), when there are several.
fn kernel_starts(src: &str) -> Vec<usize> {
    let directive_lines = src.lines().enumerate().filter(|(_, l)| {
        let body = lex::strip_comment(l).trim_start();
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

/// As [`assemble_module`], each kernel with the source line (in the whole file) of every instruction.
pub fn assemble_module_with_lines(file_name: &str, src: &str) -> Result<Vec<(Program, LineMap)>, AsmErrors> {
    let lines: Vec<&str> = src.split('\n').collect();
    let starts = kernel_starts(src);
    let mut programs = Vec::new();
    let mut errors = Vec::new();
    for (k, &start) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(lines.len());
        // Blank lines in front keep every line number as it is in the file.
        let text = "\n".repeat(start) + &lines[start..end].join("\n");
        match assemble_with_lines(file_name, &text) {
            Ok((p, lines)) => {
                if programs.iter().any(|(q, _): &(Program, LineMap)| q.meta.name == p.meta.name) {
                    errors.push(AsmError {
                        file: file_name.to_string(),
                        line: start + 1,
                        col: 1,
                        text: p.meta.name.clone(),
                        message: format!("a second kernel named `{}` in one module", p.meta.name),
                        hint: Some("give each `.kernel` its own name".into()),
                    });
                }
                programs.push((p, lines));
            }
            Err(e) => errors.extend(e.0),
        }
    }
    if errors.is_empty() {
        Ok(programs)
    } else {
        Err(AsmErrors(errors))
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
        assert_eq!(kernel_starts(".kernel a\n; .kernel b\n end\n"), vec![0]);
    }
}
