//! A kernel that only ends, launched over many waves: what launching a wave costs.

use super::{args, compare, upload, Example, Setup, Size};
use crate::{Device, LaunchConfig, LANES};
use std::hint::black_box;

pub static EXAMPLE: Example = Example {
    name: "empty",
    about: "benchmark: a kernel that only ends (`end`), over 2^20 waves at the large size (launch cost per wave)",
    source: include_str!("../../examples/empty.s"),
    setup,
};

/// Threads per workgroup; must match `.workgroup` in empty.s.
const WG: usize = 64;
/// Fills a buffer the kernel must leave alone.
const UNTOUCHED: u32 = 0x5eed_f00d;
const UNTOUCHED_WORDS: usize = 16;

/// The kernel writes nothing, so the only trace a launch leaves in device memory is its argument buffer: a
/// read-only allocation holding exactly the launch's argument bytes. (`Check` sees only the device, not the
/// launch's statistics; `lanejit bench` shows those, one retired instruction per wave.)
fn launched_with(d: &Device, arg_bytes: &[u8]) -> Result<(), String> {
    let found = d.arena.allocations().iter()
        .any(|a| a.readonly && d.read(a.addr, arg_bytes.len() as u64).is_ok_and(|b| b == arg_bytes));
    if found { Ok(()) } else { Err("no launch: device memory holds no argument buffer with this launch's arguments".into()) }
}

fn setup(d: &Device, size: Size) -> Result<Setup, String> {
    let workgroups: usize = match size { Size::Small => 64, Size::Default => 1 << 14, Size::Large => 1 << 19 };
    let waves = workgroups * WG.div_ceil(LANES);
    let untouched = upload(d, &[UNTOUCHED; UNTOUCHED_WORDS])?;
    // The kernel reads no argument; these only let the check recognise the launch's argument buffer.
    let arg_bytes = args(&[untouched], &[workgroups as u32]);
    let cfg = LaunchConfig { grid: [workgroups as u32, 1, 1], args: arg_bytes.clone(), ..Default::default() };
    let check = move |d: &Device| {
        launched_with(d, &arg_bytes)?;
        compare("untouched", &d.read_u32s(untouched, UNTOUCHED_WORDS)?, &[UNTOUCHED; UNTOUCHED_WORDS])?;
        Ok(format!("{waves} waves ({workgroups} workgroups) ended, nothing written"))
    };
    let native = move || {
        for wave in 0..black_box(waves) {
            black_box(wave);
        }
    };
    Ok(Setup { cfg, check: Box::new(check), native: Box::new(native) })
}
