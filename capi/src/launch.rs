//! Launches from C: the conversion of `LjLaunchConfig` to the library's `LaunchConfig`, and of its statistics
//! and trap report back, and `lj_launch` itself.

use super::{bad, bytes, c_str, check, guard, non_null, Failure, Out};
use super::{LjDevice, LjEngine, LjKernel, LjLaunchConfig, LjStats, LjStatus, LjTrap, LjTrapKind};
use super::{LJ_FROM_KERNEL, LJ_LANES, LJ_NO_DEADLINE};
use lanejit::{Engine, LaunchConfig, LaunchError, LaunchStats, Schedule, Trap, TrapKind};
use std::time::Duration;

/// The defaults: one workgroup of the kernel's size, no arguments, the JIT, the default budget and deadline.
#[no_mangle]
pub extern "C" fn lj_launch_config_default() -> LjLaunchConfig {
    LjLaunchConfig {
        grid: [1, 1, 1],
        workgroup: [0, 0, 0],
        args: std::ptr::null(),
        args_len: 0,
        shared_bytes: LJ_FROM_KERNEL,
        private_bytes: LJ_FROM_KERNEL,
        budget: 0,
        deadline_ms: 0,
        engine: LjEngine::Auto as u32,
        threads: 0,
        cancel: std::ptr::null(),
        checks: 0,
        schedule: std::ptr::null(),
    }
}

pub(crate) fn launch_config(c: &LjLaunchConfig) -> Result<LaunchConfig, Failure> {
    let defaults = LaunchConfig::default();
    let from_kernel = |v: u32| (v != LJ_FROM_KERNEL).then_some(v);
    let engine = match c.engine {
        0 => Engine::Interp,
        1 => Engine::Jit,
        2 => Engine::Auto,
        other => return Err(bad(format!("engine {other} is none of LJ_ENGINE_INTERP, _JIT, _AUTO"))),
    };
    Ok(LaunchConfig {
        grid: c.grid,
        workgroup: (c.workgroup != [0; 3]).then_some(c.workgroup),
        args: unsafe { bytes(c.args, c.args_len, "config.args") }?.to_vec(),
        shared_bytes: from_kernel(c.shared_bytes),
        private_bytes: from_kernel(c.private_bytes),
        budget: if c.budget == 0 { defaults.budget } else { c.budget },
        deadline: match c.deadline_ms {
            0 => defaults.deadline,
            LJ_NO_DEADLINE => None,
            ms => Some(Duration::from_millis(ms)),
        },
        engine,
        threads: (c.threads != 0).then_some(c.threads as usize),
        check: check::checks(c.checks)?,
        cancel: unsafe { c.cancel.as_ref() }.map(|t| t.0.clone()),
        schedule: match c.schedule.is_null() {
            true => defaults.schedule,
            false => Schedule::parse(unsafe { c_str(c.schedule, "config.schedule") }?)
                .map_err(|e| bad(format!("config.schedule: {e}")))?,
        },
        // (No timeline, profile or progress count from C yet.)
        ..defaults
    })
}

fn stats(s: &LaunchStats) -> LjStats {
    LjStats {
        retired: s.retired,
        interpreted: s.interpreted,
        lane_ops: s.lane_ops,
        workgroups: s.workgroups,
        waves: s.waves,
        elapsed_ns: s.elapsed.as_nanos().min(u64::MAX as u128) as u64,
        findings: s.findings.len() as u64,
    }
}

fn trap_kind(k: TrapKind) -> LjTrapKind {
    match k {
        TrapKind::IllegalInsn => LjTrapKind::IllegalInsn,
        TrapKind::MemoryFault => LjTrapKind::MemoryFault,
        TrapKind::Misaligned => LjTrapKind::Misaligned,
        TrapKind::UserTrap => LjTrapKind::UserTrap,
        TrapKind::Breakpoint => LjTrapKind::Breakpoint,
        TrapKind::PcOutOfRange => LjTrapKind::PcOutOfRange,
        TrapKind::BarrierDeadlock => LjTrapKind::BarrierDeadlock,
        TrapKind::BudgetExceeded => LjTrapKind::BudgetExceeded,
        TrapKind::DeadlineExceeded => LjTrapKind::DeadlineExceeded,
        TrapKind::Cancelled => LjTrapKind::Cancelled,
    }
}

fn trap_report(t: &Trap) -> LjTrap {
    let mut addresses = [0; LJ_LANES];
    let n = t.addrs.len().min(LJ_LANES);
    addresses[..n].copy_from_slice(&t.addrs[..n]);
    LjTrap {
        kind: trap_kind(t.kind),
        pc: t.pc,
        workgroup: t.workgroup,
        wave: t.wave,
        lanes: t.lanes,
        addresses,
        address_count: n as u32,
        has_code: t.code.is_some() as u32,
        code: t.code.unwrap_or(0),
    }
}

/// Launches `kernel` on `device` and waits for it. `stats_out` (may be NULL) receives the statistics, also of
/// a trapped launch (the work up to the trap); `trap_out` (may be NULL) the trap report when the result is
/// `LJ_STATUS_TRAP`. Writes a trapped launch made before its trap stay in device memory.
#[no_mangle]
pub unsafe extern "C" fn lj_launch(
    device: *const LjDevice,
    kernel: *const LjKernel,
    config: *const LjLaunchConfig,
    stats_out: *mut LjStats,
    trap_out: *mut LjTrap,
) -> LjStatus {
    // Before anything can refuse the launch: findings read after a refused launch must not be the previous one's.
    check::clear_last_findings();
    guard(|| {
        let d = unsafe { non_null(device, "device") }?;
        let k = unsafe { non_null(kernel, "kernel") }?;
        let cfg = launch_config(unsafe { non_null(config, "config") }?)?;
        let (stats_out, trap_out) = unsafe { (Out::optional(stats_out), Out::optional(trap_out)) };
        let (result, s) = match d.0.launch(&k.kernel, &cfg) {
            Ok(s) => (Ok(LjStatus::Ok), s),
            Err(LaunchError::Config(e)) => return Err(bad(e.to_string())),
            Err(LaunchError::Compile(e)) => return Err(Failure(LjStatus::Failed, e.to_string())),
            Err(LaunchError::Trap { trap, stats }) => {
                if let Some(out) = trap_out {
                    out.write(trap_report(&trap));
                }
                (Err(Failure(LjStatus::Trap, trap.to_string())), stats)
            }
        };
        check::set_last_findings(&s.findings);
        // A trapped launch's statistics are the library's for it (the work up to the trap), not zeros.
        if let Some(out) = stats_out {
            out.write(stats(&s));
        }
        result
    })
}
