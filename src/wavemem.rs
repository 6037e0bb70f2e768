//! Memory as one wave sees it: the device arena (global and constant), its workgroup's shared memory and its
//! lanes' private memory. Implements the interpreter's `Memory` port.

use crate::arena::{AllocTable, Arena};
use lanejit_interp::memory::check_align;
use lanejit_interp::{HostRegion, MemFault, Memory, LANES};
use lanejit_isa::Sp;

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
}

impl WaveMemory<'_> {
    fn global(&self, addr: u64, size: u32, write: bool) -> Result<(), MemFault> {
        let a = self.allocs.containing(addr).ok_or(MemFault::OutOfBounds)?;
        if addr.checked_add(size as u64).is_none_or(|end| end > a.addr + a.size) {
            return Err(MemFault::OutOfBounds);
        }
        if write && a.readonly {
            return Err(MemFault::ReadOnly);
        }
        Ok(())
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
                let a = self.allocs.containing(addr).filter(|a| !(write && a.readonly))?;
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
