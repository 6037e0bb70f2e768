//! The fuzzer's heap settings. A campaign compiles every program with Cranelift several times, and each
//! compilation allocates and frees tens of megabytes of working memory. With glibc's defaults, freeing it
//! returns it to the kernel (the top of the heap is trimmed past 128 KiB, large blocks are separate mappings), so
//! the next compilation takes a page fault for every page again: about a tenth of a campaign's CPU time
//! (`perf record` of `lanejit fuzz --seed 20261206 --count 100 --jobs 1`). Keeping the freed memory costs a
//! few megabytes of resident memory (35 → 39 MB on that campaign).

/// Heap growth beyond what an allocation needs, and the free memory at the top of the heap kept rather
/// than returned: both above one compilation's working memory.
const TOP_PAD: i32 = 16 << 20;
const TRIM_THRESHOLD: i32 = 256 << 20;
/// Allocations at least this large get a mapping of their own (glibc's largest threshold on 64-bit hosts):
/// a compilation's buffers stay in the heap.
const MMAP_THRESHOLD: i32 = 32 << 20;

/// Has glibc's allocator keep the memory a compilation frees for the next one (nothing elsewhere).
pub fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only changes allocator parameters; it is called before the campaign's threads start.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, TOP_PAD);
        libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD);
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
    }
}
