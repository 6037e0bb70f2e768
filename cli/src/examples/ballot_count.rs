//! Count of the odd elements of a u32 array: a ballot per wave, its popcount, one global atomic add per wave.

use super::{args, pseudo_random, upload, Example, Setup, Size};
use lanejit::{Device, LaunchConfig};
use std::hint::black_box;

pub static EXAMPLE: Example = Example {
    name: "ballot_count",
    about: "count of odd u32 elements (ballot of x & 1 per wave, u.popc, one global atom.add per wave)",
    source: include_str!("../../../examples/ballot_count.s"),
    setup,
};

/// Threads per workgroup; must match `.workgroup` in ballot_count.s.
const WG: usize = 64;

fn odd_count(a: &[u32]) -> u32 {
    a.iter().map(|x| x & 1).sum()
}

fn setup(d: &Device, size: Size) -> Result<Setup, String> {
    // Small and Default are not multiples of the workgroup: a partial wave and a wave wholly past the end.
    let n = match size {
        Size::Small => 10_000,
        Size::Default => 1_000_003,
        Size::Large => 1 << 24,
    };
    let a = pseudo_random(13, n);
    let want = odd_count(&a);
    let pa = upload(d, &a)?;
    let count = upload(d, &[0])?; // the atomics add to it: written, not left as the allocation's zeros (--check buffers)
    let cfg = LaunchConfig {
        grid: [n.div_ceil(WG) as u32, 1, 1],
        args: args(&[pa, count], &[n as u32]),
        ..Default::default()
    };
    let check = move |d: &Device| {
        let got = d.read_u32s(count, 1)?[0];
        if got != want {
            return Err(format!("count = {got}, expected {want}"));
        }
        Ok(format!("{want} of {n} elements odd"))
    };
    let native = move || {
        black_box(odd_count(black_box(&a)));
    };
    Ok(Setup { cfg, check: Box::new(check), native: Box::new(native), pictures: Vec::new() })
}
