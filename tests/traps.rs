//! Launch-level traps on every engine (the JIT in each of its modes): the budget, the wall-clock deadline, a
//! barrier deadlock, the report of a trap in one of many workgroups (deterministic: the lowest workgroup), and
//! writes made before a trap.

use lanejit::{tier, CancelToken, CompileConfig, Device, Engine, Kernel, LaunchConfig, LaunchError, TrapKind};
use std::time::Duration;

/// An engine, and the JIT promote threshold a run pins on its kernel; `name` labels failures.
struct Mode {
    name: &'static str,
    engine: Engine,
    jit_hot: u32,
}

impl Mode {
    /// `base` compiled and tiered as this mode says (a kernel of its own: one shared by the modes of a test
    /// would carry the previous mode's compiled code and heat).
    fn kernel(&self, base: &Kernel) -> Kernel {
        base.clone().with_config(CompileConfig { jit_hot: self.jit_hot, ..Default::default() })
    }

    /// The launch configuration of this mode.
    fn cfg(&self) -> LaunchConfig {
        LaunchConfig { engine: self.engine, ..Default::default() }
    }
}

/// Every engine, `--engine jit` three ways: as shipped (tiered at `tier::JIT_HOT_BLOCK`), the optimising tier
/// for every block (promote threshold 0) and the quick tier alone (`u32::MAX`). As shipped, a short run would
/// test the quick tier only.
fn modes() -> [Mode; 5] {
    let shipped = tier::JIT_HOT_BLOCK;
    let mode = |name, engine, jit_hot| Mode { name, engine, jit_hot };
    [
        mode("interp", Engine::Interp, shipped),
        mode("jit", Engine::Jit, shipped),
        mode("jit-opt", Engine::Jit, 0),
        mode("jit-quick", Engine::Jit, u32::MAX),
        mode("auto", Engine::Auto, shipped),
    ]
}

fn kernel(src: &str) -> Kernel {
    Kernel::from_asm("test.s", src).unwrap_or_else(|e| panic!("{e}"))
}

/// The trap a launch in mode `mode` (named in a failure) must have stopped with.
fn trap_of(mode: &str, r: Result<lanejit::LaunchStats, LaunchError>) -> lanejit::Trap {
    match r {
        Err(LaunchError::Trap { trap, .. }) => *trap,
        Err(e) => panic!("{mode}: expected a trap, got {e}"),
        Ok(s) => panic!("{mode}: expected a trap, the launch finished: {s:?}"),
    }
}

#[test]
fn an_infinite_loop_exhausts_the_budget() {
    let base = kernel("loop:\n  v.add v3, v3, v0\n  j loop\n");
    for m in modes() {
        let k = m.kernel(&base);
        let d = Device::new().unwrap();
        let t = trap_of(m.name, d.launch(&k, &LaunchConfig { budget: 100_000, ..m.cfg() }));
        assert_eq!(t.kind, TrapKind::BudgetExceeded, "{}: {t}", m.name);
        assert!(t.detail.contains("budget"), "{}: {t}", m.name);
    }
}

#[test]
fn the_wall_clock_deadline_stops_a_launch() {
    let base = kernel("loop:\n  v.add v3, v3, v0\n  j loop\n");
    for m in modes() {
        let k = m.kernel(&base);
        let d = Device::new().unwrap();
        let cfg = LaunchConfig { deadline: Some(Duration::from_millis(50)), ..m.cfg() };
        let t = trap_of(m.name, d.launch(&k, &cfg));
        // A deadline stop has its own kind: it depends on host speed, an instruction budget stop does not.
        assert_eq!(t.kind, TrapKind::DeadlineExceeded, "{}", m.name);
        assert!(t.detail.contains("deadline"), "{}: {t}", m.name);
    }
}

#[test]
fn a_cancel_token_stops_a_running_launch_from_another_thread() {
    let base = kernel("loop:\n  v.add v3, v3, v0\n  j loop\n");
    for m in modes() {
        let k = m.kernel(&base);
        let d = Device::new().unwrap();
        let token = CancelToken::new();
        let cfg = LaunchConfig { deadline: None, cancel: Some(token.clone()), ..m.cfg() };
        let canceller = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            token.cancel();
        });
        let r = d.launch(&k, &cfg);
        canceller.join().unwrap();
        let Err(LaunchError::Trap { trap, stats }) = r else { panic!("{}: expected a trap, got {r:?}", m.name) };
        assert_eq!(trap.kind, TrapKind::Cancelled, "{}: {trap}", m.name);
        assert!(stats.retired > 0, "{}: the loop ran until cancelled", m.name);
        // A token cancelled before the launch stops it at the first check: the kernel does not run on.
        let cancelled = CancelToken::new();
        cancelled.cancel();
        let cfg = LaunchConfig { cancel: Some(cancelled), ..m.cfg() };
        assert_eq!(trap_of(m.name, d.launch(&k, &cfg)).kind, TrapKind::Cancelled, "{}", m.name);
    }
}

#[test]
fn waves_at_different_barriers_deadlock_with_a_report() {
    // Wave 0 (u5 = 0) waits at the first barrier, wave 1 at the second.
    let src = ".workgroup 64\n  csr.r u5, wave_id\n  b.nz u5, other\n  barrier\n  end\nother:\n  barrier\n  end\n";
    let base = kernel(src);
    for m in modes() {
        let k = m.kernel(&base);
        let d = Device::new().unwrap();
        let t = trap_of(m.name, d.launch(&k, &m.cfg()));
        assert_eq!(t.kind, TrapKind::BarrierDeadlock, "{}: {t}", m.name);
        assert!(t.detail.contains("wave 0 at 0x8") && t.detail.contains("wave 1 at 0x10"), "{}: {t}", m.name);
        // The report names the wave at the other barrier (not wave 0, whatever waited first), and its pc.
        assert_eq!((t.wave, t.pc, t.workgroup), (1, 0x10, [0, 0, 0]), "{}: {t}", m.name);
    }
}

#[test]
fn a_barrier_releases_when_every_live_wave_arrives_and_ended_waves_do_not_count() {
    // Wave 1 ends at once; wave 0 passes its barrier alone.
    let src = ".workgroup 64\n  csr.r u5, wave_id\n  b.nz u5, done\n  barrier\n  v.add v3, v3, v0\ndone:\n  end\n";
    let base = kernel(src);
    for m in modes() {
        let k = m.kernel(&base);
        let d = Device::new().unwrap();
        d.launch(&k, &m.cfg()).unwrap_or_else(|e| panic!("{}: {e}", m.name));
    }
}

/// Every workgroup stores its id, then workgroups 5 and 9 run `trap 7`: the report names workgroup 5 on every
/// engine and thread count, and the stores made before the trap stay.
#[test]
fn the_lowest_trapping_workgroup_is_reported_and_earlier_writes_stay() {
    let src = "  u.ld.b64 u6, u0, 0\n  wait sm=0\n  u.shl.i u8, u2, 2\n  v.mov.u v4, u8\n  v.mov.u v5, u2\n\
               \x20 st.b32 v5, v4, u6, 0\n  wait vst=0\n  u.seq.i u9, u2, 5\n  b.nz u9, bad\n  u.seq.i u9, u2, 9\n\
               \x20 b.nz u9, bad\n  end\nbad:\n  trap 7\n";
    let base = kernel(src);
    for m in modes() {
        let k = m.kernel(&base);
        for threads in [1, 2] {
            let d = Device::new().unwrap();
            let out = d.alloc(64 * 4).unwrap().addr;
            let cfg =
                LaunchConfig { grid: [16, 1, 1], args: out.to_le_bytes().to_vec(), threads: Some(threads), ..m.cfg() };
            let t = trap_of(m.name, d.launch(&k, &cfg));
            assert_eq!(
                (t.kind, t.code, t.workgroup),
                (TrapKind::UserTrap, Some(7), [5, 0, 0]),
                "{}/{threads}: {t}",
                m.name
            );
            assert_eq!(t.pc, 0x38, "{}: {t}", m.name);
            let words = d.read_u32s(out, 6).unwrap();
            assert_eq!(words, vec![0, 1, 2, 3, 4, 5], "{}/{threads}: workgroups 0..=5 stored before the trap", m.name);
        }
    }
}

#[test]
fn out_of_bounds_accesses_name_lanes_and_addresses() {
    // Lanes 30 and 31 read past the end of a 120-byte buffer.
    let src = "  u.ld.b64 u6, u0, 0\n  wait sm=0\n  v.shl.i v4, v0, 2\n  ld.b32 v5, v4, u6, 0\n  end\n";
    let base = kernel(src);
    for m in modes() {
        let k = m.kernel(&base);
        let d = Device::new().unwrap();
        let buf = d.alloc(120).unwrap().addr;
        let t = trap_of(m.name, d.launch(&k, &LaunchConfig { args: buf.to_le_bytes().to_vec(), ..m.cfg() }));
        assert_eq!(t.kind, TrapKind::MemoryFault, "{}: {t}", m.name);
        assert_eq!(t.lanes, 0xc000_0000, "{}: {t}", m.name);
        assert_eq!(t.addrs, vec![buf + 120, buf + 124], "{}: {t}", m.name);
    }
}

#[test]
fn bad_launch_configurations_are_clear_errors() {
    let k = kernel("end\n");
    let d = Device::new().unwrap();
    for cfg in [
        LaunchConfig { grid: [0, 1, 1], ..Default::default() },
        LaunchConfig { workgroup: Some([33, 32, 1]), ..Default::default() },
        LaunchConfig { shared_bytes: Some(1 << 20), ..Default::default() },
    ] {
        match d.launch(&k, &cfg) {
            Err(LaunchError::Config(e)) => assert!(!e.to_string().is_empty()),
            other => panic!("expected a configuration error, got {other:?}"),
        }
    }
}

/// A kernel that declares its argument block (`.args N`) is refused a shorter one before anything runs; a
/// longer one is fine.
#[test]
fn a_launch_shorter_than_the_declared_arguments_is_refused() {
    let k = kernel(".args 16\n  u.ld.b64 u6, u0, 8\n  end\n");
    let d = Device::new().unwrap();
    let short = LaunchConfig { args: vec![0; 8], ..Default::default() };
    match d.launch(&k, &short) {
        Err(LaunchError::Config(e)) => {
            assert_eq!(e, lanejit::ConfigError::ArgsTooShort { declared: 16, given: 8 });
            assert!(e.to_string().contains(".args 16") && e.to_string().contains("gives 8"), "{e}");
        }
        other => panic!("expected a configuration error, got {other:?}"),
    }
    let long = LaunchConfig { args: vec![0; 24], ..Default::default() };
    d.launch(&k, &long).unwrap_or_else(|e| panic!("24 bytes for .args 16: {e}"));
}

/// Devices and kernels print what a harness wants in a failure message.
#[test]
fn devices_and_kernels_have_debug() {
    let d = Device::new().unwrap();
    let _b = d.alloc(64).unwrap();
    let text = format!("{d:?}");
    assert!(text.contains("capacity") && text.contains("allocations: 1"), "{text}");
    let k = kernel(".kernel twice\n.workgroup 64\n  end\n");
    let text = format!("{k:?}");
    assert!(text.contains("\"twice\"") && text.contains("[64, 1, 1]"), "{text}");
}
