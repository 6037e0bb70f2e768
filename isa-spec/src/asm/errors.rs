//! The assembler's errors and their collection. A file may hold any number of bad lines, so the list is bounded
//! in count and in bytes: the first [`MAX_REPORTED_ERRORS`] errors by line and column are kept and the others only
//! counted, and every string an error repeats (file name, message, hint, token) is clipped. Without the bounds,
//! 10,000 bad lines under a 100 KB file name made a 1 GB message.

use super::lex;
use super::source::Site;
use std::collections::BinaryHeap;
use std::fmt;

/// Most errors an [`AsmErrors`] holds: the first ones by line and column; the rest are counted (`more`).
pub const MAX_REPORTED_ERRORS: usize = 100;
/// Most characters of the file name an error repeats (its start and its end are kept, `…` between).
pub const MAX_FILE_NAME_CHARS: usize = 200;
/// Most characters of an error's message, hint or quoted token (each whitespace-free run in them is also cut to
/// 80 characters).
pub const MAX_MESSAGE_CHARS: usize = 400;

/// One assembly error. `col` counts characters from 1; `text` is the offending token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmError {
    /// The source file's name, as the caller gave it (a name longer than [`MAX_FILE_NAME_CHARS`] is cut in the
    /// middle, marked `…`).
    pub file: String,
    /// Line of the error, counted from 1.
    pub line: usize,
    /// Column of `text`, in characters from 1.
    pub col: usize,
    /// The offending token as written (a run of more than 80 characters is cut short, marked `…`).
    pub text: String,
    /// What is wrong.
    pub message: String,
    /// A suggestion (the mnemonic meant, the expected syntax), where one helps.
    pub hint: Option<String>,
    /// Where the line came from when an expansion made it, innermost first: `in macro `m` called at k.s:12:5`,
    /// `in repetition 3 of `.rept` at k.s:4:1`, `included from k.s:1:1`. Empty for a line of the main file.
    pub notes: Vec<String>,
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}:{}:{}: error: {}", self.file, self.line, self.col, self.message)?;
        for n in &self.notes {
            write!(f, "\n  note: {n}")?;
        }
        if let Some(h) = &self.hint {
            write!(f, "\n  hint: {h}")?;
        }
        Ok(())
    }
}

/// The errors of one file (or module), in line order: at most [`MAX_REPORTED_ERRORS`] of them, the first by line
/// and column, and the number of further errors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmErrors {
    /// The first errors, in line and column order.
    pub errors: Vec<AsmError>,
    /// How many more errors the file has (not kept).
    pub more: usize,
}

impl fmt::Display for AsmErrors {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        for (i, e) in self.errors.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        if self.more > 0 {
            write!(f, "\nand {} more error{}", self.more, if self.more == 1 { "" } else { "s" })?;
        }
        Ok(())
    }
}

impl std::error::Error for AsmErrors {}

/// Where an error stands, then the order it was found in: kept errors print in this order (as a stable sort
/// by line and column would put them).
type Key = (usize, usize, usize);

/// An error with its sort key (line, byte offset in the line, arrival); ordered by the key alone.
struct Keyed {
    key: Key,
    error: AsmError,
}

impl PartialEq for Keyed {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl Eq for Keyed {}
impl PartialOrd for Keyed {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Keyed {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.key.cmp(&o.key)
    }
}

/// What an error says: the offending token, the message and a hint.
pub(crate) struct Found<'a> {
    pub text: &'a str,
    pub message: &'a str,
    pub hint: Option<&'a str>,
}

/// Collects a file's errors: keeps the first [`MAX_REPORTED_ERRORS`] by position (a max-heap, so the worst kept
/// one is replaced in O(log n)) and counts every one, so that a file of a million bad lines costs as much memory
/// as a file of a hundred.
pub(crate) struct ErrorSink {
    /// The file name as errors print it (clipped once here, not per error).
    file: String,
    kept: BinaryHeap<Keyed>,
    total: usize,
}

impl ErrorSink {
    pub(crate) fn new(file_name: &str) -> ErrorSink {
        ErrorSink { file: clip_middle(file_name, MAX_FILE_NAME_CHARS), kept: BinaryHeap::new(), total: 0 }
    }

    /// The main file's name as errors print it (clipped).
    pub(crate) fn file(&self) -> &str {
        &self.file
    }

    /// Errors found so far (kept or not).
    pub(crate) fn total(&self) -> usize {
        self.total
    }

    /// Whether an error at `line`, byte `off` of the line, would be kept: callers skip costly work (columns,
    /// suggestions) for the others. Errors only get replaced by earlier ones, so a refused position stays refused.
    pub(crate) fn wants(&self, line: usize, off: usize) -> bool {
        self.kept.len() < MAX_REPORTED_ERRORS || self.kept.peek().is_some_and(|w| (line, off) < (w.key.0, w.key.1))
    }

    /// Records an error at `line` of the main file, byte `off` of `raw` (the line's text).
    #[cfg(test)]
    pub(crate) fn push(&mut self, line: usize, raw: &str, off: usize, text: &str, message: &str, hint: Option<&str>) {
        let file = self.file.clone();
        let site = || Site { file: &file, line, notes: Vec::new() };
        self.push_at(line, raw, off, &site, Found { text, message, hint });
    }

    /// Records an error of the expanded line `key` (its position in the expanded source, which orders the
    /// errors), byte `off` of `raw` (the line's text); `site` says where the line stands in its file (whose name
    /// the caller has clipped with [`clip_middle`]). `col`, the
    /// site, the clipping and the copies are only made for an error that is kept.
    pub(crate) fn push_at<'a>(&mut self, key: usize, raw: &str, off: usize, site: &dyn Fn() -> Site<'a>, found: Found) {
        self.total += 1;
        if !self.wants(key, off) {
            return;
        }
        let col = raw.get(..off).map_or(1, |p| p.chars().count() + 1);
        let site = site();
        let error = AsmError {
            file: site.file.to_string(),
            line: site.line,
            col,
            text: clip(found.text),
            message: clip(found.message),
            hint: found.hint.map(clip),
            notes: site.notes.iter().map(|n| clip(n)).collect(),
        };
        self.kept.push(Keyed { key: (key, off, self.total), error });
        if self.kept.len() > MAX_REPORTED_ERRORS {
            self.kept.pop();
        }
    }

    /// The errors found, or `None` when there were none.
    pub(crate) fn finish(self) -> Option<AsmErrors> {
        if self.total == 0 {
            return None;
        }
        let errors: Vec<AsmError> = self.kept.into_sorted_vec().into_iter().map(|k| k.error).collect();
        Some(AsmErrors { more: self.total - errors.len(), errors })
    }
}

/// An error's string as it is kept: every long token cut, then the whole cut to [`MAX_MESSAGE_CHARS`].
fn clip(s: &str) -> String {
    let s = lex::elide_long_tokens(s);
    match s.char_indices().nth(MAX_MESSAGE_CHARS) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s,
    }
}

/// `s` cut to at most `max` characters by dropping its middle (`…` marks the cut): of a path, both the start
/// and the file's own name stay readable.
pub(crate) fn clip_middle(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_string();
    }
    let head = (max - 1) / 2;
    let tail = max - 1 - head;
    let mut out: String = s.chars().take(head).collect();
    out.push('…');
    out.extend(s.chars().skip(n - tail));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_first_errors_by_position_and_counts_the_rest() {
        let mut sink = ErrorSink::new("k.s");
        // Arrive out of order, as the second pass reports early lines after the first pass's late ones.
        for line in (1..=300).rev() {
            sink.push(line, "bad", 0, "bad", "bad line", None);
        }
        let e = sink.finish().expect("errors were pushed");
        assert_eq!(e.errors.len(), MAX_REPORTED_ERRORS);
        assert_eq!(e.more, 300 - MAX_REPORTED_ERRORS);
        assert!(e.errors.iter().enumerate().all(|(i, x)| x.line == i + 1));
        assert!(e.to_string().ends_with("\nand 200 more errors"), "{e}");
    }

    #[test]
    fn ties_keep_their_arrival_order() {
        let mut sink = ErrorSink::new("k.s");
        sink.push(1, "x", 0, "x", "first", None);
        sink.push(1, "x", 0, "x", "second", None);
        let e = sink.finish().expect("errors were pushed");
        assert_eq!(e.errors.iter().map(|x| x.message.as_str()).collect::<Vec<_>>(), ["first", "second"]);
        assert_eq!(e.more, 0);
    }

    #[test]
    fn long_names_and_messages_are_clipped() {
        let name = format!("{}/k.s", "d".repeat(100_000));
        let words = "word ".repeat(10_000);
        let mut sink = ErrorSink::new(&name);
        sink.push(1, &words, 0, &words, &words, Some(&words));
        let e = sink.finish().expect("an error was pushed");
        let x = &e.errors[0];
        assert_eq!(x.file.chars().count(), MAX_FILE_NAME_CHARS);
        assert!(x.file.starts_with("ddd") && x.file.ends_with("d/k.s") && x.file.contains('…'));
        for s in [&x.text, &x.message, x.hint.as_ref().unwrap()] {
            assert_eq!(s.chars().count(), MAX_MESSAGE_CHARS + 1);
        }
    }
}
