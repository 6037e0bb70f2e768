//! The per-lane part of optimised code's `img.load` and `img.store` (`lower/mem/image.rs`): one routine of the
//! JIT crate that compiled code calls, rather than 32 lanes of inline code per instruction (about 1,360 CLIF
//! instructions each, a third of the fuzzer's CLIF: Cranelift's compile time follows the CLIF). It does what the
//! inline code did, rule for rule: check the descriptor and every active in-range lane's texel against the
//! instruction's cached window; if anything fails it touches nothing and returns 0, and compiled code has the
//! interpreter execute the instruction (which reports any trap). Written from the ISA's rules, not by calling
//! the interpreter (only the unorm8 conversions, bit-exact scalar helpers, are the interpreter's):
//! `tests/image_lanes.rs` checks it against the interpreter.
//!
//! Compiled code passes a stack buffer (`IO_*`): the x and y registers, and the data registers (a store's input,
//! a load's output: the enabled components in register order).

use crate::abi::Window;
use crate::lower::mem::image::MAX_TEXEL_BYTES;
use lanejit_interp::image::{f32_to_unorm8, unorm8_to_f32, ImageFormat, IMAGE_MAX_SIZE};
use lanejit_isa::LANES;

/// Byte offset of the x register's lanes in the buffer (lane l at 4l).
pub const IO_X: i32 = 0;
/// Byte offset of the y register's lanes.
pub const IO_Y: i32 = (4 * LANES) as i32;
/// Byte offset of the data registers: register k (the k-th enabled component) at `IO_DATA + 4 * LANES * k`.
pub const IO_DATA: i32 = (8 * LANES) as i32;
/// The buffer's size: x, y and four data registers.
pub const IO_BYTES: u32 = (24 * LANES) as u32;

/// `flags`: the instruction is a store.
pub const STORE: u32 = 1;
/// `flags`: the component mask (`dmask`) starts at this bit.
pub const DMASK_SHIFT: u32 = 1;
/// `flags`: planted bug 150, chosen when the code was compiled (`mutants.rs`): no texel alignment test.
pub const MUTANT_NO_ALIGN: u32 = 1 << 8;
/// `flags`: planted bug 151: x compared with W + 1.
pub const MUTANT_X_PAST_ROW: u32 = 1 << 9;
/// `flags`: planted bug 152: an rgba8 byte multiplied by 1/255 instead of divided by 255.
pub const MUTANT_RECIPROCAL: u32 = 1 << 10;
/// `flags`: planted bug 153: lanes stored descending.
pub const MUTANT_DESCENDING: u32 = 1 << 11;

/// What the descriptor says, as compiled code read it from the uniform registers.
#[derive(Clone, Copy)]
pub struct Descriptor {
    /// base + toff.
    pub start: u64,
    /// Width and height in texels.
    pub width: u32,
    /// (See `width`.)
    pub height: u32,
    /// Row pitch, bytes.
    pub pitch: u32,
    /// Format code (`ImageFormat::code`).
    pub format: u32,
}

/// The lanes' texels once every check passed.
struct Texels {
    /// Host address of each accessing lane's texel.
    host: [u64; LANES],
    /// Lanes that access a texel (active and in range), and lanes in range.
    access: u32,
    in_range: u32,
}

/// Called by compiled code: does the access in `io` (see the module's doc) and returns 1, or returns 0 having
/// done nothing when the instruction must go to the interpreter.
///
/// # Safety
/// `io` points to a buffer of `IO_BYTES` bytes, `window` to the instruction's window entry, whose host range
/// (when `host` is not 0) is guest memory of at least `span + MAX_TEXEL_BYTES` bytes that may be accessed.
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn image_lanes(
    io: *mut u32,
    window: *const Window,
    start: u64,
    width: u32,
    height: u32,
    pitch_format: u64,
    exec: u32,
    flags: u32,
) -> u32 {
    let desc = Descriptor { start, width, height, pitch: pitch_format as u32, format: (pitch_format >> 32) as u32 };
    // SAFETY: the caller's contract.
    let io = unsafe { std::slice::from_raw_parts_mut(io, IO_BYTES as usize / 4) };
    let window = unsafe { *window };
    unsafe { access(io, window, desc, exec, flags) as u32 }
}

/// `image_lanes` on a buffer of `IO_BYTES / 4` words: true when done.
///
/// # Safety
/// As `image_lanes`'s window.
pub unsafe fn access(io: &mut [u32], window: Window, desc: Descriptor, exec: u32, flags: u32) -> bool {
    let Some(t) = check(io, window, desc, exec, flags) else { return false };
    let wide = desc.format == ImageFormat::Rgba32f.code();
    let dmask = flags >> DMASK_SHIFT & 0xf;
    // SAFETY: every accessing lane's texel is inside the window (checked).
    unsafe {
        if flags & STORE != 0 {
            store(io, &t, desc.format, dmask, flags);
        } else if wide {
            load_wide(io, &t, dmask);
        } else {
            load_narrow(io, &t, desc.format, dmask, flags);
        }
    }
    true
}

/// The descriptor is usable (W and H in 1..=IMAGE_MAX_SIZE, a format handled, a filled window) and every active
/// in-range lane's texel T = start + y*P + x*B is aligned and starts within the window's limit.
fn check(io: &[u32], window: Window, d: Descriptor, exec: u32, flags: u32) -> Option<Texels> {
    let size_ok = |s: u32| s.wrapping_sub(1) < IMAGE_MAX_SIZE;
    let wide = d.format == ImageFormat::Rgba32f.code();
    let handled = d.format <= ImageFormat::Rgba8.code() || wide;
    if !(size_ok(d.width) && size_ok(d.height) && handled && window.host != 0) {
        return None;
    }
    let (shift, texel_mask) = if wide { (4, 15u64) } else { (2, 3u64) };
    let align = if flags & MUTANT_NO_ALIGN != 0 { 0 } else { texel_mask };
    // The window's span leaves MAX_TEXEL_BYTES: a texel of B bytes may start up to 16 - B further.
    let limit = window.span.wrapping_add(MAX_TEXEL_BYTES).wrapping_sub(texel_mask + 1);
    let mut t = Texels { host: [window.host; LANES], access: 0, in_range: 0 };
    for l in 0..LANES {
        let (x, y) = (io[IO_X as usize / 4 + l], io[IO_Y as usize / 4 + l]);
        let x_in = if flags & MUTANT_X_PAST_ROW != 0 { x <= d.width } else { x < d.width };
        if !(x_in && y < d.height) {
            continue;
        }
        t.in_range |= 1 << l;
        if exec >> l & 1 == 0 {
            continue;
        }
        let texel =
            d.start.wrapping_add(u64::from(y).wrapping_mul(u64::from(d.pitch))).wrapping_add(u64::from(x) << shift);
        let rel = texel.wrapping_sub(window.lo);
        if texel & align != 0 || rel > limit {
            return None;
        }
        t.access |= 1 << l;
        t.host[l] = window.host.wrapping_add(rel);
    }
    Some(t)
}

/// Word `k`'s lane `l` in the data registers.
fn data(k: usize, l: usize) -> usize {
    IO_DATA as usize / 4 + LANES * k + l
}

/// Lane l's texel word j (0 where the lane accesses nothing).
unsafe fn word(t: &Texels, l: usize, j: u64) -> u32 {
    if t.access >> l & 1 == 0 {
        return 0;
    }
    // SAFETY: checked by `check`; guest memory need not be aligned on the host.
    unsafe { std::ptr::read_unaligned((t.host[l] + 4 * j) as *const u32) }
}

/// Writes the enabled components (`comps(j, l)`) to the data registers in order.
fn put(io: &mut [u32], dmask: u32, mut comps: impl FnMut(usize, usize) -> u32) {
    for (k, j) in (0..4).filter(|j| dmask >> j & 1 != 0).enumerate() {
        for l in 0..LANES {
            io[data(k, l)] = comps(j, l);
        }
    }
}

/// rgba32f: four words as they are.
unsafe fn load_wide(io: &mut [u32], t: &Texels, dmask: u32) {
    // SAFETY: as `word`.
    put(io, dmask, |j, l| unsafe { word(t, l, j as u64) });
}

/// r32ui (w, 0, 0, 1), r32f (w, 0.0, 0.0, 1.0), rgba8 (byte j / 255 correctly rounded); lanes out of range get
/// all zeros, lanes in range that access nothing (inactive) w = 0.
unsafe fn load_narrow(io: &mut [u32], t: &Texels, format: u32, dmask: u32, flags: u32) {
    let words: [u32; LANES] = std::array::from_fn(|l| unsafe { word(t, l, 0) });
    let rgba8 = format == ImageFormat::Rgba8.code();
    let alpha = if format == ImageFormat::R32f.code() { 1.0f32.to_bits() } else { 1 };
    put(io, dmask, |j, l| {
        let w = words[l];
        match (rgba8, j) {
            (true, _) => unorm8_bits(w >> (8 * j) & 0xff, flags),
            (false, 0) => w,
            (false, 3) if t.in_range >> l & 1 != 0 => alpha,
            _ => 0,
        }
    });
}

/// byte / 255 as f32 bits: the interpreter's conversion (a bit-exact scalar helper both engines share), unless
/// planted bug 152 multiplies by 1/255.
fn unorm8_bits(byte: u32, flags: u32) -> u32 {
    if flags & MUTANT_RECIPROCAL != 0 {
        return (byte as f32 * (1.0f32 / 255.0)).to_bits();
    }
    unorm8_to_f32(byte as u8)
}

/// Stores lane by lane, ascending (the highest lane wins a shared texel): the enabled components the format
/// has (rgba8 a byte per component, r32ui and r32f r's word only, rgba32f each word).
unsafe fn store(io: &[u32], t: &Texels, format: u32, dmask: u32, flags: u32) {
    let wide = format == ImageFormat::Rgba32f.code();
    let rgba8 = format == ImageFormat::Rgba8.code();
    let lane_at = |i: usize| if flags & MUTANT_DESCENDING != 0 { LANES - 1 - i } else { i };
    for l in (0..LANES).map(lane_at).filter(|l| t.access >> l & 1 != 0) {
        let host = t.host[l];
        for (k, j) in (0..4).filter(|j| dmask >> j & 1 != 0).enumerate() {
            let v = io[data(k, l)];
            // SAFETY: checked by `check`.
            unsafe {
                if wide {
                    std::ptr::write_unaligned((host + 4 * j as u64) as *mut u32, v);
                } else if rgba8 {
                    *((host + j as u64) as *mut u8) = f32_to_unorm8(v);
                } else if j == 0 {
                    std::ptr::write_unaligned(host as *mut u32, v);
                }
            }
        }
    }
}
