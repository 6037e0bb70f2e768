//! Image descriptors, formats and the exact conversions the image instructions define (`isa-spec/groups/6-mem.yaml`,
//! its `images:` section and the `img.*` entries). The facts (format codes, texel sizes, descriptor words,
//! sampler bits, the size limit) are generated into `lanejit_isa`; this module gives them a typed form that
//! the engines, the runtime and the tools share: [`Descriptor`] to build or check the 8 descriptor words,
//! [`Descriptor::texel_address`], and the bit-exact component conversions.

mod filter;

pub use filter::{load_texel, sample, voff_offsets};

use crate::fp::{f16_to_f32, f32_to_f16, FpMode, F32_QNAN};
use lanejit_isa::{
    Dim, IMAGE_ADDRESSING_BITS, IMAGE_ADDRESSING_SHIFTS, IMAGE_DESCRIPTOR_WORDS, IMAGE_FILTER_BIT, IMAGE_SAMPLER_MASK,
    IMAGE_WORD_BASE_HI, IMAGE_WORD_BASE_LO, IMAGE_WORD_FORMAT, IMAGE_WORD_HEIGHT, IMAGE_WORD_LAYERS, IMAGE_WORD_PITCH,
    IMAGE_WORD_SAMPLER, IMAGE_WORD_WIDTH,
};
pub use lanejit_isa::{
    ImageAddressing as Addressing, ImageComponent, ImageFilter as Filter, ImageFormat, ImageFormatInfo, IMAGE_FORMATS,
    IMAGE_MAX_SIZE,
};
use std::fmt;

/// Dwords of a descriptor (u[rs3..rs3+7]).
pub const DESCRIPTOR_WORDS: usize = IMAGE_DESCRIPTOR_WORDS;

/// The sampler word D7: a filter and the addressing mode of the x, y and z axes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Sampler {
    /// Nearest or bilinear (r32ui is always sampled nearest).
    pub filter: Filter,
    /// Addressing of x, y, z, in that order.
    pub addressing: [Addressing; 3],
}

impl Sampler {
    /// The sampler of D7, or `None` if D7 sets a bit outside the filter and addressing fields or an
    /// addressing field holds a value no mode has (what img.sample refuses).
    pub fn from_bits(d7: u32) -> Option<Sampler> {
        if d7 & !IMAGE_SAMPLER_MASK != 0 {
            return None;
        }
        let filter = Filter::from_field(d7 >> IMAGE_FILTER_BIT & 1)?;
        let field = (1 << IMAGE_ADDRESSING_BITS) - 1;
        let mut addressing = [Addressing::default(); 3];
        for (mode, shift) in addressing.iter_mut().zip(IMAGE_ADDRESSING_SHIFTS) {
            *mode = Addressing::from_field(d7 >> shift & field)?;
        }
        Some(Sampler { filter, addressing })
    }

    /// The D7 word of this sampler.
    pub fn to_bits(self) -> u32 {
        let modes = self.addressing.iter().zip(IMAGE_ADDRESSING_SHIFTS).map(|(m, s)| (*m as u32) << s);
        modes.fold((self.filter as u32) << IMAGE_FILTER_BIT, |w, m| w | m)
    }
}

/// The shape of a dimensionality: how many coordinates it takes and which sizes it uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Coordinates nc (x; x y; x y z; x layer; x y layer).
    pub coords: usize,
    /// Whether H is used (2d, 3d, 2d_array); else it is ignored and taken as 1.
    pub has_y: bool,
    /// Whether D4 is a filtered depth (3d).
    pub has_z: bool,
    /// Whether D4 is a layer count (1d_array, 2d_array); the layer is the last coordinate.
    pub has_layer: bool,
}

/// The shape of `dim`; the coordinate count is the ISA's `dim.coords` property.
pub fn shape(dim: Dim) -> Shape {
    let coords = dim_coords(dim);
    let has_layer = matches!(dim, Dim::D1dArray | Dim::D2dArray);
    Shape { coords, has_y: coords - usize::from(has_layer) >= 2, has_z: dim == Dim::D3d, has_layer }
}

/// `dim.coords` from the generated kind table (operand_kinds.yaml `props`).
fn dim_coords(dim: Dim) -> usize {
    let kind = lanejit_isa::KINDS.iter().find(|k| k.name == "dim").expect("the ISA has the dim kind");
    let (_, table) = kind.props.iter().find(|(p, _)| *p == "coords").expect("dim has the coords property");
    let (_, n) = table.iter().find(|(v, _)| *v == dim as i64).expect("every dim has a coordinate count");
    *n as usize
}

/// A checked image descriptor. Sizes a dim ignores are 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Descriptor {
    /// Base byte address in the global address space (D0 | D1 << 32).
    pub base: u64,
    /// Width W in texels (D2).
    pub width: u32,
    /// Height H (D3); 1 for 1d and 1d_array.
    pub height: u32,
    /// Depth (3d) or layer count (arrays) L (D4); 1 for 1d and 2d.
    pub layers: u32,
    /// Row pitch P in bytes (D5).
    pub pitch: u32,
    /// Texel format (D6).
    pub format: ImageFormat,
    /// Filter and addressing (D7).
    pub sampler: Sampler,
}

/// Why descriptor words are invalid (the instructions trap MemoryFault "invalid descriptor").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DescriptorError {
    /// A used size (named) is 0 or above [`IMAGE_MAX_SIZE`].
    Size {
        /// `width`, `height` or `layers`.
        which: &'static str,
        /// The word's value.
        value: u32,
    },
    /// D6 is no format code.
    Format(u32),
    /// img.sample only: D7 sets a reserved bit or an addressing field no mode has.
    Sampler(u32),
}

impl fmt::Display for DescriptorError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            DescriptorError::Size { which, value } => {
                write!(f, "invalid descriptor: {which} {value} is not in 1..={IMAGE_MAX_SIZE}")
            }
            DescriptorError::Format(c) => write!(f, "invalid descriptor: format code {c} names no format"),
            DescriptorError::Sampler(s) => {
                write!(f, "invalid descriptor: sampler {s:#x} sets a bit outside {IMAGE_SAMPLER_MASK:#x} or an addressing field 3")
            }
        }
    }
}

impl std::error::Error for DescriptorError {}

impl Descriptor {
    /// The descriptor words D0..D7.
    pub fn to_words(&self) -> [u32; DESCRIPTOR_WORDS] {
        let mut w = [0; DESCRIPTOR_WORDS];
        w[IMAGE_WORD_BASE_LO] = self.base as u32;
        w[IMAGE_WORD_BASE_HI] = (self.base >> 32) as u32;
        w[IMAGE_WORD_WIDTH] = self.width;
        w[IMAGE_WORD_HEIGHT] = self.height;
        w[IMAGE_WORD_LAYERS] = self.layers;
        w[IMAGE_WORD_PITCH] = self.pitch;
        w[IMAGE_WORD_FORMAT] = self.format.code();
        w[IMAGE_WORD_SAMPLER] = self.sampler.to_bits();
        w
    }

    /// Checks descriptor words as an image instruction of dimensionality `dim` does: used sizes in
    /// 1..=[`IMAGE_MAX_SIZE`], a format code; with `for_sample` (img.sample) also a valid sampler. Sizes `dim`
    /// ignores become 1; without `for_sample` D7 is not read and the sampler is the default.
    pub fn from_words(w: &[u32; DESCRIPTOR_WORDS], dim: Dim, for_sample: bool) -> Result<Descriptor, DescriptorError> {
        let s = shape(dim);
        let size = |which, value: u32, used: bool| match used {
            false => Ok(1),
            true if (1..=IMAGE_MAX_SIZE).contains(&value) => Ok(value),
            true => Err(DescriptorError::Size { which, value }),
        };
        let width = size("width", w[IMAGE_WORD_WIDTH], true)?;
        let height = size("height", w[IMAGE_WORD_HEIGHT], s.has_y)?;
        let layers = size("layers", w[IMAGE_WORD_LAYERS], s.has_z || s.has_layer)?;
        let format =
            ImageFormat::from_code(w[IMAGE_WORD_FORMAT]).ok_or(DescriptorError::Format(w[IMAGE_WORD_FORMAT]))?;
        let sampler = match for_sample {
            true => Sampler::from_bits(w[IMAGE_WORD_SAMPLER]).ok_or(DescriptorError::Sampler(w[IMAGE_WORD_SAMPLER]))?,
            false => Sampler::default(),
        };
        let base = w[IMAGE_WORD_BASE_LO] as u64 | (w[IMAGE_WORD_BASE_HI] as u64) << 32;
        Ok(Descriptor { base, width, height, layers, pitch: w[IMAGE_WORD_PITCH], format, sampler })
    }

    /// Texel size B in bytes.
    pub fn texel_bytes(&self) -> u32 {
        self.format.info().bytes
    }

    /// Byte address of texel (x, y, z) (z a slice or layer): T = base + toff + z*(P*H) + y*P + x*B mod 2^64.
    pub fn texel_address(&self, toff: u32, x: u32, y: u32, z: u32) -> u64 {
        let slice = self.pitch as u64 * self.height as u64;
        self.base
            .wrapping_add(toff as u64)
            .wrapping_add((z as u64).wrapping_mul(slice))
            .wrapping_add(y as u64 * self.pitch as u64)
            .wrapping_add(x as u64 * self.texel_bytes() as u64)
    }
}

/// unorm8 → f32: c / 255 correctly rounded (one IEEE division of exact operands).
pub fn unorm8_to_f32(c: u8) -> u32 {
    (c as f32 / 255.0).to_bits()
}

/// f32 → unorm8: round-half-even(clamp(v, 0, 1) * 255), exact (the product of a binary32 and 255 fits a
/// binary64 exactly); NaN gives 0.
pub fn f32_to_unorm8(v: u32) -> u8 {
    let x = f32::from_bits(v) as f64;
    if x.is_nan() {
        return 0;
    }
    (x.clamp(0.0, 1.0) * 255.0).round_ties_even() as u8
}

/// f16 → f32 exactly, denormals kept, a NaN becoming 0x7fc00000 (no dependence on fcsr).
pub fn f16_to_f32_exact(h: u16) -> u32 {
    f16_to_f32(h, FpMode::RNE)
}

/// f32 → f16, round to nearest even, overflow to infinity, denormals kept, NaN becoming 0x7e00.
pub fn f32_to_f16_rne(v: u32) -> u16 {
    f32_to_f16(v, FpMode::RNE)
}

/// The four 32-bit components (r g b a) of a texel's bytes, as the image loads return them: r32ui
/// (value, 0, 0, 1); r32f (bits, 0.0, 0.0, 1.0); rgba8 c/255; rgba16f exact widening; rgba32f bits.
pub fn texel_components(format: ImageFormat, bytes: &[u8]) -> [u32; 4] {
    let info = format.info();
    let per = info.component.bytes() as usize;
    let mut out = [0; 4];
    for (j, c) in out.iter_mut().enumerate() {
        *c = if j as u32 >= info.channels {
            info.absent[j - 1]
        } else {
            read_component(info.component, &bytes[j * per..(j + 1) * per])
        };
    }
    out
}

fn read_component(kind: ImageComponent, b: &[u8]) -> u32 {
    match kind {
        ImageComponent::U32 | ImageComponent::F32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        ImageComponent::Unorm8 => unorm8_to_f32(b[0]),
        ImageComponent::F16 => f16_to_f32_exact(u16::from_le_bytes([b[0], b[1]])),
    }
}

/// The stored bytes of one component value `v` (a 32-bit register value, after any d16 widening) in
/// `format`: u32/f32 unchanged, unorm8 by [`f32_to_unorm8`], f16 by [`f32_to_f16_rne`]. Little-endian.
pub fn component_bytes(format: ImageFormat, v: u32) -> Vec<u8> {
    match format.info().component {
        ImageComponent::U32 | ImageComponent::F32 => v.to_le_bytes().to_vec(),
        ImageComponent::Unorm8 => vec![f32_to_unorm8(v)],
        ImageComponent::F16 => f32_to_f16_rne(v).to_le_bytes().to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip_and_sizes_are_checked() {
        let sampler =
            Sampler { filter: Filter::Bilinear, addressing: [Addressing::Wrap, Addressing::Mirror, Addressing::Clamp] };
        let d = Descriptor {
            base: 0x1_0000_0040,
            width: 7,
            height: 5,
            layers: 3,
            pitch: 128,
            format: ImageFormat::Rgba16f,
            sampler,
        };
        let w = d.to_words();
        assert_eq!(w, [0x40, 1, 7, 5, 3, 128, 3, (2 << 3) | (1 << 1) | 1]);
        assert_eq!(Descriptor::from_words(&w, Dim::D2dArray, true), Ok(d));
        // 2d ignores the layer count and load/store/query do not read D7.
        let mut bad = w;
        bad[IMAGE_WORD_LAYERS] = 0;
        bad[IMAGE_WORD_SAMPLER] = 0x80;
        assert_eq!(Descriptor::from_words(&bad, Dim::D2d, false).map(|d| d.layers), Ok(1));
        assert_eq!(
            Descriptor::from_words(&bad, Dim::D3d, false),
            Err(DescriptorError::Size { which: "layers", value: 0 })
        );
        assert_eq!(Descriptor::from_words(&bad, Dim::D2d, true), Err(DescriptorError::Sampler(0x80)));
        bad[IMAGE_WORD_SAMPLER] = 3 << 1;
        assert_eq!(Descriptor::from_words(&bad, Dim::D2d, true), Err(DescriptorError::Sampler(6)));
        bad[IMAGE_WORD_FORMAT] = 5;
        assert_eq!(Descriptor::from_words(&bad, Dim::D1d, false), Err(DescriptorError::Format(5)));
        let mut big = w;
        big[IMAGE_WORD_WIDTH] = IMAGE_MAX_SIZE + 1;
        assert!(Descriptor::from_words(&big, Dim::D1d, false).is_err());
        big[IMAGE_WORD_WIDTH] = IMAGE_MAX_SIZE;
        assert!(Descriptor::from_words(&big, Dim::D1d, false).is_ok());
    }

    #[test]
    fn texel_address_follows_the_formula() {
        let d = Descriptor {
            base: 1000,
            width: 4,
            height: 3,
            layers: 2,
            pitch: 80,
            format: ImageFormat::Rgba32f,
            sampler: Sampler::default(),
        };
        assert_eq!(d.texel_address(8, 2, 1, 1), 1000 + 8 + 240 + 80 + 32);
        let top = Descriptor { base: u64::MAX - 3, ..d };
        assert_eq!(top.texel_address(0, 1, 0, 0), 12, "wraps mod 2^64");
    }

    #[test]
    fn unorm8_round_trips_every_byte_and_rounds_half_even() {
        for c in 0..=255u8 {
            assert_eq!(f32_to_unorm8(unorm8_to_f32(c)), c);
        }
        // 0.5 * 255 = 127.5 is the only exact tie a binary32 in [0, 1] can give: it goes to the even 128.
        assert_eq!(f32_to_unorm8(0.5f32.to_bits()), 128);
        assert_eq!(f32_to_unorm8(f32::NAN.to_bits()), 0);
        assert_eq!(f32_to_unorm8((-2.0f32).to_bits()), 0);
        assert_eq!(f32_to_unorm8(f32::INFINITY.to_bits()), 255);
    }

    #[test]
    fn f16_widening_is_exact_for_all_65536_inputs() {
        for h in 0..=u16::MAX {
            let w = f16_to_f32_exact(h);
            if (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0 {
                assert_eq!((w, f32_to_f16_rne(w)), (0x7fc0_0000, 0x7e00), "NaN {h:#x}");
            } else {
                assert_eq!(f32_to_f16_rne(w), h, "{h:#x} -> {w:#x}");
            }
        }
    }

    #[test]
    fn shapes_follow_the_dim_table() {
        assert_eq!(shape(Dim::D1d), Shape { coords: 1, has_y: false, has_z: false, has_layer: false });
        assert_eq!(shape(Dim::D1dArray), Shape { coords: 2, has_y: false, has_z: false, has_layer: true });
        assert_eq!(shape(Dim::D2dArray), Shape { coords: 3, has_y: true, has_z: false, has_layer: true });
        assert_eq!(shape(Dim::D3d), Shape { coords: 3, has_y: true, has_z: true, has_layer: false });
    }

    #[test]
    fn components_of_each_format() {
        assert_eq!(texel_components(ImageFormat::R32ui, &7u32.to_le_bytes()), [7, 0, 0, 1]);
        assert_eq!(texel_components(ImageFormat::R32f, &2.0f32.to_le_bytes()), [0x4000_0000, 0, 0, 0x3f80_0000]);
        assert_eq!(texel_components(ImageFormat::Rgba8, &[0, 255, 51, 1])[..3], [0, 0x3f80_0000, 0x3e4c_cccd]);
        let h = [0x3c00u16, 0x7e01, 0x0001, 0xfc00].map(u16::to_le_bytes).concat();
        assert_eq!(texel_components(ImageFormat::Rgba16f, &h), [0x3f80_0000, 0x7fc0_0000, 0x3380_0000, 0xff80_0000]);
        assert_eq!(component_bytes(ImageFormat::Rgba16f, 0x7f80_0001), vec![0x00, 0x7e]);
    }
}
