//! `--buffer` and `--arg` of `lanejit run` and `lanejit bench KERNEL`: their parsing (a file read at once,
//! bounded), the checks against the argument block and the device, and the buffers' upload.

use crate::bufio::Elem;
use crate::examples;
use crate::imageio::ImageArg;
use anyhow::{anyhow, bail, Result};
use lanejit::arena::ALLOC_ALIGN;
use lanejit::launch::MAX_ARG_BYTES;
use lanejit::Device;
use std::path::{Path, PathBuf};

/// How a buffer starts: its initialiser, checked before any memory is filled (a file is read at once).
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Init {
    Zero,
    /// Allocated and never written by the host: zero on this device, undefined to `--check buffers`.
    Uninit,
    Iota,
    Const(u32),
    Rand(u64),
    /// The file's data bytes (little-endian words), kept as read: copied once, into device memory.
    File(Vec<u8>),
}

/// A parsed `--buffer`: element type, count and initialiser.
#[derive(Debug, Clone)]
pub struct BufferSpec {
    pub(super) elem: Elem,
    pub(super) count: u64,
    pub(super) init: Init,
    /// The file it was read from (an input that `--save` must not overwrite).
    pub(super) file: Option<PathBuf>,
}

impl BufferSpec {
    /// The element type's name (`u32`, `i32`, `f32`).
    pub fn type_name(&self) -> &'static str {
        self.elem.name()
    }

    /// The file the buffer was read from, if any.
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// Bytes of the buffer, without overflow (a count near 2^64 must not wrap to a small size).
    pub(super) fn bytes(&self, spec: &str) -> Result<u64> {
        self.count
            .checked_mul(4)
            .ok_or_else(|| anyhow!("buffer `{spec}`: {} elements of 4 bytes overflow a 64-bit size", self.count))
    }
}

/// A buffer file's data bytes for `elem`, named in errors by the `--buffer` text `s`.
fn read_file(s: &str, path: &str, elem: Elem) -> Result<(u64, Init)> {
    let bytes = crate::bufio::read_data(Path::new(path), elem).map_err(|e| anyhow!("buffer `{s}`: {e:#}"))?;
    Ok((bytes.len() as u64 / 4, Init::File(bytes)))
}

/// Parses `TYPE:COUNT[:INIT]` or `TYPE:file=PATH` completely (the initialiser's value included, a file read)
/// before anything is allocated.
pub fn parse_buffer(s: &str) -> Result<BufferSpec> {
    let parts: Vec<&str> = s.splitn(3, ':').collect();
    let elem = match parts[0] {
        "u32" => Elem::U32,
        "i32" => Elem::I32,
        "f32" => Elem::F32,
        t => bail!("buffer `{s}`: unknown type `{t}` (u32, i32 or f32)"),
    };
    if let Some(path) = s.split_once(':').and_then(|(_, rest)| rest.strip_prefix("file=")) {
        let (count, init) = read_file(s, path, elem)?;
        return Ok(BufferSpec { elem, count, init, file: Some(PathBuf::from(path)) });
    }
    let count = parts
        .get(1)
        .ok_or_else(|| anyhow!("buffer `{s}`: expected TYPE:COUNT[:INIT]"))?
        .parse::<u64>()
        .map_err(|_| anyhow!("buffer `{s}`: COUNT must be an integer in 0..={}", u64::MAX))?;
    let mut file = None;
    let init = match parts.get(2).copied().unwrap_or("zero") {
        "zero" => Init::Zero,
        "uninit" => Init::Uninit,
        "iota" => Init::Iota,
        i if i.starts_with("const=") => Init::Const(scalar(&i[6..], elem).map_err(|e| anyhow!("buffer `{s}`: {e}"))?),
        i if i.starts_with("rand=") => Init::Rand(
            i[5..].parse().map_err(|_| anyhow!("buffer `{s}`: the seed must be an integer in 0..={}", u64::MAX))?,
        ),
        i if i.starts_with("file=") => {
            let (n, init) = read_file(s, &i[5..], elem)?;
            if n != count {
                bail!("buffer `{s}`: the file holds {n} elements, not {count} (or write TYPE:file=PATH)");
            }
            file = Some(PathBuf::from(&i[5..]));
            init
        }
        i => bail!("buffer `{s}`: unknown initialiser `{i}` (zero, uninit, iota, const=V, rand=SEED, file=PATH)"),
    };
    Ok(BufferSpec { elem, count, init, file })
}

/// Writes the buffer's initial contents at `addr`; called only once its memory is allocated, so the count fits
/// the device.
pub(super) fn write_init(device: &Device, addr: u64, b: &BufferSpec) -> Result<()> {
    let n = b.count as usize;
    let num = |i: usize| match b.elem {
        Elem::F32 => (i as f32).to_bits(),
        _ => i as u32,
    };
    let words = match &b.init {
        Init::File(bytes) => return device.write(addr, bytes).map_err(|e| anyhow!(e)),
        Init::Zero | Init::Uninit => vec![0; n],
        Init::Iota => (0..n).map(num).collect(),
        Init::Const(v) => vec![*v; n],
        Init::Rand(seed) => examples::pseudo_random(*seed, n),
    };
    device.write_u32s(addr, &words).map_err(|e| anyhow!(e))
}

/// Whether a literal is meant as a float: it has a `.` or a decimal exponent, or is `inf`/`nan`.
fn is_float_literal(s: &str) -> bool {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s).to_ascii_lowercase();
    let named = matches!(body.as_str(), "inf" | "infinity" | "nan");
    named || (!body.starts_with("0x") && (body.contains('.') || body.contains('e')))
}

/// Whether a float literal names an infinity (`inf`, `-Infinity`): the only literals allowed to read as one.
pub(crate) fn names_infinity(s: &str) -> bool {
    s.trim_start_matches(['+', '-']).to_ascii_lowercase().starts_with("inf")
}

/// An f32 literal, refused when it only reads as infinity because it is too large (`1e40`).
pub(crate) fn parse_f32(s: &str) -> Result<f32> {
    let f: f32 = s.parse().map_err(|_| anyhow!("`{s}` is not a number"))?;
    if f.is_infinite() && !names_infinity(s) {
        bail!("`{s}` is out of the f32 range (largest finite value {:e})", f32::MAX);
    }
    Ok(f)
}

/// A 32-bit scalar: a float literal (or any value of an f32 buffer) as f32 bits; otherwise an integer, decimal
/// (-2^31..2^32) or `0x` hex.
pub(super) fn scalar(s: &str, elem: Elem) -> Result<u32> {
    if elem == Elem::F32 || is_float_literal(s) {
        return Ok(parse_f32(s)?.to_bits());
    }
    let bad = || anyhow!("`{s}` is not a number");
    if let Some(h) = s.strip_prefix("0x") {
        return u32::from_str_radix(h, 16).map_err(|_| bad());
    }
    let v = s.parse::<i64>().map_err(|_| bad())?;
    if !(i32::MIN as i64..=u32::MAX as i64).contains(&v) {
        bail!("`{s}` does not fit 32 bits");
    }
    Ok(v as u32)
}

/// Kernel argument bytes of `images` descriptors (32 each), `buffers` addresses and `scalars`, checked against
/// [`MAX_ARG_BYTES`] before any buffer is allocated.
pub(super) fn check_arg_bytes(images: usize, buffers: usize, scalars: usize) -> Result<()> {
    let bytes = images as u64 * 32 + buffers as u64 * 8 + scalars as u64 * 4;
    if bytes > MAX_ARG_BYTES as u64 {
        bail!("{images} images, {buffers} buffers and {scalars} scalars take {bytes} argument bytes, more than the limit of {MAX_ARG_BYTES} (MAX_ARG_BYTES)");
    }
    Ok(())
}

/// Device bytes an allocation of `bytes` takes: rounded up to the granule, plus the guard gap after it.
fn footprint(bytes: u64) -> Option<u64> {
    bytes.max(4).checked_next_multiple_of(ALLOC_ALIGN)?.checked_add(ALLOC_ALIGN)
}

/// Refuses buffers that, with the launch's argument block, cannot fit the device, before anything is
/// allocated or filled (a buffer that takes the whole device would otherwise be filled for nothing).
pub(super) fn check_fits(
    device: &Device,
    buffers: &[String],
    specs: &[BufferSpec],
    images: &[ImageArg],
    arg_bytes: u64,
) -> Result<()> {
    let capacity = device.arena.capacity();
    let mut total = footprint(arg_bytes).unwrap_or(u64::MAX);
    for img in images {
        total = footprint(img.layout.device_bytes()).and_then(|f| total.checked_add(f)).unwrap_or(u64::MAX);
        if total > capacity {
            bail!("--image `{}` needs {} bytes: with the images before it and the argument block, more than the device capacity of {capacity} bytes", img.text, img.layout.device_bytes());
        }
    }
    for (text, s) in buffers.iter().zip(specs) {
        let bytes = s.bytes(text)?;
        total = footprint(bytes).and_then(|f| total.checked_add(f)).unwrap_or(u64::MAX);
        if total > capacity {
            bail!("buffer `{text}` needs {bytes} bytes: with the buffers before it and the argument block, more than the device capacity of {capacity} bytes");
        }
    }
    Ok(())
}

/// Allocates every buffer first (so that one too large fails at once, naming its real size), then fills them.
pub(super) fn upload_buffers(device: &Device, buffers: &[String], specs: &[BufferSpec]) -> Result<Vec<u64>> {
    let mut addrs = Vec::with_capacity(specs.len());
    for (text, s) in buffers.iter().zip(specs) {
        let bytes = s.bytes(text)?;
        let a = device.alloc(bytes.max(4)).map_err(|e| anyhow!("buffer `{text}` ({bytes} bytes): {e}"))?;
        addrs.push(a.addr);
    }
    for (s, &a) in specs.iter().zip(&addrs).filter(|(s, _)| !matches!(s.init, Init::Uninit)) {
        write_init(device, a, s)?;
    }
    Ok(addrs)
}
