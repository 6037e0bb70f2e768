//! The preprocessor: source text → [`Expanded`] lines, before the two assembler passes. It reads a stack of
//! frames (the main file, included files, macro expansions, `.rept` and `.irp` repetitions), runs its own
//! directives (`directives.rs`) and emits every other line with its origin and symbol epoch.
//!
//! Hostile input is bounded here: everything read beyond the main file's own lines counts against
//! [`AsmLimits`](super::AsmLimits) (a `.rept` that would pass them is refused before it expands, and an expansion
//! that passes them anyway stops everything with one error), nesting stops at [`MAX_EXPANSION_DEPTH`], and frames
//! live on a heap stack, so no input recurses on the machine's stack.

use super::errors::{ErrorSink, Found};
use super::include::{AsmConfig, MAX_EXPANSION_DEPTH};
use super::lex::{self, Span};
use super::macros::{self, BodyLine, Macro, Subst};
use super::operand::{perr, PErr};
use super::source::{Expanded, Loc, Node, TextRef, Why, XLine, NO_NODE};
use std::collections::HashMap;
use std::rc::Rc;

/// Directives the preprocessor runs (the assembler never sees them).
pub(crate) const PP_DIRECTIVES: [&str; 17] = [
    ".equ", ".set", ".reg", ".macro", ".endm", ".exitm", ".rept", ".irp", ".endr", ".if", ".ifdef", ".ifndef",
    ".elseif", ".else", ".endif", ".include", ".error",
];

/// The text of the line being read: a slice of the main file, or of a chunk.
#[derive(Clone)]
pub(crate) enum LineText<'s> {
    Main(&'s str),
    Chunk(Rc<str>, usize, usize),
}

/// The line being read, with where it stands.
#[derive(Clone)]
pub(crate) struct Cur<'s> {
    pub text: LineText<'s>,
    pub tref: TextRef,
    pub loc: Loc,
    pub node: u32,
}

impl Cur<'_> {
    pub(crate) fn raw(&self) -> &str {
        match &self.text {
            LineText::Main(s) => s,
            LineText::Chunk(c, a, b) => c.get(*a..*b).unwrap_or(""),
        }
    }
}

/// Where a frame's lines come from: a whole file split as it is read, or a stored body.
pub(crate) enum Lines {
    File { text: TextRef, pos: usize, line: u32, file: u32 },
    Body { body: Rc<[BodyLine]>, pos: usize },
}

/// What a frame is, for `.exitm`, cycles and the next repetition.
pub(crate) enum Kind {
    Main { path: String },
    Include { path: String },
    Macro,
    Rept { left: u64, iter: u64, site: Node },
    Irp { sym: String, items: Rc<[String]>, iter: usize, site: Node },
}

/// An open `.if`: whether its current branch is assembled, whether a branch was taken, whether the lines around
/// it are assembled at all, and where it is (for an `.if` never closed).
pub(crate) struct Cond {
    pub active: bool,
    pub taken: bool,
    pub outer: bool,
    pub seen_else: bool,
    pub at: Cur<'static>,
    pub off: usize,
}

/// A body being collected: `.macro` to `.endm`, `.rept`/`.irp` to `.endr`.
pub(crate) enum BlockKind {
    /// `name` is `None` when the head was bad: the body is still collected, and then dropped.
    Macro {
        name: Option<Rc<str>>,
        params: Vec<macros::Param>,
    },
    Rept {
        count: u64,
    },
    Irp {
        sym: String,
        items: Vec<String>,
    },
}

pub(crate) struct Block {
    pub kind: BlockKind,
    pub depth: usize,
    pub lines: Vec<BodyLine>,
    pub at: Cur<'static>,
    pub off: usize,
}

pub(crate) struct Frame {
    pub lines: Lines,
    pub node: u32,
    pub subst: Option<Rc<Subst>>,
    pub kind: Kind,
    pub conds: Vec<Cond>,
    pub block: Option<Block>,
    /// Whether its lines count against the limits (all but the main file's).
    pub counted: bool,
}

pub(crate) struct Expander<'s, 'c, 'e> {
    pub x: Expanded<'s>,
    pub cfg: &'c AsmConfig<'c>,
    pub errors: &'e mut ErrorSink,
    pub macros: HashMap<String, Rc<Macro>>,
    pub stack: Vec<Frame>,
    /// File paths as given (unclipped), by file index: includes are joined to them.
    pub paths: Vec<String>,
    pub lines_left: usize,
    pub bytes_left: usize,
    /// Macro expansions so far: the next `\@`.
    pub expansions: u64,
    pub aborted: bool,
}

/// Expands `src` (the main file, named `file_name`) as `cfg` says, recording errors in `errors`.
pub(crate) fn expand<'s>(file_name: &str, src: &'s str, cfg: &AsmConfig, errors: &mut ErrorSink) -> Expanded<'s> {
    let x = Expanded::new(src, errors.file().to_string());
    let mut e = Expander {
        x,
        cfg,
        errors,
        macros: HashMap::new(),
        stack: Vec::new(),
        paths: vec![file_name.to_string()],
        lines_left: cfg.limits.max_expanded_lines,
        bytes_left: cfg.limits.max_expanded_bytes,
        expansions: 0,
        aborted: false,
    };
    let text = Expanded::main_ref(0, src.len());
    let path = super::include::include_path("", file_name);
    e.push_frame(Lines::File { text, pos: 0, line: 0, file: 0 }, NO_NODE, None, Kind::Main { path }, false);
    while !e.aborted {
        let Some(cur) = e.next_line() else { break };
        e.line(&cur);
    }
    e.x.aborted = e.aborted;
    e.x
}

/// `cur` as a line that outlives the text it was read from (for errors reported when a block or `.if` stays open).
pub(crate) fn owned(cur: &Cur) -> Cur<'static> {
    let raw: Rc<str> = Rc::from(cur.raw());
    let len = raw.len();
    Cur { text: LineText::Chunk(raw, 0, len), tref: cur.tref, loc: cur.loc, node: cur.node }
}

impl<'s> Expander<'s, '_, '_> {
    pub(crate) fn push_frame(&mut self, lines: Lines, node: u32, subst: Option<Rc<Subst>>, kind: Kind, counted: bool) {
        self.stack.push(Frame { lines, node, subst, kind, conds: Vec::new(), block: None, counted });
    }

    /// Records an error at `cur`, byte `e.off` of its text.
    pub(crate) fn report(&mut self, cur: &Cur, e: PErr) {
        let x = &self.x;
        let site = || x.site(cur.loc, cur.node);
        let found = Found { text: &e.text, message: &e.message, hint: e.hint.as_deref() };
        self.errors.push_at(x.lines.len(), cur.raw(), e.off, &site, found);
    }

    /// Records an error that ends the expansion: nothing after it would be meaningful.
    pub(crate) fn abort(&mut self, cur: &Cur, e: PErr) {
        self.report(cur, e);
        self.aborted = true;
    }

    /// A new expansion node for a line at `cur` (column of byte `off`).
    pub(crate) fn node(&mut self, cur: &Cur, off: usize, why: Why) -> Node {
        let col = cur.raw().get(..off).map_or(1, |p| p.chars().count() + 1) as u32;
        let main_line = self.x.nodes.get(cur.node as usize).map_or(cur.loc.line, |n| n.main_line);
        Node { site: cur.loc, col, parent: cur.node, why, main_line }
    }

    pub(crate) fn add_node(&mut self, n: Node) -> u32 {
        self.x.nodes.push(n);
        (self.x.nodes.len() - 1) as u32
    }

    /// The next line of the innermost frame, ending frames (and starting repetitions) as they run out.
    fn next_line(&mut self) -> Option<Cur<'s>> {
        loop {
            let top = self.stack.last_mut()?;
            let Some(cur) = read_line(&self.x, top) else {
                self.end_frame();
                continue;
            };
            if !top.counted {
                return Some(cur);
            }
            let body = matches!(top.lines, Lines::Body { .. });
            let subst = top.subst.clone();
            if self.lines_left == 0 {
                let limit = self.cfg.limits.max_expanded_lines;
                let m = format!("the expansion passes {limit} lines (AsmLimits::max_expanded_lines)");
                self.abort(&cur, perr(Span { text: "", off: 0 }, m));
                return None;
            }
            self.lines_left -= 1;
            if !body {
                // An included file's bytes were counted when it was read.
                return Some(cur);
            }
            let cur = match subst {
                Some(s) => self.substituted(cur, &s)?,
                None => cur,
            };
            if cur.raw().len() > self.bytes_left {
                return self.out_of_bytes(&cur);
            }
            self.bytes_left -= cur.raw().len();
            return Some(cur);
        }
    }

    fn out_of_bytes(&mut self, cur: &Cur) -> Option<Cur<'s>> {
        let limit = self.cfg.limits.max_expanded_bytes;
        let m = format!("the expansion passes {limit} bytes (AsmLimits::max_expanded_bytes)");
        self.abort(cur, perr(Span { text: "", off: 0 }, m));
        None
    }

    /// `cur` with its frame's parameters substituted (a new chunk when anything changed).
    fn substituted(&mut self, cur: Cur<'s>, s: &Subst) -> Option<Cur<'s>> {
        let code = lex::strip_comment(cur.raw());
        let new = match macros::substitute(code, s, self.bytes_left) {
            Ok(None) => return Some(cur),
            Ok(Some(new)) => new,
            Err(()) => return self.out_of_bytes(&cur),
        };
        let chunk: Rc<str> = Rc::from(new);
        let len = chunk.len();
        let tref = self.x.add_chunk(chunk.clone());
        Some(Cur { text: LineText::Chunk(chunk, 0, len), tref, loc: cur.loc, node: cur.node })
    }

    /// A frame ran out: report what it left open, then repeat it or drop it.
    fn end_frame(&mut self) {
        let Some(mut f) = self.stack.pop() else { return };
        if let Some(b) = f.block.take() {
            let what = match b.kind {
                BlockKind::Macro { .. } => "`.macro` without `.endm`",
                _ => "repetition without `.endr`",
            };
            self.report(&b.at, perr(Span { text: "", off: b.off }, what.into()));
        }
        for c in std::mem::take(&mut f.conds) {
            self.report(&c.at, perr(Span { text: "", off: c.off }, "`.if` without `.endif`".into()));
        }
        if self.aborted || !self.next_round(&mut f) {
            return;
        }
        self.stack.push(f);
    }

    /// Starts the next repetition of a `.rept` or `.irp` frame; false when it is done (or was not one).
    fn next_round(&mut self, f: &mut Frame) -> bool {
        let Lines::Body { pos, .. } = &mut f.lines else { return false };
        let node = match &mut f.kind {
            Kind::Rept { left, iter, site } if *left > 0 => {
                *left -= 1;
                *iter += 1;
                Node { why: Why::Rept(*iter), ..site.clone() }
            }
            Kind::Irp { sym, items, iter, site } if *iter + 1 < items.len() => {
                *iter += 1;
                f.subst = Some(Rc::new(Subst { values: vec![(sym.clone(), items[*iter].clone())], unique: None }));
                Node { why: Why::Irp(*iter as u64), ..site.clone() }
            }
            _ => return false,
        };
        *pos = 0;
        f.node = self.add_node(node);
        true
    }

    /// Whether lines are assembled here (not in a false `.if` branch).
    pub(crate) fn active(&self) -> bool {
        self.stack.last().and_then(|f| f.conds.last()).is_none_or(|c| c.active)
    }

    fn line(&mut self, cur: &Cur<'s>) {
        let raw = cur.raw();
        let code = lex::strip_comment(raw);
        let (labels_end, word) = lex::first_word(code);
        let word_text = word.map_or("", |w| w.text);
        if self.stack.last().is_some_and(|f| f.block.is_some()) {
            return self.collect(cur, labels_end, word_text);
        }
        let is_pp = PP_DIRECTIVES.contains(&word_text);
        if !self.active() {
            if is_pp {
                self.conditional(cur, word.unwrap_or(Span { text: "", off: 0 }), code, false);
            }
            return;
        }
        if is_pp || self.macros.contains_key(word_text) {
            if labels_end > 0 && !code[..labels_end].trim().is_empty() {
                self.emit_text(cur, Expanded::sub(cur.tref, 0, labels_end));
            }
            let w = word.unwrap_or(Span { text: "", off: 0 });
            if is_pp {
                self.directive(cur, w, code);
            } else {
                self.call(cur, w, code);
            }
            return;
        }
        if raw.trim().is_empty() {
            return;
        }
        // No statement holds a `\` outside a string: it is a parameter that nothing substituted.
        if code.contains('\\') {
            if let Some(b) = macros::leftover_backslash(code) {
                let m = match b.text {
                    "\\@" => "`\\@` outside a macro".to_string(),
                    t => format!("unknown macro parameter or `.irp` symbol `{t}`"),
                };
                return self.report(cur, perr(b, m));
            }
        }
        self.emit_text(cur, cur.tref);
    }

    /// Emits a line (or the labels before a directive) for the assembler.
    fn emit_text(&mut self, cur: &Cur, text: TextRef) {
        let epoch = self.x.symbols.epoch();
        self.x.lines.push(XLine { text, loc: cur.loc, node: cur.node, epoch });
    }

    /// Calls the macro `name` (a line `name args`).
    fn call(&mut self, cur: &Cur, name: Span, code: &str) {
        let Some(m) = self.macros.get(name.text).cloned() else { return };
        if self.stack.len() >= MAX_EXPANSION_DEPTH {
            let msg =
                format!("macro `{}` nested more than {MAX_EXPANSION_DEPTH} deep (a recursion without end?)", m.name);
            return self.abort(cur, perr(name, msg));
        }
        let tail_off = name.off + name.text.len();
        let args = lex::split_operands(&code[tail_off..], tail_off);
        let values = match macros::bind(&m, name, &args) {
            Ok(v) => v,
            Err(e) => return self.report(cur, e),
        };
        let unique = Some(self.expansions);
        self.expansions += 1;
        let n = self.node(cur, name.off, Why::Macro(m.name.clone()));
        let node = self.add_node(n);
        let subst = Some(Rc::new(Subst { values, unique }));
        self.push_frame(Lines::Body { body: m.body.clone(), pos: 0 }, node, subst, Kind::Macro, true);
    }
}

/// The next line of frame `f`, or `None` at its end.
fn read_line<'s>(x: &Expanded<'s>, f: &mut Frame) -> Option<Cur<'s>> {
    match &mut f.lines {
        Lines::Body { body, pos } => {
            let l = *body.get(*pos)?;
            *pos += 1;
            Some(Cur { text: line_text(x, l.text), tref: l.text, loc: l.loc, node: f.node })
        }
        Lines::File { text, pos, line, file } => {
            let whole = x.text(*text);
            if *pos > whole.len() || (*pos == whole.len() && *line > 0) {
                return None;
            }
            if *pos == 0 && whole.starts_with('\u{feff}') {
                *pos = '\u{feff}'.len_utf8();
            }
            let start = *pos;
            let end = whole[start..].find('\n').map_or(whole.len(), |i| start + i);
            *pos = end + 1;
            *line = line.saturating_add(1);
            let len = whole[start..end].strip_suffix('\r').map_or(end - start, str::len);
            let tref = Expanded::sub(*text, start, len);
            Some(Cur { text: line_text(x, tref), tref, loc: Loc { file: *file, line: *line }, node: f.node })
        }
    }
}

fn line_text<'s>(x: &Expanded<'s>, t: TextRef) -> LineText<'s> {
    match x.chunk_of(t) {
        None => LineText::Main(x.main_text(t)),
        Some((c, a, b)) => LineText::Chunk(c, a, b),
    }
}
