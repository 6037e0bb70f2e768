//! Bitonic sort of every LANES-element segment, one segment per wave, with shfl.xor in registers.

use super::{args, compare, pseudo_random, upload, Example, Setup, Size};
use lanejit::{Device, LaunchConfig, LANES};
use std::cell::RefCell;
use std::hint::black_box;

pub static EXAMPLE: Example = Example {
    name: "bitonic",
    about: "bitonic sort of 32-element segments within a wave (shfl.xor, min/max, v.cndmask)",
    source: include_str!("../../../examples/bitonic.s"),
    setup,
};

/// Threads per workgroup; must match `.workgroup` in bitonic.s.
const WG: usize = 256;

fn sort_segments(a: &mut [u32]) {
    for seg in a.chunks_mut(LANES) {
        seg.sort_unstable();
    }
}

fn setup(d: &Device, size: Size) -> Result<Setup, String> {
    // A segment count that is not a multiple of the workgroup's 8 waves: the last workgroup is partial.
    let segments = match size {
        Size::Small => 100,
        Size::Default => 30_001,
        Size::Large => 1 << 19,
    };
    let n = segments * LANES;
    let mut a = pseudo_random(7, n);
    // Some equal keys, so that ties are exercised too.
    for x in a.iter_mut().step_by(5) {
        *x &= 0xf;
    }
    let mut want = a.clone();
    sort_segments(&mut want);
    let pa = upload(d, &a)?;
    let cfg =
        LaunchConfig { grid: [n.div_ceil(WG) as u32, 1, 1], args: args(&[pa], &[n as u32]), ..Default::default() };
    let check = move |d: &Device| {
        compare("a", &d.read_u32s(pa, n)?, &want)?;
        Ok(format!("{segments} segments of {LANES} sorted"))
    };
    // Sorting already sorted data is cheaper, so every native run starts from the input again.
    let work = RefCell::new(a.clone());
    let native = move || {
        let mut w = work.borrow_mut();
        w.copy_from_slice(&a);
        sort_segments(black_box(&mut w));
    };
    Ok(Setup { cfg, check: Box::new(check), native: Box::new(native), pictures: Vec::new() })
}
