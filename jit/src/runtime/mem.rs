//! Vector loads and stores with a uniform base, done by the JIT's runtime in Rust when compiled code cannot do
//! them inline (lanes not contiguous, a partial EXEC, sub-word or multi-word accesses, or a region not yet in
//! the window cache). An access is done here only when it provably cannot fault: every active lane aligned to
//! the access size and inside the one host region that holds the first active lane. Anything else returns
//! `false` and the interpreter executes the instruction, so every fault is the golden model's report.
//!
//! Also fills the window cache that compiled code checks inline (see `lower/mem.rs`).

use crate::abi::{Window, CONTIGUOUS_BYTES};
use crate::access::{Access, Atomic, Dir};

use lanejit_interp::mem::{atomic_word, AtomOp};
use lanejit_interp::{HostRegion, Memory, WaveState};
use lanejit_isa::{VReg, LANES};
use std::sync::atomic::{
    AtomicU16, AtomicU32, AtomicU8,
    Ordering::{AcqRel, Relaxed},
};

/// Performs atomic `a` for the active lanes when it provably cannot fault (every active lane 4-aligned and
/// inside the host region of the first); returns false (nothing done) otherwise.
/// Fills `window` (when given) with the region, for the inline path (`lower/mem/atomic.rs`): its span lets one
/// 4-byte word start anywhere up to the region's last word.
pub fn try_atomic(w: &mut WaveState, mem: &mut dyn Memory, window: Option<&mut Window>, a: &Atomic) -> bool {
    let exec = w.exec;
    if exec == 0 {
        return false;
    }
    let addrs = a.at.addresses(w);
    let Some(region) = mem.host_region(a.at.sp, addrs[exec.trailing_zeros() as usize], true) else { return false };
    let fits = |addr: u64| addr & 3 == 0 && region.len >= 4 && addr.wrapping_sub(region.lo) <= region.len - 4;
    // Mutant 133: only the first active lane is checked.
    let checked = if crate::mutants::active(133) { 1 } else { LANES };
    if !(0..LANES).filter(|&l| exec >> l & 1 == 1).take(checked).all(|l| fits(addrs[l])) {
        return false;
    }
    if let Some(entry) = window {
        // Mutant 140: the span is the region's length (an inline lane may start at the region's end).
        let span = if crate::mutants::active(140) { region.len } else { region.len - 4 };
        *entry = Window { lo: region.lo, span, host: region.host as u64 };
    }
    let d = *w.vr(a.at.rd);
    let c = if a.op == AtomOp::Cas { *w.vn(a.at.rd.idx() + 1) } else { [0; LANES] };
    let mut old = d;
    // Mutant 134: lanes in descending order (a lane sees the later lanes' updates, not the earlier ones').
    let reversed = crate::mutants::active(134);
    for l in (0..LANES).map(|i| if reversed { LANES - 1 - i } else { i }).filter(|&l| exec >> l & 1 == 1) {
        // SAFETY: checked above: [addr, addr + 4) lies inside the region and is 4-byte aligned.
        let word = unsafe { AtomicU32::from_ptr(region.host.wrapping_add((addrs[l] - region.lo) as usize).cast()) };
        old[l] = match a.op {
            AtomOp::Add => word.fetch_add(d[l], AcqRel),
            op => word.fetch_update(AcqRel, Relaxed, |x| Some(atomic_word(op, x, d[l], c[l]))).unwrap_or_else(|x| x),
        };
    }
    w.write_v(a.at.rd, &old);
    true
}

/// The windows of one compiled kernel's memory instructions, one entry each (an instruction nearly always
/// touches one buffer, so a per-instruction entry does not thrash between arrays). Owned by the caller of
/// `runtime::run` and kept across its calls, so that the waves of a workgroup share what earlier waves found:
/// an entry stays valid as long as the memory regions do (a launch; shared memory: one workgroup).
#[derive(Default)]
pub struct WindowCache {
    /// Entries per compiled code (`CompiledKernel::id`: never reused, unlike an address), most recently used
    /// last; a wave alternates between a kernel's `Opt` and `Quick` code, so a few are kept.
    owners: Vec<(u64, Vec<Window>)>,
    /// Instructions the interpreter executed in the `runtime::run` calls given this cache: statistics of how
    /// much of a run compiled code did not do itself.
    pub interpreted: u64,
    /// Where the runs given this cache say what they are running, for a thread that samples it (a profile's
    /// share of time per block): code compiled with `JitOptions::mark_blocks` stores each block's start on
    /// entry, the run loop `pc | MARK_INTERPRETED` before each instruction it interprets. `None`: nobody
    /// samples (compiled code that marks then writes to a local of the run loop).
    pub block_mark: Option<std::sync::Arc<std::sync::atomic::AtomicU32>>,
}

/// A `WindowCache::block_mark` value: the worker runs none of the kernel's code (between runs, or idle).
pub const MARK_IDLE: u32 = u32::MAX;
/// Set in a `WindowCache::block_mark` value whose pc the interpreter is running (else compiled code runs the
/// block starting at that pc).
pub const MARK_INTERPRETED: u32 = lanejit_interp::MARK_INTERPRETED;

/// Compiled codes a `WindowCache` keeps entries for.
const CACHED_CODES: usize = 4;

impl WindowCache {
    /// An empty cache whose runs mark what they run in `block_mark` (see the field).
    pub fn marking(block_mark: Option<std::sync::Arc<std::sync::atomic::AtomicU32>>) -> WindowCache {
        WindowCache { block_mark, ..WindowCache::default() }
    }

    /// The entries for `ck`: kept from earlier calls for the same code, else new (empty) ones.
    pub fn entries_for(&mut self, ck: &crate::CompiledKernel) -> &mut [Window] {
        match self.owners.iter().position(|(id, _)| *id == ck.id) {
            Some(i) if i + 1 == self.owners.len() => {}
            Some(i) => {
                let e = self.owners.remove(i);
                self.owners.push(e);
            }
            None => {
                if self.owners.len() == CACHED_CODES {
                    self.owners.remove(0);
                }
                self.owners.push((ck.id, vec![Window::EMPTY; ck.mem_slots]));
            }
        }
        &mut self.owners.last_mut().expect("just pushed").1
    }
}

/// Performs `a` for the active lanes when it provably cannot fault; returns false (nothing done) otherwise.
pub fn try_access(w: &mut WaveState, mem: &mut dyn Memory, window: Option<&mut Window>, a: &Access) -> bool {
    let exec = w.exec;
    if exec == 0 {
        return false;
    }
    let addrs = a.addresses(w);
    let first = addrs[exec.trailing_zeros() as usize];
    // The instruction's cached window (same space and direction) spares the region lookup.
    let cached = window
        .as_deref()
        .filter(|c| c.host != 0 && first.wrapping_sub(c.lo) < c.span + CONTIGUOUS_BYTES)
        .map(|c| HostRegion { lo: c.lo, len: c.span + CONTIGUOUS_BYTES, host: c.host as *mut u8 });
    let from_cache = cached.is_some();
    let Some(region) = cached.or_else(|| mem.host_region(a.sp, first, a.is_store())) else { return false };
    let (bytes, align) = (a.bytes as u64, a.align as u64);
    // Alignments are powers of two: a mask, not a division, tests them (this loop is hot).
    debug_assert!(align.is_power_of_two());
    let fits = |addr: u64| {
        addr & (align - 1) == 0 && region.len >= bytes && addr.wrapping_sub(region.lo) <= region.len - bytes
    };
    // Mutant 102: only the first active lane is checked.
    let checked = if crate::mutants::active(102) { 1 } else { LANES };
    if !(0..LANES).filter(|&l| exec >> l & 1 == 1).take(checked).all(|l| fits(addrs[l])) {
        return false;
    }
    // Only a region found anew is cached (rewriting an entry from itself would change nothing, or, with a
    // planted span bug, grow it on every call).
    if let Some(entry) = window.filter(|_| !from_cache && region.len >= CONTIGUOUS_BYTES) {
        // Mutant 108: the cached span is the region's length (inline accesses may run past its end). Mutant
        // 100: the span allows for one lane's word, not for the 32 lanes of an inline access.
        let span = if crate::mutants::active(108) {
            region.len
        } else if crate::mutants::active(100) {
            region.len - 4
        } else {
            region.len - CONTIGUOUS_BYTES
        };
        *entry = Window { lo: region.lo, span, host: region.host as u64 };
    }
    let host = |l: usize| region.host.wrapping_add((addrs[l] - region.lo) as usize);
    match a.dir {
        // Mutant 103: sub-word loads never sign-extend.
        Dir::Load { signed } => load(w, a, exec, signed && !crate::mutants::active(103), host),
        Dir::Store => store(w, a, exec, host),
    }
    true
}

fn load(w: &mut WaveState, a: &Access, exec: u32, signed: bool, host: impl Fn(usize) -> *mut u8) {
    let n = a.regs();
    if a.bytes == 4 {
        // The common case, without the width dispatch per lane.
        let mut out = [0u32; LANES];
        for l in (0..LANES).filter(|&l| exec >> l & 1 == 1) {
            // SAFETY: as below.
            out[l] = unsafe { AtomicU32::from_ptr(host(l).cast()).load(Relaxed) };
        }
        // Mutant 105 (see below) applies here too.
        let mask = if crate::mutants::active(105) { u32::MAX } else { exec };
        w.write_masked(a.rd, &out, mask);
        return;
    }
    let mut out = [[0u32; LANES]; 4];
    for l in (0..LANES).filter(|&l| exec >> l & 1 == 1) {
        // SAFETY: `try_access` proved [addr, addr + bytes) inside the region and aligned to the access size.
        unsafe {
            for (k, reg) in out.iter_mut().enumerate().take(n) {
                reg[l] = read_word(host(l).add(4 * k), a.bytes, signed);
            }
        }
    }
    for (k, vals) in out.iter().enumerate().take(n) {
        // Mutant 105: loaded registers written in every lane, EXEC ignored.
        if crate::mutants::active(105) {
            w.write_masked(VReg(a.rd.0 + k as u8), vals, u32::MAX);
        } else {
            w.write_v(VReg(a.rd.0 + k as u8), vals);
        }
    }
}

/// Active lanes in ascending order, so that the highest lane wins an overlap, as in the interpreter.
fn store(w: &mut WaveState, a: &Access, exec: u32, host: impl Fn(usize) -> *mut u8) {
    // Mutant 104: lanes stored in descending order (the lowest lane wins an overlap).
    let reversed = crate::mutants::active(104);
    for l in (0..LANES).map(|i| if reversed { LANES - 1 - i } else { i }).filter(|&l| exec >> l & 1 == 1) {
        for k in 0..a.regs() {
            let x = w.vn(a.rd.idx() + k)[l];
            // SAFETY: as in `load`.
            unsafe { write_word(host(l).add(4 * k), a.bytes, x) }
        }
    }
}

// Atomic (relaxed) host accesses: other workgroups may touch the same global words concurrently, and the
// interpreter's arena is atomic too, so racing guest code is never undefined behaviour on the host.

unsafe fn read_word(p: *mut u8, bytes: u32, signed: bool) -> u32 {
    unsafe {
        match (bytes, signed) {
            (1, false) => AtomicU8::from_ptr(p).load(Relaxed) as u32,
            (1, true) => AtomicU8::from_ptr(p).load(Relaxed) as i8 as i32 as u32,
            (2, false) => AtomicU16::from_ptr(p.cast()).load(Relaxed) as u32,
            (2, true) => AtomicU16::from_ptr(p.cast()).load(Relaxed) as i16 as i32 as u32,
            _ => AtomicU32::from_ptr(p.cast()).load(Relaxed),
        }
    }
}

unsafe fn write_word(p: *mut u8, bytes: u32, x: u32) {
    unsafe {
        match bytes {
            1 => AtomicU8::from_ptr(p).store(x as u8, Relaxed),
            2 => AtomicU16::from_ptr(p.cast()).store(x as u16, Relaxed),
            _ => AtomicU32::from_ptr(p.cast()).store(x, Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lanejit_interp::{HostRegion, MemFault};
    use lanejit_isa::{Sp, UReg};

    /// One global region of `buf.len()` bytes at guest address `BASE`; the port's own accesses are never used.
    struct Buf {
        buf: Vec<u8>,
    }
    const BASE: u64 = 0x1_0000_0000;

    impl Memory for Buf {
        fn check(&self, _: Sp, _: usize, _: u64, _: u32, _: bool) -> Result<(), MemFault> {
            unreachable!("try_access never goes through the checked port")
        }
        fn load(&mut self, _: Sp, _: usize, _: u64, _: u32) -> Result<u64, MemFault> {
            unreachable!()
        }
        fn store(&mut self, _: Sp, _: usize, _: u64, _: u32, _: u64) -> Result<(), MemFault> {
            unreachable!()
        }
        fn rmw32(&mut self, _: Sp, _: usize, _: u64, _: &mut dyn FnMut(u32) -> u32) -> Result<u32, MemFault> {
            unreachable!()
        }
        fn host_region(&mut self, _: Sp, addr: u64, _: bool) -> Option<HostRegion> {
            let len = self.buf.len() as u64;
            (addr.wrapping_sub(BASE) < len).then_some(HostRegion { lo: BASE, len, host: self.buf.as_mut_ptr() })
        }
    }

    fn wave(offsets: impl Fn(usize) -> u32, exec: u32) -> WaveState {
        let mut w = WaveState { exec, ..WaveState::default() };
        w.v[1] = std::array::from_fn(offsets);
        w.v[2] = std::array::from_fn(|l| 0xa0 + l as u32);
        w.u[4] = BASE as u32;
        w.u[5] = (BASE >> 32) as u32;
        w
    }

    fn access(bytes: u32, dir: Dir) -> Access {
        Access { rd: VReg(2), rs1: VReg(1), rs2: UReg(4), imm: 0, sp: Sp::Global, bytes, align: bytes, dir }
    }

    fn words(n: usize) -> Buf {
        Buf { buf: (0..n as u32).flat_map(|i| (i * 3).to_le_bytes()).collect() }
    }

    #[test]
    fn loads_write_active_lanes_and_cache_the_window() {
        let mut m = words(64);
        let mut w = wave(|l| 4 * l as u32, 0x0000_ffff);
        let mut win = Window::EMPTY;
        assert!(try_access(&mut w, &mut m, Some(&mut win), &access(4, Dir::Load { signed: false })));
        for l in 0..LANES {
            assert_eq!(w.v[2][l], if l < 16 { 3 * l as u32 } else { 0xa0 + l as u32 }, "lane {l}");
        }
        assert_eq!((win.lo, win.span), (BASE, 256 - CONTIGUOUS_BYTES));
    }

    #[test]
    fn any_active_lane_outside_or_misaligned_leaves_it_to_the_interpreter() {
        let load = access(4, Dir::Load { signed: false });
        let past_end: fn(usize) -> u32 = |l| if l == 31 { 256 } else { 0 };
        let misaligned: fn(usize) -> u32 = |l| if l == 7 { 2 } else { 0 };
        for (offsets, why) in [(past_end, "past the end"), (misaligned, "misaligned")] {
            let mut m = words(64);
            let mut w = wave(offsets, u32::MAX);
            let before = w.v[2];
            assert!(!try_access(&mut w, &mut m, None, &load), "{why}");
            assert_eq!(w.v[2], before, "{why}: nothing written");
        }
        // The same bad lanes outside EXEC do not matter.
        let mut w = wave(|l| if l == 31 { 256 } else { 0 }, 0x7fff_ffff);
        assert!(try_access(&mut w, &mut words(64), None, &load));
    }

    #[test]
    fn stores_go_in_ascending_lanes_so_the_highest_wins() {
        let mut m = words(64);
        let mut w = wave(|_| 8, 0b1011);
        assert!(try_access(&mut w, &mut m, None, &access(4, Dir::Store)));
        assert_eq!(u32::from_le_bytes(m.buf[8..12].try_into().unwrap()), 0xa3);
    }

    #[test]
    fn sub_word_loads_extend_as_asked() {
        let mut m = Buf { buf: vec![0x80; 64] };
        let mut w = wave(|l| l as u32, 1);
        assert!(try_access(&mut w, &mut m, None, &access(1, Dir::Load { signed: true })));
        assert_eq!(w.v[2][0], 0xffff_ff80);
        assert!(try_access(&mut w, &mut m, None, &access(1, Dir::Load { signed: false })));
        assert_eq!(w.v[2][0], 0x80);
    }

    #[test]
    fn empty_window_admits_only_a_misaligned_address() {
        let w = Window::EMPTY;
        for lo in [0u64, 4, 0x1_0000_0000, u64::MAX - 3] {
            assert!(lo.wrapping_sub(w.lo) > w.span, "{lo:#x}");
        }
        assert_eq!(u64::MAX % 4, 3);
    }
}
