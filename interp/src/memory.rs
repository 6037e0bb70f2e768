//! What the interpreter needs from memory. The runtime's arena implements it; tests may use a simple map.

use crate::state::lane_on;
use lanejit_isa::{Sp, LANES};

/// One lane's failed access: the lane and why.
pub type LaneFault = (usize, MemFault);

/// Why one lane's access failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemFault {
    /// Outside every allocation (or outside shared/private memory).
    OutOfBounds,
    /// A write to constant memory or to a read-only allocation.
    ReadOnly,
    /// Not naturally aligned.
    Misaligned,
}

impl MemFault {
    /// A short phrase for trap messages.
    pub fn describe(self) -> &'static str {
        match self {
            MemFault::OutOfBounds => "outside every allocation",
            MemFault::ReadOnly => "write to read-only memory",
            MemFault::Misaligned => "not naturally aligned",
        }
    }
}

/// Memory as one wave sees it: global/constant (64-bit addresses), the workgroup's shared memory, and each
/// lane's private memory. Accesses are 1, 2, 4 or 8 bytes, little-endian, and must be checked with `check`
/// before any lane of an instruction performs its access, so that a faulting instruction has no effect.
pub trait Memory {
    /// Would this access succeed? `write` is true for stores and atomics.
    fn check(&self, sp: Sp, lane: usize, addr: u64, size: u32, write: bool) -> Result<(), MemFault>;
    /// Reads `size` bytes (1, 2, 4, 8), zero-extended.
    fn load(&mut self, sp: Sp, lane: usize, addr: u64, size: u32) -> Result<u64, MemFault>;
    /// Writes the low `size` bytes of `value`.
    fn store(&mut self, sp: Sp, lane: usize, addr: u64, size: u32, value: u64) -> Result<(), MemFault>;
    /// Atomically replaces the 32-bit word with `f(old)` and returns `old`.
    fn rmw32(&mut self, sp: Sp, lane: usize, addr: u64, f: &mut dyn FnMut(u32) -> u32) -> Result<u32, MemFault>;

    /// `load` for every lane `l` of `lanes`, ascending: `out[l]` receives the `size` bytes at `addrs[l]`; the
    /// first lane whose access fails stops it. A port may do this faster than lane by lane (one allocation
    /// lookup for all lanes), with the same values and the same first failure as [`load_each`].
    fn load_lanes(
        &mut self,
        sp: Sp,
        lanes: u32,
        addrs: &[u64; LANES],
        size: u32,
        out: &mut [u64; LANES],
    ) -> Result<(), LaneFault> {
        load_each(self, sp, lanes, addrs, size, out)
    }

    /// `store` of `values[l]`'s low `size` bytes at `addrs[l]` for every lane `l` of `lanes`, ascending (where
    /// lanes overlap, the highest one's bytes stay); the first lane whose access fails stops it, the lanes
    /// before it stored. As [`store_each`], which a port may do faster.
    fn store_lanes(
        &mut self,
        sp: Sp,
        lanes: u32,
        addrs: &[u64; LANES],
        size: u32,
        values: &[u64; LANES],
    ) -> Result<(), LaneFault> {
        store_each(self, sp, lanes, addrs, size, values)
    }

    /// A shortcut for checking many lanes at once: `true` promises that `check(sp, lane, a, size, write)` is
    /// `Ok` for every lane and every naturally aligned access (`a % size == 0`) inside `[lo, lo + len)`.
    /// `false` promises nothing (the accesses are then checked one by one, which reports any fault exactly).
    fn check_span(&self, sp: Sp, lo: u64, len: u64, write: bool) -> bool {
        let _ = (sp, lo, len, write);
        false
    }

    /// For compiled code: the stretch of `sp` that contains `addr` and that every lane may access with plain
    /// host loads and stores (writable if `write`): an allocation, or the whole shared memory. `None` sends the
    /// instruction down the checked path (the interpreter), which reports any fault precisely.
    fn host_region(&mut self, sp: Sp, addr: u64, write: bool) -> Option<HostRegion> {
        let _ = (sp, addr, write);
        None
    }
}

/// `load_lanes` lane by lane (its definition, and the default).
pub fn load_each<M: Memory + ?Sized>(
    mem: &mut M,
    sp: Sp,
    lanes: u32,
    addrs: &[u64; LANES],
    size: u32,
    out: &mut [u64; LANES],
) -> Result<(), LaneFault> {
    for l in (0..LANES).filter(|&l| lane_on(lanes, l)) {
        out[l] = mem.load(sp, l, addrs[l], size).map_err(|f| (l, f))?;
    }
    Ok(())
}

/// `store_lanes` lane by lane (its definition, and the default).
pub fn store_each<M: Memory + ?Sized>(
    mem: &mut M,
    sp: Sp,
    lanes: u32,
    addrs: &[u64; LANES],
    size: u32,
    values: &[u64; LANES],
) -> Result<(), LaneFault> {
    for l in (0..LANES).filter(|&l| lane_on(lanes, l)) {
        mem.store(sp, l, addrs[l], size, values[l]).map_err(|f| (l, f))?;
    }
    Ok(())
}

/// Guest bytes `[lo, lo + len)` live at host address `host` onwards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostRegion {
    /// First guest address of the region.
    pub lo: u64,
    /// Length of the region in bytes.
    pub len: u64,
    /// Host address of guest byte `lo`; the region's other `len - 1` bytes follow it.
    pub host: *mut u8,
}

/// Natural alignment check shared by every implementation.
pub fn check_align(addr: u64, size: u32) -> Result<(), MemFault> {
    // (A mask, not a division: this runs for every lane of every access; sizes are powers of two.)
    let aligned = if size.is_power_of_two() { addr & (size as u64 - 1) == 0 } else { addr.is_multiple_of(size as u64) };
    if aligned {
        Ok(())
    } else {
        Err(MemFault::Misaligned)
    }
}
