//! Issue 39, item 8: a NULL output pointer is bad input found before anything is made. Each creating function is
//! called 100,000 times with a NULL output; every call must be bad input, resident memory must stay flat, and
//! the device must still have its buffers and the process its address space afterwards (each leaked
//! `lj_device_new(0, NULL)` used to keep a 4 GiB reservation: the 47-bit address space holds ~32,766 of them).
//! The only test of this file, so that no other test's allocations move the resident-memory figures.

use lanejit_c::*;
use std::collections::BTreeMap;
use std::ffi::{c_char, CStr};
use std::ptr::{null, null_mut};
use std::time::Instant;

const CALLS: usize = 100_000;
/// Calls made before the first measurement, so that lazily made state (thread-locals, allocator arenas, the
/// error message's buffer) is in the baseline.
const WARM_UP: usize = 1_000;
/// Growth of resident memory allowed over one function's 100,000 calls: allocator noise only. A leak of the
/// smallest handle (`lj_cancel_new`, two small heap blocks) grows it by several MiB.
const FLAT_KIB: u64 = 1_024;

const KERNEL: &CStr = c".kernel t\n.workgroup 32\n    v.add v1, v0, v0\n    end\n";
const MODULE: &CStr = c".kernel a\n    end\n.kernel b\n    end\n";
const FILE: &CStr = c"t.s";
/// Capacity of the device `lj_alloc` runs on: 100,000 leaked buffers of `BUFFER` bytes would not fit in it.
const SMALL_DEVICE: u64 = 1 << 20;
const BUFFER: u64 = 4_096;

/// VmRSS of this process in KiB.
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("read /proc/self/status");
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).expect("a VmRSS line");
    line.split_whitespace().nth(1).and_then(|v| v.parse().ok()).expect("VmRSS in kB")
}

fn last_error() -> String {
    unsafe { CStr::from_ptr(lj_last_error()) }.to_string_lossy().into_owned()
}

/// One creating function called with a NULL output: what it returned, how often, and what the memory did.
struct Outcome {
    name: &'static str,
    statuses: BTreeMap<String, usize>,
    first_error: String,
    rss_before: u64,
    rss_after: u64,
    millis: u128,
}

fn run(name: &'static str, mut call: impl FnMut() -> LjStatus) -> Outcome {
    for _ in 0..WARM_UP {
        call();
    }
    let rss_before = rss_kib();
    let start = Instant::now();
    let mut statuses = BTreeMap::new();
    let mut first_error = String::new();
    for _ in 0..CALLS {
        let status = call();
        if first_error.is_empty() {
            first_error = last_error();
        }
        *statuses.entry(format!("{status:?}")).or_insert(0) += 1;
    }
    let millis = start.elapsed().as_millis();
    Outcome { name, statuses, first_error, rss_before, rss_after: rss_kib(), millis }
}

/// The raw little-endian words of `KERNEL`, which `lj_kernel_from_bytes` and `lj_module_from_bytes` take.
fn kernel_words() -> Vec<u8> {
    let k = lanejit::Kernel::from_asm("t.s", KERNEL.to_str().unwrap()).expect("assemble");
    k.program.words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn c(s: &CStr) -> *const c_char {
    s.as_ptr()
}

#[test]
fn null_outputs_are_bad_input_and_leak_nothing() {
    let words = kernel_words();
    let mut dev = null_mut();
    assert_eq!(unsafe { lj_device_new(SMALL_DEVICE, &mut dev) }, LjStatus::Ok, "{}", last_error());
    let mut module = null_mut();
    assert_eq!(unsafe { lj_module_from_asm(c(FILE), c(MODULE), &mut module) }, LjStatus::Ok, "{}", last_error());
    let data = [7u8; 64];
    let outcomes = [
        run("lj_device_new", || unsafe { lj_device_new(0, null_mut()) }),
        run("lj_kernel_from_asm", || unsafe { lj_kernel_from_asm(c(FILE), c(KERNEL), null_mut()) }),
        run("lj_kernel_from_bytes", || unsafe { lj_kernel_from_bytes(words.as_ptr(), words.len(), null_mut()) }),
        run("lj_module_from_asm", || unsafe { lj_module_from_asm(c(FILE), c(MODULE), null_mut()) }),
        run("lj_module_from_bytes", || unsafe { lj_module_from_bytes(words.as_ptr(), words.len(), null_mut()) }),
        run("lj_module_kernel", || unsafe { lj_module_kernel(module, c(c"b"), null_mut()) }),
        run("lj_cancel_new", || unsafe { lj_cancel_new(null_mut()) }),
        run("lj_alloc", || unsafe { lj_alloc(dev, BUFFER, null_mut()) }),
        run("lj_alloc_const", || unsafe { lj_alloc_const(dev, data.as_ptr(), data.len(), null_mut()) }),
        run("lj_kernel_info", || unsafe { lj_kernel_info(null(), null_mut()) }),
    ];
    let mut failures = Vec::new();
    for o in &outcomes {
        let grew = o.rss_after.saturating_sub(o.rss_before);
        eprintln!(
            "{:22} {:?} in {} ms, VmRSS {} -> {} KiB (+{grew}), first error: {}",
            o.name, o.statuses, o.millis, o.rss_before, o.rss_after, o.first_error
        );
        if o.statuses.get("BadInput") != Some(&CALLS) {
            failures.push(format!("{}: statuses {:?}, want {CALLS} BadInput", o.name, o.statuses));
        }
        if grew > FLAT_KIB {
            failures.push(format!("{}: VmRSS grew by {grew} KiB over {CALLS} calls", o.name));
        }
    }
    // The address space and the small device's capacity are still there: nothing was reserved or allocated.
    let mut fresh = null_mut();
    if unsafe { lj_device_new(0, &mut fresh) } != LjStatus::Ok {
        failures.push(format!("lj_device_new after the loops: {}", last_error()));
    }
    let mut addr = 0;
    if unsafe { lj_alloc(dev, SMALL_DEVICE / 2, &mut addr) } != LjStatus::Ok {
        failures.push(format!("lj_alloc of half the small device after the loops: {}", last_error()));
    }
    unsafe {
        lj_device_free(fresh);
        lj_module_free(module);
        lj_device_free(dev);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
