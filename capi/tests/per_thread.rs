//! Issue 39, item 9: what a thread reads after a call (`lj_last_findings`, `lj_last_error`) is that call's, on
//! every path, including a launch refused before it ran; and a trapped launch's `stats_out` holds what the
//! library reported for it.

use lanejit_c::*;
use std::ffi::{c_char, CStr};
use std::ptr::{null, null_mut};

/// Line 8 reads v6 before `wait vm=0` covers the load of line 7: one wait finding under `LJ_CHECK_WAITS`.
const PLANTED: &CStr = c".kernel planted
.workgroup 32
.args 8
    u.ld.b64 u6, u0, 0
    wait sm=0
    v.shl.i v5, v0, 2
    ld.b32 v6, v5, u6, 0
    v.add.i v7, v6, 1
    wait vm=0
    st.b32 v7, v5, u6, 0
    wait vst=0
    end
";

/// Workgroups 0 and 1 (two waves each) run to their end, workgroup 2 traps (u2 holds the workgroup's x).
const TRAPS: &str = ".kernel traps
.workgroup 64
    v.add v1, v0, v0
    u.seq.i u4, u2, 2
    b.z u4, done
    trap 3
done:
    end
";

fn text(p: *const c_char) -> String {
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

fn findings() -> String {
    text(lj_last_findings())
}

fn last_error() -> String {
    text(lj_last_error())
}

struct Fixture {
    dev: *mut LjDevice,
    kernel: *mut LjKernel,
    buf: u64,
}

impl Fixture {
    fn new(source: &CStr) -> Fixture {
        let (mut dev, mut kernel, mut buf) = (null_mut(), null_mut(), 0);
        unsafe {
            assert_eq!(lj_device_new(0, &mut dev), LjStatus::Ok, "{}", last_error());
            assert_eq!(lj_kernel_from_asm(c"k.s".as_ptr(), source.as_ptr(), &mut kernel), LjStatus::Ok);
            assert_eq!(lj_alloc(dev, 128, &mut buf), LjStatus::Ok, "{}", last_error());
        }
        Fixture { dev, kernel, buf }
    }

    fn config(&self, checks: u32) -> LjLaunchConfig {
        LjLaunchConfig { args: (&self.buf as *const u64).cast(), args_len: 8, checks, ..lj_launch_config_default() }
    }

    /// A checked launch that finds the planted wait hazard.
    fn launch_with_a_finding(&self) {
        let cfg = self.config(LJ_CHECK_WAITS);
        let mut stats = LjStats::default();
        assert_eq!(unsafe { lj_launch(self.dev, self.kernel, &cfg, &mut stats, null_mut()) }, LjStatus::Ok);
        assert_eq!(stats.findings, 1);
        assert!(findings().contains("read_before_wait"), "{}", findings());
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        unsafe {
            lj_kernel_free(self.kernel);
            lj_device_free(self.dev);
        }
    }
}

#[test]
fn a_launch_refused_as_bad_input_leaves_no_findings_of_the_one_before() {
    let f = Fixture::new(PLANTED);
    let good = f.config(LJ_CHECK_WAITS);
    let refusals: [(&str, LjLaunchConfig); 6] = [
        ("unknown engine", LjLaunchConfig { engine: 7, ..good }),
        ("unknown checker bit", LjLaunchConfig { checks: LJ_CHECK_WAITS | 1 << 7, ..good }),
        ("NULL args with a length", LjLaunchConfig { args: null(), ..good }),
        ("empty grid", LjLaunchConfig { grid: [0, 1, 1], ..good }),
        ("too few argument bytes", LjLaunchConfig { args_len: 4, ..good }),
        ("buffers check on an untracked device", LjLaunchConfig { checks: LJ_CHECK_BUFFERS, ..good }),
    ];
    for (what, cfg) in &refusals {
        f.launch_with_a_finding();
        let status = unsafe { lj_launch(f.dev, f.kernel, cfg, null_mut(), null_mut()) };
        assert_eq!(status, LjStatus::BadInput, "{what}");
        assert_eq!(findings(), "[]", "{what}: the findings are the launch before's");
    }
    let null_arguments: [(&str, *const LjDevice, *const LjKernel, *const LjLaunchConfig); 3] = [
        ("NULL device", null(), f.kernel, &good),
        ("NULL kernel", f.dev, null(), &good),
        ("NULL config", f.dev, f.kernel, null()),
    ];
    for (what, dev, kernel, cfg) in null_arguments {
        f.launch_with_a_finding();
        assert_eq!(unsafe { lj_launch(dev, kernel, cfg, null_mut(), null_mut()) }, LjStatus::BadInput, "{what}");
        assert_eq!(findings(), "[]", "{what}: the findings are the launch before's");
    }
}

#[test]
fn the_last_error_is_the_last_calls() {
    let f = Fixture::new(PLANTED);
    assert_eq!(unsafe { lj_free(f.dev, f.buf + 4) }, LjStatus::BadInput);
    assert!(!last_error().is_empty(), "a failure sets the message");
    let mut addr = 0;
    assert_eq!(unsafe { lj_alloc(f.dev, 64, &mut addr) }, LjStatus::Ok);
    assert_eq!(last_error(), "", "a success after a failure still reads its message");
    let cfg = f.config(0);
    assert_eq!(unsafe { lj_launch(null(), f.kernel, &cfg, null_mut(), null_mut()) }, LjStatus::BadInput);
    assert_eq!(unsafe { lj_launch(f.dev, f.kernel, &cfg, null_mut(), null_mut()) }, LjStatus::Ok);
    assert_eq!(last_error(), "", "a launch after a refused one still reads its message");
}

/// Sets every byte of the statistics, so that a field the call leaves alone shows.
fn poisoned() -> LjStats {
    let p = u64::MAX - 1;
    LjStats { retired: p, interpreted: p, lane_ops: p, workgroups: p, waves: p, elapsed_ns: p, findings: p }
}

#[test]
fn a_trapped_launch_writes_the_librarys_statistics() {
    let source = std::ffi::CString::new(TRAPS).unwrap();
    let f = Fixture::new(&source);
    for (engine, lib_engine) in [(LjEngine::Interp, lanejit::Engine::Interp), (LjEngine::Jit, lanejit::Engine::Jit)] {
        // One thread runs the workgroups in order, so both sides stop at the same point.
        let cfg = LjLaunchConfig { grid: [4, 1, 1], engine: engine as u32, threads: 1, ..f.config(0) };
        let mut stats = poisoned();
        let mut trap = std::mem::MaybeUninit::<LjTrap>::uninit();
        let status = unsafe { lj_launch(f.dev, f.kernel, &cfg, &mut stats, trap.as_mut_ptr()) };
        assert_eq!(status, LjStatus::Trap, "{engine:?}: {}", last_error());
        assert_eq!(unsafe { trap.assume_init() }.code, 3);

        let device = lanejit::Device::new().unwrap();
        let kernel = lanejit::Kernel::from_asm("k.s", TRAPS).unwrap();
        let lib_cfg =
            lanejit::LaunchConfig { grid: [4, 1, 1], engine: lib_engine, threads: Some(1), ..Default::default() };
        let Err(lanejit::LaunchError::Trap { stats: want, .. }) = device.launch(&kernel, &lib_cfg) else {
            panic!("{engine:?}: the library's launch did not trap");
        };
        eprintln!("{engine:?}: stats_out {stats:?}, library {want:?}");
        let got = (stats.retired, stats.interpreted, stats.lane_ops, stats.workgroups, stats.waves, stats.findings);
        let lib = (want.retired, want.interpreted, want.lane_ops, want.workgroups, want.waves, 0);
        assert_eq!(got, lib, "{engine:?}: (retired, interpreted, lane_ops, workgroups, waves, findings)");
        assert!(stats.workgroups >= 3 && stats.elapsed_ns < u64::MAX - 1, "{engine:?}: {stats:?}");
    }
}
