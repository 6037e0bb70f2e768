//! Device memory that is released: launches on one device at a constant cost and flat memory, allocation and
//! free at a cost independent of the number of live allocations, double frees refused, freed memory trapping
//! on every engine and reading as zero when reused; and the speed of host copies (a figure, not a test).

use lanejit::{tier, AllocError, CompileConfig, Device, Engine, Kernel, LaunchConfig, LaunchError, TrapKind};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// Tests run one at a time: they measure time and the resident memory of the whole process.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(PoisonError::into_inner)
}

fn kernel(src: &str) -> Kernel {
    Kernel::from_asm("test.s", src).unwrap_or_else(|e| panic!("{e}"))
}

/// Resident memory of this process, from /proc/self/statm (pages times 4 KiB is close enough to compare).
fn rss_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("/proc/self/statm");
    statm.split_whitespace().nth(1).and_then(|p| p.parse::<u64>().ok()).expect("resident pages") * 4096
}

/// `launches` launches of a trivial kernel (one that reads its argument buffer) on one device: resident memory
/// flat (within 4 MiB) and the last 1,000 no slower than the first 1,000 (after a warm-up). The figure
/// is "within 20%", printed here; the assertion allows 2× so that a loaded CI machine cannot fail it, while the
/// cost that grows with live allocations (20× by 50,000 launches before) still would.
fn launches_stay_flat(launches: usize) {
    const WINDOW: usize = 1000;
    let d = Device::with_capacity(1 << 20).unwrap();
    let k = kernel("  u.ld.b64 u6, u0, 0\n  wait sm=0\n  end\n");
    let cfg = LaunchConfig { threads: Some(1), args: 7u64.to_le_bytes().to_vec(), ..Default::default() };
    let window = |n: usize| {
        let t = Instant::now();
        (0..n).for_each(|_| {
            d.launch(&k, &cfg).unwrap();
        });
        t.elapsed()
    };
    window(WINDOW);
    // The best of a few windows: other processes on a shared machine only ever add time.
    let best = || (0..5).map(|_| window(WINDOW)).min().expect("five windows");
    let first = best();
    let rss_start = rss_bytes();
    window(launches - 7 * WINDOW);
    let last = best();
    let rss_end = rss_bytes();
    println!(
        "{launches} launches: first {WINDOW} {first:?}, last {WINDOW} {last:?}; RSS {rss_start} -> {rss_end} bytes"
    );
    assert!(
        last.as_secs_f64() <= first.as_secs_f64() * 2.0,
        "the last {WINDOW} launches took {last:?}, the first {first:?}"
    );
    assert!(rss_end <= rss_start + (4 << 20), "resident memory grew from {rss_start} to {rss_end} bytes");
}

#[test]
fn a_million_launches_on_a_small_device_stay_flat() {
    let _serial = serial();
    // 2,047 leaked argument buffers used to exhaust this 1 MiB device. About 2 s in a release build.
    launches_stay_flat(1_000_000);
}

#[test]
fn launches_that_trap_release_their_arguments_too() {
    let _serial = serial();
    let d = Device::with_capacity(1 << 20).unwrap();
    let k = kernel("  trap 3\n");
    for engine in [Engine::Interp, Engine::Jit, Engine::Auto] {
        for _ in 0..3000 {
            let cfg = LaunchConfig { engine, threads: Some(1), args: vec![1; 16], ..Default::default() };
            match d.launch(&k, &cfg) {
                Err(LaunchError::Trap { trap, .. }) => assert_eq!(trap.kind, TrapKind::UserTrap, "{engine:?}: {trap}"),
                other => panic!("{engine:?}: expected the kernel's trap, got {other:?}"),
            }
        }
    }
}

/// Mean time of one allocate and one free, with `live` other allocations alive.
fn churn_cost(d: &Device, live: usize) -> Duration {
    const OPS: u32 = 20_000;
    let keep: Vec<u64> = (0..live).map(|i| d.alloc(64 + (i as u64 % 7) * 256).unwrap().addr).collect();
    let mut ring: Vec<u64> = (0..64).map(|_| d.alloc(100).unwrap().addr).collect();
    let best = (0..3)
        .map(|_| {
            let t = Instant::now();
            for i in 0..OPS as usize {
                let slot = i * 17 % ring.len();
                d.free(ring[slot]).unwrap();
                ring[slot] = d.alloc(32 + (i as u64 % 13) * 200).unwrap().addr;
            }
            t.elapsed() / OPS
        })
        .min()
        .unwrap();
    ring.into_iter().chain(keep).for_each(|a| d.free(a).unwrap());
    best
}

#[test]
fn allocation_cost_does_not_grow_with_live_allocations() {
    let _serial = serial();
    let d = Device::new().unwrap();
    let few = churn_cost(&d, 100);
    let many = churn_cost(&d, 50_000);
    println!("alloc+free: {few:?} with 100 live allocations, {many:?} with 50,000");
    // A scan of the live allocations made it about 1,000 times slower; the allocator and the table's B-tree
    // allow a small factor (cache misses in a larger table).
    assert!(many <= few * 4 + Duration::from_nanos(500), "{many:?} per op with 50,000 live, {few:?} with 100");
}

#[test]
fn double_free_and_bad_addresses_are_errors() {
    let _serial = serial();
    let d = Device::new().unwrap();
    let a = d.alloc(1000).unwrap();
    assert_eq!(d.free(a.addr + 8), Err(AllocError::NotStart { addr: a.addr + 8, start: a.addr }));
    d.free(a.addr).unwrap();
    assert_eq!(d.free(a.addr), Err(AllocError::NotAllocated { addr: a.addr }));
    assert_eq!(d.free(0), Err(AllocError::NotAllocated { addr: 0 }));
    assert!(d.read(a.addr, 4).is_err(), "a freed buffer cannot be read from the host");
    assert!(d.write(a.addr, &[1]).is_err(), "a freed buffer cannot be written from the host");
}

#[test]
fn freed_memory_reads_as_zero_when_reused() {
    let _serial = serial();
    let d = Device::new().unwrap();
    for size in [4u64, 300, 100_000, 3 << 20] {
        let a = d.alloc(size).unwrap();
        d.write(a.addr, &vec![0xa5; size as usize]).unwrap();
        d.free(a.addr).unwrap();
        let b = d.alloc(size).unwrap();
        assert_eq!(b.addr, a.addr, "the allocator reuses the freed block (else this test proves nothing)");
        assert!(d.read(b.addr, size).unwrap().iter().all(|&x| x == 0), "{size} bytes reused");
        d.free(b.addr).unwrap();
    }
}

#[test]
fn buffers_are_freed_on_drop() {
    let _serial = serial();
    let d = Device::with_capacity(1 << 20).unwrap();
    for _ in 0..10_000 {
        let b = d.buffer(64 << 10).unwrap();
        d.write(b.addr(), &[1, 2, 3]).unwrap();
    }
    // Freed explicitly first: dropping it later must not free whatever is allocated at that address since.
    let b = d.buffer(100).unwrap();
    let addr = b.addr();
    d.free(addr).unwrap();
    let c = d.alloc(100).unwrap();
    assert_eq!(c.addr, addr);
    drop(b);
    assert!(d.read(c.addr, 100).is_ok(), "dropping a buffer freed explicitly left the new allocation alone");
}

/// Every engine, `--engine jit` in its three modes (tiered, optimising tier only, quick tier only).
fn modes() -> Vec<(&'static str, Engine, u32)> {
    let shipped = tier::JIT_HOT_BLOCK;
    vec![
        ("interp", Engine::Interp, shipped),
        ("jit", Engine::Jit, shipped),
        ("jit-opt", Engine::Jit, 0),
        ("jit-quick", Engine::Jit, u32::MAX),
        ("auto", Engine::Auto, shipped),
    ]
}

#[test]
fn a_kernel_reading_a_freed_buffer_traps_on_every_engine() {
    let _serial = serial();
    // Reads the words at the address in the argument (2 KiB into the buffer), four times in a loop so that every tier runs
    // it (the next launch's argument buffer takes the start of the freed space).
    let src =
        "  u.ld.b64 u6, u0, 0\n  wait sm=0\n  v.shl.i v4, v0, 2\n  u.mov.k u9, 4\nloop:\n  ld.b32 v5, v4, u6, 0\n\
               \x20 wait vm=0\n  u.add.i u9, u9, -1\n  b.nz u9, loop\n  end\n";
    let base = kernel(src);
    for (name, engine, hot) in modes() {
        let k = base.clone().with_config(CompileConfig { jit_hot: hot, ..Default::default() });
        let d = Device::new().unwrap();
        let buf = d.alloc(4096).unwrap().addr;
        let cfg = LaunchConfig { engine, args: (buf + 2048).to_le_bytes().to_vec(), ..Default::default() };
        d.launch(&k, &cfg).unwrap_or_else(|e| panic!("{name}: the live buffer: {e}"));
        d.free(buf).unwrap();
        match d.launch(&k, &cfg) {
            Err(LaunchError::Trap { trap, .. }) => {
                assert_eq!(trap.kind, TrapKind::MemoryFault, "{name}: {trap}");
                assert!(trap.detail.contains("outside every allocation"), "{name}: {trap}");
                assert_eq!(trap.lanes, u32::MAX, "{name}: {trap}");
                assert_eq!(trap.addrs[0], buf + 2048, "{name}: {trap}");
            }
            other => panic!("{name}: expected an out-of-bounds trap, got {other:?}"),
        }
    }
}

#[test]
fn argument_buffers_are_not_allocations_after_the_launch() {
    let _serial = serial();
    let d = Device::new().unwrap();
    // Stores the argument buffer's address, which must be gone (and unfreeable) once the launch is over.
    let k = kernel(
        "  u.ld.b64 u6, u0, 0\n  wait sm=0\n  v.mov.u v4, u0\n  v.mov.u v5, u1\n  v.mov.u v3, u2\n\
                    \x20 st.b32 v4, v3, u6, 0\n  st.b32 v5, v3, u6, 4\n  wait vst=0\n  end\n",
    );
    let out = d.alloc(8).unwrap().addr;
    d.launch(&k, &LaunchConfig { args: out.to_le_bytes().to_vec(), ..Default::default() }).unwrap();
    let w = d.read_u32s(out, 2).unwrap();
    let args = w[0] as u64 | (w[1] as u64) << 32;
    assert!(d.read(args, 8).is_err(), "argument buffer at {args:#x} still readable");
    assert_eq!(d.free(args), Err(AllocError::NotAllocated { addr: args }));
    assert_eq!(d.arena.allocations().len(), 1);
}

/// Host copies of 64 MiB in and out, in one call and in 1 MiB pieces (a 64 MiB read is mostly the page faults
/// of its fresh result): `cargo test --release --test memory -- --ignored --nocapture copy_speed`.
#[test]
#[ignore = "a copy-speed report, not a check (speed is measured, never asserted): cargo test --release --test memory -- --ignored --nocapture copy_speed"]
fn copy_speed() {
    let _serial = serial();
    const BYTES: usize = 64 << 20;
    const PIECE: usize = 1 << 20;
    let d = Device::new().unwrap();
    let a = d.alloc(BYTES as u64).unwrap();
    let data: Vec<u8> = (0..BYTES).map(|i| (i * 7) as u8).collect();
    let gbs = |t: Duration| BYTES as f64 / t.as_secs_f64() / 1e9;
    let timed = |f: &mut dyn FnMut()| {
        let t = Instant::now();
        f();
        gbs(t.elapsed())
    };
    d.write(a.addr, &data).unwrap();
    let write = timed(&mut || d.write(a.addr, &data).unwrap());
    let mut back = Vec::new();
    let read = timed(&mut || back = d.read(a.addr, BYTES as u64).unwrap());
    assert_eq!(back, data);
    let pieces = (0..BYTES / PIECE).map(|k| (a.addr + (k * PIECE) as u64, &data[k * PIECE..(k + 1) * PIECE]));
    let write_pieces = timed(&mut || pieces.clone().for_each(|(at, p)| d.write(at, p).unwrap()));
    let read_pieces =
        timed(&mut || pieces.clone().for_each(|(at, p)| assert_eq!(d.read(at, PIECE as u64).unwrap(), p)));
    println!("host copy of 64 MiB: write {write:.2} GB/s, read {read:.2} GB/s; in 1 MiB pieces: write {write_pieces:.2} GB/s, read {read_pieces:.2} GB/s (read includes a compare)");
}

/// `read_into` copies exactly what `read` returns, at any alignment and length (head, whole words, tail), and
/// refuses a range reaching past the allocation without touching the caller's buffer.
#[test]
fn read_into_matches_read_at_every_alignment() {
    let _s = serial();
    let dev = Device::new().unwrap();
    let a = dev.alloc(256).unwrap();
    let data: Vec<u8> = (0..=255).collect();
    dev.write(a.addr, &data).unwrap();
    for (off, len) in [(0, 256), (1, 17), (3, 8), (7, 0), (8, 9), (250, 6)] {
        let mut out = vec![0xAA; len];
        dev.read_into(a.addr + off, &mut out).unwrap();
        assert_eq!(out, dev.read(a.addr + off, len as u64).unwrap(), "offset {off}, length {len}");
        assert_eq!(out, data[off as usize..off as usize + len], "offset {off}, length {len}");
    }
    let mut out = vec![0xAA; 8];
    let err = dev.read_into(a.addr + 250, &mut out).unwrap_err();
    assert_eq!(err, lanejit::MemoryError { addr: a.addr + 250, len: 8 });
    assert!(err.to_string().contains("outside every allocation"), "{err}");
    assert_eq!(out, vec![0xAA; 8]);
}

/// Typed copies are the byte copies of the values' memory: floats keep every bit (NaN payloads, -0.0), and a
/// read past the allocation is refused.
#[test]
fn typed_copies_keep_every_bit() {
    let _s = serial();
    let dev = Device::new().unwrap();
    let vals = [1.5f32, -0.0, f32::from_bits(0x7fc0_1234), f32::INFINITY, f32::MIN_POSITIVE / 2.0];
    let a = dev.alloc(4 * vals.len() as u64).unwrap();
    dev.write_slice(a.addr, &vals).unwrap();
    let back: Vec<f32> = dev.read_vec(a.addr, vals.len()).unwrap();
    assert_eq!(
        back.iter().map(|f| f.to_bits()).collect::<Vec<_>>(),
        vals.iter().map(|f| f.to_bits()).collect::<Vec<_>>()
    );
    assert_eq!(dev.read_u32s(a.addr, 1).unwrap(), vec![1.5f32.to_bits()]);
    assert!(dev.read_vec::<u64>(a.addr, 3).is_err(), "24 bytes from a 20-byte allocation");
}
