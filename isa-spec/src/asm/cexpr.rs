//! Constant expressions of the assembler (`.equ`, `.set`, `.if`, `.rept`, immediates, offsets): 64-bit signed
//! integers with C's operators and precedence. Every operation is checked: overflow, division by zero and a shift
//! outside 0..=63 are errors, never a wrapped value, and nesting is bounded so that `((((…` cannot exhaust the
//! stack. Names are looked up through a closure, so the same evaluator serves the preprocessor (the symbols as
//! they are now) and the assembler (the symbols as they were when the line was expanded).

use super::lex::{self, NumError, Span};
use super::operand::{perr, PErr};

/// Deepest nesting of parentheses and unary operators: far beyond any hand-written expression, far below the
/// stack.
pub(crate) const MAX_EXPR_DEPTH: usize = 200;

/// What a name means in an expression.
pub(crate) enum Sym {
    /// A constant (`.equ`, `.set`).
    Int(i64),
    /// A register alias (`.reg`): not a number.
    Reg,
    /// Not defined.
    Undefined,
}

/// A failure, at byte `off` of the expression text, `len` bytes long.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct ExprError {
    pub off: usize,
    pub len: usize,
    pub kind: ExprErrorKind,
}

#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ExprErrorKind {
    /// A number token that does not parse (`12x`, `0x`).
    BadNumber,
    /// A number beyond i64.
    TooLarge,
    /// A name that is neither a constant nor an alias.
    Undefined(String),
    /// Any other failure, with its message.
    Other(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok<'a> {
    Num(&'a str),
    Name(&'a str),
    Op(&'static str),
    Open,
    Close,
}

/// Operators, longest first so that `<<` is not read as `<`.
const OPS: [&str; 21] =
    ["<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+", "-", "*", "/", "%", "&", "|", "^", "~", "!", "<", ">", "="];

/// Binary operators by precedence level, loosest first (C's order).
const LEVELS: [&[&str]; 10] = [
    &["||"],
    &["&&"],
    &["|"],
    &["^"],
    &["&"],
    &["==", "!="],
    &["<", "<=", ">", ">="],
    &["<<", ">>"],
    &["+", "-"],
    &["*", "/", "%"],
];

fn err(off: usize, len: usize, kind: ExprErrorKind) -> ExprError {
    ExprError { off, len, kind }
}

fn other(off: usize, len: usize, m: String) -> ExprError {
    err(off, len, ExprErrorKind::Other(m))
}

/// Splits `s` into tokens with their byte offsets.
fn tokens(s: &str) -> Result<Vec<(Tok<'_>, usize)>, ExprError> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let word_end = |from: usize| {
            s[from..].find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.')).map_or(s.len(), |e| from + e)
        };
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let e = word_end(i);
            out.push((Tok::Num(&s[i..e]), i));
            i = e;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let e = word_end(i);
            out.push((Tok::Name(&s[i..e]), i));
            i = e;
        } else if c == b'(' || c == b')' {
            out.push((if c == b'(' { Tok::Open } else { Tok::Close }, i));
            i += 1;
        } else if let Some(op) = OPS.iter().find(|o| s[i..].starts_with(*o)) {
            if *op == "=" {
                return Err(other(i, 1, "`=` in an expression (compare with `==`)".into()));
            }
            out.push((Tok::Op(op), i));
            i += op.len();
        } else {
            let ch = s[i..].chars().next().unwrap_or('?');
            let m = if ch == '\\' {
                let e = word_end(i + 1);
                let name = &s[i..e.max(i + 1)];
                return Err(other(i, name.len(), format!("unknown macro parameter or `.irp` symbol `{name}`")));
            } else {
                format!("unexpected `{ch}` in an expression")
            };
            return Err(other(i, ch.len_utf8(), m));
        }
    }
    Ok(out)
}

/// A recursive-descent parser that evaluates as it goes.
struct Eval<'a, 'f> {
    toks: Vec<(Tok<'a>, usize)>,
    at: usize,
    end: usize,
    depth: usize,
    lookup: &'f dyn Fn(&str) -> Sym,
}

impl<'a> Eval<'a, '_> {
    fn peek(&self) -> Option<Tok<'a>> {
        self.toks.get(self.at).map(|t| t.0)
    }

    fn off(&self) -> usize {
        self.toks.get(self.at).map_or(self.end, |t| t.1)
    }

    fn binary(&mut self, level: usize) -> Result<i64, ExprError> {
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut a = self.binary(level + 1)?;
        while let Some(Tok::Op(op)) = self.peek() {
            if !LEVELS[level].contains(&op) {
                break;
            }
            let at = self.off();
            self.at += 1;
            let b = self.binary(level + 1)?;
            a = apply(op, a, b).map_err(|m| other(at, op.len(), m))?;
        }
        Ok(a)
    }

    fn nest(&mut self) -> Result<(), ExprError> {
        self.depth += 1;
        if self.depth > MAX_EXPR_DEPTH {
            return Err(other(self.off(), 1, format!("expression nested more than {MAX_EXPR_DEPTH} deep")));
        }
        Ok(())
    }

    fn unary(&mut self) -> Result<i64, ExprError> {
        self.nest()?;
        let at = self.off();
        let v = match self.peek() {
            Some(Tok::Op(op @ ("-" | "+" | "~" | "!"))) => {
                self.at += 1;
                let v = self.unary()?;
                match op {
                    "-" => v.checked_neg().ok_or_else(|| other(at, 1, format!("overflow: -({v})")))?,
                    "+" => v,
                    "~" => !v,
                    _ => (v == 0) as i64,
                }
            }
            Some(Tok::Open) => {
                self.at += 1;
                let v = self.binary(0)?;
                if self.peek() != Some(Tok::Close) {
                    return Err(other(at, 1, "unclosed `(`".into()));
                }
                self.at += 1;
                v
            }
            Some(Tok::Num(n)) => {
                self.at += 1;
                number(n, at)?
            }
            Some(Tok::Name(n)) => {
                self.at += 1;
                match (self.lookup)(n) {
                    Sym::Int(v) => v,
                    Sym::Reg => return Err(other(at, n.len(), format!("`{n}` is a register alias, not a number"))),
                    Sym::Undefined => return Err(err(at, n.len(), ExprErrorKind::Undefined(n.to_string()))),
                }
            }
            Some(Tok::Close) => return Err(other(at, 1, "unexpected `)`".into())),
            Some(Tok::Op(op)) => return Err(other(at, op.len(), format!("expected a value before `{op}`"))),
            None => return Err(other(at, 0, "expected a value at the end of the expression".into())),
        };
        self.depth -= 1;
        Ok(v)
    }
}

fn number(n: &str, at: usize) -> Result<i64, ExprError> {
    lex::parse_int(n).map_err(|e| match e {
        NumError::Bad => err(at, n.len(), ExprErrorKind::BadNumber),
        NumError::TooLarge => err(at, n.len(), ExprErrorKind::TooLarge),
    })
}

/// One binary operation, checked.
fn apply(op: &str, a: i64, b: i64) -> Result<i64, String> {
    let overflow = || format!("overflow: {a} {op} {b} does not fit 64 bits");
    let shift = |b: i64| u32::try_from(b).ok().filter(|&s| s < 64).ok_or(format!("shift by {b} out of range 0..=63"));
    Ok(match op {
        "+" => a.checked_add(b).ok_or_else(overflow)?,
        "-" => a.checked_sub(b).ok_or_else(overflow)?,
        "*" => a.checked_mul(b).ok_or_else(overflow)?,
        "/" | "%" if b == 0 => return Err(format!("division by zero: {a} {op} 0")),
        "/" => a.checked_div(b).ok_or_else(overflow)?,
        "%" => a.checked_rem(b).ok_or_else(overflow)?,
        "<<" => {
            let s = shift(b)?;
            let v = a << s;
            if v >> s != a {
                return Err(overflow());
            }
            v
        }
        ">>" => a >> shift(b)?,
        "&" => a & b,
        "|" => a | b,
        "^" => a ^ b,
        "==" => (a == b) as i64,
        "!=" => (a != b) as i64,
        "<" => (a < b) as i64,
        "<=" => (a <= b) as i64,
        ">" => (a > b) as i64,
        ">=" => (a >= b) as i64,
        "&&" => (a != 0 && b != 0) as i64,
        _ => (a != 0 || b != 0) as i64,
    })
}

/// Evaluates `text`; `lookup` gives the meaning of each name. Offsets in an error are bytes of `text`.
pub(crate) fn eval(text: &str, lookup: &dyn Fn(&str) -> Sym) -> Result<i64, ExprError> {
    let toks = tokens(text)?;
    if toks.is_empty() {
        return Err(other(0, 0, "missing value (an empty expression)".into()));
    }
    let mut e = Eval { toks, at: 0, end: text.len(), depth: 0, lookup };
    let v = e.binary(0)?;
    if let Some(&(t, off)) = e.toks.get(e.at) {
        let what = match t {
            Tok::Close => "unmatched `)`".to_string(),
            _ => "expected an operator".to_string(),
        };
        let len = match t {
            Tok::Num(s) | Tok::Name(s) => s.len(),
            Tok::Op(o) => o.len(),
            _ => 1,
        };
        return Err(other(off, len, format!("{what} at `{}`", &text[off..off + len])));
    }
    Ok(v)
}

/// An evaluation error of the expression `expr` as an assembler error, placed at the offending token.
pub(crate) fn to_perr(expr: Span, e: ExprError) -> PErr {
    let text = expr.text.get(e.off..e.off + e.len).unwrap_or("");
    let at = Span { text, off: expr.off + e.off };
    let m = match e.kind {
        ExprErrorKind::BadNumber => format!("bad number `{text}`"),
        ExprErrorKind::TooLarge => format!("number `{text}` is too large"),
        ExprErrorKind::Undefined(n) => format!("undefined constant `{n}`"),
        ExprErrorKind::Other(m) => m,
    };
    perr(at, m)
}

/// Whether a token needs the evaluator: anything but a plain name or number (those are read directly, so that
/// their messages stay the ones of a single token).
pub(crate) fn is_compound(text: &str) -> bool {
    !text.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(s: &str) -> Result<i64, ExprError> {
        eval(s, &|n| match n {
            "A" => Sym::Int(10),
            "B" => Sym::Int(-3),
            "acc" => Sym::Reg,
            _ => Sym::Undefined,
        })
    }

    fn msg(s: &str) -> String {
        match ev(s).unwrap_err().kind {
            ExprErrorKind::Other(m) => m,
            k => format!("{k:?}"),
        }
    }

    #[test]
    fn precedence_is_c_s() {
        assert_eq!(ev("1 + 2 * 3").unwrap(), 7);
        assert_eq!(ev("(1 + 2) * 3").unwrap(), 9);
        assert_eq!(ev("1 << 2 + 1").unwrap(), 8);
        assert_eq!(ev("6 & 3 | 8 ^ 1").unwrap(), (6 & 3) | (8 ^ 1));
        assert_eq!(ev("-A + ~0").unwrap(), -11);
        assert_eq!(ev("A / B").unwrap(), -3);
        assert_eq!(ev("A % B").unwrap(), 1);
        assert_eq!(ev("-7 >> 1").unwrap(), -4);
        assert_eq!(ev("A > 4 && B < 0 || 0").unwrap(), 1);
        assert_eq!(ev("!A == 0").unwrap(), 1);
        assert_eq!(ev("0x10 + 0b11 + 1_000").unwrap(), 1019);
        assert_eq!(ev("((((A))))").unwrap(), 10);
    }

    #[test]
    fn failures_are_errors_with_their_place() {
        assert_eq!(msg("1 / (A - 10)"), "division by zero: 1 / 0");
        assert_eq!(msg("A % 0"), "division by zero: 10 % 0");
        assert_eq!(msg("0x7fffffffffffffff + 1"), "overflow: 9223372036854775807 + 1 does not fit 64 bits");
        assert_eq!(msg("1 << 64"), "shift by 64 out of range 0..=63");
        assert_eq!(msg("1 << -1"), "shift by -1 out of range 0..=63");
        assert!(msg("3 << 62").starts_with("overflow"));
        assert!(msg("(-9223372036854775807 - 1) / -1").starts_with("overflow"));
        assert_eq!(ev("C + 1").unwrap_err(), err(0, 1, ExprErrorKind::Undefined("C".into())));
        assert_eq!(ev("1 + 12x").unwrap_err(), err(4, 3, ExprErrorKind::BadNumber));
        assert_eq!(msg("acc + 1"), "`acc` is a register alias, not a number");
        assert_eq!(msg("(1 + 2"), "unclosed `(`");
        assert_eq!(msg("1 + 2)"), "unmatched `)` at `)`");
        assert_eq!(msg("1 2"), "expected an operator at `2`");
        assert_eq!(msg("1 +"), "expected a value at the end of the expression");
        assert_eq!(msg("a = 1"), "`=` in an expression (compare with `==`)");
        assert_eq!(msg("\\x + 1"), "unknown macro parameter or `.irp` symbol `\\x`");
        assert_eq!(msg("1 $ 2"), "unexpected `$` in an expression");
        assert_eq!(msg(""), "missing value (an empty expression)");
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000));
        assert!(msg(&deep).contains("nested more than"));
        assert!(msg(&"-".repeat(100_000)).contains("nested more than"));
        let ok = format!("{}1{}", "(".repeat(150), ")".repeat(150));
        assert_eq!(ev(&ok).unwrap(), 1);
    }
}
