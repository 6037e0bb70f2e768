//! ELF metadata amplification (issue 39, item 2): a 4.3 MB file whose metadata names one 4 MiB code section
//! 1,000 times made the loader copy the section per name (4.1 GB) before it refused the duplicate. The loader now
//! checks names and sizes before it copies any code; this file's allocator counts the bytes it holds at most.
//! (One test in this file: the count is process-wide.)

use lanejit_isa::{elf_kernel, KernelMeta, Program};
use object::build::elf::{Builder, SectionData};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting the bytes allocated now and at most since the last [`reset_peak`].
struct Counting;

static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call goes to the system allocator unchanged; the counters only observe.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        NOW.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            NOW.fetch_sub(layout.size(), Ordering::Relaxed);
            grew(new_size);
        }
        p
    }
}

fn grew(bytes: usize) {
    let now = NOW.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Bytes allocated at most while `f` runs, beyond those allocated before it.
fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = NOW.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let out = f();
    (out, PEAK.load(Ordering::Relaxed) - before)
}

const CODE_BYTES: usize = 4 << 20;
/// What reading the files below may hold at most: the parsed headers and metadata, far from one copy per name.
const BOUND: usize = 64 << 20;

/// The ELF of kernel `k` with 4 MiB of code, its metadata line repeated `copies` times.
fn repeated_metadata(copies: usize) -> Vec<u8> {
    let meta = KernelMeta { name: "k".into(), ..KernelMeta::default() };
    let elf = elf_kernel::write(&Program { words: vec![0x68; CODE_BYTES / 4], meta, ..Program::default() });
    let mut b = Builder::read64(elf.as_slice()).expect("the writer's ELF reads back");
    let section = b.sections.iter_mut().find(|s| s.name.as_slice() == elf_kernel::META_SECTION.as_bytes()).unwrap();
    let SectionData::Data(line) = &section.data else { panic!("the metadata section holds data") };
    let lines = line.as_slice().repeat(copies);
    section.data = SectionData::Data(lines.as_slice().into());
    let mut out = Vec::new();
    b.write(&mut out).expect("the patched ELF writes");
    out
}

#[test]
fn metadata_naming_one_code_section_many_times_is_refused_before_any_copy() {
    let elf = repeated_metadata(1000);
    assert!(elf.len() < CODE_BYTES + 200_000, "the file has {} bytes", elf.len());
    let (result, peak) = peak_during(|| elf_kernel::read_all(&elf));
    let msg = result.expect_err("a kernel named twice is refused").to_string();
    assert!(msg.contains(".lanejit.meta names kernel `k` twice"), "{msg}");
    assert!(peak < BOUND, "reading a {} byte file held {peak} bytes at once", elf.len());
    // The same file with the name once loads, holding one copy of the code.
    let once = repeated_metadata(1);
    let (result, peak) = peak_during(|| elf_kernel::read_all(&once).map(|ps| ps.len()));
    assert_eq!(result, Ok(1));
    assert!(peak < CODE_BYTES + BOUND, "reading one kernel held {peak} bytes at once");
}
