//! The preprocessor's directives: constants and aliases (`.equ`, `.set`, `.reg`), conditionals (`.if`, `.ifdef`,
//! `.ifndef`, `.elseif`, `.else`, `.endif`), bodies (`.macro`/`.endm`, `.rept`/`.irp`/`.endr`, `.exitm`),
//! `.include` and `.error`. A body is collected whole before anything in it runs, so its size is known (and
//! checked against the limits) before a repetition expands.

use super::cexpr::{self, Sym};
use super::errors::clip_middle;
use super::expand::{owned, Block, BlockKind, Cond, Cur, Expander, Kind, Lines};
use super::include::{include_path, MAX_EXPANSION_DEPTH, MAX_INCLUDE_DEPTH};
use super::lex::{self, Body, Span};
use super::macros::{self, BodyLine, Macro, Subst};
use super::operand::{perr, PErr};
use super::source::{Expanded, Why};
use super::symbols::{self, SymKind, SymValue, Symbols};
use super::MAX_FILE_NAME_CHARS;
use std::rc::Rc;

/// A name's meaning in an expression, from its definition (if any).
pub(crate) fn sym_of(v: Option<&SymValue>) -> Sym {
    match v {
        Some(SymValue::Int(v)) => Sym::Int(*v),
        Some(SymValue::Reg(_)) => Sym::Reg,
        None => Sym::Undefined,
    }
}

/// The operands of a directive line: its arguments (split at commas) and the text after its name.
fn operands(code: &str) -> (Vec<Span<'_>>, Span<'_>) {
    match lex::split_line(code).body {
        Some(Body::Directive { args, rest, .. }) => (args, rest),
        _ => (Vec::new(), Span { text: "", off: code.len() }),
    }
}

impl Expander<'_, '_, '_> {
    /// Evaluates `e` with the symbols as they are now.
    pub(crate) fn eval_now(&self, e: Span) -> Result<i64, PErr> {
        let syms: &Symbols = &self.x.symbols;
        cexpr::eval(e.text, &|n| sym_of(syms.current(n))).map_err(|err| cexpr::to_perr(e, err))
    }

    /// Runs a preprocessor directive `word` of an assembled line.
    pub(crate) fn directive(&mut self, cur: &Cur, word: Span, code: &str) {
        let (args, rest) = operands(code);
        let r = match word.text {
            ".if" | ".ifdef" | ".ifndef" | ".elseif" | ".else" | ".endif" => {
                return self.conditional(cur, word, code, true);
            }
            ".equ" | ".set" | ".reg" => self.define(cur, word, &args, rest),
            ".macro" => self.start_macro(cur, word, rest),
            ".rept" => {
                let count = self
                    .eval_now(rest)
                    .and_then(|n| u64::try_from(n).map_err(|_| perr(rest, format!("`.rept` count {n} is negative"))));
                self.start_block(cur, word.off, BlockKind::Rept { count: *count.as_ref().unwrap_or(&0) });
                count.map(drop)
            }
            ".irp" => self.start_irp(cur, word, &args),
            ".endm" | ".endr" => {
                let open = if word.text == ".endm" { "`.macro`" } else { "`.rept` or `.irp`" };
                Err(perr(word, format!("`{}` without {open}", word.text)))
            }
            ".exitm" => self.exit_macro(word, rest),
            ".include" => self.include(cur, word, rest),
            _ => Err(self.user_error(word, rest)),
        };
        if let Err(e) = r {
            self.report(cur, e);
        }
    }

    /// `.error "message"`: an error the source asks for (in a branch of `.if` that checks an argument).
    fn user_error(&self, word: Span, rest: Span) -> PErr {
        let m = if rest.text.starts_with('"') {
            lex::parse_string(rest.text).unwrap_or_else(|e| e)
        } else if rest.text.is_empty() {
            "`.error` directive".to_string()
        } else {
            rest.text.to_string()
        };
        perr(word, m)
    }

    /// `.equ NAME, EXPR`, `.set NAME, EXPR`, `.reg NAME, REGISTER`.
    fn define(&mut self, cur: &Cur, word: Span, args: &[Span], rest: Span) -> Result<(), PErr> {
        let [name, value] = args else {
            let what = if word.text == ".reg" { "a register" } else { "a value" };
            let m = format!(
                "`{}` takes a name and {what} (`{} NAME, …`), found {} operands",
                word.text,
                word.text,
                args.len()
            );
            return Err(perr(if args.is_empty() { word } else { rest }, m));
        };
        let (kind, v) = match word.text {
            ".reg" => (SymKind::Reg, SymValue::Reg(self.alias_target(*value)?)),
            ".equ" => (SymKind::Equ, SymValue::Int(self.eval_now(*value)?)),
            _ => (SymKind::Set, SymValue::Int(self.eval_now(*value)?)),
        };
        let at = format!("{}:{}", self.x.files[cur.loc.file as usize], cur.loc.line);
        self.x.symbols.define(name.text, kind, v, at).map_err(|m| perr(*name, m))
    }

    /// The register `.reg` points a name at: written out, or another alias's.
    fn alias_target(&self, t: Span) -> Result<String, PErr> {
        let target = match self.x.symbols.current(t.text) {
            Some(SymValue::Reg(r)) => r.clone(),
            Some(SymValue::Int(_)) => return Err(perr(t, format!("`{}` is a constant, not a register", t.text))),
            None => t.text.to_string(),
        };
        symbols::check_alias_target(&target).map_err(|m| perr(t, m))?;
        Ok(target)
    }

    fn start_block(&mut self, cur: &Cur, off: usize, kind: BlockKind) {
        if let Some(f) = self.stack.last_mut() {
            f.block = Some(Block { kind, depth: 0, lines: Vec::new(), at: owned(cur), off });
        }
    }

    /// `.macro NAME params`: the body is collected even when the head is bad, so that it is not assembled.
    fn start_macro(&mut self, cur: &Cur, word: Span, rest: Span) -> Result<(), PErr> {
        let head = macros::parse_head(rest).and_then(|(name, params)| {
            if super::mnemonics().contains_key(name.text) {
                return Err(perr(name, format!("macro `{}` would hide the instruction of that name", name.text)));
            }
            Ok((Rc::from(name.text), params))
        });
        let (name, params, r) = match head {
            Ok((n, p)) => (Some(n), p, Ok(())),
            Err(e) => (None, Vec::new(), Err(e)),
        };
        self.start_block(cur, word.off, BlockKind::Macro { name, params });
        r
    }

    /// `.irp SYM, item, item…`.
    fn start_irp(&mut self, cur: &Cur, word: Span, args: &[Span]) -> Result<(), PErr> {
        let sym = args.first().filter(|s| {
            s.text.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && s.text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
        let items = args.iter().skip(1).map(|a| a.text.to_string()).collect();
        let kind = BlockKind::Irp { sym: sym.map_or(String::new(), |s| s.text.to_string()), items };
        self.start_block(cur, word.off, kind);
        match sym {
            Some(_) => Ok(()),
            None => {
                Err(perr(args.first().copied().unwrap_or(word), "`.irp` needs a symbol name (`.irp r, v1, v2`)".into()))
            }
        }
    }

    /// A line inside a body being collected: nested bodies of the same kind are counted so that the right end
    /// closes it.
    pub(crate) fn collect(&mut self, cur: &Cur, labels_end: usize, word: &str) {
        let Some(b) = self.stack.last_mut().and_then(|f| f.block.as_mut()) else { return };
        let is_macro = matches!(b.kind, BlockKind::Macro { .. });
        let (opens, close): (&[&str], &str) =
            if is_macro { (&[".macro"], ".endm") } else { (&[".rept", ".irp"], ".endr") };
        if opens.contains(&word) {
            b.depth += 1;
        } else if word == close && b.depth > 0 {
            b.depth -= 1;
        } else if word == close {
            if labels_end > 0 && !cur.raw()[..labels_end].trim().is_empty() {
                b.lines.push(BodyLine { text: Expanded::sub(cur.tref, 0, labels_end), loc: cur.loc });
            }
            let b = self.stack.last_mut().and_then(|f| f.block.take());
            if let Some(b) = b {
                self.finish_block(b);
            }
            return;
        }
        b.lines.push(BodyLine { text: cur.tref, loc: cur.loc });
    }

    fn finish_block(&mut self, b: Block) {
        let r = match b.kind {
            BlockKind::Macro { name: None, .. } => Ok(()),
            BlockKind::Macro { name: Some(name), params } => self.define_macro(name, params, b.lines, b.off),
            BlockKind::Rept { count } => self.repeat(&b.at, b.off, count, b.lines, None),
            BlockKind::Irp { sym, items } => {
                let count = items.len() as u64;
                self.repeat(&b.at, b.off, count, b.lines, Some((sym, Rc::from(items))))
            }
        };
        if let Err(e) = r {
            self.report(&b.at, e);
        }
    }

    fn define_macro(
        &mut self,
        name: Rc<str>,
        params: Vec<macros::Param>,
        body: Vec<BodyLine>,
        off: usize,
    ) -> Result<(), PErr> {
        if self.macros.contains_key(&*name) {
            return Err(perr(Span { text: "", off }, format!("macro `{name}` is already defined")));
        }
        self.macros.insert(name.to_string(), Rc::new(Macro { name, params, body: Rc::from(body) }));
        Ok(())
    }

    /// Starts `count` repetitions of `body` (of `.irp` when `irp` names its symbol and items), after checking
    /// that they fit the limits.
    fn repeat(
        &mut self,
        at: &Cur,
        off: usize,
        count: u64,
        body: Vec<BodyLine>,
        irp: Option<(String, Rc<[String]>)>,
    ) -> Result<(), PErr> {
        if count == 0 || body.is_empty() || irp.as_ref().is_some_and(|(s, _)| s.is_empty()) {
            return Ok(());
        }
        let (lines, bytes) = self.estimate(&body);
        let (lines, bytes) = (lines.saturating_mul(count as u128), bytes.saturating_mul(count as u128));
        let what = if irp.is_some() { ".irp" } else { ".rept" };
        let here = Span { text: "", off };
        if lines > self.lines_left as u128 {
            let m = format!(
                "`{what}` would expand to {lines} lines, more than the {} left (AsmLimits::max_expanded_lines)",
                self.lines_left
            );
            return Err(perr(here, m));
        }
        if bytes > self.bytes_left as u128 {
            let m = format!(
                "`{what}` would expand to {bytes} bytes, more than the {} left (AsmLimits::max_expanded_bytes)",
                self.bytes_left
            );
            return Err(perr(here, m));
        }
        if self.stack.len() >= MAX_EXPANSION_DEPTH {
            self.aborted = true;
            return Err(perr(here, format!("`{what}` nested more than {MAX_EXPANSION_DEPTH} deep")));
        }
        let why = if irp.is_some() { Why::Irp(0) } else { Why::Rept(0) };
        let site = self.node(at, off, why);
        let node = self.add_node(site.clone());
        let lines = Lines::Body { body: Rc::from(body), pos: 0 };
        let (kind, subst) = match irp {
            None => (Kind::Rept { left: count - 1, iter: 0, site }, None),
            Some((sym, items)) => {
                let s = Subst { values: vec![(sym.clone(), items[0].clone())], unique: None };
                (Kind::Irp { sym, items, iter: 0, site }, Some(Rc::new(s)))
            }
        };
        self.push_frame(lines, node, subst, kind, true);
        Ok(())
    }

    /// Lines and bytes one pass over `body` reads, nested `.rept`/`.irp` multiplied in where their counts are
    /// known now: `.rept 1000` inside `.rept 1000` is refused before either expands.
    fn estimate(&self, body: &[BodyLine]) -> (u128, u128) {
        let mut mult: Vec<u128> = vec![1];
        let (mut lines, mut bytes) = (0u128, 0u128);
        for l in body {
            let text = self.x.text(l.text);
            let code = lex::strip_comment(text);
            let word = lex::first_word(code).1.map(|w| w.text);
            if word == Some(".endr") && mult.len() > 1 {
                mult.pop();
            }
            let m = *mult.last().unwrap_or(&1);
            lines = lines.saturating_add(m);
            bytes = bytes.saturating_add(m.saturating_mul(text.len() as u128));
            match word {
                Some(".rept") => {
                    let n = self.eval_now(operands(code).1).ok().and_then(|n| u64::try_from(n).ok()).unwrap_or(1);
                    mult.push(m.saturating_mul(n as u128));
                }
                Some(".irp") => mult.push(m.saturating_mul(operands(code).0.len().saturating_sub(1) as u128)),
                _ => {}
            }
        }
        (lines, bytes)
    }

    /// `.exitm`: leaves the innermost macro (and the repetitions and includes inside it).
    fn exit_macro(&mut self, word: Span, rest: Span) -> Result<(), PErr> {
        no_operands(word, rest)?;
        match self.stack.iter().rposition(|f| matches!(f.kind, Kind::Macro)) {
            Some(i) => {
                self.stack.truncate(i);
                Ok(())
            }
            None => Err(perr(word, "`.exitm` outside a macro".into())),
        }
    }

    /// `.include "path"`: the file, relative to the including file's directory, read through the resolver.
    fn include(&mut self, cur: &Cur, word: Span, rest: Span) -> Result<(), PErr> {
        if !rest.text.starts_with('"') {
            return Err(perr(
                if rest.text.is_empty() { word } else { rest },
                "`.include` takes a quoted file name".into(),
            ));
        }
        let name = lex::parse_string(rest.text).map_err(|m| perr(rest, m))?;
        let Some(resolver) = self.cfg.includes else {
            let m = format!("cannot include `{name}`: this assembly reads no files (no AsmConfig::includes resolver)");
            return Err(perr(rest, m));
        };
        let path = include_path(&self.paths[cur.loc.file as usize], &name);
        let files: Vec<&str> = self
            .stack
            .iter()
            .filter_map(|f| match &f.kind {
                Kind::Main { path } | Kind::Include { path } => Some(path.as_str()),
                _ => None,
            })
            .collect();
        if files.contains(&path.as_str()) {
            let chain: Vec<&str> = files.iter().copied().skip_while(|f| *f != path).chain([path.as_str()]).collect();
            return Err(perr(rest, format!("include cycle: {}", chain.join(" → "))));
        }
        if files.len() > MAX_INCLUDE_DEPTH || self.stack.len() >= MAX_EXPANSION_DEPTH {
            return Err(perr(rest, format!("`.include` nested more than {MAX_INCLUDE_DEPTH} deep")));
        }
        let text = resolver
            .resolve(&path, self.bytes_left)
            .map_err(|m| perr(rest, format!("cannot include `{path}`: {m}")))?;
        if text.len() > self.bytes_left {
            self.aborted = true;
            let m = format!("`{path}` passes the {} bytes left (AsmLimits::max_expanded_bytes)", self.bytes_left);
            return Err(perr(rest, m));
        }
        self.bytes_left -= text.len();
        let file = self.x.files.len() as u32;
        self.x.files.push(clip_middle(&path, MAX_FILE_NAME_CHARS));
        self.paths.push(path.clone());
        let text = self.x.add_chunk(Rc::from(text));
        let n = self.node(cur, word.off, Why::Include);
        let node = self.add_node(n);
        self.push_frame(Lines::File { text, pos: 0, line: 0, file }, node, None, Kind::Include { path }, true);
        Ok(())
    }

    /// `.if`, `.ifdef`, `.ifndef`, `.elseif`, `.else`, `.endif`; in a branch not assembled (`assembling` false)
    /// only their nesting is followed, and every other directive is skipped.
    pub(crate) fn conditional(&mut self, cur: &Cur, word: Span, code: &str, assembling: bool) {
        let (args, rest) = operands(code);
        if let Err(e) = self.cond_step(cur, word, &args, rest, assembling) {
            self.report(cur, e);
        }
    }

    fn cond_step(&mut self, cur: &Cur, word: Span, args: &[Span], rest: Span, assembling: bool) -> Result<(), PErr> {
        let last = self.stack.last().and_then(|f| f.conds.last()).map(|c| (c.outer, c.taken, c.seen_else));
        match word.text {
            ".if" | ".ifdef" | ".ifndef" => {
                let outer = assembling && self.active();
                let value = if outer { self.test(word, args, rest) } else { Ok(false) };
                let v = *value.as_ref().unwrap_or(&false);
                let c = Cond {
                    active: outer && v,
                    taken: !outer || v,
                    outer,
                    seen_else: false,
                    at: owned(cur),
                    off: word.off,
                };
                if let Some(f) = self.stack.last_mut() {
                    f.conds.push(c);
                }
                value.map(drop)
            }
            ".elseif" | ".else" => {
                let Some((outer, taken, seen_else)) = last else {
                    return Err(perr(word, format!("`{}` without `.if`", word.text)));
                };
                if seen_else {
                    return Err(perr(word, format!("`{}` after `.else`", word.text)));
                }
                let value = match word.text {
                    ".else" => no_operands(word, rest).map(|_| true),
                    _ if outer && !taken => self.test(word, args, rest),
                    _ => Ok(false),
                };
                let v = *value.as_ref().unwrap_or(&false);
                if let Some(c) = self.stack.last_mut().and_then(|f| f.conds.last_mut()) {
                    c.active = outer && !taken && v;
                    c.taken |= c.active;
                    c.seen_else = word.text == ".else";
                }
                value.map(drop)
            }
            ".endif" => match self.stack.last_mut().and_then(|f| f.conds.pop()) {
                Some(_) => no_operands(word, rest),
                None => Err(perr(word, "`.endif` without `.if`".into())),
            },
            _ => Ok(()),
        }
    }

    /// The condition of `.if EXPR` / `.elseif EXPR` (non-zero), `.ifdef NAME` / `.ifndef NAME` (a constant, an
    /// alias or a macro of that name exists).
    fn test(&self, word: Span, args: &[Span], rest: Span) -> Result<bool, PErr> {
        if !word.text.starts_with(".ifn") && !word.text.starts_with(".ifd") {
            return self.eval_now(rest).map(|v| v != 0);
        }
        let [name] = args else {
            return Err(perr(if args.is_empty() { word } else { rest }, format!("`{}` takes one name", word.text)));
        };
        let defined = self.x.symbols.current(name.text).is_some() || self.macros.contains_key(name.text);
        Ok(defined == (word.text == ".ifdef"))
    }
}

fn no_operands(word: Span, rest: Span) -> Result<(), PErr> {
    if rest.text.is_empty() {
        Ok(())
    } else {
        Err(perr(rest, format!("`{}` takes no operands", word.text)))
    }
}
