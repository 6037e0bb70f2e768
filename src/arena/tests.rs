use super::*;
use lanejit_interp::MemFault;

fn arena() -> Arena {
    Arena::new(1 << 24).unwrap()
}

#[test]
fn accesses_outside_the_mapping_are_refused() {
    let a = arena();
    let end = DEVICE_BASE + a.capacity();
    assert_eq!(a.load(0, 4), Err(MemFault::OutOfBounds));
    assert_eq!(a.load(DEVICE_BASE - 4, 4), Err(MemFault::OutOfBounds));
    assert_eq!(a.load(end - 4, 8), Err(MemFault::OutOfBounds));
    assert_eq!(a.store(end, 1, 0), Err(MemFault::OutOfBounds));
    assert_eq!(a.store(u64::MAX - 3, 4, 0), Err(MemFault::OutOfBounds));
    assert_eq!(a.rmw32(end, &mut |x| x), Err(MemFault::OutOfBounds));
    assert_eq!(a.load(DEVICE_BASE + 2, 4), Err(MemFault::Misaligned));
    assert_eq!(a.load(DEVICE_BASE, 3), Err(MemFault::Misaligned));
    assert_eq!(a.store(end - 8, 8, 0x0102_0304_0506_0708), Ok(()));
    assert_eq!(a.load(end - 8, 8), Ok(0x0102_0304_0506_0708));
    assert_eq!(a.rmw32(end - 4, &mut |x| x + 1), Ok(0x0102_0304));
    assert_eq!(a.host_ptr(end - 8, 9), None);
    assert_eq!(a.host_ptr(u64::MAX, 2), None);
    assert!(a.host_ptr(end - 8, 8).is_some());
}

#[test]
fn copies_of_any_alignment_and_length_round_trip() {
    let a = arena();
    let b = a.alloc(300, false).unwrap();
    for start in 0..9u64 {
        for len in [0usize, 1, 7, 8, 9, 16, 31, 200] {
            let data: Vec<u8> = (0..len).map(|i| (i as u8).wrapping_mul(13).wrapping_add(start as u8 + 1)).collect();
            a.write_bytes(b.addr + start, &data).unwrap();
            assert_eq!(a.read_bytes(b.addr + start, len as u64).unwrap(), data, "start {start}, {len} bytes");
        }
    }
    let before = a.read_bytes(b.addr, 300).unwrap();
    a.write_bytes(b.addr + 3, &[0xff; 5]).unwrap();
    let after = a.read_bytes(b.addr, 300).unwrap();
    assert_eq!((&before[..3], &before[8..]), (&after[..3], &after[8..]), "bytes around a copy are untouched");
    assert!(a.write_bytes(b.addr + 299, &[1, 2]).is_err());
}

#[test]
fn allocations_are_aligned_and_separated_by_a_guard_gap() {
    let a = arena();
    let allocs: Vec<Alloc> = (0..50).map(|i| a.alloc(i * 37, i % 2 == 0).unwrap()).collect();
    let mut sorted = allocs.clone();
    sorted.sort_by_key(|x| x.addr);
    for w in sorted.windows(2) {
        assert_eq!(w[0].addr % ALLOC_ALIGN, 0);
        assert!(w[0].addr + w[0].size + ALLOC_ALIGN <= w[1].addr, "{:?} then {:?}", w[0], w[1]);
    }
    let table = a.allocations();
    assert_eq!(table.iter().copied().collect::<Vec<_>>(), sorted);
    for x in &allocs {
        assert_eq!(table.containing(x.addr + x.size.saturating_sub(1)), (x.size > 0).then_some(*x));
        assert_eq!(table.containing(x.addr + x.size), None);
    }
}

#[test]
fn freed_memory_is_not_reused_while_a_launch_may_still_see_it() {
    let a = arena();
    let x = a.alloc(1000, false).unwrap();
    a.write_bytes(x.addr, &[7; 1000]).unwrap();
    let running = a.allocations();
    a.free(x.addr).unwrap();
    let y = a.alloc(1000, false).unwrap();
    assert_ne!(y.addr, x.addr, "reused while a snapshot listing it lives");
    assert!(a.allocations().containing(x.addr).is_none());
    assert!(a.store(x.addr, 4, 9).is_ok(), "the old launch may still write there: it is still mapped");
    drop(running);
    a.free(y.addr).unwrap();
    let z = a.alloc(1000, false).unwrap();
    assert_eq!(z.addr, x.addr, "released once the snapshot is gone");
    assert_eq!(a.read_bytes(z.addr, 1000).unwrap(), vec![0; 1000]);
}

#[test]
fn a_launch_table_holds_its_arguments_until_dropped() {
    let a = arena();
    let t = a.launch_table(&[1, 2, 3, 4, 5]).unwrap();
    let args = t.containing(t.args_addr()).unwrap();
    assert!(args.readonly && args.size == 5);
    assert_eq!(a.load(t.args_addr(), 4), Ok(0x0403_0201));
    assert!(a.allocations().is_empty(), "the device's table does not list launch arguments");
    let addr = t.args_addr();
    drop(t);
    assert_eq!(a.load(addr, 4), Ok(0), "released and zeroed");
    assert_eq!(a.state().live, 0);
}

#[test]
fn fixed_allocations_lie_below_dynamic_ones() {
    let a = arena();
    a.alloc_at(DEVICE_BASE + 0x1000, 0x100, false).unwrap();
    assert!(matches!(a.alloc_at(DEVICE_BASE + 0x10f0, 0x20, false), Err(AllocError::Overlap { .. })));
    a.alloc_at(DEVICE_BASE + 0x800, 0, false).unwrap();
    assert!(
        matches!(a.alloc_at(DEVICE_BASE + 0x800, 0, false), Err(AllocError::Overlap { .. })),
        "two empty allocations at one address"
    );
    let d = a.alloc(64, false).unwrap();
    assert!(d.addr >= DEVICE_BASE + 0x1200, "{:#x}", d.addr);
    assert!(matches!(a.alloc_at(d.addr + 0x1000, 4, false), Err(AllocError::Dynamic { .. })));
    a.alloc_at(DEVICE_BASE, 0x100, true).unwrap();
    assert!(matches!(a.alloc_at(DEVICE_BASE - 1, 4, false), Err(AllocError::OutOfRange { .. })));
    assert!(matches!(a.alloc_at(u64::MAX - 1, 4, false), Err(AllocError::OutOfRange { .. })));
    a.free(DEVICE_BASE + 0x1000).unwrap();
    assert!(a.find(DEVICE_BASE + 0x1000, 1).is_none());
}

#[test]
fn exhaustion_and_too_many_allocations_are_errors() {
    let a = Arena::new(1 << 20).unwrap();
    match a.alloc(2 << 20, false) {
        Err(AllocError::Exhausted { wanted, largest_free, capacity }) => {
            assert_eq!((wanted, capacity), (2 << 20, 1 << 20));
            assert!(largest_free > 900 << 10, "{largest_free}");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(a.alloc(u64::MAX, false), Err(AllocError::Exhausted { .. })));
    let big = Arena::new(1 << 32).unwrap();
    let all: Vec<Alloc> = (0..MAX_ALLOCATIONS).map(|_| big.alloc(1, false).unwrap()).collect();
    assert_eq!(big.alloc(1, false), Err(AllocError::TooMany { limit: MAX_ALLOCATIONS }));
    big.free(all[77].addr).unwrap();
    big.alloc(1, false).unwrap();
    assert!(Arena::new(MAX_CAPACITY + 1).is_err());
}

#[test]
fn large_frees_give_pages_back_and_read_as_zero() {
    let a = arena();
    let x = a.alloc(5 << 20, false).unwrap();
    a.write_bytes(x.addr, &vec![0x5a; 5 << 20]).unwrap();
    a.free(x.addr).unwrap();
    let y = a.alloc(5 << 20, false).unwrap();
    assert_eq!(y.addr, x.addr);
    assert!(a.read_bytes(y.addr, 5 << 20).unwrap().iter().all(|&b| b == 0));
}
