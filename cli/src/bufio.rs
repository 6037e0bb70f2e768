//! Buffer contents from and to files for `lanejit run`: raw little-endian words, or numpy's `.npy` format
//! (version 1.0–3.0, C order, dtype `<u4`, `<i4` or `<f4`), chosen by the file's extension.
//!
//! The `.npy` reader takes only what numpy writes for such arrays and refuses the rest with the reason (a
//! big-endian or 64-bit dtype, Fortran order, a header that does not parse, a data size that disagrees with
//! the shape); it never panics on a malformed file.

use anyhow::{anyhow, bail, Context, Result};
use std::path::Path;

/// Element type of a 32-bit buffer, with its numpy dtype.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    /// Unsigned 32-bit (`<u4`).
    U32,
    /// Signed 32-bit (`<i4`).
    I32,
    /// IEEE single precision (`<f4`).
    F32,
}

impl Elem {
    /// The type's name on the command line (`u32`, `i32`, `f32`).
    pub fn name(self) -> &'static str {
        match self {
            Elem::U32 => "u32",
            Elem::I32 => "i32",
            Elem::F32 => "f32",
        }
    }

    fn descr(self) -> &'static str {
        match self {
            Elem::U32 => "<u4",
            Elem::I32 => "<i4",
            Elem::F32 => "<f4",
        }
    }
}

const NPY_MAGIC: &[u8] = b"\x93NUMPY";

fn is_npy(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("npy"))
}

/// The words of `path` for a buffer of `elem`: a `.npy` array of that dtype (any shape), else raw bytes (a
/// whole number of 4-byte words).
pub fn read_words(path: &Path, elem: Elem) -> Result<Vec<u32>> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let data = if is_npy(path) { npy_data(&bytes, elem).with_context(|| path.display().to_string())? } else { &bytes };
    if !data.len().is_multiple_of(4) {
        bail!("{}: {} bytes are not a whole number of 4-byte elements", path.display(), data.len());
    }
    Ok(data.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

/// Writes `words` to `path`: a one-dimensional `.npy` array of `elem`, or raw little-endian bytes.
pub fn write_words(path: &Path, words: &[u32], elem: Elem) -> Result<()> {
    let mut out = if is_npy(path) { npy_header(elem, words.len()) } else { Vec::new() };
    out.reserve(words.len() * 4);
    words.iter().for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
    std::fs::write(path, out).with_context(|| format!("writing {}", path.display()))
}

/// A version 1.0 header for a one-dimensional array, padded so that the data starts 64-byte aligned.
fn npy_header(elem: Elem, len: usize) -> Vec<u8> {
    let dict = format!("{{'descr': '{}', 'fortran_order': False, 'shape': ({len},), }}", elem.descr());
    let unpadded = NPY_MAGIC.len() + 2 + 2 + dict.len() + 1;
    let pad = unpadded.next_multiple_of(64) - unpadded;
    let header_len = (dict.len() + pad + 1) as u16;
    let mut out = NPY_MAGIC.to_vec();
    out.extend_from_slice(&[1, 0]);
    out.extend_from_slice(&header_len.to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out.extend(std::iter::repeat_n(b' ', pad));
    out.push(b'\n');
    out
}

/// The data bytes of a `.npy` file holding `elem`s in C order, after checking its header against the data.
fn npy_data(bytes: &[u8], elem: Elem) -> Result<&[u8]> {
    if !bytes.starts_with(NPY_MAGIC) || bytes.len() < 10 {
        bail!("not a .npy file (no \\x93NUMPY magic)");
    }
    let (len_bytes, start): (usize, usize) = match bytes[6] {
        1 => (2, 10),
        2 | 3 if bytes.len() >= 12 => (4, 12),
        v => bail!(".npy version {v}.{} is not one this reader knows (1, 2 or 3)", bytes[7]),
    };
    let header_len = if len_bytes == 2 {
        u16::from_le_bytes([bytes[8], bytes[9]]) as usize
    } else {
        u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize
    };
    let header = bytes.get(start..start.saturating_add(header_len)).ok_or_else(|| anyhow!("truncated .npy header"))?;
    let header = std::str::from_utf8(header).map_err(|_| anyhow!(".npy header is not text"))?;
    let descr = dict_value(header, "descr")?;
    if descr.trim_matches(['\'', '"']) != elem.descr() {
        bail!("dtype {descr} does not match the buffer type {} (numpy dtype '{}')", elem.name(), elem.descr());
    }
    if dict_value(header, "fortran_order")? != "False" {
        bail!("the array is in Fortran order: save it C-contiguous (np.ascontiguousarray)");
    }
    let elements = shape_elements(dict_value(header, "shape")?)?;
    let data = &bytes[start + header_len..];
    if elements.checked_mul(4) != Some(data.len() as u64) {
        bail!("the shape holds {elements} elements but the file has {} data bytes", data.len());
    }
    Ok(data)
}

/// The text of `key`'s value in the header's Python dict literal (up to the next top-level comma).
fn dict_value<'a>(header: &'a str, key: &str) -> Result<&'a str> {
    let missing = || anyhow!(".npy header has no '{key}'");
    let at = header.find(&format!("'{key}'")).ok_or_else(missing)? + key.len() + 2;
    let rest = header[at..].trim_start().strip_prefix(':').ok_or_else(missing)?.trim_start();
    let end = if rest.starts_with('(') { rest.find(')').map(|i| i + 1) } else { rest.find([',', '}']) };
    Ok(rest[..end.ok_or_else(missing)?].trim())
}

/// The number of elements of a shape tuple such as `(3, 4)`, `(5,)` or `()`.
fn shape_elements(shape: &str) -> Result<u64> {
    let inner =
        shape.strip_prefix('(').and_then(|s| s.strip_suffix(')')).ok_or_else(|| anyhow!("bad shape {shape}"))?;
    inner.split(',').map(str::trim).filter(|d| !d.is_empty()).try_fold(1u64, |n, d| {
        let d: u64 = d.parse().map_err(|_| anyhow!("bad dimension `{d}` in shape {shape}"))?;
        n.checked_mul(d).ok_or_else(|| anyhow!("shape {shape} overflows"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npy_files_round_trip_and_malformed_ones_are_refused() {
        let dir = std::env::temp_dir().join(format!("lanejit-bufio-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("a.npy");
        write_words(&p, &[1, 2, 0xffff_ffff], Elem::U32).unwrap();
        let bytes = std::fs::read(&p).unwrap();
        assert_eq!(bytes.len() - 3 * 4, 128, "the header is padded so that the data starts 64-byte aligned");
        assert_eq!(read_words(&p, Elem::U32).unwrap(), vec![1, 2, 0xffff_ffff]);
        let err = read_words(&p, Elem::F32).unwrap_err();
        assert!(format!("{err:#}").contains("does not match the buffer type f32"), "{err:#}");
        for cut in [0, 5, 9, 20, bytes.len() - 1] {
            std::fs::write(&p, &bytes[..cut]).unwrap();
            assert!(read_words(&p, Elem::U32).is_err(), "cut at {cut}");
        }
        // Same-length edits of the header text (the magic is not UTF-8, so edit bytes).
        let edit = |from: &str, to: &str| {
            let at = bytes.windows(from.len()).position(|w| w == from.as_bytes()).expect("text in the header");
            let mut b = bytes.clone();
            b[at..at + to.len()].copy_from_slice(to.as_bytes());
            b
        };
        let two_d = edit("(3,), } ", "(1,3), }");
        std::fs::write(&p, &two_d).unwrap();
        assert_eq!(read_words(&p, Elem::U32).unwrap(), vec![1, 2, 0xffff_ffff]);
        let fortran = edit("False", "True ");
        std::fs::write(&p, &fortran).unwrap();
        assert!(format!("{:#}", read_words(&p, Elem::U32).unwrap_err()).contains("Fortran"));
        let raw = dir.join("a.bin");
        write_words(&raw, &[7, 8], Elem::I32).unwrap();
        assert_eq!(std::fs::read(&raw).unwrap(), [7, 0, 0, 0, 8, 0, 0, 0]);
        std::fs::write(&raw, [1, 2, 3]).unwrap();
        assert!(read_words(&raw, Elem::I32).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
