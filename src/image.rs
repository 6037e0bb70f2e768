//! Images in device memory for the image instructions (`img.load`, `img.store`, `img.sample`, `img.query`):
//! [`Device::image`] allocates one from an [`ImageSpec`] (dimensionality, format, sizes, row pitch, sampler),
//! [`Image::descriptor`] gives the 8 descriptor words a kernel reads (put them in its arguments with
//! [`KernelArgs::image`](crate::KernelArgs::image)), and [`Image::write`] / [`Image::read`] (or `_rows`) copy
//! texels as tightly packed bytes: rows of `width × texel bytes`, row after row, then slice or layer after slice
//! or layer, whatever the pitch in device memory. The image is freed when it drops.
//!
//! ```
//! use lanejit::image::{Dim, ImageFormat, ImageSpec};
//! use lanejit::{Device, Kernel, KernelArgs, LaunchConfig};
//!
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let dev = Device::new()?;
//!     // A 4 x 2 rgba8 image; a kernel whose 8 lanes read texel (x, y) = (lane % 4, lane / 4) and store its red
//!     // component (an f32 c / 255) to a buffer.
//!     let img = dev.image(&ImageSpec::new(Dim::D2d, ImageFormat::Rgba8, 4, 2, 1))?;
//!     img.write(&(0..32).map(|i| i as u8 * 8).collect::<Vec<u8>>())?;
//!     let out = dev.buffer_of::<f32>(8)?;
//!     let kernel = Kernel::from_asm("red.s", "
//!         .workgroup 8
//!         u.ld.b256 u8, u0, 0
//!         u.ld.b64 u16, u0, 32
//!         wait sm=0
//!         v.and.i v3, v0, 3
//!         v.shr.i v4, v0, 2
//!         img.load v6, v3, u8, 2d, dmask=r
//!         v.shl.i v7, v0, 2
//!         wait tex=0
//!         st.b32 v6, v7, u16, 0
//!         end")?;
//!     let args = KernelArgs::new().image(&img.descriptor()).ptr(out.addr());
//!     dev.launch(&kernel, &LaunchConfig { args: args.into(), ..Default::default() })?;
//!     let red: Vec<f32> = (0..8).map(|t| (t * 32) as f32 / 255.0).collect();
//!     assert_eq!(out.read()?, red);
//!     Ok(())
//! }
//! ```

use crate::{AllocError, Buffer, Device, MemoryError};
pub use lanejit_interp::image::{
    Addressing, Descriptor, Filter, ImageFormat, Sampler, DESCRIPTOR_WORDS, IMAGE_MAX_SIZE,
};
pub use lanejit_isa::Dim;

/// What an image is: its dimensionality, texel format, sizes, row pitch and sampler. Sizes the dimensionality
/// does not use (the height of 1d and 1d_array, the layer count of 1d and 2d) must be 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageSpec {
    /// 1d, 2d, 3d, 1d_array or 2d_array.
    pub dim: Dim,
    /// The texel format.
    pub format: ImageFormat,
    /// Width W in texels.
    pub width: u32,
    /// Height H in texels.
    pub height: u32,
    /// Depth (3d) or layer count (arrays).
    pub layers: u32,
    /// Row pitch in bytes; `None`: the row's size, `width × texel bytes`.
    pub pitch: Option<u32>,
    /// The sampler word (filter and addressing) `img.sample` uses.
    pub sampler: Sampler,
}

impl ImageSpec {
    /// An image of `dim` and `format`, `width × height × layers` texels, rows packed, the default sampler.
    pub fn new(dim: Dim, format: ImageFormat, width: u32, height: u32, layers: u32) -> ImageSpec {
        ImageSpec { dim, format, width, height, layers, pitch: None, sampler: Sampler::default() }
    }

    /// The same image with a row pitch of `pitch` bytes.
    pub fn with_pitch(self, pitch: u32) -> ImageSpec {
        ImageSpec { pitch: Some(pitch), ..self }
    }

    /// The same image with `sampler`.
    pub fn with_sampler(self, sampler: Sampler) -> ImageSpec {
        ImageSpec { sampler, ..self }
    }

    /// The checked geometry: every used size in 1..=[`IMAGE_MAX_SIZE`], unused sizes 1, a pitch that holds a
    /// row and keeps every texel aligned to its size.
    pub fn layout(&self) -> Result<ImageLayout, ImageError> {
        let (has_y, has_layers) = match self.dim {
            Dim::D1d => (false, false),
            Dim::D2d => (true, false),
            Dim::D3d => (true, true),
            Dim::D1dArray => (false, true),
            Dim::D2dArray => (true, true),
        };
        let dim = self.dim;
        let size = |which, value: u32, used: bool| match used {
            true if (1..=IMAGE_MAX_SIZE).contains(&value) => Ok(value),
            true => Err(ImageError::Size { dim, which, value }),
            false if value == 1 => Ok(1),
            false => Err(ImageError::Unused { dim, which, value }),
        };
        let width = size("width", self.width, true)?;
        let height = size("height", self.height, has_y)?;
        let layers = size("layers", self.layers, has_layers)?;
        let texel_bytes = self.format.info().bytes;
        let row_bytes = width as u64 * texel_bytes as u64;
        let pitch = self.pitch.unwrap_or(row_bytes as u32);
        if (pitch as u64) < row_bytes || !pitch.is_multiple_of(texel_bytes) {
            return Err(ImageError::Pitch { pitch, row_bytes, texel_bytes });
        }
        Ok(ImageLayout { dim, format: self.format, width, height, layers, pitch, texel_bytes, sampler: self.sampler })
    }
}

/// An image's checked geometry ([`ImageSpec::layout`]); sizes its dimensionality does not use are 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageLayout {
    /// The dimensionality.
    pub dim: Dim,
    /// The texel format.
    pub format: ImageFormat,
    /// Width in texels.
    pub width: u32,
    /// Height in texels (1 for 1d and 1d_array).
    pub height: u32,
    /// Depth or layer count (1 for 1d and 2d).
    pub layers: u32,
    /// Row pitch in bytes.
    pub pitch: u32,
    /// Bytes of one texel.
    pub texel_bytes: u32,
    /// The sampler.
    pub sampler: Sampler,
}

impl ImageLayout {
    /// Bytes of one row of texels (`width × texel bytes`).
    pub fn row_bytes(&self) -> u64 {
        self.width as u64 * self.texel_bytes as u64
    }

    /// Rows of the whole image: `height × layers`.
    pub fn rows(&self) -> u64 {
        self.height as u64 * self.layers as u64
    }

    /// Bytes of the whole image tightly packed (what [`Image::write`] takes and [`Image::read`] gives).
    pub fn packed_bytes(&self) -> u64 {
        self.rows() * self.row_bytes()
    }

    /// Bytes of device memory the image spans: every row at its pitch, the last one only as long as a row.
    /// At most 16384² rows of under 2^32 bytes: far below 2^64.
    pub fn device_bytes(&self) -> u64 {
        (self.rows() - 1) * self.pitch as u64 + self.row_bytes()
    }

    /// The descriptor of this image at device address `base`.
    pub fn descriptor(&self, base: u64) -> Descriptor {
        Descriptor {
            base,
            width: self.width,
            height: self.height,
            layers: self.layers,
            pitch: self.pitch,
            format: self.format,
            sampler: self.sampler,
        }
    }
}

/// Why an image cannot be made, written or read. Nothing is allocated, written or read when one is returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageError {
    /// A used size is 0 or above [`IMAGE_MAX_SIZE`].
    #[error("the {which} of a {} image must be in 1..={IMAGE_MAX_SIZE}, not {value}", .dim.name())]
    Size {
        /// The dimensionality.
        dim: Dim,
        /// `width`, `height` or `layers`.
        which: &'static str,
        /// The size given.
        value: u32,
    },
    /// A size the dimensionality does not use is not 1.
    #[error("a {} image has no {which} (it must be 1), got {value}", .dim.name())]
    Unused {
        /// The dimensionality.
        dim: Dim,
        /// `height` or `layers`.
        which: &'static str,
        /// The size given.
        value: u32,
    },
    /// The pitch is shorter than a row or not a multiple of the texel size.
    #[error("row pitch {pitch} must be at least a row ({row_bytes} bytes) and a multiple of the texel size ({texel_bytes} bytes)")]
    Pitch {
        /// The pitch given.
        pitch: u32,
        /// Bytes of a row.
        row_bytes: u64,
        /// Bytes of a texel.
        texel_bytes: u32,
    },
    /// Texel data that is not a whole number of rows, or more rows than the image has from the first one.
    #[error("{got} bytes of texels for rows {first}.. of an image of {rows} rows of {row_bytes} bytes: need a whole number of rows that fit")]
    Data {
        /// Bytes given (or asked for).
        got: u64,
        /// The first row (counted over every layer: `layer × height + y`).
        first: u64,
        /// Rows of the image.
        rows: u64,
        /// Bytes of one row.
        row_bytes: u64,
    },
    /// A row outside the image.
    #[error("row {y} of layer {layer} is outside the image ({height} rows, {layers} layers)")]
    Row {
        /// The layer or slice asked for.
        layer: u32,
        /// The row asked for.
        y: u32,
        /// Rows per layer.
        height: u32,
        /// Layers.
        layers: u32,
    },
    /// The device has no room for it.
    #[error(transparent)]
    Alloc(#[from] AllocError),
    /// A device copy failed (the image was freed under it: cannot happen through this API).
    #[error(transparent)]
    Memory(#[from] MemoryError),
}

/// An image in device memory, freed when dropped.
pub struct Image<'a> {
    dev: &'a Device,
    buf: Buffer<'a>,
    layout: ImageLayout,
}

impl Device {
    /// A zeroed image as `spec` describes it, freed when the returned image drops.
    pub fn image(&self, spec: &ImageSpec) -> Result<Image<'_>, ImageError> {
        let layout = spec.layout()?;
        let buf = self.buffer(layout.device_bytes())?;
        Ok(Image { dev: self, buf, layout })
    }
}

impl Image<'_> {
    /// Its first device address (the descriptor's base).
    pub fn addr(&self) -> u64 {
        self.buf.addr()
    }

    /// Its geometry.
    pub fn layout(&self) -> &ImageLayout {
        &self.layout
    }

    /// Its descriptor (`to_words()` gives D0..D7).
    pub fn descriptor(&self) -> Descriptor {
        self.layout.descriptor(self.addr())
    }

    /// Writes the whole image from tightly packed texels ([`ImageLayout::packed_bytes`] of them).
    pub fn write(&self, texels: &[u8]) -> Result<(), ImageError> {
        if texels.len() as u64 != self.layout.packed_bytes() {
            return Err(self.data_error(texels.len() as u64, 0));
        }
        self.write_rows(0, 0, texels)
    }

    /// The whole image, tightly packed.
    pub fn read(&self) -> Result<Vec<u8>, ImageError> {
        self.read_rows(0, 0, self.layout.rows())
    }

    /// Writes whole rows from row `y` of layer (or slice) `layer` on; they may run on into the next layers.
    pub fn write_rows(&self, layer: u32, y: u32, texels: &[u8]) -> Result<(), ImageError> {
        let first = self.first_row(layer, y)?;
        let rb = self.layout.row_bytes();
        let got = texels.len() as u64;
        if !got.is_multiple_of(rb) || got / rb > self.layout.rows() - first {
            return Err(self.data_error(got, first));
        }
        for (i, row) in texels.chunks_exact(rb as usize).enumerate() {
            self.dev.write(self.row_addr(first + i as u64), row)?;
        }
        Ok(())
    }

    /// `count` whole rows from row `y` of layer `layer` on, tightly packed.
    pub fn read_rows(&self, layer: u32, y: u32, count: u64) -> Result<Vec<u8>, ImageError> {
        let first = self.first_row(layer, y)?;
        let rb = self.layout.row_bytes();
        if count > self.layout.rows() - first {
            return Err(self.data_error(count.saturating_mul(rb), first));
        }
        let mut out = vec![0; (count * rb) as usize];
        for (i, row) in out.chunks_exact_mut(rb as usize).enumerate() {
            self.dev.read_into(self.row_addr(first + i as u64), row)?;
        }
        Ok(out)
    }

    /// Row index over every layer of (layer, y), both checked.
    fn first_row(&self, layer: u32, y: u32) -> Result<u64, ImageError> {
        let l = &self.layout;
        if layer >= l.layers || y >= l.height {
            return Err(ImageError::Row { layer, y, height: l.height, layers: l.layers });
        }
        Ok(layer as u64 * l.height as u64 + y as u64)
    }

    fn row_addr(&self, row: u64) -> u64 {
        self.addr() + row * self.layout.pitch as u64
    }

    fn data_error(&self, got: u64, first: u64) -> ImageError {
        ImageError::Data { got, first, rows: self.layout.rows(), row_bytes: self.layout.row_bytes() }
    }
}

impl std::fmt::Debug for Image<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Image")
            .field("addr", &format_args!("{:#x}", self.addr()))
            .field("layout", &self.layout)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_pitch_are_checked_before_anything_is_allocated() {
        let dev = Device::new().unwrap();
        let bad = |s: ImageSpec| dev.image(&s).unwrap_err().to_string();
        let s2 = |w, h| ImageSpec::new(Dim::D2d, ImageFormat::Rgba16f, w, h, 1);
        assert_eq!(bad(s2(0, 4)), "the width of a 2d image must be in 1..=16384, not 0");
        assert!(bad(s2(4, 16385)).contains("height of a 2d image"));
        assert!(bad(ImageSpec::new(Dim::D1d, ImageFormat::R32f, 4, 2, 1)).contains("a 1d image has no height"));
        assert!(bad(ImageSpec::new(Dim::D2d, ImageFormat::R32f, 4, 2, 0)).contains("no layers"));
        assert!(bad(ImageSpec::new(Dim::D3d, ImageFormat::R32f, 4, 2, 0)).contains("layers of a 3d image"));
        assert!(bad(s2(4, 4).with_pitch(31)).starts_with("row pitch 31"), "shorter than a row");
        assert!(bad(s2(4, 4).with_pitch(36)).starts_with("row pitch 36"), "not a multiple of 8");
        assert!(bad(s2(16384, 16384).with_pitch(u32::MAX - 7)).contains("device memory exhausted"));
    }

    #[test]
    fn pitched_rows_round_trip_and_ranges_are_refused() {
        let dev = Device::new().unwrap();
        let spec = ImageSpec::new(Dim::D2dArray, ImageFormat::Rgba8, 3, 2, 2).with_pitch(16);
        let img = dev.image(&spec).unwrap();
        assert_eq!(img.layout().device_bytes(), 3 * 16 + 12);
        let texels: Vec<u8> = (0..48).collect();
        img.write(&texels).unwrap();
        assert_eq!(img.read().unwrap(), texels);
        assert_eq!(dev.read(img.addr() + 16, 12).unwrap(), (12..24).collect::<Vec<u8>>(), "row 1 at the pitch");
        assert_eq!(img.read_rows(1, 1, 1).unwrap(), (36..48).collect::<Vec<u8>>());
        img.write_rows(0, 1, &[9; 24]).unwrap();
        assert_eq!(img.read_rows(0, 1, 2).unwrap(), vec![9; 24], "rows run on into the next layer");
        let e = img.write_rows(1, 1, &[0; 24]).unwrap_err();
        assert_eq!(e, ImageError::Data { got: 24, first: 3, rows: 4, row_bytes: 12 });
        assert!(img.write_rows(0, 0, &[0; 13]).is_err(), "not whole rows");
        assert!(img.write(&texels[1..]).is_err());
        assert!(matches!(img.read_rows(2, 0, 1), Err(ImageError::Row { layer: 2, .. })));
        assert!(img.read_rows(0, 0, u64::MAX).is_err());
        assert_eq!(img.read_rows(1, 1, 1).unwrap(), (36..48).collect::<Vec<u8>>(), "refused writes wrote nothing");
        let d = img.descriptor().to_words();
        assert_eq!(d[2..], [3, 2, 2, 16, ImageFormat::Rgba8.code(), 0]);
        let addr = img.addr();
        drop(img);
        assert!(dev.read(addr, 4).is_err(), "freed when dropped");
    }
}
