//! Inclusive prefix sum within each wave (xscan.add.u32), stored per element.

use super::{args, compare, pseudo_random, upload, Example, Setup, Size};
use lanejit::{Device, LaunchConfig, LANES};
use std::cell::RefCell;
use std::hint::black_box;

pub static EXAMPLE: Example = Example {
    name: "wave_scan",
    about: "inclusive prefix sum of u32 within each wave of LANES elements (xscan.add.u32), stored per element",
    source: include_str!("../../../examples/wave_scan.s"),
    setup,
};

/// Threads per workgroup; must match `.workgroup` in wave_scan.s.
const WG: usize = 64;

/// A wave covers LANES consecutive elements (the workgroup is a whole number of waves), so its scan is a scan
/// of each LANES-element chunk; a short last chunk is the last wave's lanes in range.
fn wave_scans(x: &[u32], y: &mut [u32]) {
    for (xs, ys) in x.chunks(LANES).zip(y.chunks_mut(LANES)) {
        let mut s = 0u32;
        for (y, x) in ys.iter_mut().zip(xs) {
            s = s.wrapping_add(*x);
            *y = s;
        }
    }
}

fn setup(d: &Device, size: Size) -> Result<Setup, String> {
    // Small and Default are not multiples of the workgroup: a partial wave and a wave wholly past the end.
    let n = match size {
        Size::Small => 5_000,
        Size::Default => 1_000_003,
        Size::Large => 1 << 24,
    };
    let x = pseudo_random(12, n);
    let mut want = vec![0; n];
    wave_scans(&x, &mut want);
    let px = upload(d, &x)?;
    // Both outputs are written once before the timing, so that neither run pays for first touches of its pages.
    let py = upload(d, &vec![0; n])?;
    let cfg =
        LaunchConfig { grid: [n.div_ceil(WG) as u32, 1, 1], args: args(&[px, py], &[n as u32]), ..Default::default() };
    let check = move |d: &Device| {
        compare("y", &d.read_u32s(py, n)?, &want)?;
        Ok(format!("{n} per-wave prefix sums correct"))
    };
    // Writes its own y in place, so that the timing holds no allocation.
    let y = RefCell::new(x.clone());
    let native = move || {
        let mut y = y.borrow_mut();
        wave_scans(black_box(&x), &mut y);
        black_box(&mut *y);
    };
    Ok(Setup { cfg, check: Box::new(check), native: Box::new(native), pictures: Vec::new() })
}
