//! The debug core (`lanejit::debug`) through its Rust API: a debugged launch computes what a normal launch
//! computes, breakpoints, steps and watchpoints stop where they should, and bad requests are errors.

use lanejit::debug::{BreakAt, ExitStatus, Resume, Session, Space, StopReason, WaveRun};
use lanejit::{Device, Kernel, KernelArgs, LaunchConfig};

fn fixture(name: &str) -> Kernel {
    let path = format!("{}/../tests/dap/{name}", env!("CARGO_MANIFEST_DIR"));
    Kernel::from_asm(&path, &std::fs::read_to_string(&path).expect("the fixture exists")).expect("it assembles")
}

/// A device with one zeroed buffer of `words` u32s, and a launch of `grid` workgroups passing its address.
fn one_buffer(words: usize, grid: u32) -> (Device, u64, LaunchConfig) {
    let device = Device::new().unwrap();
    let out = device.alloc(words as u64 * 4).unwrap().addr;
    let cfg = LaunchConfig { grid: [grid, 1, 1], args: KernelArgs::new().ptr(out).into(), ..Default::default() };
    (device, out, cfg)
}

#[test]
fn a_debugged_launch_computes_what_a_launch_computes() {
    let k = Kernel::from_asm("vadd.s", include_str!("../examples/vadd.s")).unwrap();
    let n = 300u32;
    let run = |debugged: bool| {
        let device = Device::new().unwrap();
        let bufs: Vec<u64> = (0..3).map(|_| device.alloc(n as u64 * 4).unwrap().addr).collect();
        device.write_u32s(bufs[0], &(0..n).collect::<Vec<_>>()).unwrap();
        device.write_u32s(bufs[1], &(0..n).map(|i| i * 7).collect::<Vec<_>>()).unwrap();
        let args = KernelArgs::new().ptr(bufs[0]).ptr(bufs[1]).ptr(bufs[2]).u32(n);
        let cfg = LaunchConfig { grid: [n.div_ceil(64), 1, 1], args: args.into(), ..Default::default() };
        if debugged {
            let mut s = Session::new(&device, &k, &cfg).unwrap();
            assert_eq!(s.resume(Resume::Continue), StopReason::Exited(ExitStatus::Finished));
        } else {
            device.launch(&k, &cfg).unwrap();
        }
        device.read_u32s(bufs[2], n as usize).unwrap()
    };
    let plain = run(false);
    assert_eq!(plain[299], 299 * 8);
    assert_eq!(run(true), plain);
}

#[test]
fn breakpoints_conditions_hit_counts_and_steps() {
    let k = fixture("store_id.s");
    let (device, out, cfg) = one_buffer(32, 2);
    let mut s = Session::new(&device, &k, &cfg).unwrap();
    // Line 8 is the store; the condition holds in workgroup 1 only (u2 holds the workgroup id).
    let id = s.add_breakpoint(BreakAt::Line(8), Some("u2 == 1 && v5 == 131"), None).unwrap().id;
    assert_eq!(s.resume(Resume::Continue), StopReason::Breakpoint(vec![id]));
    assert_eq!(s.workgroup(), Some((1, [1, 0, 0])));
    assert_eq!(s.breakpoints()[0].hits, 1);
    assert_eq!(s.resume(Resume::StepInstruction), StopReason::Step);
    let waves = s.waves();
    assert_eq!((waves[0].pc, waves[0].run), (0x1c, WaveRun::Running));
    assert_eq!(device.read_u32s(out, 2).unwrap(), [100, 101]);
    assert_eq!(s.resume(Resume::StepInstruction), StopReason::Step);
    assert_eq!(s.waves()[0].run, WaveRun::Ended);
    assert_eq!(s.resume(Resume::Continue), StopReason::Exited(ExitStatus::Finished));
    assert_eq!(s.resume(Resume::Continue), StopReason::Exited(ExitStatus::Finished), "the end stays the end");

    let mut s = Session::new(&device, &k, &cfg).unwrap();
    let id = s.add_breakpoint(BreakAt::Pc(0x14), None, Some(2)).unwrap().id;
    assert_eq!(s.resume(Resume::Continue), StopReason::Breakpoint(vec![id]));
    assert_eq!(s.workgroup().unwrap().0, 1, "the first hit (workgroup 0) did not stop");
}

#[test]
fn watchpoints_name_the_writing_lanes_in_every_space() {
    let k = fixture("private.s");
    let (device, out, cfg) = one_buffer(32, 1);
    let mut s = Session::new(&device, &k, &cfg).unwrap();
    assert!(s.start().is_none());
    // Lane 5's private word 1, and out[7..9] in device memory.
    let private = s.add_watch(Space::Private { wave: 0, lane: 5 }, 4, 4, None).unwrap().id;
    let global = s.add_watch(Space::Global, out + 28, 8, None).unwrap().id;
    match s.resume(Resume::Continue) {
        StopReason::Watch(h) => {
            assert_eq!((h.id, h.lanes, h.wave), (private, 1 << 5, 0));
            assert_eq!((h.old, h.new), (vec![0; 4], 15u32.to_le_bytes().to_vec()));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(s.read_memory(Space::Private { wave: 0, lane: 5 }, 4, 4).unwrap(), 15u32.to_le_bytes());
    match s.resume(Resume::Continue) {
        StopReason::Watch(h) => assert_eq!((h.id, h.lanes), (global, 0b11 << 7)),
        other => panic!("{other:?}"),
    }
    assert_eq!(s.watches()[1].hits, 1);
}

#[test]
fn a_changed_register_changes_the_result() {
    let k = fixture("store_id.s");
    let (device, out, cfg) = one_buffer(32, 1);
    let mut s = Session::new(&device, &k, &cfg).unwrap();
    s.add_breakpoint(BreakAt::Line(8), None, None).unwrap();
    assert!(matches!(s.resume(Resume::Continue), StopReason::Breakpoint(_)));
    s.assign("v5[2]", "0x55").unwrap();
    s.assign("exec", "0xfffffffb").unwrap();
    assert_eq!(s.resume(Resume::Continue), StopReason::Exited(ExitStatus::Finished));
    let words = device.read_u32s(out, 4).unwrap();
    assert_eq!(words, [100, 101, 0, 103], "lane 2 was switched off in EXEC");
}

#[test]
fn traps_stop_and_end_the_launch() {
    let k = fixture("oob.s");
    let (device, _, cfg) = one_buffer(32, 1);
    let mut s = Session::new(&device, &k, &cfg).unwrap();
    let StopReason::Trap(t) = s.resume(Resume::Continue) else { panic!("no trap") };
    assert_eq!((t.kind, t.pc, t.lanes, t.addrs.len()), (lanejit::TrapKind::MemoryFault, 0x10, 0xffff_ff00, 24));
    assert!(matches!(s.resume(Resume::Continue), StopReason::Exited(ExitStatus::Trapped(_))));
    assert_eq!(s.exit_status().unwrap().code(), 1);
}

#[test]
fn pause_from_another_thread_stops_a_kernel_that_never_ends() {
    let k = fixture("spin.s");
    let device = Device::new().unwrap();
    let mut s = Session::new(&device, &k, &LaunchConfig::default()).unwrap();
    let handle = s.pause_handle();
    let pauser = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(50));
        handle.pause();
    });
    assert_eq!(s.resume(Resume::Continue), StopReason::Paused);
    pauser.join().unwrap();
    assert!(s.retired() > 0);
    assert_eq!(s.resume(Resume::StepInstruction), StopReason::Step, "a step goes on after the pause");
}

#[test]
fn bad_requests_are_errors() {
    let k = fixture("store_id.s");
    let (device, _, cfg) = one_buffer(32, 1);
    let mut s = Session::new(&device, &k, &cfg).unwrap();
    s.start();
    let err = |r: Result<(), lanejit::debug::DebugError>| r.unwrap_err().to_string();
    assert!(err(s.add_breakpoint(BreakAt::Line(2), None, None).map(drop)).contains("line 2 has no code"));
    assert!(err(s.add_breakpoint(BreakAt::Pc(0x400), None, None).map(drop)).contains("not the start"));
    assert!(err(s.add_breakpoint(BreakAt::Line(8), Some("v5 ="), None).map(drop)).contains("condition"));
    assert!(err(s.add_watch(Space::Shared, 0, 4, None).map(drop)).contains("outside shared memory"));
    assert!(err(s.add_watch(Space::Global, 0x10, 4, None).map(drop)).contains("0x10"));
    assert!(err(s.add_watch(Space::Global, 0x1_0000_0000, 65, None).map(drop)).contains("1 to 64 bytes"));
    assert!(err(s.assign("v5 == 1", "2")).contains("cannot be set"));
    assert!(err(s.evaluate("v200").map(drop)).contains("v0..v127"));
    assert!(err(s.read_memory(Space::Global, 0x1_0000_0000, 1 << 30).map(drop)).contains("at most"));
    let checks = LaunchConfig { check: lanejit::check::Checks::parse("races").unwrap(), ..cfg };
    assert!(Session::new(&device, &k, &checks).unwrap_err().to_string().contains("checkers"));
}
