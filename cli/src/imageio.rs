//! `--image` and `--save-image` of `lanejit run` and `lanejit bench`: images in device memory, filled from a
//! pattern, a raw file or a PNG, and saved as PNG (2d rgba8) or raw bytes.
//!
//! `--image FORMAT:DIM:SIZE[:INIT][:OPTION...]` with FORMAT r32ui|r32f|rgba8|rgba16f|rgba32f, DIM
//! 1d|2d|3d|1d_array|2d_array, SIZE `W`, `WxH` or `WxHxL` (the sizes DIM uses), INIT zero|iota|const=V|rand=SEED|
//! file=PATH (tightly packed texels, raw, or a PNG for 2d rgba8) and OPTIONs pitch=BYTES, filter=nearest|bilinear,
//! address=clamp|wrap|mirror (every axis). `rgba8:2d:PATH.png` takes its size from the PNG. The PNG reader
//! refuses what it cannot turn into 8-bit RGBA with the reason, and never panics on a malformed file.

use crate::examples::Picture;
use anyhow::{anyhow, bail, Context, Result};
use lanejit::image::{Addressing, Dim, Filter, ImageFormat, ImageLayout, ImageSpec, Sampler};
use lanejit_interp::image::component_bytes;
use std::path::{Path, PathBuf};

/// How an image starts.
#[derive(Clone, Debug, PartialEq)]
enum Fill {
    Zero,
    Iota,
    Const(u32),
    Rand(u64),
    Bytes(Vec<u8>),
}

/// A parsed `--image`: its specification (checked) and contents.
#[derive(Clone, Debug)]
pub struct ImageArg {
    /// The option's text (for messages).
    pub text: String,
    /// What the image is.
    pub spec: ImageSpec,
    /// Its checked geometry.
    pub layout: ImageLayout,
    /// The file it was filled from (`file=PATH` or a PNG): an input that `--save` must not overwrite.
    pub source: Option<PathBuf>,
    fill: Fill,
}

const FORMATS: [(&str, ImageFormat); 5] = [
    ("r32ui", ImageFormat::R32ui),
    ("r32f", ImageFormat::R32f),
    ("rgba8", ImageFormat::Rgba8),
    ("rgba16f", ImageFormat::Rgba16f),
    ("rgba32f", ImageFormat::Rgba32f),
];

fn format_by_name(s: &str) -> Result<ImageFormat> {
    FORMATS
        .iter()
        .find(|(n, _)| *n == s)
        .map(|(_, f)| *f)
        .ok_or_else(|| anyhow!("unknown format `{s}` (r32ui, r32f, rgba8, rgba16f, rgba32f)"))
}

fn dim_by_name(s: &str) -> Result<Dim> {
    Dim::ALL
        .into_iter()
        .find(|d| d.name() == s)
        .ok_or_else(|| anyhow!("unknown dim `{s}` (1d, 2d, 3d, 1d_array, 2d_array)"))
}

/// `W[xH[xL]]`: the sizes the dim uses, in order; the others are 1.
fn parse_size(s: &str, dim: Dim) -> Result<[u32; 3]> {
    let parts: Vec<u32> = s
        .split('x')
        .map(|p| p.parse::<u32>().map_err(|_| anyhow!("size `{s}`: `{p}` is not an integer in 0..={}", u32::MAX)))
        .collect::<Result<_>>()?;
    let (uses_h, uses_l) = match dim {
        Dim::D1d => (false, false),
        Dim::D2d => (true, false),
        Dim::D3d | Dim::D2dArray => (true, true),
        Dim::D1dArray => (false, true),
    };
    let wanted = 1 + usize::from(uses_h) + usize::from(uses_l);
    if parts.len() != wanted {
        bail!("size `{s}`: a {} image takes {wanted} sizes ({})", dim.name(), ["W", "WxH", "WxHxL"][wanted - 1]);
    }
    let h = if uses_h { parts[1] } else { 1 };
    let l = if uses_l { parts[wanted - 1] } else { 1 };
    Ok([parts[0], h, l])
}

/// Parses `--image` completely (a file read, sizes checked) before anything is allocated.
pub fn parse_image(s: &str) -> Result<ImageArg> {
    parse_fields(s).with_context(|| format!("--image `{s}`"))
}

fn parse_fields(s: &str) -> Result<ImageArg> {
    let fields: Vec<&str> = s.split(':').collect();
    if fields.len() < 3 {
        bail!("expected FORMAT:DIM:SIZE[:INIT] or rgba8:2d:PATH.png");
    }
    let (format, dim) = (format_by_name(fields[0])?, dim_by_name(fields[1])?);
    let mut fill = Fill::Zero;
    let size = if is_png(Path::new(fields[2])) {
        let (w, h, rgba) = png_input(Path::new(fields[2]), format, dim)?;
        fill = Fill::Bytes(rgba);
        [w, h, 1]
    } else {
        parse_size(fields[2], dim)?
    };
    let mut spec = ImageSpec::new(dim, format, size[0], size[1], size[2]);
    let mut addressing = None;
    let mut file = None;
    for f in &fields[3..] {
        let (key, value) = f.split_once('=').unwrap_or((f, ""));
        match key {
            "zero" | "iota" | "const" | "rand" | "file" if !matches!(fill, Fill::Zero) => {
                bail!("two initialisers (the PNG fills the image)")
            }
            "zero" => fill = Fill::Zero,
            "iota" => fill = Fill::Iota,
            "const" => fill = Fill::Const(component_value(value, format)?),
            "rand" => fill = Fill::Rand(value.parse().map_err(|_| anyhow!("rand=SEED takes an integer seed"))?),
            "file" => {
                // Read below, once the image's size is known (a larger file is refused unread).
                file = Some(PathBuf::from(value));
                fill = Fill::Bytes(Vec::new());
            }
            "pitch" => spec.pitch = Some(value.parse().map_err(|_| anyhow!("pitch=BYTES takes an integer"))?),
            "filter" => {
                spec.sampler.filter = named(value, &[("nearest", Filter::Nearest), ("bilinear", Filter::Bilinear)])?
            }
            "address" => addressing = Some(named(value, &ADDRESSING)?),
            _ => bail!(
                "unknown field `{f}` (zero, iota, const=V, rand=SEED, file=PATH, pitch=BYTES, filter=..., address=...)"
            ),
        }
    }
    if let Some(a) = addressing {
        spec.sampler = Sampler { addressing: [a; 3], ..spec.sampler };
    }
    let layout = spec.layout()?;
    if let Some(p) = &file {
        fill = Fill::Bytes(read_packed(p, layout.packed_bytes())?);
    }
    let source = file.or_else(|| is_png(Path::new(fields[2])).then(|| PathBuf::from(fields[2])));
    Ok(ImageArg { text: s.to_string(), spec, layout, source, fill })
}

/// An image's tightly packed texels from a raw file of exactly `packed` bytes (a larger one is refused by its
/// size, unread).
fn read_packed(path: &Path, packed: u64) -> Result<Vec<u8>> {
    let limit = crate::bufio::Limit { bytes: packed, name: "the image's size (tightly packed texels)" };
    let b = crate::bufio::read_input(path, limit)?;
    if b.len() as u64 != packed {
        bail!("the file holds {} bytes, the image {packed} (tightly packed texels)", b.len());
    }
    Ok(b)
}

const ADDRESSING: [(&str, Addressing); 3] =
    [("clamp", Addressing::Clamp), ("wrap", Addressing::Wrap), ("mirror", Addressing::Mirror)];

fn named<T: Copy>(v: &str, table: &[(&str, T)]) -> Result<T> {
    let names: Vec<&str> = table.iter().map(|(n, _)| *n).collect();
    table
        .iter()
        .find(|(n, _)| *n == v)
        .map(|(_, t)| *t)
        .ok_or_else(|| anyhow!("`{v}` is not one of {}", names.join(", ")))
}

/// A component value for `const=V`: an integer for r32ui, else a float (rgba8 takes 0..1, stored as unorm).
/// A float that only becomes infinite in the format's components (`1e40` in f32, `1e5` in f16) is refused,
/// as `--buffer f32:N:const=1e40` is; `inf` and `nan` by name are taken.
fn component_value(v: &str, format: ImageFormat) -> Result<u32> {
    if format == ImageFormat::R32ui {
        return v.parse::<u32>().map_err(|_| anyhow!("const=V of r32ui takes an integer in 0..={}", u32::MAX));
    }
    v.parse::<f32>().map_err(|_| anyhow!("const=V of a float format takes a number"))?;
    let bits = crate::runcmd::parse_f32(v)?.to_bits();
    if format == ImageFormat::Rgba16f && !crate::runcmd::names_infinity(v) {
        let half = u16::from_le_bytes(component_bytes(format, bits)[..2].try_into().unwrap_or_default());
        if half & 0x7fff == 0x7c00 {
            bail!("`{v}` is out of the f16 range of rgba16f (largest finite value 6.5504e4)");
        }
    }
    Ok(bits)
}

impl ImageArg {
    /// The image's tightly packed texels; called once its memory is allocated, so the size fits the device.
    pub fn texels(&self) -> Vec<u8> {
        let n = self.layout.packed_bytes() as usize;
        let texels = n / self.layout.texel_bytes as usize;
        let channels = self.spec.format.info().channels as usize;
        let texel_of =
            |value: u32| -> Vec<u8> { (0..channels).flat_map(|_| component_bytes(self.spec.format, value)).collect() };
        match &self.fill {
            Fill::Zero => vec![0; n],
            Fill::Bytes(b) => b.clone(),
            Fill::Const(v) => texel_of(*v).repeat(texels),
            Fill::Rand(seed) => crate::examples::pseudo_random(*seed, n.div_ceil(4))
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .take(n)
                .collect(),
            Fill::Iota => (0..texels)
                .flat_map(|i| match self.spec.format {
                    ImageFormat::R32ui => (i as u32).to_le_bytes().to_vec(),
                    ImageFormat::Rgba8 => vec![i as u8; 4],
                    _ => texel_of((i as f32).to_bits()),
                })
                .collect(),
        }
    }
}

/// Allocates every image first (so that one too large fails at once, naming its size), then fills them.
pub fn upload_images(device: &lanejit::Device, images: &[ImageArg]) -> Result<Vec<u64>> {
    let mut addrs = Vec::with_capacity(images.len());
    for img in images {
        let bytes = img.layout.device_bytes();
        let a = device.alloc(bytes).map_err(|e| anyhow!("--image `{}` ({bytes} bytes): {e}", img.text))?;
        addrs.push(a.addr);
    }
    for (img, &a) in images.iter().zip(&addrs) {
        write_texels(device, a, &img.layout, &img.texels())?;
    }
    Ok(addrs)
}

/// Writes packed texels into the image at `addr`, row by row at its pitch.
pub fn write_texels(device: &lanejit::Device, addr: u64, layout: &ImageLayout, texels: &[u8]) -> Result<()> {
    for (r, row) in texels.chunks_exact(layout.row_bytes() as usize).enumerate() {
        device.write(addr + r as u64 * layout.pitch as u64, row).map_err(|e| anyhow!(e))?;
    }
    Ok(())
}

/// The image at `addr`, tightly packed.
pub fn read_texels(device: &lanejit::Device, addr: u64, layout: &ImageLayout) -> Result<Vec<u8>> {
    let mut out = vec![0; layout.packed_bytes() as usize];
    for (r, row) in out.chunks_exact_mut(layout.row_bytes() as usize).enumerate() {
        device.read_into(addr + r as u64 * layout.pitch as u64, row).map_err(|e| anyhow!(e))?;
    }
    Ok(out)
}

/// Where each picture of a bundled example goes: `NAME.png` in the current directory, unless `--save-image
/// INDEX=PATH` names another path.
pub fn picture_paths(pictures: &[Picture], saves: &[String], name: &str) -> Result<Vec<(Picture, PathBuf)>> {
    let mut out: Vec<(Picture, PathBuf)> =
        pictures.iter().map(|p| (*p, PathBuf::from(format!("{}.png", p.name)))).collect();
    for s in saves {
        let (i, path) = s.split_once(['=', ':']).ok_or_else(|| anyhow!("--save-image `{s}`: expected INDEX=PATH"))?;
        let slot = i.parse::<usize>().ok().and_then(|i| out.get_mut(i)).ok_or_else(|| {
            anyhow!(
                "--save-image `{s}`: the bundled example `{name}` has {} pictures (numbered from 0)",
                pictures.len()
            )
        })?;
        slot.1 = PathBuf::from(path);
    }
    Ok(out)
}

/// Writes a picture to `path` as a PNG.
pub fn save_picture(device: &lanejit::Device, p: &Picture, path: &Path) -> Result<()> {
    let rgba = device.read(p.addr, p.width as u64 * p.height as u64 * 4).map_err(|e| anyhow!(e))?;
    write_png(path, p.width, p.height, &rgba)
}

fn is_png(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("png"))
}

/// A PNG for an image: only 2d rgba8 images take one.
fn png_input(path: &Path, format: ImageFormat, dim: Dim) -> Result<(u32, u32, Vec<u8>)> {
    if format != ImageFormat::Rgba8 || dim != Dim::D2d {
        bail!("a PNG fills a 2d rgba8 image only");
    }
    let bytes = crate::bufio::read_input(path, crate::bufio::DEVICE_FILE)?;
    read_png(&bytes).with_context(|| path.display().to_string())
}

/// Decodes a PNG of any colour type and depth to 8-bit RGBA: (width, height, texels).
pub fn read_png(bytes: &[u8]) -> Result<(u32, u32, Vec<u8>)> {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().map_err(|e| anyhow!("not a readable PNG: {e}"))?;
    let (w, h) = reader.info().size();
    let max = lanejit::image::IMAGE_MAX_SIZE;
    if w == 0 || h == 0 || w > max || h > max {
        bail!("a PNG of {w} x {h} pixels: an image's sides must be in 1..={max}");
    }
    let size = reader.output_buffer_size().ok_or_else(|| anyhow!("a PNG of {w} x {h} pixels is too large"))?;
    let mut buf = vec![0; size];
    let frame = reader.next_frame(&mut buf).map_err(|e| anyhow!("PNG data: {e}"))?;
    let data = &buf[..frame.buffer_size()];
    let (color, depth) = reader.output_color_type();
    if depth != png::BitDepth::Eight {
        bail!("PNG bit depth {depth:?} after expansion (expected 8)");
    }
    let rgba: Vec<u8> = match color {
        png::ColorType::Rgba => data.to_vec(),
        png::ColorType::Rgb => data.chunks_exact(3).flat_map(|p| [p[0], p[1], p[2], 255]).collect(),
        png::ColorType::GrayscaleAlpha => data.chunks_exact(2).flat_map(|p| [p[0], p[0], p[0], p[1]]).collect(),
        png::ColorType::Grayscale => data.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        png::ColorType::Indexed => bail!("an indexed PNG that did not expand to RGB"),
    };
    if rgba.len() as u64 != w as u64 * h as u64 * 4 {
        bail!("PNG frame of {} bytes for {w} x {h} pixels", rgba.len());
    }
    Ok((w, h, rgba))
}

/// Encodes 8-bit RGBA texels as a PNG file.
pub fn write_png(path: &Path, width: u32, height: u32, rgba: &[u8]) -> Result<()> {
    let file = std::fs::File::create(path).with_context(|| format!("writing {}", path.display()))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), width, height);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header().with_context(|| format!("writing {}", path.display()))?;
    w.write_image_data(rgba).with_context(|| format!("writing {}", path.display()))?;
    w.finish().with_context(|| format!("writing {}", path.display()))
}

/// Writes an image's packed texels to `path`: a PNG (2d rgba8 images only) or raw bytes.
pub fn save_image(path: &Path, layout: &ImageLayout, texels: &[u8]) -> Result<()> {
    if is_png(path) {
        if layout.format != ImageFormat::Rgba8 || layout.dim != Dim::D2d {
            bail!("{}: only a 2d rgba8 image is saved as PNG (give another extension for raw bytes)", path.display());
        }
        return write_png(path, layout.width, layout.height, texels);
    }
    std::fs::write(path, texels).with_context(|| format!("writing {}", path.display()))
}

/// `INDEX=PATH` or `INDEX:PATH` pairs of `--save-image`, each index one of the `images` images, checked before
/// anything runs (a PNG only for a 2d rgba8 image).
pub fn parse_image_saves(saves: &[String], images: &[ImageArg]) -> Result<Vec<(usize, PathBuf)>> {
    saves
        .iter()
        .map(|s| {
            let (i, path) =
                s.split_once(['=', ':']).ok_or_else(|| anyhow!("--save-image `{s}`: expected INDEX=PATH"))?;
            let i: usize = i.parse().map_err(|_| anyhow!("--save-image `{s}`: INDEX must be an image number"))?;
            let img = images.get(i).ok_or_else(|| {
                anyhow!("--save-image `{s}`: there are {} images (numbered from 0, in --image order)", images.len())
            })?;
            let l = &img.layout;
            if is_png(Path::new(path)) && (l.format != ImageFormat::Rgba8 || l.dim != Dim::D2d) {
                bail!("--save-image `{s}`: image {i} is not 2d rgba8, so it cannot be a PNG (save it raw)");
            }
            Ok((i, PathBuf::from(path)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_bad_ones_say_why() {
        let a = parse_image("rgba16f:2d_array:3x2x4:const=0.5:pitch=32:filter=bilinear:address=wrap").unwrap();
        assert_eq!((a.layout.width, a.layout.height, a.layout.layers, a.layout.pitch), (3, 2, 4, 32));
        assert_eq!(a.spec.sampler.filter, Filter::Bilinear);
        assert_eq!(&a.texels()[..8], &[0, 0x38, 0, 0x38, 0, 0x38, 0, 0x38]);
        assert_eq!(parse_image("r32ui:1d:5:iota").unwrap().texels()[4..8], [1, 0, 0, 0]);
        let err = |s: &str| format!("{:#}", parse_image(s).unwrap_err());
        assert!(err("rgba9:2d:4x4").contains("unknown format"));
        assert!(err("rgba8:4d:4x4").contains("unknown dim"));
        assert!(err("rgba8:2d:4").contains("takes 2 sizes"));
        assert!(err("rgba8:2d:0x4").contains("must be in 1..=16384"));
        assert!(err("rgba8:2d:4x99999999999").contains("not an integer"));
        assert!(err("r32f:2d:4x4:pitch=8").contains("row pitch 8"));
        assert!(err("r32f:2d:4x4:bogus").contains("unknown field"));
        assert!(err("r32f:2d:4x4:file=/nonexistent/x").contains("reading"));
        assert!(err("r32f:2d:in.png").contains("2d rgba8 image only"));
        assert!(err("r32f:1d:2:const=1e40").contains("`1e40` is out of the f32 range"));
        assert!(err("rgba16f:1d:2:const=-65520").contains("out of the f16 range"));
        assert_eq!(parse_image("rgba16f:1d:1:const=65504").unwrap().texels()[..2], [0xff, 0x7b]);
        assert_eq!(parse_image("rgba16f:1d:1:const=-inf").unwrap().texels()[..2], [0x00, 0xfc]);
    }

    #[test]
    fn png_round_trips_and_garbage_is_refused() {
        let dir = std::env::temp_dir().join(format!("lanejit-png-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("a.png");
        let rgba: Vec<u8> = (0..3 * 2 * 4).map(|i| i as u8 * 9).collect();
        write_png(&p, 3, 2, &rgba).unwrap();
        let bytes = std::fs::read(&p).unwrap();
        assert_eq!(read_png(&bytes).unwrap(), (3, 2, rgba.clone()));
        let a = parse_image(&format!("rgba8:2d:{}", p.display())).unwrap();
        assert_eq!((a.layout.width, a.layout.height, a.texels()), (3, 2, rgba));
        for cut in [0, 8, 20, 40, bytes.len() / 2] {
            assert!(read_png(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut flipped = bytes.clone();
        flipped[bytes.len() / 2] ^= 0xff;
        assert!(read_png(&flipped).is_err(), "a corrupt chunk fails its checksum");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
