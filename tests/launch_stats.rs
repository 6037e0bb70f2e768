//! What a launch reports about the work it did (issue 39, item 7): after a trap, `LaunchStats::workgroups` and
//! `waves` count the workgroups and waves that started, not the whole grid, on every engine and launch path
//! (waves back to back with or without shared memory, one wave state with private memory, interleaved waves
//! at barriers, a checking launch); a launch that ends normally counts the whole grid. And a device's address
//! space is reserved, not committed (item 13): the largest device is made on a machine with less memory.

use lanejit::check::Checks;
use lanejit::{Device, Engine, Kernel, LaunchConfig, LaunchError, LaunchStats};

/// Workgroups of two waves; wave `{wave}` of workgroup 5 traps, every other wave ends. `{decl}` selects the
/// launch path; `{sync}` is a barrier or nothing.
const SRC: &str = "
.workgroup 64
{decl}
    csr.r u10, wave_id
    {sync}
    u.add.i u11, u2, -5
    u.add.i u12, u10, -{wave}
    u.or u13, u11, u12
    b.nz u13, fine
    trap 9
fine:
    end
";

const GROUPS: u32 = 1000;

/// The launch paths: back to back (plain, and crossing no workgroup because of shared memory), one wave state
/// (private memory), and interleaved waves (a barrier).
const PATHS: [(&str, &str); 4] = [("", ""), (".shared 64", ""), (".private 4", ""), ("", "barrier")];

fn kernel(decl: &str, sync: &str, wave: u32) -> Kernel {
    let src = SRC.replace("{decl}", decl).replace("{sync}", sync).replace("{wave}", &wave.to_string());
    Kernel::from_asm("stats.s", &src).unwrap_or_else(|e| panic!("{e}"))
}

fn launch(kernel: &Kernel, engine: Engine, threads: usize, check: Checks) -> Result<LaunchStats, LaunchError> {
    let d = Device::new().unwrap();
    let cfg = LaunchConfig { grid: [GROUPS, 1, 1], engine, threads: Some(threads), check, ..Default::default() };
    d.launch(kernel, &cfg)
}

#[test]
fn a_trap_reports_only_the_workgroups_and_waves_that_started() {
    for (decl, sync) in PATHS {
        for wave in [0, 1] {
            let k = kernel(decl, sync, wave);
            for (engine, check) in
                [(Engine::Interp, Checks::default()), (Engine::Jit, Checks::default()), (Engine::Auto, Checks::ALL)]
            {
                let what = format!("{decl:?} {sync:?}, trap in wave {wave}, {engine:?}, checks {check}");
                let Err(LaunchError::Trap { trap, stats }) = launch(&k, engine, 1, check) else {
                    panic!("{what}: no trap")
                };
                assert_eq!((trap.workgroup, trap.wave), ([5, 0, 0], wave), "{what}");
                // One thread runs the workgroups in order: 0..=5 started, and in workgroup 5 the waves up to
                // the trapping one. A barrier makes both waves of workgroup 5 start before either reaches the
                // compare.
                let waves_in_5 = if sync.is_empty() { wave as u64 + 1 } else { 2 };
                assert_eq!((stats.workgroups, stats.waves), (6, 5 * 2 + waves_in_5), "{what}");
            }
        }
    }
}

#[test]
fn on_two_threads_a_trap_reports_at_most_what_the_grid_holds_and_at_least_what_led_to_it() {
    for (decl, sync) in PATHS {
        let k = kernel(decl, sync, 1);
        for engine in [Engine::Interp, Engine::Jit] {
            let Err(LaunchError::Trap { stats, .. }) = launch(&k, engine, 2, Checks::default()) else {
                panic!("{decl:?} {sync:?} {engine:?}: no trap")
            };
            // The trapping workgroup's worker ran 0..=5; the other worker began at a later run of workgroups
            // and stops once it sees the trap (all of them, if the first worker was descheduled that long).
            assert!((6..=GROUPS as u64).contains(&stats.workgroups), "{decl:?} {sync:?} {engine:?}: {stats:?}");
            assert!(stats.waves <= 2 * stats.workgroups && stats.waves >= 12, "{decl:?} {sync:?}: {stats:?}");
        }
    }
}

#[test]
fn a_launch_that_ends_counts_the_whole_grid() {
    for (decl, sync) in PATHS {
        // Wave 3 does not exist: nothing traps.
        let k = kernel(decl, sync, 3);
        for engine in [Engine::Interp, Engine::Jit, Engine::Auto] {
            for threads in [1, 2] {
                let stats = launch(&k, engine, threads, Checks::default()).unwrap();
                assert_eq!((stats.workgroups, stats.waves), (GROUPS as u64, 2 * GROUPS as u64), "{decl:?} {sync:?}");
            }
        }
        let stats = launch(&k, Engine::Interp, 1, Checks::ALL).unwrap();
        assert_eq!((stats.workgroups, stats.waves), (GROUPS as u64, 2 * GROUPS as u64), "checked {decl:?}");
    }
}

/// The largest device reserves 1 TiB of address space, more than this machine's memory: refused with ENOMEM
/// before its mapping asked for no commitment (Linux's default overcommit heuristic refuses a private mapping
/// larger than RAM plus swap). Under strict accounting (`vm.overcommit_memory` 2) the flag is ignored and the
/// test has nothing to show.
#[test]
fn the_largest_device_reserves_address_space_without_committing_it() {
    let strict = std::fs::read_to_string("/proc/sys/vm/overcommit_memory").is_ok_and(|s| s.trim() == "2");
    if strict || !cfg!(target_os = "linux") {
        eprintln!("skipped: strict overcommit accounting (or not Linux)");
        return;
    }
    let d = Device::with_capacity(lanejit::arena::MAX_CAPACITY).unwrap_or_else(|e| panic!("{e}"));
    // A buffer at the far end of a large one is usable: its pages are committed when touched.
    let big = d.alloc(512 << 30).unwrap();
    let small = d.alloc(4096).unwrap();
    d.write(small.addr, &[7u8; 4096]).unwrap();
    assert_eq!(d.read_u32s(small.addr, 1).unwrap(), [0x0707_0707]);
    d.free(big.addr).unwrap();
}
