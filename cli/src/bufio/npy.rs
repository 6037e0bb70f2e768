//! numpy's `.npy` format (versions 1.0–3.0) for 32-bit buffers: the header written for a one-dimensional
//! array, and the reader of C-order arrays of `<u4`, `<i4` or `<f4`.
//!
//! The header is parsed as the format defines it: a Python literal dict with exactly the keys `'descr'`,
//! `'fortran_order'` and `'shape'`, each once, followed by spaces and a newline. Anything else is refused with
//! the reason rather than searched for the keys' text (a decoy key whose value spells `'descr': '<u4'` must not
//! turn float64 data into u32 words).

use super::Elem;
use anyhow::{anyhow, bail, Result};

/// The magic string every `.npy` file starts with.
pub const MAGIC: &[u8] = b"\x93NUMPY";

/// Largest header numpy itself reads without `max_header_size` raised (its guard against headers that are
/// expensive to evaluate); a 32-bit array's header is under 200 bytes.
pub const MAX_HEADER_BYTES: usize = 10_000;

/// Bytes before the header of a version 2 or 3 file (the longest prefix).
pub const PREFIX_BYTES: usize = 12;

/// A version 1.0 header for a one-dimensional array, padded so that the data starts 64-byte aligned.
pub fn header(elem: Elem, len: usize) -> Vec<u8> {
    let dict = format!("{{'descr': '{}', 'fortran_order': False, 'shape': ({len},), }}", elem.descr());
    let unpadded = MAGIC.len() + 2 + 2 + dict.len() + 1;
    let pad = unpadded.next_multiple_of(64) - unpadded;
    let header_len = (dict.len() + pad + 1) as u16;
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&[1, 0]);
    out.extend_from_slice(&header_len.to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out.extend(std::iter::repeat_n(b' ', pad));
    out.push(b'\n');
    out
}

/// The data bytes of a `.npy` file holding `elem`s in C order, after checking its header against the data.
pub fn data(bytes: &[u8], elem: Elem) -> Result<&[u8]> {
    if !bytes.starts_with(MAGIC) || bytes.len() < 10 {
        bail!("not a .npy file (no \\x93NUMPY magic)");
    }
    let (header_len, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= PREFIX_BYTES => {
            (u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize, PREFIX_BYTES)
        }
        v => bail!(".npy version {v}.{} is not one this reader knows (1, 2 or 3)", bytes[7]),
    };
    if header_len > MAX_HEADER_BYTES {
        bail!(".npy header of {header_len} bytes: more than {MAX_HEADER_BYTES} (numpy's own limit)");
    }
    let header = bytes.get(start..start + header_len).ok_or_else(|| anyhow!("truncated .npy header"))?;
    let header = std::str::from_utf8(header).map_err(|_| anyhow!(".npy header is not text"))?;
    let h = parse_header(header).map_err(|e| anyhow!(".npy header: {e}"))?;
    if h.descr != elem.descr() {
        bail!("dtype '{}' does not match the buffer type {} (numpy dtype '{}')", h.descr, elem.name(), elem.descr());
    }
    if h.fortran_order {
        bail!("the array is in Fortran order: save it C-contiguous (np.ascontiguousarray)");
    }
    let shape = h.shape.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
    let elements = h.shape.iter().try_fold(1u64, |n, &d| n.checked_mul(d));
    let data = &bytes[start + header_len..];
    match elements {
        Some(n) if n.checked_mul(4) == Some(data.len() as u64) => Ok(data),
        Some(n) => bail!("the shape ({shape}) holds {n} elements but the file has {} data bytes", data.len()),
        None => bail!("the shape ({shape}) overflows a 64-bit element count"),
    }
}

/// What a `.npy` header says.
#[derive(Debug, PartialEq)]
struct Header {
    descr: String,
    fortran_order: bool,
    shape: Vec<u64>,
}

/// A value of the header's dict.
#[derive(Debug, PartialEq)]
enum Value {
    Str(String),
    Bool(bool),
    Tuple(Vec<u64>),
}

const KEYS: [&str; 3] = ["descr", "fortran_order", "shape"];

/// The header's dict: `{` key `:` value (`,` key `:` value)* [`,`] `}`, then only spaces and the newline.
fn parse_header(text: &str) -> Result<Header> {
    let mut p = Parser { rest: text };
    p.expect('{')?;
    let mut found: [Option<Value>; 3] = [None, None, None];
    while !p.eat('}') {
        let key = match p.value()? {
            Value::Str(k) => k,
            v => bail!("a key must be a string, found {v:?}"),
        };
        let slot = KEYS.iter().position(|k| *k == key).ok_or_else(|| {
            anyhow!("unknown key '{key}' (a .npy header holds exactly 'descr', 'fortran_order' and 'shape')")
        })?;
        if found[slot].is_some() {
            bail!("the key '{key}' appears twice");
        }
        p.expect(':')?;
        found[slot] = Some(p.value()?);
        if !p.eat(',') {
            p.expect('}')?;
            break;
        }
    }
    if !p.rest.trim_end_matches([' ', '\n']).is_empty() {
        bail!("text after the dict: `{}`", clip(p.rest));
    }
    let [descr, fortran_order, shape] = found;
    let missing = |k: &str| anyhow!("no '{k}' key");
    Ok(Header {
        descr: match descr.ok_or_else(|| missing("descr"))? {
            Value::Str(s) => s,
            v => bail!("'descr' is {v:?}, not a dtype string (structured dtypes do not fill a 32-bit buffer)"),
        },
        fortran_order: match fortran_order.ok_or_else(|| missing("fortran_order"))? {
            Value::Bool(b) => b,
            v => bail!("'fortran_order' is {v:?}, not True or False"),
        },
        shape: match shape.ok_or_else(|| missing("shape"))? {
            Value::Tuple(t) => t,
            v => bail!("'shape' is {v:?}, not a tuple of integers"),
        },
    })
}

/// The first characters of `s`, for a message.
fn clip(s: &str) -> &str {
    s.char_indices().nth(40).map_or(s, |(i, _)| &s[..i])
}

/// A cursor over the header's Python literals (whitespace between tokens is skipped).
struct Parser<'a> {
    rest: &'a str,
}

impl Parser<'_> {
    fn skip_space(&mut self) {
        self.rest = self.rest.trim_start_matches([' ', '\t', '\n', '\r']);
    }

    /// Consumes `c` if it comes next.
    fn eat(&mut self, c: char) -> bool {
        self.skip_space();
        match self.rest.strip_prefix(c) {
            Some(r) => {
                self.rest = r;
                true
            }
            None => false,
        }
    }

    fn expect(&mut self, c: char) -> Result<()> {
        if self.eat(c) {
            return Ok(());
        }
        bail!("expected `{c}` at `{}`", clip(self.rest))
    }

    /// A string literal (no escapes: none is needed for a dtype or a key), `True`, `False`, or a tuple.
    fn value(&mut self) -> Result<Value> {
        self.skip_space();
        if let Some(q) = self.rest.chars().next().filter(|c| matches!(c, '\'' | '"')) {
            let body = &self.rest[1..];
            let end = body.find(q).ok_or_else(|| anyhow!("unterminated string at `{}`", clip(self.rest)))?;
            if body[..end].contains('\\') {
                bail!("escapes in a string are not supported: `{}`", clip(self.rest));
            }
            self.rest = &body[end + 1..];
            return Ok(Value::Str(body[..end].to_string()));
        }
        for (word, b) in [("True", true), ("False", false)] {
            if let Some(r) = self.rest.strip_prefix(word) {
                self.rest = r;
                return Ok(Value::Bool(b));
            }
        }
        if self.eat('(') {
            return self.tuple().map(Value::Tuple);
        }
        bail!("expected a string, True, False or a tuple at `{}`", clip(self.rest))
    }

    /// The rest of a tuple of non-negative integers after its `(`: `)`, `n,)`, `n, m)`, `n, m,)`; a lone
    /// integer needs its comma, as in Python.
    fn tuple(&mut self) -> Result<Vec<u64>> {
        let mut out = Vec::new();
        loop {
            if self.eat(')') {
                return Ok(out);
            }
            self.skip_space();
            let digits = self.rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(self.rest.len());
            let n = self.rest[..digits]
                .parse::<u64>()
                .map_err(|_| anyhow!("expected a dimension (an integer) at `{}`", clip(self.rest)))?;
            // Python 2's long integers (`3L`), which old numpy versions wrote.
            self.rest = self.rest[digits..].strip_prefix('L').unwrap_or(&self.rest[digits..]);
            out.push(n);
            if !self.eat(',') {
                self.expect(')')?;
                if out.len() == 1 {
                    bail!("`({n})` is an integer, not a tuple: a one-dimensional shape is `({n},)`");
                }
                return Ok(out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Header> {
        parse_header(s)
    }

    #[test]
    fn headers_parse_as_the_format_defines_them() {
        let h = parse("{'descr': '<u4', 'fortran_order': False, 'shape': (3, 4), }        \n").unwrap();
        assert_eq!(h, Header { descr: "<u4".into(), fortran_order: false, shape: vec![3, 4] });
        let h = parse("{\"shape\":(),\"descr\":\"<f4\",\"fortran_order\":True}").unwrap();
        assert_eq!((h.shape, h.fortran_order), (vec![], true));
        assert_eq!(parse("{'descr': '<i4', 'fortran_order': False, 'shape': (5L,)}").unwrap().shape, vec![5]);
    }

    #[test]
    fn decoys_duplicates_and_malformed_headers_are_refused() {
        let err = |s: &str| format!("{:#}", parse(s).unwrap_err());
        let decoy = "{'a': \"'descr': '<u4', 'shape': (4,)\", 'descr': '<f8', 'fortran_order': False, 'shape': (2,)}";
        assert!(err(decoy).contains("unknown key 'a'"), "{}", err(decoy));
        let twice = "{'descr': '<u4', 'descr': '<u4', 'fortran_order': False, 'shape': (2,)}";
        assert!(err(twice).contains("appears twice"));
        assert!(err("{'descr': '<u4', 'shape': (2,)}").contains("no 'fortran_order'"));
        assert!(err("{'descr': '<u4', 'fortran_order': False, 'shape': (2)}").contains("not a tuple"));
        assert!(err("{'descr': '<u4', 'fortran_order': 0, 'shape': (2,)}").contains("expected a string"));
        assert!(err("{'descr': '<u4', 'fortran_order': False, 'shape': (2,)} x").contains("text after the dict"));
        assert!(err("{'descr': [('a', '<u4')], 'fortran_order': False, 'shape': (2,)}").contains("expected a string"));
        assert!(err("{'descr': '<u4', 'fortran_order': False, 'shape': (-2,)}").contains("dimension"));
        assert!(err("{'descr': '<u4'").contains("expected `}`"));
        assert!(err("{'descr' '<u4'}").contains("expected `:`"));
    }
}
