//! Images for the image instructions: the checked layout and the 8 descriptor words of an image the caller
//! allocates (`lj_alloc` of `device_bytes`) and fills row by row at `pitch` (`lj_write`).

use super::{bad, guard, non_null, LjStatus, Out};
use lanejit::image::{Dim, ImageFormat, ImageSpec, Sampler, DESCRIPTOR_WORDS};

/// An image as `lj_image_layout` and `lj_image_descriptor` take it.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LjImageSpec {
    /// 0 1d, 1 2d, 2 3d, 3 1d_array, 4 2d_array (the ISA's `dim` codes).
    pub dim: u32,
    /// 0 r32ui, 1 r32f, 2 rgba8, 3 rgba16f, 4 rgba32f (the descriptor's D6 codes).
    pub format: u32,
    /// Width in texels.
    pub width: u32,
    /// Height in texels (1 for 1d and 1d_array).
    pub height: u32,
    /// Depth (3d) or layer count (arrays); 1 for 1d and 2d.
    pub layers: u32,
    /// Row pitch in bytes; 0: rows packed (`width × texel bytes`).
    pub pitch: u32,
    /// The sampler word D7 (bit 0 filter, bits 2:1, 4:3, 6:5 addressing of x, y, z).
    pub sampler: u32,
}

/// An image's checked geometry.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct LjImageLayout {
    /// Row pitch in bytes.
    pub pitch: u32,
    /// Bytes of one texel.
    pub texel_bytes: u32,
    /// Bytes of one row of texels.
    pub row_bytes: u64,
    /// Rows in all (height × layers).
    pub rows: u64,
    /// Bytes of device memory the image spans (allocate this many).
    pub device_bytes: u64,
}

fn checked(spec: &LjImageSpec) -> Result<lanejit::ImageLayout, super::Failure> {
    let dim = Dim::from_raw(spec.dim).ok_or_else(|| bad(format!("dim {} is not 0..4", spec.dim)))?;
    let format =
        ImageFormat::from_code(spec.format).ok_or_else(|| bad(format!("format {} is not 0..4", spec.format)))?;
    let sampler =
        Sampler::from_bits(spec.sampler).ok_or_else(|| bad(format!("sampler {:#x} is not valid", spec.sampler)))?;
    let mut s = ImageSpec::new(dim, format, spec.width, spec.height, spec.layers).with_sampler(sampler);
    if spec.pitch != 0 {
        s = s.with_pitch(spec.pitch);
    }
    s.layout().map_err(|e| bad(e.to_string()))
}

/// The checked layout of `spec` (bad input, with the reason, for a size, pitch, format, dim or sampler that
/// the image instructions would refuse).
#[no_mangle]
pub unsafe extern "C" fn lj_image_layout(spec: *const LjImageSpec, out: *mut LjImageLayout) -> LjStatus {
    guard(|| {
        let spec = unsafe { non_null(spec, "spec") }?;
        let out = unsafe { Out::new(out, "out") }?;
        let l = checked(spec)?;
        let layout = LjImageLayout {
            pitch: l.pitch,
            texel_bytes: l.texel_bytes,
            row_bytes: l.row_bytes(),
            rows: l.rows(),
            device_bytes: l.device_bytes(),
        };
        out.write(layout);
        Ok(LjStatus::Ok)
    })
}

/// The 8 descriptor words D0..D7 of the image `spec` at device address `base` (put them in a kernel's
/// arguments at an offset that is a multiple of 32 to load them with one `u.ld.b256`).
#[no_mangle]
pub unsafe extern "C" fn lj_image_descriptor(spec: *const LjImageSpec, base: u64, words_out: *mut u32) -> LjStatus {
    guard(|| {
        let spec = unsafe { non_null(spec, "spec") }?;
        let out = unsafe { Out::new(words_out, "words_out") }?;
        let words = checked(spec)?.descriptor(base).to_words();
        // SAFETY: the caller gives room for DESCRIPTOR_WORDS words (the header says 8).
        unsafe { std::ptr::copy_nonoverlapping(words.as_ptr(), out.as_ptr(), DESCRIPTOR_WORDS) };
        Ok(LjStatus::Ok)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_and_descriptors_are_checked() {
        let spec = LjImageSpec { dim: 1, format: 3, width: 5, height: 3, layers: 1, pitch: 0, sampler: 1 };
        let mut l = LjImageLayout::default();
        assert_eq!(unsafe { lj_image_layout(&spec, &mut l) }, LjStatus::Ok);
        assert_eq!((l.pitch, l.texel_bytes, l.row_bytes, l.rows, l.device_bytes), (40, 8, 40, 3, 120));
        let mut w = [0u32; 8];
        assert_eq!(unsafe { lj_image_descriptor(&spec, 0x1_0000_0100, w.as_mut_ptr()) }, LjStatus::Ok);
        assert_eq!(w, [0x100, 1, 5, 3, 1, 40, 3, 1]);
        for bad_spec in [
            LjImageSpec { dim: 5, ..spec },
            LjImageSpec { format: 9, ..spec },
            LjImageSpec { width: 0, ..spec },
            LjImageSpec { pitch: 12, ..spec },
            LjImageSpec { sampler: 0x80, ..spec },
        ] {
            assert_eq!(unsafe { lj_image_layout(&bad_spec, &mut l) }, LjStatus::BadInput, "{bad_spec:?}");
        }
        assert_eq!(unsafe { lj_image_descriptor(&spec, 0, std::ptr::null_mut()) }, LjStatus::BadInput);
        assert_eq!(unsafe { lj_image_layout(std::ptr::null(), &mut l) }, LjStatus::BadInput);
    }
}
