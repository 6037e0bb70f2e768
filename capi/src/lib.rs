//! The C ABI of lanejit: device memory, kernels from assembly text or bytes, launches with statistics and
//! precise trap reports, for harnesses written in C, C++ or anything with a C foreign-function interface (the
//! Python module in `python/` is a pyo3 extension over the same Rust API, with the same statuses).
//!
//! Conventions, the same for every function:
//! - a function that can fail returns an [`LjStatus`] whose values are the `lanejit` command's exit codes
//!   (0 ok, 1 the kernel trapped, 2 bad input), plus [`LjStatus::Failed`] for a failure of the emulator itself
//!   (out of memory, a JIT compile error, an internal panic);
//! - after a failure, [`lj_last_error`] returns the message on the calling thread (a trap's full report, an
//!   assembly error's file, line and column), valid until the thread's next call; every function returning a
//!   status clears it first, so after a success it is "";
//! - outputs go through pointers the caller owns, written only on success (a trap report on `LJ_STATUS_TRAP`);
//!   a NULL where an output is required is bad input found before anything is made, so nothing leaks;
//! - every handle made by a `_new`/`_from_` function is released by its `_free` function, which accepts NULL;
//! - a NULL pointer where one is required is bad input, never a crash, and no panic crosses the boundary.

#![deny(missing_docs)]
#![allow(clippy::missing_safety_doc)] // each function's safety contract is the module text above, in the header too

mod check;
mod explore;
mod image;
mod launch;
pub use check::{
    lj_device_track_uninit_memory, lj_last_findings, LJ_CHECK_BARRIERS, LJ_CHECK_BUFFERS, LJ_CHECK_RACES,
    LJ_CHECK_UNINIT, LJ_CHECK_WAITS,
};
pub use explore::{
    lj_explore, lj_explore_config_default, lj_last_exploration, LjExploreConfig, LjExploreResult, LJ_SCHEDULE_TEXT,
};
pub use image::{lj_image_descriptor, lj_image_layout, LjImageLayout, LjImageSpec};
pub use launch::{lj_launch, lj_launch_config_default};

use lanejit::{CancelToken, Device, Kernel, Module};
use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::NonNull;

/// Lanes of a wave (the width of [`LjTrap::addresses`]).
pub const LJ_LANES: usize = 32;
const _: () = assert!(LJ_LANES == lanejit::LANES, "the header's lane count is the ISA's");

/// In [`LjLaunchConfig`]'s `shared_bytes` and `private_bytes`: take the kernel's `.shared` / `.private`.
pub const LJ_FROM_KERNEL: u32 = u32::MAX;
/// In [`LjLaunchConfig::deadline_ms`]: no wall-clock deadline (the instruction budget still holds).
pub const LJ_NO_DEADLINE: u64 = u64::MAX;

/// What a call did; the values are the `lanejit` command's exit codes, plus `FAILED`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LjStatus {
    /// Success.
    Ok = 0,
    /// The kernel trapped (also at its budget or deadline); the trap report was written.
    Trap = 1,
    /// Bad input: a NULL or malformed argument, assembly errors, an address outside every allocation.
    BadInput = 2,
    /// The emulator failed: out of device memory, a JIT compile error, an internal error.
    Failed = 3,
}

/// Which engine runs guest code.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LjEngine {
    /// The reference interpreter (the golden model).
    Interp = 0,
    /// Compiled code: the launch waits for the whole kernel's quick compilation (benchmarks of compiled code).
    Jit = 1,
    /// Tiered (the default): starts at once in the interpreter, hot blocks compiled on background threads.
    Auto = 2,
}

/// A trap's kind.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LjTrapKind {
    /// An unknown opcode, reserved bits set, an odd register pair, `writelane` past the last lane.
    IllegalInsn = 0,
    /// An access outside every allocation, or a store to constant memory.
    MemoryFault = 1,
    /// An access not aligned to its size.
    Misaligned = 2,
    /// A `trap imm` instruction (`code` holds the immediate).
    UserTrap = 3,
    /// A breakpoint instruction.
    Breakpoint = 4,
    /// The pc left the code.
    PcOutOfRange = 5,
    /// Waves of a workgroup wait at different barriers.
    BarrierDeadlock = 6,
    /// The launch retired its instruction budget.
    BudgetExceeded = 7,
    /// The wall-clock deadline passed.
    DeadlineExceeded = 8,
    /// The launch's `LjCancel` was cancelled.
    Cancelled = 9,
}

/// Device memory: a reserved address range with an allocator. Opaque.
pub struct LjDevice(Device);

/// An assembled kernel, shareable by launches on several threads. Opaque.
pub struct LjKernel {
    kernel: Kernel,
    name: CString,
}

/// The kernels of one source or ELF file, looked up by name. Opaque.
pub struct LjModule {
    module: Module,
    names: Vec<CString>,
}

/// Cancels running launches from another thread ([`lj_cancel`]). Opaque.
pub struct LjCancel(CancelToken);

/// A launch's settings; start from [`lj_launch_config_default`].
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LjLaunchConfig {
    /// Workgroups in x, y, z (each at least 1).
    pub grid: [u32; 3],
    /// Threads per workgroup in x, y, z; all zero takes the kernel's `.workgroup`.
    pub workgroup: [u32; 3],
    /// The kernel argument bytes (at least the kernel's `.args`), copied to a constant buffer whose address
    /// the kernel finds in u0:u1. May be NULL when `args_len` is 0.
    pub args: *const u8,
    /// Bytes at `args`.
    pub args_len: usize,
    /// Shared bytes per workgroup; `LJ_FROM_KERNEL` takes the kernel's `.shared`.
    pub shared_bytes: u32,
    /// Private bytes per lane; `LJ_FROM_KERNEL` takes the kernel's `.private`.
    pub private_bytes: u32,
    /// Most instructions the launch may retire; 0 takes the default (2^40).
    pub budget: u64,
    /// Wall-clock limit in milliseconds; 0 takes the default (600 s), `LJ_NO_DEADLINE` sets none.
    pub deadline_ms: u64,
    /// An `LjEngine` value (a plain integer here, so that a value C makes up is bad input, not undefined
    /// behaviour).
    pub engine: u32,
    /// Worker threads; 0 uses one per core.
    pub threads: u32,
    /// NULL, or a cancellation handle: after `lj_cancel` on it (from any thread) the launch stops at its next
    /// check (every 4,096 instructions a worker retires) with an `LJ_TRAP_KIND_CANCELLED` trap. It must outlive
    /// the launch.
    pub cancel: *const LjCancel,
    /// The checkers to run, a mask of `LJ_CHECK_*` bits (0: none). A checking launch runs on the interpreter,
    /// one workgroup at a time, whatever `engine` says; its findings are in `LjStats::findings` and, as JSON, in
    /// [`lj_last_findings`].
    pub checks: u32,
    /// NULL or "fixed" (the launch's own order), or another legal interleaving of waves and workgroups, as
    /// `lanejit run --schedule` takes it: `"rr:K"`, `"random:SEED[,switches=S]"` or
    /// `"pct:SEED,DEPTH[,horizon=H][,switches=S]"` (docs/schedules.md). Every schedule but fixed is simulated on
    /// the calling thread, so the same text gives the same results on every engine; one that does not parse is
    /// bad input. Checkers run the fixed schedule only.
    pub schedule: *const c_char,
}

/// A launch's statistics.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct LjStats {
    /// Instructions retired, summed over waves.
    pub retired: u64,
    /// Of `retired`, the instructions the interpreter executed.
    pub interpreted: u64,
    /// Instructions times the lanes active when each ran.
    pub lane_ops: u64,
    /// Workgroups run.
    pub workgroups: u64,
    /// Waves run.
    pub waves: u64,
    /// Wall-clock time of the launch in nanoseconds.
    pub elapsed_ns: u64,
    /// Distinct findings of the checkers (0 without checkers); [`lj_last_findings`] lists them.
    pub findings: u64,
}

/// A trap report; its full text is [`lj_last_error`]'s message.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LjTrap {
    /// What happened.
    pub kind: LjTrapKind,
    /// Byte offset of the trapping instruction in the kernel's code.
    pub pc: u32,
    /// The trapping wave's workgroup id.
    pub workgroup: [u32; 3],
    /// The trapping wave's index in its workgroup.
    pub wave: u32,
    /// Lanes involved (bit i = lane i); 0 when the trap concerns the whole wave.
    pub lanes: u32,
    /// Faulting addresses, in lane order of `lanes`; `address_count` of them are valid.
    pub addresses: [u64; LJ_LANES],
    /// How many of `addresses` are valid.
    pub address_count: u32,
    /// 1 when `code` holds the immediate of a `trap` instruction (kind `USER_TRAP`).
    pub has_code: u32,
    /// The `trap` instruction's immediate, when `has_code` is 1.
    pub code: u32,
}

/// A kernel's metadata.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct LjKernelInfo {
    /// Threads per workgroup in x, y, z (the kernel's `.workgroup`).
    pub workgroup: [u32; 3],
    /// Shared bytes per workgroup (`.shared`).
    pub shared_bytes: u32,
    /// Private bytes per lane.
    pub private_bytes: u32,
    /// Argument bytes the kernel reads (its `.args`): a launch must pass at least this many.
    pub arg_bytes: u32,
    /// Code size in 32-bit words.
    pub words: u32,
}

/// A failed call: its status and message.
struct Failure(LjStatus, String);

fn bad(msg: impl Into<String>) -> Failure {
    Failure(LjStatus::BadInput, msg.into())
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(msg: &str) {
    let c = CString::new(msg.replace('\0', "\\0")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

/// Empties the thread's last error, allocating nothing when it already is empty (every launch passes here).
fn clear_last_error() {
    LAST_ERROR.with(|e| {
        let mut e = e.borrow_mut();
        if !e.is_empty() {
            *e = CString::default();
        }
    });
}

/// Runs `f`, turning its error and any panic into a status and the thread's last error. The message is cleared
/// first, so that after a success `lj_last_error` is not an older call's failure (issue 39).
fn guard(f: impl FnOnce() -> Result<LjStatus, Failure>) -> LjStatus {
    clear_last_error();
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(status)) => status,
        Ok(Err(Failure(status, msg))) => {
            set_last_error(&msg);
            status
        }
        Err(panic) => {
            let what =
                panic.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| panic.downcast_ref::<String>().cloned());
            set_last_error(&format!("internal error (please report): {}", what.unwrap_or_default()));
            LjStatus::Failed
        }
    }
}

/// `p` as a reference, or bad input naming `what`.
unsafe fn non_null<'a, T>(p: *const T, what: &str) -> Result<&'a T, Failure> {
    unsafe { p.as_ref() }.ok_or_else(|| bad(format!("{what} is NULL")))
}

/// `len` bytes at `p` (NULL allowed when `len` is 0).
unsafe fn bytes<'a>(p: *const u8, len: usize, what: &str) -> Result<&'a [u8], Failure> {
    if len == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(bad(format!("{what} is NULL but its length is {len}")));
    }
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

unsafe fn c_str<'a>(p: *const c_char, what: &str) -> Result<&'a str, Failure> {
    let s = unsafe { CStr::from_ptr(non_null(p, what)?) };
    s.to_str().map_err(|_| bad(format!("{what} is not UTF-8")))
}

/// An output pointer of the caller's. Every function takes its outputs as these before it makes anything: a
/// NULL found only after making a device, buffer or handle leaked it (issue 39: each `lj_device_new(0, NULL)`
/// kept a 4 GiB reservation until the address space ran out).
pub(crate) struct Out<T>(NonNull<T>);

impl<T> Out<T> {
    /// `p`, or bad input naming `what` when it is NULL. The caller vouches that a non-NULL `p` points to memory
    /// for a `T` it may write.
    pub(crate) unsafe fn new(p: *mut T, what: &str) -> Result<Out<T>, Failure> {
        NonNull::new(p).map(Out).ok_or_else(|| bad(format!("{what} is NULL")))
    }

    /// An optional output: `None` for NULL (same contract as [`Out::new`]).
    pub(crate) unsafe fn optional(p: *mut T) -> Option<Out<T>> {
        NonNull::new(p).map(Out)
    }

    /// Stores `value` without reading or dropping what was there: C's memory may be uninitialised.
    pub(crate) fn write(self, value: T) {
        // SAFETY: `new`'s caller vouched for the pointer; a raw write makes no reference to the old contents.
        unsafe { self.0.as_ptr().write(value) }
    }

    /// The pointer, for writing several `T`s (the caller's contract says how many there is room for).
    pub(crate) fn as_ptr(&self) -> *mut T {
        self.0.as_ptr()
    }
}

/// A handle for C: the value boxed, ownership passed to the caller (its `_free` function takes it back).
fn handle<T>(value: T) -> *mut T {
    Box::into_raw(Box::new(value))
}

/// The library's version, e.g. "0.1.0" (static storage).
#[no_mangle]
pub extern "C" fn lj_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// The message of the calling thread's last call that returns a status: "" if it succeeded (each such call
/// clears the message first), else why it failed. Valid until the thread's next call.
#[no_mangle]
pub extern "C" fn lj_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// A device with `capacity_bytes` of address space (0: the default, 4 GiB reserved, pages committed when touched).
#[no_mangle]
pub unsafe extern "C" fn lj_device_new(capacity_bytes: u64, out: *mut *mut LjDevice) -> LjStatus {
    guard(|| {
        let out = unsafe { Out::new(out, "out") }?;
        let device = if capacity_bytes == 0 { Device::new() } else { Device::with_capacity(capacity_bytes) };
        let device = device.map_err(|e| Failure(LjStatus::Failed, format!("cannot make the device: {e}")))?;
        out.write(handle(LjDevice(device)));
        Ok(LjStatus::Ok)
    })
}

/// Releases a device and all its memory (NULL is ignored). No launch may be running on it.
#[no_mangle]
pub unsafe extern "C" fn lj_device_free(device: *mut LjDevice) {
    if !device.is_null() {
        drop(unsafe { Box::from_raw(device) });
    }
}

/// A zeroed global buffer of `bytes`; its device address goes to `addr_out`.
#[no_mangle]
pub unsafe extern "C" fn lj_alloc(device: *const LjDevice, bytes: u64, addr_out: *mut u64) -> LjStatus {
    guard(|| {
        let d = unsafe { non_null(device, "device") }?;
        let out = unsafe { Out::new(addr_out, "addr_out") }?;
        let a = d.0.alloc(bytes).map_err(|e| Failure(LjStatus::Failed, e.to_string()))?;
        out.write(a.addr);
        Ok(LjStatus::Ok)
    })
}

/// A constant buffer (read-only to kernels) holding `len` bytes of `data`.
#[no_mangle]
pub unsafe extern "C" fn lj_alloc_const(
    device: *const LjDevice,
    data: *const u8,
    len: usize,
    addr_out: *mut u64,
) -> LjStatus {
    guard(|| {
        let d = unsafe { non_null(device, "device") }?;
        let data = unsafe { bytes(data, len, "data") }?;
        let out = unsafe { Out::new(addr_out, "addr_out") }?;
        let a = d.0.alloc_const(data).map_err(|e| Failure(LjStatus::Failed, e.to_string()))?;
        out.write(a.addr);
        Ok(LjStatus::Ok)
    })
}

/// Frees the buffer starting at `addr` (bad input if no live buffer starts there).
#[no_mangle]
pub unsafe extern "C" fn lj_free(device: *const LjDevice, addr: u64) -> LjStatus {
    guard(|| {
        let d = unsafe { non_null(device, "device") }?;
        d.0.free(addr).map_err(|e| bad(e.to_string()))?;
        Ok(LjStatus::Ok)
    })
}

/// Copies `len` bytes from host `data` to device address `addr` (all inside one allocation).
#[no_mangle]
pub unsafe extern "C" fn lj_write(device: *const LjDevice, addr: u64, data: *const u8, len: usize) -> LjStatus {
    guard(|| {
        let d = unsafe { non_null(device, "device") }?;
        let data = unsafe { bytes(data, len, "data") }?;
        d.0.write(addr, data).map_err(bad)?;
        Ok(LjStatus::Ok)
    })
}

/// Copies `len` bytes at device address `addr` to host `out`.
#[no_mangle]
pub unsafe extern "C" fn lj_read(device: *const LjDevice, addr: u64, out: *mut u8, len: usize) -> LjStatus {
    guard(|| {
        let d = unsafe { non_null(device, "device") }?;
        if len == 0 {
            return Ok(LjStatus::Ok);
        }
        if out.is_null() {
            return Err(bad(format!("out is NULL but its length is {len}")));
        }
        d.0.read_into(addr, unsafe { std::slice::from_raw_parts_mut(out, len) }).map_err(bad)?;
        Ok(LjStatus::Ok)
    })
}

fn kernel_handle(kernel: Kernel) -> *mut LjKernel {
    let name = CString::new(kernel.program.meta.name.clone()).unwrap_or_default();
    handle(LjKernel { kernel, name })
}

/// Assembles `source` (`file_name` names it in error messages: file:line:col).
#[no_mangle]
pub unsafe extern "C" fn lj_kernel_from_asm(
    file_name: *const c_char,
    source: *const c_char,
    out: *mut *mut LjKernel,
) -> LjStatus {
    guard(|| {
        let out = unsafe { Out::new(out, "out") }?;
        let (file, src) = unsafe { (c_str(file_name, "file_name")?, c_str(source, "source")?) };
        out.write(kernel_handle(Kernel::from_asm(file, src).map_err(|e| bad(e.to_string()))?));
        Ok(LjStatus::Ok)
    })
}

/// Loads a kernel binary: an ELF or `LJK1` file written by `lanejit asm`, or raw little-endian instruction words.
#[no_mangle]
pub unsafe extern "C" fn lj_kernel_from_bytes(data: *const u8, len: usize, out: *mut *mut LjKernel) -> LjStatus {
    guard(|| {
        let out = unsafe { Out::new(out, "out") }?;
        let data = unsafe { bytes(data, len, "data") }?;
        out.write(kernel_handle(Kernel::from_bytes(data).map_err(|e| bad(e.to_string()))?));
        Ok(LjStatus::Ok)
    })
}

fn module_handle(module: Module) -> *mut LjModule {
    let names = module.names().map(|n| CString::new(n).unwrap_or_default()).collect();
    handle(LjModule { module, names })
}

/// Assembles every kernel of `source` (each `.kernel` directive starts one); errors name file:line:col.
#[no_mangle]
pub unsafe extern "C" fn lj_module_from_asm(
    file_name: *const c_char,
    source: *const c_char,
    out: *mut *mut LjModule,
) -> LjStatus {
    guard(|| {
        let out = unsafe { Out::new(out, "out") }?;
        let (file, src) = unsafe { (c_str(file_name, "file_name")?, c_str(source, "source")?) };
        out.write(module_handle(Module::from_asm(file, src).map_err(|e| bad(e.to_string()))?));
        Ok(LjStatus::Ok)
    })
}

/// Loads every kernel of an ELF file from `lanejit asm -o k.elf` (an `LJK1` file or raw words: one kernel).
#[no_mangle]
pub unsafe extern "C" fn lj_module_from_bytes(data: *const u8, len: usize, out: *mut *mut LjModule) -> LjStatus {
    guard(|| {
        let out = unsafe { Out::new(out, "out") }?;
        let data = unsafe { bytes(data, len, "data") }?;
        out.write(module_handle(Module::from_bytes(data).map_err(|e| bad(e.to_string()))?));
        Ok(LjStatus::Ok)
    })
}

/// The number of kernels in the module (0 for NULL).
#[no_mangle]
pub unsafe extern "C" fn lj_module_kernel_count(module: *const LjModule) -> u32 {
    unsafe { module.as_ref() }.map_or(0, |m| m.names.len() as u32)
}

/// The name of kernel `index` (file order), valid while the module lives; NULL when out of range.
#[no_mangle]
pub unsafe extern "C" fn lj_module_kernel_name(module: *const LjModule, index: u32) -> *const c_char {
    unsafe { module.as_ref() }.and_then(|m| m.names.get(index as usize)).map_or(std::ptr::null(), |n| n.as_ptr())
}

/// The kernel named `name`, as a handle of its own (release it with `lj_kernel_free`; it shares the
/// module's compiled code and outlives the module). Bad input, naming the kernels there are, if none has it.
#[no_mangle]
pub unsafe extern "C" fn lj_module_kernel(
    module: *const LjModule,
    name: *const c_char,
    out: *mut *mut LjKernel,
) -> LjStatus {
    guard(|| {
        let m = unsafe { non_null(module, "module") }?;
        let name = unsafe { c_str(name, "name") }?;
        let out = unsafe { Out::new(out, "out") }?;
        let k = m.module.kernel(name).ok_or_else(|| {
            bad(format!(
                "no kernel `{name}` in the module (it has: {})",
                m.module.names().collect::<Vec<_>>().join(", ")
            ))
        })?;
        out.write(kernel_handle(k.clone()));
        Ok(LjStatus::Ok)
    })
}

/// Releases a module (NULL is ignored); kernels taken from it stay valid.
#[no_mangle]
pub unsafe extern "C" fn lj_module_free(module: *mut LjModule) {
    if !module.is_null() {
        drop(unsafe { Box::from_raw(module) });
    }
}

/// Releases a kernel (NULL is ignored). No launch may be running it.
#[no_mangle]
pub unsafe extern "C" fn lj_kernel_free(kernel: *mut LjKernel) {
    if !kernel.is_null() {
        drop(unsafe { Box::from_raw(kernel) });
    }
}

/// The kernel's name (its `.kernel` directive), valid while the kernel lives; NULL for a NULL kernel.
#[no_mangle]
pub unsafe extern "C" fn lj_kernel_name(kernel: *const LjKernel) -> *const c_char {
    unsafe { kernel.as_ref() }.map_or(std::ptr::null(), |k| k.name.as_ptr())
}

/// The kernel's workgroup size, memory and argument sizes.
#[no_mangle]
pub unsafe extern "C" fn lj_kernel_info(kernel: *const LjKernel, out: *mut LjKernelInfo) -> LjStatus {
    guard(|| {
        let k = &unsafe { non_null(kernel, "kernel") }?.kernel;
        let out = unsafe { Out::new(out, "out") }?;
        let m = &k.program.meta;
        let info = LjKernelInfo {
            workgroup: m.workgroup,
            shared_bytes: m.shared_bytes,
            private_bytes: m.private_bytes,
            arg_bytes: m.arg_bytes,
            words: k.program.words.len() as u32,
        };
        out.write(info);
        Ok(LjStatus::Ok)
    })
}

/// A cancellation handle, not yet cancelled (release with [`lj_cancel_free`] after the launches using it).
#[no_mangle]
pub unsafe extern "C" fn lj_cancel_new(out: *mut *mut LjCancel) -> LjStatus {
    guard(|| {
        unsafe { Out::new(out, "out") }?.write(handle(LjCancel(CancelToken::new())));
        Ok(LjStatus::Ok)
    })
}

/// Cancels every launch using `cancel` (safe to call from any thread, any number of times).
#[no_mangle]
pub unsafe extern "C" fn lj_cancel(cancel: *const LjCancel) -> LjStatus {
    guard(|| {
        unsafe { non_null(cancel, "cancel") }?.0.cancel();
        Ok(LjStatus::Ok)
    })
}

/// Releases a cancellation handle (NULL is ignored). No launch may still be using it.
#[no_mangle]
pub unsafe extern "C" fn lj_cancel_free(cancel: *mut LjCancel) {
    if !cancel.is_null() {
        drop(unsafe { Box::from_raw(cancel) });
    }
}
