//! Macros as GNU as has them: `.macro NAME a, b=4, rest:vararg` … `.endm`, called `NAME v1, 8` or
//! `NAME v1, b=8`; in the body `\a` is the argument, `\()` separates a parameter from what follows (`\a\()_x`),
//! and `\@` is a number unique to each expansion (for labels). `.irp` substitutes its symbol the same way.
//! A parameter name is letters, digits and `_` (a `.` ends it, so `\r.l` is the half of register `\r`).

use super::lex::{self, Span};
use super::operand::{perr, PErr};
use super::source::{Loc, TextRef};
use std::rc::Rc;

/// One line of a macro or repetition body: its text and where it was written.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BodyLine {
    pub text: TextRef,
    pub loc: Loc,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Param {
    pub name: String,
    pub default: Option<String>,
    /// Takes every remaining argument (`name:vararg`, the last parameter only).
    pub vararg: bool,
}

pub(crate) struct Macro {
    pub name: Rc<str>,
    pub params: Vec<Param>,
    pub body: Rc<[BodyLine]>,
}

/// The names and values a body's lines are substituted with, and the expansion's `\@` number.
#[derive(Clone, Debug, Default)]
pub(crate) struct Subst {
    pub values: Vec<(String, String)>,
    pub unique: Option<u64>,
}

fn is_param_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn is_param_name(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') && s.chars().all(is_param_char)
}

/// The name and the parameter list of a `.macro` line: `rest` is what follows `.macro`.
pub(crate) fn parse_head(rest: Span) -> Result<(Span, Vec<Param>), PErr> {
    let t = rest.text;
    let end = t.find(|c: char| c.is_whitespace() || c == ',').unwrap_or(t.len());
    let name = Span { text: &t[..end], off: rest.off };
    if name.text.is_empty() {
        return Err(perr(rest, "`.macro` needs a name".into()));
    }
    if !lex::is_ident(name.text) {
        return Err(perr(name, format!("bad macro name `{}`", name.text))
            .hint(Some("a letter or `_`, then letters, digits, `_` or `.`".into())));
    }
    let after = &t[end..];
    let after = after.trim_start().strip_prefix(',').unwrap_or(after);
    let after_off = rest.off + (t.len() - after.len());
    let mut params: Vec<Param> = Vec::new();
    let specs = lex::split_operands(after, after_off);
    for (i, p) in specs.iter().enumerate() {
        let param = parse_param(*p)?;
        if param.vararg && i + 1 != specs.len() {
            return Err(perr(*p, format!("`{}:vararg` must be the last parameter", param.name)));
        }
        if params.iter().any(|q| q.name == param.name) {
            return Err(perr(*p, format!("parameter `{}` given twice", param.name)));
        }
        params.push(param);
    }
    Ok((name, params))
}

/// `a`, `a=default`, `a:req`, `a:vararg`.
fn parse_param(p: Span) -> Result<Param, PErr> {
    let (head, default) = match p.text.split_once('=') {
        Some((h, d)) => (h.trim(), Some(d.trim().to_string())),
        None => (p.text, None),
    };
    let (name, qualifier) = match head.split_once(':') {
        Some((n, q)) => (n.trim(), Some(q.trim())),
        None => (head, None),
    };
    if !is_param_name(name) {
        return Err(perr(p, format!("bad parameter `{}`", p.text))
            .hint(Some("a parameter is letters, digits and `_`, then `=default`, `:req` or `:vararg`".into())));
    }
    let vararg = match qualifier {
        None | Some("req") => false,
        Some("vararg") => true,
        Some(q) => return Err(perr(p, format!("unknown parameter qualifier `:{q}` (`:req` or `:vararg`)"))),
    };
    if qualifier == Some("req") && default.is_some() {
        return Err(perr(p, format!("parameter `{name}` is required (`:req`) and has a default")));
    }
    Ok(Param { name: name.to_string(), default, vararg })
}

/// The parameters as the call's messages list them: `a, b=4, rest:vararg`.
fn signature(m: &Macro) -> String {
    let ps: Vec<String> = m
        .params
        .iter()
        .map(|p| match (&p.default, p.vararg) {
            (_, true) => format!("{}:vararg", p.name),
            (Some(d), _) => format!("{}={d}", p.name),
            (None, _) => p.name.clone(),
        })
        .collect();
    if ps.is_empty() {
        "no parameters".into()
    } else {
        ps.join(", ")
    }
}

/// Binds the arguments of a call (`name` is the macro's name as written, `args` the call's operands) to the
/// macro's parameters: positional ones in order, then `param=value` ones; a missing one takes its default.
pub(crate) fn bind(m: &Macro, name: Span, args: &[Span]) -> Result<Vec<(String, String)>, PErr> {
    let mut values: Vec<Option<String>> = vec![None; m.params.len()];
    let mut next = 0;
    for a in args {
        if let Some(i) = named_param(m, *a)? {
            if values[i].is_some() {
                return Err(perr(*a, format!("argument `{}` of macro `{}` given twice", m.params[i].name, m.name)));
            }
            let (_, v) = a.text.split_once('=').unwrap_or_default();
            values[i] = Some(v.trim().to_string());
            continue;
        }
        let Some(p) = m.params.get(next) else {
            let m = format!("too many arguments: macro `{}` takes {} ({})", m.name, m.params.len(), signature(m));
            return Err(perr(*a, m));
        };
        if p.vararg {
            values[next] = Some(match values[next].take() {
                Some(prev) => format!("{prev}, {}", a.text),
                None => a.text.to_string(),
            });
            continue;
        }
        if values[next].is_some() {
            return Err(perr(*a, format!("argument `{}` of macro `{}` given twice", p.name, m.name)));
        }
        // An empty argument (`m a,,c`) takes the default, as in GNU as.
        values[next] = (!a.text.is_empty()).then(|| a.text.to_string());
        next += 1;
    }
    let mut out = Vec::with_capacity(m.params.len());
    for (p, v) in m.params.iter().zip(values) {
        let v = match (v, &p.default) {
            (Some(v), _) => v,
            (None, Some(d)) => d.clone(),
            (None, None) if p.vararg => String::new(),
            (None, None) => {
                let msg = format!("macro `{}` needs an argument for `{}` ({})", m.name, p.name, signature(m));
                return Err(perr(name, msg));
            }
        };
        out.push((p.name.clone(), v));
    }
    Ok(out)
}

/// The parameter an argument `name=value` names, if it is written so (an unknown name is an error, unless the
/// macro has a `:vararg` parameter to take it as text).
fn named_param(m: &Macro, a: Span) -> Result<Option<usize>, PErr> {
    let Some((head, rest)) = a.text.split_once('=') else { return Ok(None) };
    let head = head.trim();
    if !is_param_name(head) || rest.starts_with('=') {
        return Ok(None);
    }
    match m.params.iter().position(|p| p.name == head) {
        Some(i) => Ok(Some(i)),
        // `rm=rne` passes through to a `:vararg` parameter (keyword operands of an instruction).
        None if m.params.last().is_some_and(|p| p.vararg) => Ok(None),
        None => Err(perr(
            Span { text: head, off: a.off },
            format!("macro `{}` has no parameter `{head}` ({})", m.name, signature(m)),
        )),
    }
}

/// `code` with `\name`, `\()` and `\@` replaced; `Ok(None)` when it holds nothing to replace, `Err` when the
/// result would pass `max` bytes (a long argument used many times must not allocate before the limit is checked).
/// A `\name` that is not one of `s`'s names is kept (an inner `.irp` substitutes it later, or the line is refused
/// when it is emitted).
pub(crate) fn substitute(code: &str, s: &Subst, max: usize) -> Result<Option<String>, ()> {
    if !code.contains('\\') {
        return Ok(None);
    }
    let mut out = String::with_capacity(code.len().min(max) + 16);
    let mut rest = code;
    while let Some(i) = rest.find('\\') {
        if out.len() > max {
            return Err(());
        }
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let name_len = after.find(|c: char| !is_param_char(c)).unwrap_or(after.len());
        let name = &after[..name_len];
        if let Some((_, v)) = s.values.iter().find(|(n, _)| n == name).filter(|_| !name.is_empty()) {
            out.push_str(v);
            rest = &after[name_len..];
        } else if let (Some(u), true) = (s.unique, after.starts_with('@')) {
            out.push_str(&u.to_string());
            rest = &after[1..];
        } else if let Some(r) = after.strip_prefix("()") {
            rest = r;
        } else {
            out.push('\\');
            rest = after;
        }
    }
    out.push_str(rest);
    if out.len() > max {
        return Err(());
    }
    Ok(Some(out))
}

/// The first `\` outside a quoted string in a line going to the assembler: a parameter that nothing substituted.
pub(crate) fn leftover_backslash(code: &str) -> Option<Span<'_>> {
    let (mut in_str, mut esc) = (false, false);
    for (i, c) in code.char_indices() {
        if in_str {
            match c {
                _ if esc => esc = false,
                '\\' => esc = true,
                '"' => in_str = false,
                _ => {}
            }
        } else if c == '"' {
            in_str = true;
        } else if c == '\\' {
            let after = &code[i + 1..];
            let name = after.find(|c: char| !is_param_char(c)).unwrap_or(after.len());
            let len = if name > 0 || !after.starts_with(['@', '(']) { name } else { 1 };
            return Some(Span { text: &code[i..i + 1 + len], off: i });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mac(head: &str) -> Macro {
        let (name, params) = parse_head(Span { text: head, off: 0 }).unwrap();
        Macro { name: name.text.into(), params, body: Rc::from(Vec::new()) }
    }

    fn call(m: &Macro, args: &str) -> Result<Vec<(String, String)>, String> {
        let spans = lex::split_operands(args, 0);
        bind(m, Span { text: &m.name, off: 0 }, &spans).map_err(|e| e.message)
    }

    fn vals(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
    }

    #[test]
    fn heads_and_bindings() {
        let m = mac("tap dst, src=v1, n:req");
        assert_eq!(m.params[1], Param { name: "src".into(), default: Some("v1".into()), vararg: false });
        assert_eq!(call(&m, "v2, v3, 4").unwrap(), vals(&[("dst", "v2"), ("src", "v3"), ("n", "4")]));
        assert_eq!(call(&m, "v2, n=4").unwrap(), vals(&[("dst", "v2"), ("src", "v1"), ("n", "4")]));
        assert_eq!(call(&m, "n=4, dst=v9").unwrap(), vals(&[("dst", "v9"), ("src", "v1"), ("n", "4")]));
        assert_eq!(call(&m, "v2,,4").unwrap(), vals(&[("dst", "v2"), ("src", "v1"), ("n", "4")]));
        assert_eq!(call(&m, "v2, v3").unwrap_err(), "macro `tap` needs an argument for `n` (dst, src=v1, n)");
        assert_eq!(call(&m, "v2, v3, 4, 5").unwrap_err(), "too many arguments: macro `tap` takes 3 (dst, src=v1, n)");
        assert_eq!(call(&m, "v2, k=1").unwrap_err(), "macro `tap` has no parameter `k` (dst, src=v1, n)");
        assert_eq!(call(&m, "v2, dst=v1").unwrap_err(), "argument `dst` of macro `tap` given twice");
        let v = mac("op name, rest:vararg");
        assert_eq!(call(&v, "f.add, v1, v2, rm=rne").unwrap(), vals(&[("name", "f.add"), ("rest", "v1, v2, rm=rne")]));
        assert_eq!(call(&v, "nop").unwrap(), vals(&[("name", "nop"), ("rest", "")]));
        assert_eq!(mac("m, a, b").params.len(), 2);
        assert_eq!(mac("m").params.len(), 0);
    }

    #[test]
    fn bad_heads() {
        let head = |s: &str| parse_head(Span { text: s, off: 0 }).err().map(|e| e.message);
        assert_eq!(head("").unwrap(), "`.macro` needs a name");
        assert_eq!(head("1m a").unwrap(), "bad macro name `1m`");
        assert_eq!(head("m a, a").unwrap(), "parameter `a` given twice");
        assert_eq!(head("m a:vararg, b").unwrap(), "`a:vararg` must be the last parameter");
        assert_eq!(head("m a:opt").unwrap(), "unknown parameter qualifier `:opt` (`:req` or `:vararg`)");
        assert_eq!(head("m a.b").unwrap(), "bad parameter `a.b`");
    }

    #[test]
    fn substitution() {
        let s = Subst { values: vals(&[("a", "v1"), ("ab", "X")]), unique: Some(7) };
        let sub = |code: &str| substitute(code, &s, 100).unwrap();
        assert_eq!(sub("no backslash"), None);
        assert_eq!(sub("v.add \\a, \\ab, \\a.l").unwrap(), "v.add v1, X, v1.l");
        assert_eq!(sub("l\\@: \\a\\()_x").unwrap(), "l7: v1_x");
        assert_eq!(sub("keep \\zz and \\").unwrap(), "keep \\zz and \\");
        let long = Subst { values: vals(&[("a", &"x".repeat(1000))]), unique: None };
        assert_eq!(substitute(&"\\a ".repeat(1000), &long, 10_000), Err(()));
        assert_eq!(leftover_backslash("j \\zz").unwrap().text, "\\zz");
        assert_eq!(leftover_backslash(".kernel \"a\\nb\"").map(|s| s.off), None);
        assert_eq!(leftover_backslash("x \\").unwrap().text, "\\");
        assert_eq!(leftover_backslash("x \\é").unwrap().text, "\\");
    }
}
