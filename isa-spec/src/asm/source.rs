//! The expanded source the assembler reads: lines after macros, repetitions, conditionals and includes, each
//! with where it came from. A line of the main file points into the caller's text; a line an expansion made
//! (a substituted macro line, an included file) into a shared chunk, so that a `.rept` of plain lines copies no
//! text. Each line knows its file and line, and the expansion it belongs to (a chain of nodes up to the main
//! file): that is how an error inside a macro names both the macro's line and the line that called it.

use std::rc::Rc;

/// No node: a line of the main file.
pub(crate) const NO_NODE: u32 = u32::MAX;
/// The text of a line in the main file (not in a chunk).
const MAIN_TEXT: u32 = u32::MAX;
/// Most expansion notes an error carries (the innermost ones); deeper chains end with a count.
const MAX_NOTES: usize = 8;

/// A place in a source file: file index (0: the main file) and line from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Loc {
    pub file: u32,
    pub line: u32,
}

/// A piece of text: in the main file, or in a chunk.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TextRef {
    chunk: u32,
    start: usize,
    len: usize,
}

/// One line as the assembler reads it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct XLine {
    pub text: TextRef,
    pub loc: Loc,
    /// The expansion it belongs to, or [`NO_NODE`].
    pub node: u32,
    /// Symbol definitions made before it ([`super::symbols::Symbols`]).
    pub epoch: u32,
}

/// Why lines were expanded.
#[derive(Clone, Debug)]
pub(crate) enum Why {
    Macro(Rc<str>),
    Rept(u64),
    Irp(u64),
    Include,
}

/// An expansion: the line that caused it (`site`, `col` in characters from 1), the expansion that line belongs
/// to, and the main file's line it all comes from (for the pc → line map).
#[derive(Clone, Debug)]
pub(crate) struct Node {
    pub site: Loc,
    pub col: u32,
    pub parent: u32,
    pub why: Why,
    pub main_line: u32,
}

/// The whole expanded source.
pub(crate) struct Expanded<'s> {
    pub main: &'s str,
    pub chunks: Vec<Rc<str>>,
    /// File names for messages, already clipped (index 0: the main file).
    pub files: Vec<String>,
    pub nodes: Vec<Node>,
    pub lines: Vec<XLine>,
    pub symbols: super::symbols::Symbols,
    /// Whether the expansion stopped early (a limit, a recursion without end): the lines are incomplete.
    pub aborted: bool,
}

/// Where an error stands, for [`super::errors::ErrorSink`].
pub(crate) struct Site<'a> {
    pub file: &'a str,
    pub line: usize,
    pub notes: Vec<String>,
}

impl<'s> Expanded<'s> {
    pub(crate) fn new(main: &'s str, main_name: String) -> Self {
        Expanded {
            main,
            chunks: Vec::new(),
            files: vec![main_name],
            nodes: Vec::new(),
            lines: Vec::new(),
            symbols: Default::default(),
            aborted: false,
        }
    }

    /// The text of `t`.
    pub(crate) fn text(&self, t: TextRef) -> &str {
        let whole: &str = if t.chunk == MAIN_TEXT { self.main } else { &self.chunks[t.chunk as usize] };
        whole.get(t.start..t.start + t.len).unwrap_or("")
    }

    /// The chunk `t` is in and its range there, or `None` for text of the main file.
    pub(crate) fn chunk_of(&self, t: TextRef) -> Option<(Rc<str>, usize, usize)> {
        let c = self.chunks.get(t.chunk as usize)?;
        Some((c.clone(), t.start, t.start + t.len))
    }

    /// The text of `t`, a piece of the main file.
    pub(crate) fn main_text(&self, t: TextRef) -> &'s str {
        let main: &'s str = self.main;
        main.get(t.start..t.start + t.len).unwrap_or("")
    }

    /// A reference to `range` of the main file.
    pub(crate) fn main_ref(start: usize, len: usize) -> TextRef {
        TextRef { chunk: MAIN_TEXT, start, len }
    }

    /// Stores `text` as a new chunk and refers to all of it.
    pub(crate) fn add_chunk(&mut self, text: Rc<str>) -> TextRef {
        let len = text.len();
        self.chunks.push(text);
        TextRef { chunk: (self.chunks.len() - 1) as u32, start: 0, len }
    }

    /// The part `start..start + len` of `t`.
    pub(crate) fn sub(t: TextRef, start: usize, len: usize) -> TextRef {
        TextRef { chunk: t.chunk, start: t.start + start, len }
    }

    /// The main file's line an expanded line stands for (its own, or the line that expanded it).
    pub(crate) fn main_line(&self, x: &XLine) -> u32 {
        match self.nodes.get(x.node as usize) {
            Some(n) => n.main_line,
            None => x.loc.line,
        }
    }

    /// File, line and expansion notes of a place.
    pub(crate) fn site(&self, loc: Loc, node: u32) -> Site<'_> {
        let mut notes = Vec::new();
        let mut at = node;
        let mut depth = 0usize;
        while let Some(n) = self.nodes.get(at as usize) {
            if notes.len() < MAX_NOTES {
                notes.push(self.note(n));
            }
            depth += 1;
            at = n.parent;
        }
        if depth > MAX_NOTES {
            notes.push(format!("… and {} outer expansions", depth - MAX_NOTES));
        }
        Site { file: self.file_name(loc.file), line: loc.line as usize, notes }
    }

    fn file_name(&self, file: u32) -> &str {
        self.files.get(file as usize).map_or("?", String::as_str)
    }

    fn note(&self, n: &Node) -> String {
        let at = format!("{}:{}:{}", self.file_name(n.site.file), n.site.line, n.col);
        match &n.why {
            Why::Macro(name) => format!("in macro `{name}` called at {at}"),
            Why::Rept(i) => format!("in repetition {} of `.rept` at {at}", i + 1),
            Why::Irp(i) => format!("in item {} of `.irp` at {at}", i + 1),
            Why::Include => format!("included from {at}"),
        }
    }
}
