//! Device memory: one memmap2 arena holding every global and constant allocation. Guest addresses are
//! `DEVICE_BASE + offset`; every access is checked against the allocation table, so guest code can never touch
//! host memory. Allocations are separated by unmapped-to-the-guest gaps, so running off the end of a buffer
//! faults instead of silently reading its neighbour.
//!
//! Space is handed out by `offset-allocator` (a TLSF-style allocator: constant time per allocation and free,
//! whatever the number of live allocations) in `ALLOC_ALIGN` granules. The allocation table is a `BTreeMap`;
//! launches check accesses against a sorted copy of it (`AllocTable`), shared between launches until the table
//! changes. Freed memory is zeroed before it is reused, and not before every launch that may still see it in its
//! copy of the table has ended (until then it sits in quarantine), so a new allocation always reads as zero.
//!
//! Workgroups run on several threads at once, so the arena is accessed through atomics (relaxed loads and
//! stores compile to plain moves on x86-64); guest data races are the guest's business, never host UB.

mod access;
mod defined;
mod table;

use crate::error::MemoryError;
pub use table::{AllocTable, Buffer, LaunchTable};

use memmap2::MmapMut;
use offset_allocator::{Allocation, Allocator};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

/// Lowest device address; addresses below it (null and small integers) are never valid.
pub const DEVICE_BASE: u64 = 0x1_0000_0000;
/// Allocation granule and the guard gap between two allocations.
pub const ALLOC_ALIGN: u64 = 256;
/// Default arena size (virtual; pages are only committed when touched).
pub const DEFAULT_CAPACITY: u64 = 1 << 32;
/// Largest arena: the allocator counts granules in 32 bits.
pub const MAX_CAPACITY: u64 = ALLOC_ALIGN << 32;
/// Most allocations alive at once on one device (launch argument buffers included).
pub const MAX_ALLOCATIONS: u32 = 1 << 17;
/// The allocator's bookkeeping nodes: one per allocation and one per free region between them, so that it can
/// never run out of nodes before `MAX_ALLOCATIONS` is reached.
const ALLOCATOR_NODES: u32 = 2 * MAX_ALLOCATIONS + 2;

/// One allocation of device memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Alloc {
    /// Its first device address (a multiple of `ALLOC_ALIGN`).
    pub addr: u64,
    /// Its size in bytes, as requested.
    pub size: u64,
    /// Constant memory: guest stores to it trap (`MemoryFault`); host writes are allowed.
    pub readonly: bool,
}

impl Alloc {
    fn contains(&self, addr: u64, size: u64) -> bool {
        addr >= self.addr && addr.checked_add(size).is_some_and(|end| end <= self.addr + self.size)
    }
}

/// Why device memory could not be allocated, placed or freed. The fields are the values the message names.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
#[allow(missing_docs)] // each field is named in its variant's message
pub enum AllocError {
    /// No free block is large enough.
    #[error("device memory exhausted: {wanted} bytes requested, largest free block {largest_free} bytes, arena capacity {capacity} bytes")]
    Exhausted { wanted: u64, largest_free: u64, capacity: u64 },
    /// `MAX_ALLOCATIONS` allocations are alive.
    #[error("too many live allocations: at most {limit} may exist at once on one device")]
    TooMany { limit: u32 },
    /// A fixed-address allocation outside the device's address range.
    #[error("allocation at {addr:#x}+{size:#x} lies outside the device address range {lo:#x}..{hi:#x}")]
    OutOfRange { addr: u64, size: u64, lo: u64, hi: u64 },
    /// A fixed-address allocation over another one.
    #[error("allocation at {addr:#x}+{size:#x} overlaps an existing allocation at {other:#x}")]
    Overlap { addr: u64, size: u64, other: u64 },
    /// A fixed-address allocation in the range `alloc` hands out.
    #[error("allocation at {addr:#x}+{size:#x} reaches into {lo:#x}.., where `alloc` places allocations: fixed addresses must lie below it")]
    Dynamic { addr: u64, size: u64, lo: u64 },
    /// A free of an address where no live allocation starts.
    #[error("cannot free {addr:#x}: no live allocation starts there (never allocated, or freed already)")]
    NotAllocated { addr: u64 },
    /// A free of an address inside an allocation.
    #[error("cannot free {addr:#x}: it lies inside the allocation at {start:#x}, not at its start")]
    NotStart { addr: u64, start: u64 },
    /// The host refused the memory mapping.
    #[error("cannot map device memory: {0}")]
    Map(String),
}

/// Where an allocation's space came from, to give it back.
#[derive(Clone, Copy)]
enum Span {
    /// Placed by `alloc_at`: below the allocator's range, nothing to give back.
    Fixed,
    Heap(Allocation),
}

#[derive(Clone, Copy)]
struct Entry {
    alloc: Alloc,
    /// Never reused, so that a `Buffer` dropped after an explicit free of its address does not free a later
    /// allocation at the same address.
    id: u64,
    span: Span,
}

/// The allocator and the device addresses it manages, `[base, base + granules * ALLOC_ALIGN)`.
struct Heap {
    allocator: Allocator,
    base: u64,
}

struct State {
    /// Live allocations by address: the authority (launch argument buffers are not in it).
    table: BTreeMap<u64, Entry>,
    /// `table` as a sorted slice, shared by launches until the table changes.
    snapshot: Option<Arc<[Alloc]>>,
    /// Snapshots handed out that may still be in use.
    handed_out: Vec<Weak<[Alloc]>>,
    /// Freed allocations that snapshots still in use list: reused only once those snapshots are gone.
    quarantine: Vec<(Entry, Vec<Weak<[Alloc]>>)>,
    /// Made on the first `alloc` (an arena holding only fixed allocations never pays for the allocator).
    heap: Option<Heap>,
    /// Allocations alive, launch argument buffers and quarantined ones included.
    live: u32,
    next_id: u64,
}

/// A device's memory: one anonymous mapping (pages committed when touched) with an allocator over it. Guest
/// accesses are checked against the live allocations, so guest code can never reach outside it.
pub struct Arena {
    map: MmapMut,
    state: Mutex<State>,
    /// Which bytes hold a written value, once `track_defined` was called.
    defined: defined::DefinedSlot,
}

impl std::fmt::Debug for Arena {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Arena")
            .field("base", &format_args!("{DEVICE_BASE:#x}"))
            .field("capacity", &self.capacity())
            .field("allocations", &self.allocations().len())
            .finish()
    }
}

/// The pages an arena asks the kernel for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pages {
    /// Transparent huge pages where the kernel offers them (the default): fewer faults and TLB entries for
    /// large buffers, but each first touch of a 2 MiB page zeroes all of it.
    Huge,
    /// The base page size: for devices holding a few small ranges (a test state's memory), where zeroing
    /// 2 MiB per range cost 3-6% of a fuzz campaign's time.
    Base,
}

/// `len` bytes of zeroed address space whose pages are committed only when touched. `MAP_NORESERVE`: under
/// Linux's default overcommit heuristic (`vm.overcommit_memory` 0), a private writable mapping larger than RAM
/// plus swap is otherwise refused outright (a 24 GiB device on a 24 GiB machine failed with ENOMEM), although a
/// device only ever touches the pages its buffers use. Under strict accounting (`vm.overcommit_memory` 2) the
/// kernel ignores the flag and the whole capacity counts against the commit limit.
pub(crate) fn reserve(len: usize) -> std::io::Result<MmapMut> {
    memmap2::MmapOptions::new().len(len).no_reserve_swap().map_anon()
}

impl Arena {
    /// An arena of `capacity` bytes of address space (at most `MAX_CAPACITY`; see `reserve` for what the
    /// operating system may refuse below that).
    pub fn new(capacity: u64) -> Result<Arena, AllocError> {
        Arena::with_pages(capacity, Pages::Huge)
    }

    /// `new`, asking the kernel for `pages`.
    pub fn with_pages(capacity: u64, pages: Pages) -> Result<Arena, AllocError> {
        if capacity > MAX_CAPACITY {
            return Err(AllocError::Map(format!(
                "capacity {capacity} bytes exceeds the largest arena, {MAX_CAPACITY} bytes"
            )));
        }
        let len = usize::try_from(capacity).map_err(|e| AllocError::Map(e.to_string()))?;
        let map =
            reserve(len).map_err(|e| AllocError::Map(format!("reserving {capacity} bytes of address space: {e}")))?;
        // Transparent huge pages where the kernel offers them on request (THP `madvise` mode, Debian's default):
        // a kernel streaming through a 64 MiB buffer then takes 32 page faults and TLB entries, not 16,384.
        // Allocations are packed, so this commits at most one 2 MiB page beyond the bytes in use. Best effort:
        // without THP the advice fails and nothing changes.
        #[cfg(target_os = "linux")]
        if pages == Pages::Huge {
            let _ = map.advise(memmap2::Advice::HugePage);
        }
        let state = State {
            table: BTreeMap::new(),
            snapshot: None,
            handed_out: Vec::new(),
            quarantine: Vec::new(),
            heap: None,
            live: 0,
            next_id: 0,
        };
        Ok(Arena { map, state: Mutex::new(state), defined: Default::default() })
    }

    /// Its address space in bytes.
    pub fn capacity(&self) -> u64 {
        self.map.len() as u64
    }

    /// A panic elsewhere while the lock was held cannot leave the state half-changed (nothing in here panics
    /// between two changes), so a poisoned lock is used as it is.
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Allocates `size` bytes (zeroed), `ALLOC_ALIGN`-aligned, with a guard gap after them.
    pub fn alloc(&self, size: u64, readonly: bool) -> Result<Alloc, AllocError> {
        self.alloc_entry(size, readonly).map(|e| e.alloc)
    }

    /// Allocates `data.len()` bytes (at least 4) holding `data`.
    pub fn alloc_filled(&self, data: &[u8], readonly: bool) -> Result<Alloc, AllocError> {
        let mut st = self.state();
        let e = self.reserve(&mut st, data.len().max(4) as u64, readonly)?;
        self.copy_in(map_offset(e.alloc.addr), data);
        st.table.insert(e.alloc.addr, e);
        st.snapshot = None;
        Ok(e.alloc)
    }

    /// Allocates `size` bytes, freed when the returned `Buffer` is dropped.
    pub fn buffer(&self, size: u64, readonly: bool) -> Result<Buffer<'_>, AllocError> {
        self.alloc_entry(size, readonly).map(|e| Buffer::new(self, e.alloc, e.id))
    }

    fn alloc_entry(&self, size: u64, readonly: bool) -> Result<Entry, AllocError> {
        let mut st = self.state();
        let e = self.reserve(&mut st, size, readonly)?;
        st.table.insert(e.alloc.addr, e);
        st.snapshot = None;
        Ok(e)
    }

    /// Takes space from the allocator for an allocation not yet in the table.
    fn reserve(&self, st: &mut State, size: u64, readonly: bool) -> Result<Entry, AllocError> {
        self.drain_quarantine(st);
        if st.live >= MAX_ALLOCATIONS {
            return Err(AllocError::TooMany { limit: MAX_ALLOCATIONS });
        }
        let capacity = self.capacity();
        let heap = st.heap.get_or_insert_with(|| self.new_heap(&st.table));
        // One more granule than the size needs: the guard gap.
        let granules = size.div_ceil(ALLOC_ALIGN) + 1;
        let got = u32::try_from(granules).ok().and_then(|g| heap.allocator.allocate(g));
        let Some(a) = got else {
            let largest_free =
                (heap.allocator.storage_report().largest_free_region as u64).saturating_sub(1) * ALLOC_ALIGN;
            return Err(AllocError::Exhausted { wanted: size, largest_free, capacity });
        };
        let alloc = Alloc { addr: heap.base + a.offset as u64 * ALLOC_ALIGN, size, readonly };
        self.mark_defined(alloc.addr, size, false);
        st.live += 1;
        st.next_id += 1;
        Ok(Entry { alloc, id: st.next_id, span: Span::Heap(a) })
    }

    /// The allocator's range starts a guard granule after the last fixed allocation.
    fn new_heap(&self, table: &BTreeMap<u64, Entry>) -> Heap {
        let hi = DEVICE_BASE + self.capacity();
        let base = table
            .values()
            .next_back()
            .map_or(DEVICE_BASE, |e| (e.alloc.addr + e.alloc.size).div_ceil(ALLOC_ALIGN) * ALLOC_ALIGN + ALLOC_ALIGN)
            .min(hi);
        // `Arena::new` bounds the capacity to 2^32 granules; the top one is given up so the count fits in u32.
        let granules = ((hi - base) / ALLOC_ALIGN).min(u32::MAX as u64) as u32;
        Heap { allocator: Allocator::with_max_allocs(granules, ALLOCATOR_NODES), base }
    }

    /// Allocates exactly `[addr, addr + size)` (for `lanejit wave` states that name their addresses). Fixed
    /// allocations lie below the addresses `alloc` hands out (all of them, until the first `alloc`).
    pub fn alloc_at(&self, addr: u64, size: u64, readonly: bool) -> Result<Alloc, AllocError> {
        let hi = DEVICE_BASE + self.capacity();
        let end = addr.checked_add(size).filter(|&end| addr >= DEVICE_BASE && end <= hi);
        let Some(end) = end else { return Err(AllocError::OutOfRange { addr, size, lo: DEVICE_BASE, hi }) };
        let mut st = self.state();
        self.drain_quarantine(&mut st);
        if let Some(heap) = &st.heap {
            if end > heap.base.saturating_sub(ALLOC_ALIGN) {
                return Err(AllocError::Dynamic { addr, size, lo: heap.base });
            }
        }
        // The nearest allocation starting before `end` is the only one that can overlap (they are disjoint);
        // two allocations never start at the same address, even empty ones.
        let before_end = st.table.range(..end).next_back().filter(|(_, o)| addr < o.alloc.addr + o.alloc.size);
        if let Some((_, o)) = before_end.or_else(|| st.table.get_key_value(&addr)) {
            return Err(AllocError::Overlap { addr, size, other: o.alloc.addr });
        }
        if st.live >= MAX_ALLOCATIONS {
            return Err(AllocError::TooMany { limit: MAX_ALLOCATIONS });
        }
        st.live += 1;
        st.next_id += 1;
        let alloc = Alloc { addr, size, readonly };
        self.mark_defined(addr, size, false);
        let id = st.next_id;
        st.table.insert(addr, Entry { alloc, id, span: Span::Fixed });
        st.snapshot = None;
        Ok(alloc)
    }

    /// Frees the allocation starting at `addr`. Guest code of later launches traps on its addresses; its memory
    /// is zeroed before it is reused.
    pub fn free(&self, addr: u64) -> Result<Alloc, AllocError> {
        let mut st = self.state();
        let Some(e) = st.table.remove(&addr) else {
            return Err(match st.table.range(..=addr).next_back() {
                Some((_, o)) if addr < o.alloc.addr + o.alloc.size.max(1) => {
                    AllocError::NotStart { addr, start: o.alloc.addr }
                }
                _ => AllocError::NotAllocated { addr },
            });
        };
        self.retire(&mut st, e);
        Ok(e.alloc)
    }

    /// Frees the allocation at `addr` if it is still the one numbered `id` (for `Buffer`).
    fn free_if_same(&self, addr: u64, id: u64) {
        let mut st = self.state();
        if st.table.get(&addr).is_some_and(|e| e.id == id) {
            if let Some(e) = st.table.remove(&addr) {
                self.retire(&mut st, e);
            }
        }
    }

    /// An allocation removed from the table: released now, or quarantined while a snapshot listing it lives.
    fn retire(&self, st: &mut State, e: Entry) {
        // The cached snapshot lists `e`: only the copies launches hold now keep it alive.
        st.snapshot = None;
        st.handed_out.retain(|w| w.strong_count() > 0);
        if st.handed_out.is_empty() {
            self.release(st, e);
        } else {
            let holders = st.handed_out.clone();
            st.quarantine.push((e, holders));
        }
        self.drain_quarantine(st);
    }

    fn drain_quarantine(&self, st: &mut State) {
        if st.quarantine.is_empty() {
            return;
        }
        let (done, waiting): (Vec<_>, Vec<_>) = std::mem::take(&mut st.quarantine)
            .into_iter()
            .partition(|(_, holders)| holders.iter().all(|w| w.strong_count() == 0));
        st.quarantine = waiting;
        for (e, _) in done {
            self.release(st, e);
        }
    }

    /// Zeroes the allocation's bytes and gives its space back to the allocator.
    fn release(&self, st: &mut State, e: Entry) {
        self.zero(e.alloc.addr - DEVICE_BASE, e.alloc.size);
        if let (Span::Heap(a), Some(heap)) = (e.span, st.heap.as_mut()) {
            heap.allocator.free(a);
        }
        st.live -= 1;
    }

    /// The allocation holding `[addr, addr + size)`, if any.
    pub fn find(&self, addr: u64, size: u64) -> Option<Alloc> {
        let st = self.state();
        let (_, e) = st.table.range(..=addr).next_back()?;
        e.alloc.contains(addr, size).then_some(e.alloc)
    }

    /// The allocation table as of now (shared with other launches until it changes; a copy only then).
    pub fn allocations(&self) -> AllocTable {
        let mut st = self.state();
        AllocTable::new(self.snapshot(&mut st), None)
    }

    fn snapshot(&self, st: &mut State) -> Arc<[Alloc]> {
        self.drain_quarantine(st);
        if let Some(s) = &st.snapshot {
            return s.clone();
        }
        let s: Arc<[Alloc]> = st.table.values().map(|e| e.alloc).collect();
        st.handed_out.retain(|w| w.strong_count() > 0);
        st.handed_out.push(Arc::downgrade(&s));
        st.snapshot = Some(s.clone());
        s
    }

    /// The table a launch checks accesses against: the allocations as of now plus a constant buffer holding
    /// `args`, private to the launch (not in the device's table, so that launches do not change it) and
    /// released when the `LaunchTable` is dropped.
    pub fn launch_table(&self, args: &[u8]) -> Result<LaunchTable<'_>, AllocError> {
        let mut st = self.state();
        let e = self.reserve(&mut st, args.len().max(4) as u64, true)?;
        self.copy_in(map_offset(e.alloc.addr), args);
        let table = AllocTable::new(self.snapshot(&mut st), Some(e.alloc));
        Ok(LaunchTable::new(self, table, e))
    }

    /// Releases a launch's argument buffer: no snapshot lists it and its launch has ended.
    fn release_private(&self, e: Entry) {
        let mut st = self.state();
        self.release(&mut st, e);
        self.drain_quarantine(&mut st);
    }

    /// Host copy in (bounds-checked against the allocation table; constant allocations included).
    pub fn write_bytes(&self, addr: u64, data: &[u8]) -> Result<(), MemoryError> {
        self.find(addr, data.len() as u64).ok_or(MemoryError { addr, len: data.len() as u64 })?;
        self.copy_in(map_offset(addr), data);
        Ok(())
    }

    /// Host copy out.
    pub fn read_bytes(&self, addr: u64, len: u64) -> Result<Vec<u8>, MemoryError> {
        self.find(addr, len).ok_or(MemoryError { addr, len })?;
        let mut out = vec![0; len as usize];
        self.copy_out(map_offset(addr), &mut out);
        Ok(out)
    }

    /// Host copy out into `out` (no allocation: a harness reading results repeatedly reuses its buffer, and a
    /// fresh large buffer costs a page fault per page, which made 64 MiB reads 5× slower than writes).
    pub fn read_into(&self, addr: u64, out: &mut [u8]) -> Result<(), MemoryError> {
        let len = out.len() as u64;
        self.find(addr, len).ok_or(MemoryError { addr, len })?;
        self.copy_out(map_offset(addr), out);
        Ok(())
    }
}

/// The mapping offset of a device address that lies in an allocation (hence in the mapping).
fn map_offset(addr: u64) -> usize {
    (addr - DEVICE_BASE) as usize
}

#[cfg(test)]
mod tests;
