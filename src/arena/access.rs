//! Host-side accesses to the arena's mapping. The safe functions check against the mapping (and alignment),
//! so no caller can reach host memory outside it; guest-level checks (the allocation table, read-only
//! allocations) are the caller's. Every access is a relaxed atomic: guest code running on other threads may
//! touch the same bytes, and a race must stay the guest's business, never host undefined behaviour.

use super::{Arena, DEVICE_BASE};
use lanejit_interp::MemFault;
use std::sync::atomic::{
    AtomicU16, AtomicU32, AtomicU64, AtomicU8,
    Ordering::{AcqRel, Relaxed},
};

/// Freed ranges at least this long give their whole pages back to the system (`MADV_DONTNEED`: they read as
/// zero afterwards) instead of being zeroed by stores. A multiple of every common page size (4, 16, 64 KiB).
const RELEASE_PAGES: usize = 64 << 10;

impl Arena {
    /// The mapping offset of `[addr, addr + size)`, if it lies inside the mapping and `addr` is aligned to
    /// `size`, one of 1, 2, 4 or 8.
    fn offset(&self, addr: u64, size: u32) -> Result<usize, MemFault> {
        let off = addr.checked_sub(DEVICE_BASE).ok_or(MemFault::OutOfBounds)?;
        if off.checked_add(size as u64).is_none_or(|end| end > self.capacity()) {
            return Err(MemFault::OutOfBounds);
        }
        // (A mask, not `is_multiple_of`: a 64-bit division on every lane's access.)
        if !matches!(size, 1 | 2 | 4 | 8) || addr & (size as u64 - 1) != 0 {
            return Err(MemFault::Misaligned);
        }
        Ok(off as usize)
    }

    /// Host address of the byte at mapping offset `off` (inside the mapping, checked by the caller).
    fn at(&self, off: usize) -> *mut u8 {
        debug_assert!(off <= self.map.len());
        // SAFETY: off <= len: in (or one past the end of) the mapping.
        unsafe { (self.map.as_ptr() as *mut u8).add(off) }
    }

    /// Host address of device bytes `[addr, addr + len)`, if they lie inside the mapping (for compiled code's
    /// direct accesses, which its caller bounds by the allocation table).
    pub fn host_ptr(&self, addr: u64, len: u64) -> Option<*mut u8> {
        let off = addr.checked_sub(DEVICE_BASE)?;
        off.checked_add(len).is_some_and(|end| end <= self.capacity()).then(|| self.at(off as usize))
    }

    /// Reads a naturally aligned value of `size` (1, 2, 4 or 8) bytes; the mapping bounds it, not the
    /// allocation table (the caller's check).
    pub fn load(&self, addr: u64, size: u32) -> Result<u64, MemFault> {
        let p = self.at(self.offset(addr, size)?);
        // SAFETY: p is inside the live mapping and aligned to `size` (`offset` checked both).
        Ok(unsafe {
            match size {
                1 => AtomicU8::from_ptr(p).load(Relaxed) as u64,
                2 => AtomicU16::from_ptr(p.cast()).load(Relaxed) as u64,
                4 => AtomicU32::from_ptr(p.cast()).load(Relaxed) as u64,
                _ => AtomicU64::from_ptr(p.cast()).load(Relaxed),
            }
        })
    }

    /// Writes the low `size` bytes of `value`, naturally aligned (bounds as in `load`; writability is the
    /// caller's check).
    pub fn store(&self, addr: u64, size: u32, value: u64) -> Result<(), MemFault> {
        let p = self.at(self.offset(addr, size)?);
        // SAFETY: as in `load`.
        unsafe {
            match size {
                1 => AtomicU8::from_ptr(p).store(value as u8, Relaxed),
                2 => AtomicU16::from_ptr(p.cast()).store(value as u16, Relaxed),
                4 => AtomicU32::from_ptr(p.cast()).store(value as u32, Relaxed),
                _ => AtomicU64::from_ptr(p.cast()).store(value, Relaxed),
            }
        }
        Ok(())
    }

    /// Atomic read-modify-write of an aligned 32-bit word; returns the old value.
    pub fn rmw32(&self, addr: u64, f: &mut dyn FnMut(u32) -> u32) -> Result<u32, MemFault> {
        // SAFETY: as in `load`.
        let a = unsafe { AtomicU32::from_ptr(self.at(self.offset(addr, 4)?).cast()) };
        let mut old = a.load(Relaxed);
        loop {
            match a.compare_exchange_weak(old, f(old), AcqRel, Relaxed) {
                Ok(_) => return Ok(old),
                Err(cur) => old = cur,
            }
        }
    }

    /// Copies `data` to mapping offset `off` (the caller has bounded `[off, off + len)` by the mapping): bytes
    /// up to the first 8-aligned address, then whole words, then the last bytes.
    pub(super) fn copy_in(&self, off: usize, data: &[u8]) {
        assert!(off.checked_add(data.len()).is_some_and(|end| end <= self.map.len()), "copy inside the mapping");
        let head = (off.next_multiple_of(8) - off).min(data.len());
        let (head_bytes, rest) = data.split_at(head);
        let (words, tail) = rest.as_chunks::<8>();
        let first_word = self.at(off + head).cast::<u64>();
        // SAFETY (all three loops): inside the mapping (asserted above), each pointer aligned to its width.
        for (i, b) in head_bytes.iter().enumerate() {
            unsafe { AtomicU8::from_ptr(self.at(off + i)).store(*b, Relaxed) }
        }
        for (i, w) in words.iter().enumerate() {
            unsafe { AtomicU64::from_ptr(first_word.add(i)).store(u64::from_le_bytes(*w), Relaxed) }
        }
        let tail_off = off + head + 8 * words.len();
        for (i, b) in tail.iter().enumerate() {
            unsafe { AtomicU8::from_ptr(self.at(tail_off + i)).store(*b, Relaxed) }
        }
        self.mark_defined(DEVICE_BASE + off as u64, data.len() as u64, true);
    }

    /// The `out.len()` bytes at mapping offset `off` (bounded by the caller) into `out`, copied as in `copy_in`.
    pub(super) fn copy_out(&self, off: usize, out: &mut [u8]) {
        let len = out.len();
        assert!(off.checked_add(len).is_some_and(|end| end <= self.map.len()), "copy inside the mapping");
        let head = (off.next_multiple_of(8) - off).min(len);
        let (head_bytes, rest) = out.split_at_mut(head);
        let (words, tail) = rest.as_chunks_mut::<8>();
        let tail_off = off + head + 8 * words.len();
        // SAFETY: as in `copy_in`.
        for (i, b) in head_bytes.iter_mut().enumerate() {
            *b = unsafe { AtomicU8::from_ptr(self.at(off + i)).load(Relaxed) };
        }
        let first_word = self.at(off + head).cast::<u64>();
        for (i, w) in words.iter_mut().enumerate() {
            *w = unsafe { AtomicU64::from_ptr(first_word.add(i)).load(Relaxed) }.to_le_bytes();
        }
        for (i, b) in tail.iter_mut().enumerate() {
            *b = unsafe { AtomicU8::from_ptr(self.at(tail_off + i)).load(Relaxed) };
        }
    }

    /// Zeroes `len` bytes at mapping offset `off` (bounded by the caller). Whole `RELEASE_PAGES` blocks inside
    /// the range are handed back to the system, so that freeing a large buffer also shrinks the process.
    pub(super) fn zero(&self, off: u64, len: u64) {
        let (off, len) = (off as usize, len as usize);
        let lo = off.next_multiple_of(RELEASE_PAGES);
        let hi = (off + len) / RELEASE_PAGES * RELEASE_PAGES;
        if hi > lo {
            self.zero_by_stores(off, lo - off);
            // SAFETY: [lo, hi) is page-aligned, inside the mapping, and belongs to an allocation no live launch
            // can still reach (the quarantine waited for them); anonymous private pages read as zero afterwards.
            let advised = unsafe { self.map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, lo, hi - lo) };
            if advised.is_err() {
                self.zero_by_stores(lo, hi - lo);
            }
            self.zero_by_stores(hi, off + len - hi);
        } else {
            self.zero_by_stores(off, len);
        }
    }

    fn zero_by_stores(&self, off: usize, len: usize) {
        const BLOCK: usize = 4096;
        let zeros = [0u8; BLOCK];
        let mut at = off;
        while at < off + len {
            let n = BLOCK.min(off + len - at);
            self.copy_in(at, &zeros[..n]);
            at += n;
        }
    }
}
