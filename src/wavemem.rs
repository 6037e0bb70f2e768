//! Memory as one wave sees it: the device arena (global and constant), its workgroup's shared memory and its
//! lanes' private memory. Implements the interpreter's `Memory` port.

use crate::arena::{Alloc, AllocTable, Arena};
use lanejit_interp::memory::{check_align, load_each, store_each, LaneFault};
use lanejit_interp::{lane_on, HostRegion, MemFault, Memory, LANES};
use lanejit_isa::Sp;
use std::cell::Cell;

/// The memory one wave addresses: device, shared and private (the interpreter's `Memory` port).
pub struct WaveMemory<'a> {
    /// Device memory.
    pub arena: &'a Arena,
    /// The allocation table as of launch start (a launch does not see allocations made or freed after it).
    pub allocs: &'a AllocTable,
    /// The workgroup's shared memory.
    pub shared: &'a mut [u8],
    /// `LANES` consecutive private areas of `private_bytes` each.
    pub private: &'a mut [u8],
    /// Private bytes per lane.
    pub private_bytes: u64,
    /// The allocation the last global or constant check found: the lanes of one access, and the accesses of
    /// one loop, mostly stay inside one buffer, so most checks compare against it instead of searching.
    last_hit: Cell<Option<Alloc>>,
}

impl<'a> WaveMemory<'a> {
    /// The memory of a wave: the device's `arena` with its allocation table `allocs`, the workgroup's
    /// `shared` memory and the wave's `private` areas (`LANES` of `private_bytes` each).
    pub fn new(
        arena: &'a Arena,
        allocs: &'a AllocTable,
        shared: &'a mut [u8],
        private: &'a mut [u8],
        private_bytes: u64,
    ) -> WaveMemory<'a> {
        WaveMemory { arena, allocs, shared, private, private_bytes, last_hit: Cell::new(None) }
    }

    /// The allocation holding the byte at `addr` (`AllocTable::containing`, through `last_hit`).
    fn containing(&self, addr: u64) -> Option<Alloc> {
        if let Some(a) = self.last_hit.get().filter(|a| addr.wrapping_sub(a.addr) < a.size) {
            return Some(a);
        }
        let found = self.allocs.containing(addr);
        if found.is_some() {
            self.last_hit.set(found);
        }
        found
    }

    fn global(&self, addr: u64, size: u32, write: bool) -> Result<(), MemFault> {
        let a = self.containing(addr).ok_or(MemFault::OutOfBounds)?;
        if addr.checked_add(size as u64).is_none_or(|end| end > a.addr + a.size) {
            return Err(MemFault::OutOfBounds);
        }
        if write && a.readonly {
            return Err(MemFault::ReadOnly);
        }
        Ok(())
    }

    /// Does one allocation hold all of `[lo, lo + len)` (and allow writing, if `write`)?
    fn global_span(&self, lo: u64, len: u64, write: bool) -> bool {
        len > 0 && len <= u32::MAX as u64 && self.global(lo, len as u32, write).is_ok()
    }

    /// Byte offset of a shared or private access inside its host buffer.
    fn local(&self, sp: Sp, lane: usize, addr: u64, size: u32) -> Result<usize, MemFault> {
        let (base, len) = match sp {
            Sp::Shared => (0, self.shared.len() as u64),
            _ => (lane as u64 * self.private_bytes, self.private_bytes),
        };
        if addr.checked_add(size as u64).is_none_or(|end| end > len) {
            return Err(MemFault::OutOfBounds);
        }
        Ok((base + addr) as usize)
    }

    /// Is every access of `lanes` (`size` bytes at `addrs[l]`) a naturally aligned one inside one global or
    /// constant allocation that allows it? Then each needs only the arena's own bounds check.
    fn one_allocation(&self, sp: Sp, lanes: u32, addrs: &[u64; LANES], size: u32, write: bool) -> bool {
        if lanes == 0 || !matches!(sp, Sp::Global | Sp::Constant) || !size.is_power_of_two() {
            return false;
        }
        let (mut lo, mut hi, mut stray) = (u64::MAX, 0, 0);
        for (l, &a) in addrs.iter().enumerate() {
            let on = lane_on(lanes, l);
            lo = if on { lo.min(a) } else { lo };
            hi = if on { hi.max(a) } else { hi };
            stray |= if on { a & (size as u64 - 1) } else { 0 };
        }
        stray == 0 && hi.checked_add(size as u64).is_some_and(|end| self.check_span(sp, lo, end - lo, write))
    }

    fn local_buf(&mut self, sp: Sp) -> &mut [u8] {
        if sp == Sp::Shared {
            self.shared
        } else {
            self.private
        }
    }
}

impl Memory for WaveMemory<'_> {
    fn check(&self, sp: Sp, lane: usize, addr: u64, size: u32, write: bool) -> Result<(), MemFault> {
        debug_assert!(lane < LANES);
        check_align(addr, size)?;
        match sp {
            Sp::Global => self.global(addr, size, write),
            Sp::Constant if write => Err(MemFault::ReadOnly),
            Sp::Constant => self.global(addr, size, false),
            Sp::Shared | Sp::Private => self.local(sp, lane, addr, size).map(|_| ()),
        }
    }

    fn check_span(&self, sp: Sp, lo: u64, len: u64, write: bool) -> bool {
        match sp {
            Sp::Global => self.global_span(lo, len, write),
            Sp::Constant => !write && self.global_span(lo, len, false),
            // Shared memory is one buffer for every lane; private memory differs per lane.
            Sp::Shared => lo.checked_add(len).is_some_and(|end| end <= self.shared.len() as u64),
            Sp::Private => false,
        }
    }

    fn load_lanes(
        &mut self,
        sp: Sp,
        lanes: u32,
        addrs: &[u64; LANES],
        size: u32,
        out: &mut [u64; LANES],
    ) -> Result<(), LaneFault> {
        if !self.one_allocation(sp, lanes, addrs, size, false) {
            return load_each(self, sp, lanes, addrs, size, out);
        }
        for l in (0..LANES).filter(|&l| lane_on(lanes, l)) {
            out[l] = self.arena.load(addrs[l], size).map_err(|f| (l, f))?;
        }
        Ok(())
    }

    fn store_lanes(
        &mut self,
        sp: Sp,
        lanes: u32,
        addrs: &[u64; LANES],
        size: u32,
        values: &[u64; LANES],
    ) -> Result<(), LaneFault> {
        if !self.one_allocation(sp, lanes, addrs, size, true) {
            return store_each(self, sp, lanes, addrs, size, values);
        }
        for l in (0..LANES).filter(|&l| lane_on(lanes, l)) {
            self.arena.store(addrs[l], size, values[l]).map_err(|f| (l, f))?;
        }
        Ok(())
    }

    fn load(&mut self, sp: Sp, lane: usize, addr: u64, size: u32) -> Result<u64, MemFault> {
        self.check(sp, lane, addr, size, false)?;
        Ok(match sp {
            Sp::Global | Sp::Constant => self.arena.load(addr, size)?,
            Sp::Shared | Sp::Private => {
                let at = self.local(sp, lane, addr, size)?;
                let buf = &self.local_buf(sp)[at..at + size as usize];
                buf.iter().rev().fold(0u64, |v, b| v << 8 | *b as u64)
            }
        })
    }

    fn store(&mut self, sp: Sp, lane: usize, addr: u64, size: u32, value: u64) -> Result<(), MemFault> {
        self.check(sp, lane, addr, size, true)?;
        match sp {
            Sp::Global | Sp::Constant => self.arena.store(addr, size, value)?,
            Sp::Shared | Sp::Private => {
                let at = self.local(sp, lane, addr, size)?;
                let buf = &mut self.local_buf(sp)[at..at + size as usize];
                for (i, b) in buf.iter_mut().enumerate() {
                    *b = (value >> (8 * i)) as u8;
                }
            }
        }
        Ok(())
    }

    fn host_region(&mut self, sp: Sp, addr: u64, write: bool) -> Option<HostRegion> {
        match sp {
            Sp::Constant if write => None,
            Sp::Global | Sp::Constant => {
                let a = self.containing(addr).filter(|a| !(write && a.readonly))?;
                // A table from another arena cannot yield a region outside this one's mapping.
                Some(HostRegion { lo: a.addr, len: a.size, host: self.arena.host_ptr(a.addr, a.size)? })
            }
            Sp::Shared => {
                let len = self.shared.len() as u64;
                (addr < len).then_some(HostRegion { lo: 0, len, host: self.shared.as_mut_ptr() })
            }
            Sp::Private => None,
        }
    }

    fn rmw32(&mut self, sp: Sp, lane: usize, addr: u64, f: &mut dyn FnMut(u32) -> u32) -> Result<u32, MemFault> {
        self.check(sp, lane, addr, 4, true)?;
        match sp {
            Sp::Global | Sp::Constant => self.arena.rmw32(addr, f),
            // Shared and private memory belong to one thread at a time: a plain read-modify-write is atomic.
            Sp::Shared | Sp::Private => {
                let old = self.load(sp, lane, addr, 4)? as u32;
                self.store(sp, lane, addr, 4, f(old) as u64)?;
                Ok(old)
            }
        }
    }
}

impl std::fmt::Debug for WaveMemory<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WaveMemory")
            .field("shared_bytes", &self.shared.len())
            .field("private_bytes", &self.private_bytes)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small xorshift generator: the test needs many varied cases, not a crate.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    /// The whole-wave fast paths (`load_lanes`, `store_lanes` over one allocation) give the values, memory
    /// contents and first failing lane of the lane-by-lane definitions, for lanes near and across allocation
    /// edges, in gaps, in read-only memory, misaligned, and with any EXEC.
    #[test]
    fn whole_wave_accesses_match_lane_by_lane_ones() {
        let arena = Arena::new(1 << 20).unwrap();
        let a = arena.alloc(256, false).unwrap();
        let b = arena.alloc(4096, false).unwrap();
        let c = arena.alloc(64, true).unwrap();
        let allocs = arena.allocations();
        let bases = [a.addr, a.addr + a.size, b.addr, b.addr + b.size - 64, c.addr];
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut fast_paths = 0;
        for case in 0..20_000 {
            let size = 1u32 << (rng.next() % 4);
            let sp = if rng.next().is_multiple_of(3) { Sp::Constant } else { Sp::Global };
            let lanes = match rng.next() % 3 {
                0 => u32::MAX,
                1 => rng.next() as u32,
                _ => 1 << (rng.next() % 32),
            };
            let base = bases[(rng.next() % bases.len() as u64) as usize];
            let spread = [size as u64, 64, 512][(rng.next() % 3) as usize];
            let addrs: [u64; LANES] = std::array::from_fn(|l| match rng.next() % 16 {
                0 => base + rng.next() % spread, // possibly misaligned
                _ => base + (l as u64 * size as u64) % spread,
            });
            let values: [u64; LANES] = std::array::from_fn(|_| rng.next());
            let mut mem = WaveMemory::new(&arena, &allocs, &mut [], &mut [], 0);
            fast_paths += mem.one_allocation(sp, lanes, &addrs, size, true) as u32;
            let (mut fast, mut slow) = ([0u64; LANES], [0u64; LANES]);
            let fast_result = mem.load_lanes(sp, lanes, &addrs, size, &mut fast);
            assert_eq!(fast_result, load_each(&mut mem, sp, lanes, &addrs, size, &mut slow), "load, case {case}");
            assert_eq!(fast, slow, "loaded values, case {case}");
            for x in [a, b, c] {
                arena.write_bytes(x.addr, &vec![0xa5; x.size as usize]).unwrap();
            }
            let fast_result = mem.store_lanes(sp, lanes, &addrs, size, &values);
            let after_fast: Vec<_> = [a, b, c].map(|x| arena.read_bytes(x.addr, x.size).unwrap()).to_vec();
            for x in [a, b, c] {
                arena.write_bytes(x.addr, &vec![0xa5; x.size as usize]).unwrap();
            }
            assert_eq!(fast_result, store_each(&mut mem, sp, lanes, &addrs, size, &values), "store, case {case}");
            let after_slow: Vec<_> = [a, b, c].map(|x| arena.read_bytes(x.addr, x.size).unwrap()).to_vec();
            assert_eq!(after_fast, after_slow, "memory after the store, case {case}");
        }
        assert!(fast_paths > 2_000, "the cases reach the fast path ({fast_paths} times)");
    }
}
