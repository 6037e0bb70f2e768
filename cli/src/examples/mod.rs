//! Bundled example kernels (`examples/*.s`), each with its setup, a Rust reference that checks the answer, and
//! a native Rust implementation of the same work (for the benchmark ratio).

use lanejit::{Device, LaunchConfig};

mod alu_loop;
mod atomic_reduce;
mod ballot_count;
mod bitonic;
mod blur;
mod butterfly;
mod divergent;
mod empty;
mod histogram;
mod imageref;
mod matmul;
mod reduce;
mod resize;
mod saxpy;
mod scan;
mod vadd;
mod wave_scan;
mod xlane_loop;
mod xorshift;

/// Problem size: tests use `Small`, `lanejit run` `Default`, the benchmark `Large`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    /// A few workgroups: quick enough for the tests.
    Small,
    /// What `lanejit run` uses.
    Default,
    /// Big enough for a benchmark.
    Large,
}

/// Compares device memory with the Rust reference; Ok holds a one-line summary of the result.
pub type Check = Box<dyn Fn(&Device) -> Result<String, String>>;

/// A prepared launch: buffers allocated and filled, the configuration, and how to check the result.
pub struct Setup {
    /// The launch configuration, arguments included.
    pub cfg: LaunchConfig,
    /// Compares the result with the Rust reference.
    pub check: Check,
    /// The same work in plain Rust (for the native-ratio column of `lanejit bench`).
    pub native: Box<dyn Fn()>,
    /// Images worth looking at after the launch (`lanejit run` writes each as a PNG).
    pub pictures: Vec<Picture>,
}

/// A 2d rgba8 image in device memory, rows packed, that `lanejit run` saves as `NAME.png`.
#[derive(Clone, Copy, Debug)]
pub struct Picture {
    /// The file's stem.
    pub name: &'static str,
    /// Its device address.
    pub addr: u64,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

/// A bundled example kernel.
pub struct Example {
    /// Its name (`lanejit run NAME`).
    pub name: &'static str,
    /// One line on what it computes.
    pub about: &'static str,
    /// Its assembly source (`examples/NAME.s`).
    pub source: &'static str,
    /// Allocates and fills its buffers on a device at a size.
    pub setup: fn(&Device, Size) -> Result<Setup, String>,
}

/// The example `lanejit run` runs with no arguments.
pub const DEFAULT: &str = "saxpy";

/// Every bundled example.
pub fn all() -> Vec<&'static Example> {
    vec![
        &vadd::EXAMPLE,
        &saxpy::EXAMPLE,
        &reduce::EXAMPLE,
        &scan::EXAMPLE,
        &bitonic::EXAMPLE,
        &histogram::EXAMPLE,
        &matmul::EXAMPLE,
        &divergent::EXAMPLE,
        &alu_loop::EXAMPLE,
        &xlane_loop::EXAMPLE,
        &atomic_reduce::EXAMPLE,
        &wave_scan::EXAMPLE,
        &butterfly::EXAMPLE,
        &ballot_count::EXAMPLE,
        &xorshift::EXAMPLE,
        &resize::EXAMPLE,
        &blur::EXAMPLE,
        &empty::EXAMPLE,
    ]
}

/// The bundled example called `name`.
pub fn by_name(name: &str) -> Option<&'static Example> {
    all().into_iter().find(|e| e.name == name)
}

/// Kernel argument bytes: 8-byte addresses then 4-byte scalars, in order.
pub fn args(addrs: &[u64], scalars: &[u32]) -> Vec<u8> {
    let with_addrs = addrs.iter().fold(lanejit::KernelArgs::new(), |a, &addr| a.ptr(addr));
    scalars.iter().fold(with_addrs, |a, &s| a.u32(s)).into()
}

/// A deterministic pseudo-random sequence (xorshift), so examples and their references agree.
pub fn pseudo_random(seed: u64, n: usize) -> Vec<u32> {
    let mut x = seed.max(1);
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u32
        })
        .collect()
}

/// Deterministic f32 values in [-1, 1), multiples of 2^-23 (exact, so that text and bits agree).
pub fn pseudo_floats(seed: u64, n: usize) -> Vec<f32> {
    pseudo_random(seed, n).into_iter().map(|r| (r >> 8) as f32 / (1u32 << 23) as f32 - 1.0).collect()
}

/// Allocates a buffer holding `words`.
pub fn upload(d: &Device, words: &[u32]) -> Result<u64, String> {
    let a = d.alloc((words.len() as u64 * 4).max(4)).map_err(|e| e.to_string())?;
    d.write_u32s(a.addr, words)?;
    Ok(a.addr)
}

/// First index where `got` differs from `want`, as an error message.
pub fn compare(what: &str, got: &[u32], want: &[u32]) -> Result<(), String> {
    match got.iter().zip(want).position(|(g, w)| g != w) {
        None if got.len() == want.len() => Ok(()),
        None => Err(format!("{what}: length {} != {}", got.len(), want.len())),
        Some(i) => Err(format!("{what}[{i}] = {:#x}, expected {:#x}", got[i], want[i])),
    }
}
