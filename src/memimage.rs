//! A copy of a device's writable memory: what exploration compares between schedules and restores before each
//! one, and what a record file hashes as a launch's outputs.

use crate::{Device, MemoryError};

/// One allocation's bytes at the time of the copy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// Its first device address.
    pub addr: u64,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// Every writable (not constant) live allocation of a device, by address.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryImage {
    /// The allocations, ascending by address.
    pub regions: Vec<Region>,
}

/// A byte that differs between two images.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteDiff {
    /// Its device address.
    pub addr: u64,
    /// The first image's byte (`None`: no such allocation there).
    pub left: Option<u8>,
    /// The second image's byte.
    pub right: Option<u8>,
}

impl MemoryImage {
    /// Copies every writable live allocation of `device` (constant memory cannot change in a launch).
    pub fn take(device: &Device) -> Result<MemoryImage, MemoryError> {
        let table = device.arena.allocations();
        let writable = table.iter().filter(|a| !a.readonly);
        let regions = writable
            .map(|a| Ok(Region { addr: a.addr, bytes: device.read(a.addr, a.size)? }))
            .collect::<Result<Vec<_>, MemoryError>>()?;
        Ok(MemoryImage { regions })
    }

    /// Writes every region back to `device` (the allocations must still be live).
    pub fn restore(&self, device: &Device) -> Result<(), MemoryError> {
        self.regions.iter().try_for_each(|r| device.write(r.addr, &r.bytes))
    }

    /// The bytes that differ from `other` (at most `limit` of them, ascending by address) and how many differ
    /// in all.
    pub fn diff(&self, other: &MemoryImage, limit: usize) -> (Vec<ByteDiff>, u64) {
        let mut out = Vec::new();
        let mut total = 0u64;
        let mut note = |d: ByteDiff| {
            total += 1;
            if out.len() < limit {
                out.push(d);
            }
        };
        for r in &self.regions {
            let theirs = other.regions.iter().find(|o| o.addr == r.addr).map(|o| o.bytes.as_slice());
            let len = r.bytes.len().max(theirs.map_or(0, <[u8]>::len));
            for i in 0..len {
                let (left, right) = (r.bytes.get(i).copied(), theirs.and_then(|t| t.get(i).copied()));
                if left != right {
                    note(ByteDiff { addr: r.addr + i as u64, left, right });
                }
            }
        }
        for o in other.regions.iter().filter(|o| !self.regions.iter().any(|r| r.addr == o.addr)) {
            for (i, &b) in o.bytes.iter().enumerate() {
                note(ByteDiff { addr: o.addr + i as u64, left: None, right: Some(b) });
            }
        }
        (out, total)
    }

    /// A 64-bit FNV-1a hash of every region's address, length and bytes: what a record file keeps of a
    /// launch's outputs (enough to tell a reproduction from a different result; not a cryptographic hash).
    pub fn hash(&self) -> u64 {
        self.regions.iter().fold(FNV_OFFSET, |h, r| {
            let h = fnv(h, &r.addr.to_le_bytes());
            let h = fnv(h, &(r.bytes.len() as u64).to_le_bytes());
            fnv(h, &r.bytes)
        })
    }

    /// Each region's hash (`hash` of that region alone), to name the buffer that differs.
    pub fn region_hashes(&self) -> Vec<(u64, u64)> {
        let one = |r: &Region| MemoryImage { regions: vec![r.clone()] }.hash();
        self.regions.iter().map(|r| (r.addr, one(r))).collect()
    }
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0100_0000_01b3;

fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h = (h ^ b as u64).wrapping_mul(FNV_PRIME);
    }
    h
}
