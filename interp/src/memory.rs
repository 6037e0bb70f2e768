//! What the interpreter needs from memory. The runtime's arena implements it; tests may use a simple map.

use lanejit_isa::Sp;

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

    /// For compiled code: the stretch of `sp` that contains `addr` and that every lane may access with plain
    /// host loads and stores (writable if `write`): an allocation, or the whole shared memory. `None` sends the
    /// instruction down the checked path (the interpreter), which reports any fault precisely.
    fn host_region(&mut self, sp: Sp, addr: u64, write: bool) -> Option<HostRegion> {
        let _ = (sp, addr, write);
        None
    }
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
    if addr.is_multiple_of(size as u64) {
        Ok(())
    } else {
        Err(MemFault::Misaligned)
    }
}
