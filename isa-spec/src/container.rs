//! The kernel container file (`lanejit asm -o out.bin`):
//!
//! ```text
//! magic  b"LJK1"
//! u32 LE header size (= 40, magic included), workgroup x, y, z, shared bytes, argument bytes,
//!        private bytes per lane, name length (bytes), code length (words)
//! name   UTF-8 bytes
//! code   little-endian 32-bit words
//! ```
//!
//! The reader checks every size before it allocates or slices, so no input makes it panic. Labels are not
//! stored. A file without the magic can be read as raw little-endian code words ([`read_any`]).

use crate::asm::{KernelMeta, Program, MAX_CODE_WORDS, MAX_NAME_BYTES};
use std::collections::BTreeMap;

/// The first four bytes of a container file.
pub const MAGIC: [u8; 4] = *b"LJK1";
/// Bytes before the name: the magic and nine u32 fields.
pub const HEADER_BYTES: usize = 4 + 9 * 4;

/// Why bytes are not a readable kernel file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ContainerError {
    /// The file does not start with [`MAGIC`].
    #[error("not a lanejit kernel: bad magic {found:02x?} (expected \"LJK1\")")]
    BadMagic {
        /// The first (up to four) bytes found.
        found: Vec<u8>,
    },
    /// The file ends inside the header, the name or the code.
    #[error("truncated {what}: needs {needed} bytes, the file has {got}")]
    Truncated {
        /// The part that is cut short.
        what: &'static str,
        /// Bytes the file needs to hold it.
        needed: u64,
        /// Bytes the file has.
        got: u64,
    },
    /// The header size field is not [`HEADER_BYTES`] (another version of the format).
    #[error("header size field is {declared}, expected {HEADER_BYTES}")]
    HeaderSize {
        /// The header size the file states.
        declared: u32,
    },
    /// The file is longer than its header, name and code (trailing bytes).
    #[error("sizes inconsistent: header, name and code take {expected} bytes but the file has {got}")]
    SizeMismatch {
        /// Bytes the header's sizes account for.
        expected: u64,
        /// Bytes the file has.
        got: u64,
    },
    /// The kernel name is not valid UTF-8.
    #[error("kernel name is not UTF-8 (invalid byte at offset {valid_up_to} of the name)")]
    NameNotUtf8 {
        /// Offset in the name of the first invalid byte.
        valid_up_to: usize,
    },
    /// A size field is past its limit ([`MAX_NAME_BYTES`], [`MAX_CODE_WORDS`]).
    #[error("{what} of {value} exceeds the limit of {max}")]
    TooLarge {
        /// The size that is too large.
        what: &'static str,
        /// Its value.
        value: u64,
        /// The limit.
        max: u64,
    },
    /// The launch metadata break a limit of the launch model (`KernelMeta::validate`'s message).
    #[error("bad metadata: {0}")]
    BadMeta(String),
    /// A file without the magic, read as raw code, whose length is not a multiple of 4.
    #[error("raw code file of {len} bytes is not a whole number of 32-bit words")]
    NotWords {
        /// The file's length in bytes.
        len: usize,
    },
}

/// Serialises a program (labels are not stored).
pub fn write(p: &Program) -> Vec<u8> {
    let m = &p.meta;
    let mut out = Vec::with_capacity(HEADER_BYTES + m.name.len() + p.words.len() * 4);
    out.extend_from_slice(&MAGIC);
    let fields = [
        HEADER_BYTES as u32,
        m.workgroup[0],
        m.workgroup[1],
        m.workgroup[2],
        m.shared_bytes,
        m.arg_bytes,
        m.private_bytes,
        m.name.len() as u32,
        p.words.len() as u32,
    ];
    for f in fields {
        out.extend_from_slice(&f.to_le_bytes());
    }
    out.extend_from_slice(m.name.as_bytes());
    for w in &p.words {
        out.extend_from_slice(&w.to_le_bytes());
    }
    out
}

fn u32_at(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
}

/// Little-endian 32-bit words of `b` (a trailing partial word is dropped: callers check the length first).
pub(crate) fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// Parses a container file.
pub fn read(bytes: &[u8]) -> Result<Program, ContainerError> {
    let got = bytes.len() as u64;
    if bytes.len() < 4 {
        return Err(if MAGIC.starts_with(bytes) {
            ContainerError::Truncated { what: "magic", needed: 4, got }
        } else {
            ContainerError::BadMagic { found: bytes.to_vec() }
        });
    }
    if bytes[..4] != MAGIC {
        return Err(ContainerError::BadMagic { found: bytes[..4].to_vec() });
    }
    if bytes.len() < HEADER_BYTES {
        return Err(ContainerError::Truncated { what: "header", needed: HEADER_BYTES as u64, got });
    }
    let f = |n: usize| u32_at(bytes, 4 + 4 * n);
    if f(0) as usize != HEADER_BYTES {
        return Err(ContainerError::HeaderSize { declared: f(0) });
    }
    let (name_len, code_words) = (f(7) as u64, f(8) as u64);
    if name_len > MAX_NAME_BYTES as u64 {
        return Err(ContainerError::TooLarge {
            what: "kernel name length",
            value: name_len,
            max: MAX_NAME_BYTES as u64,
        });
    }
    if code_words > MAX_CODE_WORDS as u64 {
        return Err(ContainerError::TooLarge {
            what: "code length (words)",
            value: code_words,
            max: MAX_CODE_WORDS as u64,
        });
    }
    let name_end = HEADER_BYTES as u64 + name_len;
    let expected = name_end + code_words * 4;
    if got < name_end {
        return Err(ContainerError::Truncated { what: "kernel name", needed: name_end, got });
    }
    if got < expected {
        return Err(ContainerError::Truncated { what: "code", needed: expected, got });
    }
    if got > expected {
        return Err(ContainerError::SizeMismatch { expected, got });
    }
    let name_bytes = &bytes[HEADER_BYTES..name_end as usize];
    let name = std::str::from_utf8(name_bytes)
        .map_err(|e| ContainerError::NameNotUtf8 { valid_up_to: e.valid_up_to() })?
        .to_string();
    let meta =
        KernelMeta { name, workgroup: [f(1), f(2), f(3)], shared_bytes: f(4), arg_bytes: f(5), private_bytes: f(6) };
    meta.validate().map_err(ContainerError::BadMeta)?;
    Ok(Program { words: words(&bytes[name_end as usize..]), labels: BTreeMap::new(), meta })
}

/// Reads a container, an ELF kernel (`crate::elf_kernel`), or — when the file starts with neither magic —
/// raw little-endian code words with default metadata. (A raw file whose first word happens to be a magic
/// reads as that format.)
pub fn read_any(bytes: &[u8]) -> Result<Program, ContainerError> {
    if bytes.starts_with(&MAGIC) {
        return read(bytes);
    }
    if bytes.starts_with(&crate::elf_kernel::ELF_MAGIC) {
        return crate::elf_kernel::read(bytes);
    }
    Ok(Program { words: code_words(bytes)?, ..Program::default() })
}

/// Every kernel of a file: an ELF module's (`crate::elf_kernel::read_all`), else the one kernel [`read_any`]
/// reads.
pub fn read_module(bytes: &[u8]) -> Result<Vec<Program>, ContainerError> {
    if bytes.starts_with(&crate::elf_kernel::ELF_MAGIC) {
        return crate::elf_kernel::read_all(bytes);
    }
    read_any(bytes).map(|p| vec![p])
}

/// Code bytes as instruction words: a whole number of them, at most `MAX_CODE_WORDS` (raw files and the code
/// sections of ELF kernels).
pub(crate) fn code_words(bytes: &[u8]) -> Result<Vec<u32>, ContainerError> {
    check_code_len(bytes.len())?;
    Ok(words(bytes))
}

/// Checks that `len` code bytes are a whole number of words, at most `MAX_CODE_WORDS` (before they are copied).
pub(crate) fn check_code_len(len: usize) -> Result<(), ContainerError> {
    if !len.is_multiple_of(4) {
        return Err(ContainerError::NotWords { len });
    }
    if len / 4 > MAX_CODE_WORDS {
        return Err(ContainerError::TooLarge {
            what: "code length (words)",
            value: (len / 4) as u64,
            max: MAX_CODE_WORDS as u64,
        });
    }
    Ok(())
}
