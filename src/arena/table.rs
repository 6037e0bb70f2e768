//! What callers hold of the arena: a launch's view of the allocation table, and buffers freed on drop.

use super::{Alloc, Arena, Entry};
use std::sync::Arc;

/// The allocations guest code may access: the device's table as of one moment (sorted by address, shared with
/// other holders) plus, for a launch, its own argument buffer.
#[derive(Clone, Debug)]
pub struct AllocTable {
    shared: Arc<[Alloc]>,
    own: Option<Alloc>,
}

impl AllocTable {
    pub(super) fn new(shared: Arc<[Alloc]>, own: Option<Alloc>) -> AllocTable {
        AllocTable { shared, own }
    }

    /// The allocation holding the byte at `addr`.
    pub fn containing(&self, addr: u64) -> Option<Alloc> {
        if let Some(a) = self.own.filter(|a| addr.wrapping_sub(a.addr) < a.size) {
            return Some(a);
        }
        let i = self.shared.partition_point(|a| a.addr <= addr);
        let a = self.shared[i.checked_sub(1)?];
        (addr - a.addr < a.size).then_some(a)
    }

    /// Every allocation: the device's by address, then the launch's argument buffer.
    pub fn iter(&self) -> impl Iterator<Item = &Alloc> {
        self.shared.iter().chain(self.own.as_ref())
    }

    /// The number of allocations.
    pub fn len(&self) -> usize {
        self.shared.len() + self.own.is_some() as usize
    }

    /// No allocation at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A launch's table; its argument buffer is released when it is dropped (when the launch ends, whichever way).
pub struct LaunchTable<'a> {
    arena: &'a Arena,
    table: AllocTable,
    args: Entry,
}

impl<'a> LaunchTable<'a> {
    pub(super) fn new(arena: &'a Arena, table: AllocTable, args: Entry) -> LaunchTable<'a> {
        LaunchTable { arena, table, args }
    }

    /// The device address of the argument buffer.
    pub fn args_addr(&self) -> u64 {
        self.args.alloc.addr
    }
}

impl std::ops::Deref for LaunchTable<'_> {
    type Target = AllocTable;
    fn deref(&self) -> &AllocTable {
        &self.table
    }
}

impl Drop for LaunchTable<'_> {
    fn drop(&mut self) {
        // The snapshot goes first, so that allocations freed during the launch can leave quarantine now.
        self.table = AllocTable::new(Arc::new([]), None);
        self.arena.release_private(self.args);
    }
}

/// A device allocation freed when dropped (unless its address was freed explicitly before).
pub struct Buffer<'a> {
    arena: &'a Arena,
    alloc: Alloc,
    id: u64,
}

impl<'a> Buffer<'a> {
    pub(super) fn new(arena: &'a Arena, alloc: Alloc, id: u64) -> Buffer<'a> {
        Buffer { arena, alloc, id }
    }

    /// Its first device address.
    pub fn addr(&self) -> u64 {
        self.alloc.addr
    }

    /// Its size in bytes.
    pub fn size(&self) -> u64 {
        self.alloc.size
    }

    /// The allocation it owns.
    pub fn alloc(&self) -> Alloc {
        self.alloc
    }
}

impl std::fmt::Debug for Buffer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Buffer")
            .field("addr", &format_args!("{:#x}", self.alloc.addr))
            .field("size", &self.alloc.size)
            .finish()
    }
}

impl Drop for Buffer<'_> {
    fn drop(&mut self) {
        self.arena.free_if_same(self.alloc.addr, self.id);
    }
}

impl std::fmt::Debug for LaunchTable<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LaunchTable")
            .field("allocations", &self.table.len())
            .field("args_addr", &format_args!("{:#x}", self.args_addr()))
            .finish()
    }
}
