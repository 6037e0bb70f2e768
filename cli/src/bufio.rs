//! The command line's files: [`read_input`], the one reader of every input file (kernels, wave states, buffer
//! and image files, PNGs), bounded before it reads; buffer contents from and to files for `lanejit run`: raw
//! little-endian words, or numpy's `.npy` format (version 1.0–3.0, C order, dtype `<u4`, `<i4` or `<f4`, see
//! [`npy`]), chosen by the file's extension; and [`same_file`], which `run`, `asm` and `wave` use to refuse to
//! overwrite an input with an output.
//!
//! The `.npy` reader takes only what numpy writes for such arrays and refuses the rest with the reason (a
//! big-endian or 64-bit dtype, Fortran order, a header that does not parse, a data size that disagrees with
//! the shape); it never panics on a malformed file.

pub mod npy;

use anyhow::{anyhow, bail, Context, Result};
use std::io::Read;
use std::path::Path;

/// How large an input file may be: its largest size in bytes and what the limit is, for the message.
#[derive(Clone, Copy, Debug)]
pub struct Limit {
    /// The largest size, bytes.
    pub bytes: u64,
    /// What the limit is ("the device capacity"), named in the message that refuses a larger file.
    pub name: &'static str,
}

/// Kernel files (source or binary): twice the largest code a kernel may have (`MAX_CODE_WORDS` words of 4
/// bytes), room for a module's several kernels, headers and names, or for a source's text.
pub const KERNEL_FILE: Limit = Limit {
    bytes: 2 * 4 * lanejit_isa::asm::MAX_CODE_WORDS as u64,
    name: "the kernel file limit (bufio::KERNEL_FILE)",
};

/// Wave states (`wave --init`): 1 GiB of JSON, half a gigabyte of memory ranges in hex.
pub const STATE_FILE: Limit = Limit { bytes: 1 << 30, name: "the state file limit (bufio::STATE_FILE)" };

/// Files that fill device memory (a buffer's raw words, a PNG): no more than the device holds
/// (`lanejit::arena::DEFAULT_CAPACITY`, the device `run` and `bench` make).
pub const DEVICE_FILE: Limit = Limit { bytes: lanejit::arena::DEFAULT_CAPACITY, name: "the device capacity" };

/// What a file that is not a regular one is, for the message that refuses it.
fn special_kind(t: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        match () {
            _ if t.is_fifo() => return "a FIFO (named pipe)",
            _ if t.is_char_device() => return "a character device",
            _ if t.is_block_device() => return "a block device",
            _ if t.is_socket() => return "a socket",
            _ => {}
        }
    }
    if t.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// Only regular files have a size known before reading: a FIFO blocks in `open` until a writer comes and a
/// device such as `/dev/zero` never ends, so both are refused before they are opened.
fn refuse_special(path: &Path, t: std::fs::FileType) -> Result<()> {
    if t.is_file() {
        return Ok(());
    }
    bail!("{}: {}: lanejit reads input files only from regular files", path.display(), special_kind(t))
}

fn refuse_larger(path: &Path, len: u64, limit: Limit) -> Result<()> {
    if len > limit.bytes {
        bail!("{}: {len} bytes, more than {} of {} bytes", path.display(), limit.name, limit.bytes);
    }
    Ok(())
}

/// Every byte of the input file `path`, which must be a regular file of at most `limit` bytes. Its type and
/// size are checked from its metadata before it is opened (a 5 GiB file is refused at once, not after 5 GiB
/// of reading), again on the opened file, and the read stops after `limit` + 1 bytes whatever the file does
/// meanwhile (it may grow). Only a FIFO put in the file's place between the first check and the `open` could
/// still block that `open` (`O_NONBLOCK` would close that window; the tools' crate does not depend on `libc`).
pub fn read_input(path: &Path, limit: Limit) -> Result<Vec<u8>> {
    let reading = || format!("reading {}", path.display());
    let meta = std::fs::metadata(path).with_context(reading)?;
    refuse_special(path, meta.file_type())?;
    refuse_larger(path, meta.len(), limit)?;
    let file = std::fs::File::open(path).with_context(reading)?;
    let meta = file.metadata().with_context(reading)?;
    refuse_special(path, meta.file_type())?;
    refuse_larger(path, meta.len(), limit)?;
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(usize::try_from(meta.len()).unwrap_or(usize::MAX))
        .map_err(|_| anyhow!("{}: no memory for its {} bytes", path.display(), meta.len()))?;
    file.take(limit.bytes.saturating_add(1)).read_to_end(&mut bytes).with_context(reading)?;
    refuse_larger(path, bytes.len() as u64, limit)?;
    Ok(bytes)
}

/// [`read_input`] of a text file (UTF-8).
pub fn read_input_text(path: &Path, limit: Limit) -> Result<String> {
    String::from_utf8(read_input(path, limit)?).map_err(|e| {
        anyhow!("{}: not UTF-8 text (invalid byte at offset {})", path.display(), e.utf8_error().valid_up_to())
    })
}

/// The assembler's configuration for a source read from disk: `.include` reads through [`read_input_text`],
/// bounded by what is left of the assembler's expansion limit.
pub fn asm_config() -> lanejit_isa::asm::AsmConfig<'static> {
    lanejit_isa::asm::AsmConfig { includes: Some(&read_include), ..Default::default() }
}

/// An included source file (`path` as the assembler joined it to the including file's directory).
fn read_include(path: &str, max_bytes: usize) -> Result<String, String> {
    let limit = Limit {
        bytes: KERNEL_FILE.bytes.min(max_bytes as u64),
        name: "what is left of the assembler's expansion limit (AsmLimits::max_expanded_bytes)",
    };
    read_input_text(Path::new(path), limit).map_err(|e| format!("{e:#}"))
}

/// Whether `a` and `b` name the same existing file: the same device and inode on Unix (so a hard link or a
/// symbolic link to an input is that input), else the same canonical path.
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
    }
    matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
}

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

fn is_npy(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("npy"))
}

/// The data bytes of `path` for a buffer of `elem`: of a `.npy` array of that dtype (any shape), else the
/// file's raw bytes; a whole number of 4-byte little-endian elements, at most the device capacity.
pub fn read_data(path: &Path, elem: Elem) -> Result<Vec<u8>> {
    let npy = is_npy(path);
    let limit = if npy {
        let bytes = DEVICE_FILE.bytes + (npy::PREFIX_BYTES + npy::MAX_HEADER_BYTES) as u64;
        Limit { bytes, name: "the device capacity with a .npy header" }
    } else {
        DEVICE_FILE
    };
    let mut bytes = read_input(path, limit)?;
    if npy {
        let header = bytes.len() - npy::data(&bytes, elem).with_context(|| path.display().to_string())?.len();
        bytes.drain(..header);
    }
    if !bytes.len().is_multiple_of(4) {
        bail!("{}: {} bytes are not a whole number of 4-byte elements", path.display(), bytes.len());
    }
    Ok(bytes)
}

/// The words of `path` for a buffer of `elem` ([`read_data`]).
pub fn read_words(path: &Path, elem: Elem) -> Result<Vec<u32>> {
    Ok(read_data(path, elem)?.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

/// Writes `words` to `path`: a one-dimensional `.npy` array of `elem`, or raw little-endian bytes.
pub fn write_words(path: &Path, words: &[u32], elem: Elem) -> Result<()> {
    let mut out = if is_npy(path) { npy::header(elem, words.len()) } else { Vec::new() };
    out.reserve(words.len() * 4);
    words.iter().for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
    std::fs::write(path, out).with_context(|| format!("writing {}", path.display()))
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

    /// Sizes are checked before reading, special files before opening, and links name their target.
    #[test]
    fn inputs_are_bounded_regular_files() {
        let dir = std::env::temp_dir().join(format!("lanejit-inputs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let small = Limit { bytes: 4, name: "the test limit" };
        let f = dir.join("f.bin");
        std::fs::write(&f, [1, 2, 3, 4]).unwrap();
        assert_eq!(read_input(&f, small).unwrap(), [1, 2, 3, 4]);
        std::fs::write(&f, [1, 2, 3, 4, 5]).unwrap();
        let err = format!("{:#}", read_input(&f, small).unwrap_err());
        assert!(err.ends_with("f.bin: 5 bytes, more than the test limit of 4 bytes"), "{err}");
        let err = format!("{:#}", read_input(&dir, small).unwrap_err());
        assert!(err.contains("a directory"), "{err}");
        let err = format!("{:#}", read_input(Path::new("/dev/zero"), small).unwrap_err());
        assert!(err.contains("/dev/zero: a character device"), "{err}");
        let fifo = dir.join("p");
        if std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success()) {
            let err = format!("{:#}", read_input(&fifo, small).unwrap_err());
            assert!(err.contains("a FIFO"), "{err}");
        }
        // A file the kernel reports as empty but that has contents (procfs) is read, up to the limit.
        if Path::new("/proc/self/status").exists() {
            let err = format!("{:#}", read_input(Path::new("/proc/self/status"), small).unwrap_err());
            assert!(err.contains("more than the test limit"), "{err}");
        }
        std::fs::write(dir.join("t.s"), b"\xff").unwrap();
        assert!(format!("{:#}", read_input_text(&dir.join("t.s"), small).unwrap_err()).contains("not UTF-8"));
        let link = dir.join("hard.bin");
        std::fs::hard_link(&f, &link).unwrap();
        assert!(same_file(&f, &link) && same_file(&f, &dir.join(".").join("f.bin")));
        assert!(!same_file(&f, &dir.join("t.s")) && !same_file(&f, &dir.join("missing")));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
