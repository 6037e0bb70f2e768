//! Which bytes of device memory hold a written value, for the uninit checker's opt-in tracking of device
//! buffers (`Checks::buffers`). Off until `Arena::track_defined` turns it on; then one bit per byte of the
//! mapping, in a second anonymous mapping (pages committed when touched, so a 4 GiB arena costs 512 MiB of
//! address space and only the touched eighth of memory).
//!
//! Bytes a new allocation hands out are undefined; host writes (`write_bytes`, `alloc_filled`, a launch's
//! argument buffer) define them, and so do guest stores of defined values in checked launches. A launch without
//! the uninit checker may write anywhere, unseen: it defines every live allocation, so tracking never reports
//! a byte a kernel wrote (a miss is possible, a false report is not).

use super::{Arena, DEVICE_BASE};
use memmap2::MmapMut;
use std::sync::{Mutex, PoisonError};

/// The bitmap: bit `off % 8` of byte `off / 8` is set when mapping byte `off` is defined.
pub(super) struct DefinedBits {
    bits: MmapMut,
    /// Every live allocation is known to be defined: an unchecked launch has nothing to mark.
    all_live_defined: bool,
}

impl DefinedBits {
    fn new(capacity: u64) -> std::io::Result<DefinedBits> {
        Ok(DefinedBits { bits: super::reserve(capacity.div_ceil(8) as usize)?, all_live_defined: false })
    }

    /// Sets (or clears) the bits of mapping bytes `[off, off + len)`.
    fn mark(&mut self, off: u64, len: u64, defined: bool) {
        let end = off.saturating_add(len).min(self.bits.len() as u64 * 8);
        if off >= end {
            return;
        }
        let mut i = off;
        while i < end && (!i.is_multiple_of(8) || end - i < 8) {
            self.set_bit(i, defined);
            i += 1;
        }
        let whole = (end - i) / 8;
        self.bits[(i / 8) as usize..(i / 8 + whole) as usize].fill(if defined { 0xff } else { 0 });
        for j in i + whole * 8..end {
            self.set_bit(j, defined);
        }
    }

    fn set_bit(&mut self, i: u64, defined: bool) {
        let (byte, bit) = ((i / 8) as usize, i % 8);
        self.bits[byte] = (self.bits[byte] & !(1 << bit)) | ((defined as u8) << bit);
    }

    fn all(&self, off: u64, len: u64) -> bool {
        (off..off.saturating_add(len)).all(|i| self.bits.get((i / 8) as usize).is_some_and(|b| b >> (i % 8) & 1 != 0))
    }
}

impl Arena {
    /// From now on, remember which bytes hold a written value (see the module text). Allocations alive now
    /// count as defined. An error when the host refuses the bitmap's mapping.
    pub fn track_defined(&self) -> Result<(), super::AllocError> {
        if self.defined.get().is_some() {
            return Ok(());
        }
        let bits = DefinedBits::new(self.capacity()).map_err(|e| super::AllocError::Map(e.to_string()))?;
        // Another thread may have won the race: then its bitmap stays and this one is dropped.
        let _ = self.defined.set(Mutex::new(bits));
        self.define_all_live();
        Ok(())
    }

    /// Whether `track_defined` was called.
    pub fn tracks_defined(&self) -> bool {
        self.defined.get().is_some()
    }

    fn bits(&self) -> Option<std::sync::MutexGuard<'_, DefinedBits>> {
        self.defined.get().map(|m| m.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Marks device bytes `[addr, addr + len)` defined or not (nothing when not tracking).
    pub(crate) fn mark_defined(&self, addr: u64, len: u64, defined: bool) {
        if let (Some(mut b), Some(off)) = (self.bits(), addr.checked_sub(DEVICE_BASE)) {
            b.mark(off, len, defined);
            b.all_live_defined &= defined;
        }
    }

    /// Whether every byte of `[addr, addr + len)` is defined; `None` when not tracking.
    pub(crate) fn is_defined(&self, addr: u64, len: u64) -> Option<bool> {
        let b = self.bits()?;
        Some(addr.checked_sub(DEVICE_BASE).is_some_and(|off| b.all(off, len)))
    }

    /// A launch the uninit checker does not watch is starting: whatever it writes counts as defined.
    pub(crate) fn define_all_live(&self) {
        if self.bits().is_none_or(|b| b.all_live_defined) {
            return;
        }
        // The table's lock first (as `reserve`, which marks while holding it), and held while marking, so no
        // allocation made meanwhile is counted as defined.
        let st = self.state();
        let Some(mut b) = self.bits() else { return };
        for e in st.table.values() {
            b.mark(e.alloc.addr - DEVICE_BASE, e.alloc.size, true);
        }
        b.all_live_defined = true;
    }
}

/// The bitmap's slot in the arena: empty until `track_defined`.
pub(super) type DefinedSlot = std::sync::OnceLock<Mutex<DefinedBits>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_cover_exactly_their_range() {
        let mut b = DefinedBits::new(1 << 12).unwrap();
        for (off, len) in [(3, 1), (5, 30), (64, 64), (200, 7), (1000, 100)] {
            b.mark(off, len, true);
            assert!(b.all(off, len), "{off}+{len}");
            assert!(!b.all(off - 1, 1) && !b.all(off + len, 1), "{off}+{len} spills over");
            b.mark(off + 1, len.saturating_sub(2), false);
            assert!(b.all(off, 1) && b.all(off, len) != (len > 2), "{off}+{len} cleared inside");
        }
        assert!(!b.all(1 << 12, 1), "past the mapping is never defined");
    }
}
