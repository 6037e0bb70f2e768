//! Sum of a u32 array, one element per thread: xred.add.u32 per wave, then one global atomic add per wave.

use super::{args, pseudo_random, upload, Example, Setup, Size};
use lanejit::{Device, LaunchConfig};
use std::hint::black_box;

pub static EXAMPLE: Example = Example {
    name: "atomic_reduce",
    about: "sum of a u32 array (xred.add.u32 per wave, one global atom.add per wave from an elected lane)",
    source: include_str!("../../../examples/atomic_reduce.s"),
    setup,
};

/// Threads per workgroup; must match `.workgroup` in atomic_reduce.s.
const WG: usize = 64;

fn sum(a: &[u32]) -> u32 {
    a.iter().fold(0u32, |s, x| s.wrapping_add(*x))
}

fn setup(d: &Device, size: Size) -> Result<Setup, String> {
    // Small and Default are not multiples of the workgroup: a partial wave and a wave wholly past the end.
    let n = match size {
        Size::Small => 10_000,
        Size::Default => 1_000_003,
        Size::Large => 1 << 24,
    };
    let a = pseudo_random(11, n);
    let want = sum(&a);
    let pa = upload(d, &a)?;
    let out = upload(d, &[0])?; // the atomics add to it: written, not left as the allocation's zeros (--check buffers)
    let cfg =
        LaunchConfig { grid: [n.div_ceil(WG) as u32, 1, 1], args: args(&[pa, out], &[n as u32]), ..Default::default() };
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
