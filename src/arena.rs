//! Device memory: one memmap2 arena holding every global and constant allocation. Guest addresses are
//! `DEVICE_BASE + offset`; every access is checked against the allocation table, so guest code can never touch
//! host memory. Allocations are separated by unmapped-to-the-guest gaps, so running off the end of a buffer
//! faults instead of silently reading its neighbour.
//!
//! Workgroups run on several threads at once, so the arena is accessed through atomics (relaxed loads and
//! stores compile to plain moves on x86-64); guest data races are the guest's business, never host UB.

use memmap2::MmapMut;
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::RwLock;

/// Lowest device address; addresses below it (null and small integers) are never valid.
pub const DEVICE_BASE: u64 = 0x1_0000_0000;
/// Allocation granule and the guard gap between two allocations.
pub const ALLOC_ALIGN: u64 = 256;
/// Default arena size (virtual; pages are only committed when touched).
pub const DEFAULT_CAPACITY: u64 = 1 << 32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Alloc {
    pub addr: u64,
    pub size: u64,
    pub readonly: bool,
}

impl Alloc {
    fn contains(&self, addr: u64, size: u64) -> bool {
        addr >= self.addr && addr.checked_add(size).is_some_and(|end| end <= self.addr + self.size)
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AllocError {
    #[error("device memory exhausted: {wanted} bytes requested, arena capacity {capacity} bytes")]
    Exhausted { wanted: u64, capacity: u64 },
    #[error("allocation at {addr:#x}+{size:#x} lies outside the device address range {lo:#x}..{hi:#x}")]
    OutOfRange { addr: u64, size: u64, lo: u64, hi: u64 },
    #[error("allocation at {addr:#x}+{size:#x} overlaps an existing allocation at {other:#x}")]
    Overlap { addr: u64, size: u64, other: u64 },
    #[error("cannot map device memory: {0}")]
    Map(String),
}

pub struct Arena {
    map: MmapMut,
    /// Sorted by address.
    allocs: RwLock<Vec<Alloc>>,
}

impl Arena {
    pub fn new(capacity: u64) -> Result<Arena, AllocError> {
        let map = MmapMut::map_anon(capacity as usize).map_err(|e| AllocError::Map(e.to_string()))?;
        Ok(Arena { map, allocs: RwLock::new(Vec::new()) })
    }

    pub fn capacity(&self) -> u64 {
        self.map.len() as u64
    }

    /// Allocates `size` bytes (zeroed) after the last allocation, leaving a guard gap.
    pub fn alloc(&self, size: u64, readonly: bool) -> Result<Alloc, AllocError> {
        let next = self.allocs.read().unwrap().last().map_or(DEVICE_BASE, |a| {
            (a.addr + a.size).div_ceil(ALLOC_ALIGN) * ALLOC_ALIGN + ALLOC_ALIGN
        });
        self.alloc_at(next, size, readonly).map_err(|e| match e {
            AllocError::OutOfRange { .. } => AllocError::Exhausted { wanted: size, capacity: self.capacity() },
            e => e,
        })
    }

    /// Allocates exactly `[addr, addr + size)` (for `lanejit wave` states that name their addresses).
    pub fn alloc_at(&self, addr: u64, size: u64, readonly: bool) -> Result<Alloc, AllocError> {
        let hi = DEVICE_BASE + self.capacity();
        if addr < DEVICE_BASE || addr.checked_add(size).is_none_or(|end| end > hi) {
            return Err(AllocError::OutOfRange { addr, size, lo: DEVICE_BASE, hi });
        }
        let mut allocs = self.allocs.write().unwrap();
        if let Some(o) = allocs.iter().find(|o| addr < o.addr + o.size && o.addr < addr + size) {
            return Err(AllocError::Overlap { addr, size, other: o.addr });
        }
        let a = Alloc { addr, size, readonly };
        let at = allocs.partition_point(|o| o.addr < addr);
        allocs.insert(at, a);
        Ok(a)
    }

    /// The allocation holding `[addr, addr + size)`, if any.
    pub fn find(&self, addr: u64, size: u64) -> Option<Alloc> {
        let allocs = self.allocs.read().unwrap();
        let i = allocs.partition_point(|a| a.addr <= addr);
        let a = *allocs.get(i.checked_sub(1)?)?;
        a.contains(addr, size).then_some(a)
    }

    pub fn allocations(&self) -> Vec<Alloc> {
        self.allocs.read().unwrap().clone()
    }

    /// Host address of a device address the caller has checked lies inside an allocation.
    pub fn host_ptr(&self, addr: u64) -> *mut u8 {
        self.ptr(addr)
    }

    fn ptr(&self, addr: u64) -> *mut u8 {
        // Callers have checked that addr lies inside an allocation, hence inside the map.
        unsafe { (self.map.as_ptr() as *mut u8).add((addr - DEVICE_BASE) as usize) }
    }

    /// Reads a naturally aligned value of `size` bytes. Caller has checked bounds and alignment.
    pub fn load(&self, addr: u64, size: u32) -> u64 {
        let p = self.ptr(addr);
        // SAFETY: p is inside the live mapping and aligned to `size` (checked by the caller).
        unsafe {
            match size {
                1 => AtomicU8::from_ptr(p).load(Relaxed) as u64,
                2 => AtomicU16::from_ptr(p as *mut u16).load(Relaxed) as u64,
                4 => AtomicU32::from_ptr(p as *mut u32).load(Relaxed) as u64,
                _ => AtomicU64::from_ptr(p as *mut u64).load(Relaxed),
            }
        }
    }

    /// Writes a naturally aligned value. Caller has checked bounds, alignment and writability.
    pub fn store(&self, addr: u64, size: u32, value: u64) {
        let p = self.ptr(addr);
        // SAFETY: as in `load`.
        unsafe {
            match size {
                1 => AtomicU8::from_ptr(p).store(value as u8, Relaxed),
                2 => AtomicU16::from_ptr(p as *mut u16).store(value as u16, Relaxed),
                4 => AtomicU32::from_ptr(p as *mut u32).store(value as u32, Relaxed),
                _ => AtomicU64::from_ptr(p as *mut u64).store(value, Relaxed),
            }
        }
    }

    /// Atomic read-modify-write of an aligned 32-bit word; returns the old value.
    pub fn rmw32(&self, addr: u64, f: &mut dyn FnMut(u32) -> u32) -> u32 {
        // SAFETY: as in `load`.
        let a = unsafe { AtomicU32::from_ptr(self.ptr(addr) as *mut u32) };
        let mut old = a.load(Relaxed);
        loop {
            match a.compare_exchange_weak(old, f(old), std::sync::atomic::Ordering::AcqRel, Relaxed) {
                Ok(_) => return old,
                Err(cur) => old = cur,
            }
        }
    }

    /// Host copy in (bounds-checked against the allocation table; constant allocations included).
    pub fn write_bytes(&self, addr: u64, data: &[u8]) -> Result<(), String> {
        self.find(addr, data.len() as u64).ok_or_else(|| format!("{addr:#x}+{} is outside every allocation", data.len()))?;
        for (i, b) in data.iter().enumerate() {
            self.store(addr + i as u64, 1, *b as u64);
        }
        Ok(())
    }

    /// Host copy out.
    pub fn read_bytes(&self, addr: u64, len: u64) -> Result<Vec<u8>, String> {
        self.find(addr, len).ok_or_else(|| format!("{addr:#x}+{len} is outside every allocation"))?;
        Ok((0..len).map(|i| self.load(addr + i, 1) as u8).collect())
    }
}
