//! The dynamic checkers for C (`lanejit::check`): which ones a launch runs (`LjLaunchConfig::checks`, a mask of
//! `LJ_CHECK_*` bits), the device-memory tracking the `buffers` check needs, and the findings of the calling
//! thread's last launch as JSON (the `lanejit run --check --json` entries).

use super::{guard, non_null, Failure, LjDevice, LjStatus};
use lanejit::check::{render_json, Checks, Finding};
use std::cell::RefCell;
use std::ffi::{c_char, CString};

/// Checker bit: a register read or overwritten before the `wait` its load, store or transcendental op needs.
pub const LJ_CHECK_WAITS: u32 = 1;
/// Checker bit: shared-memory races between the waves of a workgroup.
pub const LJ_CHECK_RACES: u32 = 2;
/// Checker bit: barriers under partial EXEC, skipped by some waves, or different barriers.
pub const LJ_CHECK_BARRIERS: u32 = 4;
/// Checker bit: a value nothing wrote reaching an address, a branch, EXEC or a store.
pub const LJ_CHECK_UNINIT: u32 = 8;
/// Checker bit: the uninit check also for device memory the host never wrote (implies `LJ_CHECK_UNINIT`); the
/// device must track its bytes from before the buffers are made ([`lj_device_track_uninit_memory`]).
pub const LJ_CHECK_BUFFERS: u32 = 16;

/// The `Checks` a mask asks for; an unknown bit is bad input.
pub(crate) fn checks(mask: u32) -> Result<Checks, Failure> {
    let known = LJ_CHECK_WAITS | LJ_CHECK_RACES | LJ_CHECK_BARRIERS | LJ_CHECK_UNINIT | LJ_CHECK_BUFFERS;
    if mask & !known != 0 {
        return Err(super::bad(format!("checks {mask:#x} has bits no LJ_CHECK_* names ({:#x})", mask & !known)));
    }
    let on = |bit: u32| mask & bit != 0;
    Ok(Checks {
        waits: on(LJ_CHECK_WAITS),
        races: on(LJ_CHECK_RACES),
        barriers: on(LJ_CHECK_BARRIERS),
        uninit: on(LJ_CHECK_UNINIT) || on(LJ_CHECK_BUFFERS),
        buffers: on(LJ_CHECK_BUFFERS),
    })
}

thread_local! {
    static LAST_FINDINGS: RefCell<CString> = RefCell::new(c"[]".to_owned());
}

/// Empties the calling thread's findings ("[]"), allocating nothing when they already are (every launch calls
/// this first, so that a launch refused before it ran leaves none of the previous launch's).
pub(crate) fn clear_last_findings() {
    LAST_FINDINGS.with(|f| {
        let mut f = f.borrow_mut();
        if f.as_bytes() != b"[]" {
            *f = c"[]".to_owned();
        }
    });
}

/// Keeps `findings` as the calling thread's last launch's (JSON; "[]" for none).
pub(crate) fn set_last_findings(findings: &[Finding]) {
    if findings.is_empty() {
        return clear_last_findings();
    }
    let text = render_json(findings).to_string();
    let c = CString::new(text.replace('\0', "\\u0000")).unwrap_or_default();
    LAST_FINDINGS.with(|f| *f.borrow_mut() = c);
}

/// The checkers' findings of the calling thread's last `lj_launch` (also of one that trapped), as a JSON array
/// of objects, "[]" when it found nothing, ran no checker or was refused (bad input, a compile failure); valid
/// until the thread's next launch. Each object names its `check` (wait, race, barrier, uninit), the pcs, source
/// lines, waves and lanes.
#[no_mangle]
pub extern "C" fn lj_last_findings() -> *const c_char {
    LAST_FINDINGS.with(|f| f.borrow().as_ptr())
}

/// From now on the device remembers which bytes of its memory hold a written value, for `LJ_CHECK_BUFFERS`:
/// a new buffer's bytes are undefined until the host writes them or a checked launch stores to them. Call it
/// before making the buffers; a launch without the uninit checker counts every live byte as written.
#[no_mangle]
pub unsafe extern "C" fn lj_device_track_uninit_memory(device: *const LjDevice) -> LjStatus {
    guard(|| {
        let d = unsafe { non_null(device, "device") }?;
        d.0.track_uninit_memory().map_err(|e| Failure(LjStatus::Failed, e.to_string()))?;
        Ok(LjStatus::Ok)
    })
}
