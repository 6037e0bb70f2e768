//! 256-bin histogram of the top byte: shared-memory atomics per workgroup, then global atomics.

use super::{args, compare, pseudo_random, upload, Example, Setup, Size};
use lanejit::{Device, LaunchConfig};
use std::hint::black_box;

pub static EXAMPLE: Example = Example {
    name: "histogram",
    about: "256-bin histogram (atom.add in shared memory per workgroup, then in global memory)",
    source: include_str!("../../../examples/histogram.s"),
    setup,
};

/// Threads per workgroup = bins; must match `.workgroup` in histogram.s.
const WG: usize = 256;
const BINS: usize = 256;

fn histogram(a: &[u32]) -> Vec<u32> {
    let mut h = vec![0u32; BINS];
    for x in a {
        h[(x >> 24) as usize] += 1;
    }
    h
}

fn setup(d: &Device, size: Size) -> Result<Setup, String> {
    let (n, k) = match size {
        Size::Small => (20_000, 4),
        Size::Default => (1_000_003, 16),
        Size::Large => (16_000_003, 16),
    };
    let mut a = pseudo_random(8, n);
    // Every fourth value falls in the first 16 bins: a skewed distribution, so lanes of one atomic collide.
    for x in a.iter_mut().step_by(4) {
        *x &= 0x0fff_ffff;
    }
    let want = histogram(&a);
    let pa = upload(d, &a)?;
    let bins = upload(d, &[0; BINS])?; // the atomics add to them: written, not left as the allocation's zeros (--check buffers)
    let cfg = LaunchConfig {
        grid: [n.div_ceil(WG * k) as u32, 1, 1],
        args: args(&[pa, bins], &[n as u32, k as u32]),
        ..Default::default()
    };
    let check = move |d: &Device| {
        compare("bins", &d.read_u32s(bins, BINS)?, &want)?;
        Ok(format!("{n} values in {BINS} bins, largest bin {}", want.iter().max().unwrap()))
    };
    let native = move || {
        black_box(histogram(black_box(&a)));
    };
    Ok(Setup { cfg, check: Box::new(check), native: Box::new(native), pictures: Vec::new() })
}
