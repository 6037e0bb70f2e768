//! Sum of a u32 array: per-thread strided sums, xred.add.u32 per wave, a shfl.down tree over the waves'
//! sums and one atomic add per workgroup.

use super::{args, pseudo_random, upload, Example, Setup, Size};
use lanejit::{Device, LaunchConfig};
use std::hint::black_box;

pub static EXAMPLE: Example = Example {
    name: "reduce",
    about: "sum of a u32 array (xred per wave, shfl.down across waves, one atomic per workgroup)",
    source: include_str!("../../../examples/reduce.s"),
    setup,
};

/// Threads per workgroup; must match `.workgroup` in reduce.s.
const WG: usize = 256;

fn sum(a: &[u32]) -> u32 {
    a.iter().fold(0u32, |s, x| s.wrapping_add(*x))
}

fn setup(d: &Device, size: Size) -> Result<Setup, String> {
    // n is deliberately not a multiple of a workgroup's share, so the bounds mask is exercised.
    let (n, k) = match size {
        Size::Small => (10_000, 4),
        Size::Default => (1_000_003, 16),
        Size::Large => (16_000_003, 16),
    };
    let a = pseudo_random(5, n);
    let want = sum(&a);
    let pa = upload(d, &a)?;
    let out = upload(d, &[0])?; // the atomics add to it: written, not left as the allocation's zeros (--check buffers)
    let grid = n.div_ceil(WG * k) as u32;
    let cfg = LaunchConfig { grid: [grid, 1, 1], args: args(&[pa, out], &[n as u32, k as u32]), ..Default::default() };
    let check = move |d: &Device| {
        let got = d.read_u32s(out, 1)?[0];
        if got != want {
            return Err(format!("sum = {got:#x}, expected {want:#x}"));
        }
        Ok(format!("sum of {n} elements = {want:#x}"))
    };
    let native = move || {
        black_box(sum(black_box(&a)));
    };
    Ok(Setup { cfg, check: Box::new(check), native: Box::new(native), pictures: Vec::new() })
}
