//! Lexical layer of the assembler: comments, labels, operand splitting, numbers, quoted strings and
//! "did you mean" suggestions. Every function works on byte offsets into the line (always at char
//! boundaries) and never panics, whatever the input.

/// A piece of a source line: its (trimmed) text and its byte offset in the line.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Span<'a> {
    pub text: &'a str,
    pub off: usize,
}

/// `s` (which starts at byte `off` of the line) without surrounding whitespace, offset adjusted.
pub(crate) fn trimmed(s: &str, off: usize) -> Span<'_> {
    let lead = s.len() - s.trim_start().len();
    Span { text: s.trim(), off: off + lead }
}

/// The line without its comment (`;` or `//` to the end of the line, outside a quoted string).
pub(crate) fn strip_comment(line: &str) -> &str {
    let (mut in_str, mut esc) = (false, false);
    for (i, c) in line.char_indices() {
        if in_str {
            match c {
                _ if esc => esc = false,
                '\\' => esc = true,
                '"' => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            ';' => return &line[..i],
            '/' if line[i + 1..].starts_with('/') => return &line[..i],
            _ => {}
        }
    }
    line
}

/// Splits an operand list at top-level commas (not inside quotes). An all-blank list has no operands;
/// otherwise every piece is returned, empty ones included (the caller reports them).
pub(crate) fn split_operands(s: &str, off: usize) -> Vec<Span<'_>> {
    if s.trim().is_empty() {
        return Vec::new();
    }
    let (mut out, mut start, mut in_str, mut esc) = (Vec::new(), 0, false, false);
    for (i, c) in s.char_indices() {
        if in_str {
            match c {
                _ if esc => esc = false,
                '\\' => esc = true,
                '"' => in_str = false,
                _ => {}
            }
        } else if c == '"' {
            in_str = true;
        } else if c == ',' {
            out.push(trimmed(&s[start..i], off + start));
            start = i + 1;
        }
    }
    out.push(trimmed(&s[start..], off + start));
    out
}

/// The parts of one source line.
pub(crate) struct Line<'a> {
    pub labels: Vec<Span<'a>>,
    pub body: Option<Body<'a>>,
}

pub(crate) enum Body<'a> {
    Directive { name: Span<'a>, args: Vec<Span<'a>>, rest: Span<'a> },
    Insn { mnemonic: Span<'a>, ops: Vec<Span<'a>>, rest: Span<'a> },
}

/// Splits a comment-free line into leading labels (`name:`), then a directive or an instruction.
pub(crate) fn split_line(code: &str) -> Line<'_> {
    let mut pos = 0;
    let mut labels = Vec::new();
    loop {
        let rest = &code[pos..];
        let t = trimmed(rest, pos);
        if t.text.is_empty() {
            return Line { labels, body: None };
        }
        pos = t.off;
        let rest = &code[pos..];
        // A label is the leading word when the next non-blank character is `:`.
        let wend = rest.find(|c: char| c.is_whitespace() || c == ':' || c == ',').unwrap_or(rest.len());
        let after = rest[wend..].trim_start();
        if wend > 0 && after.starts_with(':') {
            labels.push(Span { text: &rest[..wend], off: pos });
            pos += wend + (rest[wend..].len() - after.len()) + 1;
            continue;
        }
        let wend = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let word = Span { text: &rest[..wend], off: pos };
        let tail = &rest[wend..];
        let tail_off = pos + wend;
        let ops = split_operands(tail, tail_off);
        let rest = trimmed(tail, tail_off);
        let body = if word.text.starts_with('.') {
            Body::Directive { name: word, args: ops, rest }
        } else {
            Body::Insn { mnemonic: word, ops, rest }
        };
        return Line { labels, body: Some(body) };
    }
}

/// Where the leading labels of a comment-free line end, and the word after them (a directive, a mnemonic or a
/// macro name), without splitting the operands: the preprocessor looks at every line, and most are not its own.
pub(crate) fn first_word(code: &str) -> (usize, Option<Span<'_>>) {
    let mut pos = 0;
    loop {
        let t = trimmed(&code[pos..], pos);
        if t.text.is_empty() {
            return (pos, None);
        }
        pos = t.off;
        let rest = &code[pos..];
        let wend = rest.find(|c: char| c.is_whitespace() || c == ':' || c == ',').unwrap_or(rest.len());
        let after = rest[wend..].trim_start();
        if wend > 0 && after.starts_with(':') {
            pos += wend + (rest[wend..].len() - after.len()) + 1;
            continue;
        }
        let wend = rest.find(char::is_whitespace).unwrap_or(rest.len());
        return (pos, Some(Span { text: &rest[..wend], off: pos }));
    }
}

/// A numeric local label (`1:`, `42:`), defined any number of times and referred to as `1b` / `1f`.
pub(crate) fn is_local_label(s: &str) -> bool {
    !s.is_empty() && s.len() <= 9 && s.bytes().all(|b| b.is_ascii_digit())
}

/// A reference to a numeric local label: `1b` (the last definition at or before the reference) or `1f` (the
/// next one after it).
pub(crate) fn local_label_ref(s: &str) -> Option<(u32, bool)> {
    let (digits, forward) = match s.as_bytes().last()? {
        b'f' => (&s[..s.len() - 1], true),
        b'b' => (&s[..s.len() - 1], false),
        _ => return None,
    };
    is_local_label(digits).then(|| (digits.parse().ok(), forward)).and_then(|(n, f)| Some((n?, f)))
}

/// A label name: a letter or `_`, then letters, digits, `_` or `.`.
pub(crate) fn is_ident(s: &str) -> bool {
    let mut cs = s.chars();
    matches!(cs.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && cs.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
}

#[derive(Debug, PartialEq, Eq)]
pub(crate) enum NumError {
    Bad,
    TooLarge,
}

/// Whether a token is meant as a number (starts with a digit or a sign followed by a digit).
pub(crate) fn looks_numeric(s: &str) -> bool {
    let s = s.strip_prefix(['+', '-']).unwrap_or(s);
    s.starts_with(|c: char| c.is_ascii_digit())
}

/// An integer literal: optional sign, then decimal, `0x` hex or `0b` binary digits (`_` separators allowed
/// between digits). The value must fit an i64.
pub(crate) fn parse_int(s: &str) -> Result<i64, NumError> {
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let (radix, digits) = if let Some(d) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        (16, d)
    } else if let Some(d) = body.strip_prefix("0b").or_else(|| body.strip_prefix("0B")) {
        (2, d)
    } else {
        (10, body)
    };
    if digits.is_empty() || digits.starts_with('_') {
        return Err(NumError::Bad);
    }
    let mut acc: i128 = 0;
    for c in digits.chars() {
        if c == '_' {
            continue;
        }
        let d = c.to_digit(radix).ok_or(NumError::Bad)?;
        acc = acc * radix as i128 + d as i128;
        if acc > 1i128 << 64 {
            // Keep scanning for bad digits so that `99999999999999999999z` reports the bad digit.
            acc = 1i128 << 64;
        }
    }
    let v = if neg { -acc } else { acc };
    i64::try_from(v).map_err(|_| NumError::TooLarge)
}

/// A float literal for a 32-bit literal operand: contains `.`, an exponent, or is `inf`/`nan`.
/// Returns `None` when the token is not float-shaped (the caller tries an integer instead).
pub(crate) fn parse_f32(s: &str) -> Option<Result<f32, String>> {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    let lower = body.to_ascii_lowercase();
    let named = matches!(lower.as_str(), "inf" | "infinity" | "nan");
    let hexish = lower.starts_with("0x") || lower.starts_with("0b");
    // Only the characters of a float: `2*SIZE` holds an `e` but is an expression.
    let floaty = !hexish
        && body.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        && (body.contains('.') || lower.contains('e'))
        && body.chars().all(|c| c.is_ascii_digit() || ".eE+-".contains(c));
    if !named && !floaty {
        return None;
    }
    Some(match s.parse::<f32>() {
        Ok(f) if f.is_infinite() && !named => Err(format!("float literal `{s}` is out of the f32 range")),
        Ok(f) => Ok(f),
        Err(_) => Err(format!("bad float literal `{s}`")),
    })
}

/// A quoted string with escapes `\\ \" \n \t \r \0 \xNN` (NN ≤ 7f) and `\u{…}`.
pub(crate) fn parse_string(s: &str) -> Result<String, String> {
    let inner = s
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .filter(|_| s.len() >= 2)
        .ok_or_else(|| format!("unterminated string {s}"))?;
    let mut out = String::new();
    let mut cs = inner.chars();
    while let Some(c) = cs.next() {
        match c {
            '"' => return Err("unescaped `\"` inside a string".into()),
            '\\' => match cs.next() {
                Some('\\') => out.push('\\'),
                Some('"') => out.push('"'),
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('r') => out.push('\r'),
                Some('0') => out.push('\0'),
                Some('x') => {
                    let h: String = cs.by_ref().take(2).collect();
                    match u8::from_str_radix(&h, 16) {
                        Ok(b) if b < 0x80 && h.len() == 2 => out.push(b as char),
                        _ => return Err(format!("bad escape `\\x{h}` (two hex digits, at most 7f)")),
                    }
                }
                Some('u') => {
                    let rest = cs.as_str();
                    let close = rest.find('}').filter(|_| rest.starts_with('{'));
                    let ch = close.and_then(|e| u32::from_str_radix(&rest[1..e], 16).ok()).and_then(char::from_u32);
                    match (ch, close) {
                        (Some(ch), Some(e)) => {
                            out.push(ch);
                            cs = rest[e + 1..].chars();
                        }
                        _ => return Err("bad escape `\\u` (write \\u{hex})".into()),
                    }
                }
                Some(o) => return Err(format!("unknown escape `\\{o}`")),
                None => return Err("string ends with `\\`".into()),
            },
            _ => out.push(c),
        }
    }
    Ok(out)
}

/// A kernel name as the disassembler writes it: bare when it is made of `[A-Za-z0-9_.$-]`, else quoted.
pub fn quote_name(name: &str) -> String {
    if is_bare_name(name) {
        return name.to_string();
    }
    let mut s = String::from("\"");
    for c in name.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            c if c.is_control() => s.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => s.push(c),
        }
    }
    s.push('"');
    s
}

pub(crate) fn is_bare_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || "_.$-".contains(c))
}

/// Most characters of one token an error message repeats.
pub const MAX_ECHOED_TOKEN_CHARS: usize = 80;

/// `s` with every whitespace-free run longer than [`MAX_ECHOED_TOKEN_CHARS`] cut short (`…` marks the cut; a
/// closing backtick is kept so that the quoting stays balanced).
pub(crate) fn elide_long_tokens(s: &str) -> String {
    let mut out = String::with_capacity(s.len().min(1024));
    let mut run = 0usize;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_whitespace() {
            run = 0;
            out.push(c);
            continue;
        }
        run += 1;
        if run <= MAX_ECHOED_TOKEN_CHARS {
            out.push(c);
            continue;
        }
        // Skip the rest of the run, remembering its last character.
        let mut last = c;
        while let Some(&n) = chars.peek() {
            if n.is_whitespace() {
                break;
            }
            last = n;
            chars.next();
        }
        out.push('…');
        if last == '`' {
            out.push('`');
        }
        run = 0;
    }
    out
}

/// Levenshtein distance, for suggestions.
fn distance(a: &[char], b: &[char]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + (ca != cb) as usize).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The candidate closest to `word`, if close enough to be a plausible typo (distance at most a third of
/// the candidate's length). Long words are not compared: the fuzzer feeds huge tokens.
pub(crate) fn suggest<'c>(word: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    if word.len() > 64 {
        return None;
    }
    let w: Vec<char> = word.to_ascii_lowercase().chars().collect();
    let mut best: Option<(usize, &str)> = None;
    let mut buf = Vec::new();
    for c in candidates {
        let limit = (c.len() / 3).max(1);
        if w.len().abs_diff(c.len()) > limit {
            continue;
        }
        buf.clear();
        buf.extend(c.chars());
        let d = distance(&w, &buf);
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}
