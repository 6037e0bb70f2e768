//! `lanejit.Device`: device memory, host copies straight between Python buffers and device memory, and
//! launches run with the GIL released.

use crate::host::HostBuffer;
use crate::kernel::Kernel;
use crate::{error, launch_error, Cancel, Stats, BAD_INPUT, FAILED};
use lanejit::explore::{explore, parse_policy, ExploreConfig};
use lanejit::{Engine, LaunchConfig, LaunchError, MemoryError, Schedule};
use pyo3::conversion::FromPyObjectOwned;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

/// Bytes of a device address in the argument block.
const ADDRESS_BYTES: usize = 8;

/// Device memory and launches. `capacity` is its address space in bytes (0: the default, 4 GiB reserved,
/// pages committed when touched). The Python class `lanejit.Device` adds `launch` with numpy arguments.
#[pyclass(frozen, subclass, module = "lanejit")]
#[derive(Debug)]
pub struct Device(lanejit::Device);

/// A launch's settings besides its arguments, from a dict with `lanejit.Device.launch`'s keywords (grid and
/// workgroup as three ints each); a key left out, or None for the whole dict, takes its default.
pub struct LaunchOptions {
    grid: [u32; 3],
    workgroup: Option<[u32; 3]>,
    engine: String,
    budget: u64,
    deadline: Option<f64>,
    threads: usize,
    shared_bytes: Option<u32>,
    private_bytes: Option<u32>,
    cancel: Option<Py<Cancel>>,
    /// Checkers, as `lanejit run --check` names them (`waits,races,barriers,uninit,buffers` or `all`).
    check: Option<String>,
    /// The schedule, as `lanejit run --schedule` takes it (None: fixed).
    schedule: Option<String>,
    /// Where the launch's timeline goes (Chrome Trace Event JSON; None: no timeline).
    timeline: Option<std::path::PathBuf>,
}

/// The value at `key` of `options`, or `default` when the key (or the dict) is missing; a value of the wrong
/// type is an error naming the key.
fn item<'py, T: FromPyObjectOwned<'py>>(options: Option<&Bound<'py, PyDict>>, key: &str, default: T) -> PyResult<T> {
    let Some(value) = options.map(|o| o.get_item(key)).transpose()?.flatten() else {
        return Ok(default);
    };
    value.extract::<T>().map_err(|e| PyTypeError::new_err(format!("launch option {key}: {}", Into::<PyErr>::into(e))))
}

impl LaunchOptions {
    /// The options in `options` (None: all defaults).
    fn from_dict(options: Option<&Bound<'_, PyDict>>) -> PyResult<LaunchOptions> {
        Ok(LaunchOptions {
            grid: item(options, "grid", [1, 1, 1])?,
            workgroup: item(options, "workgroup", None)?,
            engine: item(options, "engine", String::from("auto"))?,
            budget: item(options, "budget", 0)?,
            deadline: item(options, "deadline", None)?,
            threads: item(options, "threads", 0)?,
            shared_bytes: item(options, "shared_bytes", None)?,
            private_bytes: item(options, "private_bytes", None)?,
            cancel: item(options, "cancel", None)?,
            check: item(options, "check", None)?,
            schedule: item(options, "schedule", None)?,
            timeline: item(options, "timeline", None)?,
        })
    }

    /// The launch configuration (with no arguments yet): budget 0 takes the default, deadline None the
    /// default and 0 none, threads 0 one per core.
    fn config(&self) -> PyResult<LaunchConfig> {
        let defaults = LaunchConfig::default();
        let engine = match self.engine.as_str() {
            "interp" => Engine::Interp,
            "jit" => Engine::Jit,
            "auto" => Engine::Auto,
            other => return Err(PyValueError::new_err(format!("engine {other:?} is none of auto, interp, jit"))),
        };
        let deadline = match self.deadline {
            None => defaults.deadline,
            Some(0.0) => None,
            Some(s) => Some(
                Duration::try_from_secs_f64(s)
                    .map_err(|_| PyValueError::new_err(format!("deadline {s} is not a number of seconds (0: none)")))?,
            ),
        };
        let check = match &self.check {
            None => Default::default(),
            Some(text) => lanejit::check::Checks::parse(text).map_err(PyValueError::new_err)?,
        };
        let schedule = match &self.schedule {
            None => Schedule::Fixed,
            Some(text) => Schedule::parse(text).map_err(|e| PyValueError::new_err(format!("schedule: {e}")))?,
        };
        Ok(LaunchConfig {
            check,
            schedule,
            grid: self.grid,
            workgroup: self.workgroup,
            shared_bytes: self.shared_bytes,
            private_bytes: self.private_bytes,
            budget: if self.budget == 0 { defaults.budget } else { self.budget },
            deadline,
            engine,
            threads: (self.threads != 0).then_some(self.threads),
            cancel: self.cancel.as_ref().map(|c| c.get().0.clone()),
            timeline: self.timeline.clone(),
            ..defaults
        })
    }
}

#[pymethods]
impl Device {
    #[new]
    #[pyo3(signature = (capacity = 0))]
    fn new(py: Python<'_>, capacity: u64) -> PyResult<Device> {
        let device = if capacity == 0 { lanejit::Device::new() } else { lanejit::Device::with_capacity(capacity) };
        device.map(Device).map_err(|e| error(py, FAILED, format!("cannot make the device: {e}")))
    }

    /// From now on the device remembers which of its bytes hold a written value, for the `buffers` check: a
    /// new buffer's bytes are undefined until the host writes them or a checked launch stores to them (call it
    /// before making the buffers; an unchecked launch counts every live byte as written).
    fn track_uninit_memory(&self, py: Python<'_>) -> PyResult<()> {
        self.0.track_uninit_memory().map_err(|e| error(py, FAILED, e))
    }

    /// A zeroed buffer of `nbytes`; returns its device address.
    fn alloc(&self, py: Python<'_>, nbytes: u64) -> PyResult<u64> {
        self.0.alloc(nbytes).map(|a| a.addr).map_err(|e| error(py, FAILED, e))
    }

    /// A constant buffer (kernels may read it; a store to it traps) holding the bytes of `data`; returns its
    /// device address.
    fn alloc_const(&self, data: &Bound<'_, PyAny>) -> PyResult<u64> {
        let py = data.py();
        let host = HostBuffer::get(data, "data")?;
        self.0.alloc_const(host.bytes(py)).map(|a| a.addr).map_err(|e| error(py, FAILED, e))
    }

    /// Frees the buffer starting at `addr`; `Error` if no live buffer starts there.
    fn free(&self, py: Python<'_>, addr: u64) -> PyResult<()> {
        self.0.free(addr).map_err(|e| error(py, BAD_INPUT, e))
    }

    /// Copies the bytes of `data` (bytes, bytearray, memoryview or a C-contiguous numpy array, of plain data:
    /// `plain.rs`) to `addr`; the range must lie inside one live allocation.
    fn write(&self, addr: u64, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let py = data.py();
        let host = HostBuffer::get(data, "data")?;
        self.0.write(addr, host.bytes(py)).map_err(|e| error(py, BAD_INPUT, e))
    }

    /// The `nbytes` bytes at `addr`, as `bytes`.
    fn read<'py>(&self, py: Python<'py>, addr: u64, nbytes: usize) -> PyResult<Bound<'py, PyBytes>> {
        // The range is checked before the bytes object is made: `read(a, 4 << 30)` past a small allocation would
        // otherwise allocate and zero 4 GiB only to fail.
        let len = nbytes as u64;
        if self.0.arena.find(addr, len).is_none() {
            return Err(error(py, BAD_INPUT, MemoryError { addr, len }));
        }
        PyBytes::new_with(py, nbytes, |out| self.0.read_into(addr, out).map_err(|e| error(py, BAD_INPUT, e)))
    }

    /// Copies device bytes at `addr` into `out` (a writable bytearray, memoryview or C-contiguous numpy array, of
    /// plain data: never Python objects), as many as it holds, straight into its memory.
    fn read_into(&self, addr: u64, out: &Bound<'_, PyAny>) -> PyResult<()> {
        let py = out.py();
        let host = HostBuffer::get(out, "out")?;
        host.fill(py, |bytes| self.0.read_into(addr, bytes))?.map_err(|e| error(py, BAD_INPUT, e))
    }

    /// Launches `kernel` with the argument block `args` (bytes-like) and waits for it, with the GIL released; returns
    /// its `Stats` or raises `Trap`. Each `(offset, array)` of `arrays` is copied to a buffer of its own whose
    /// address is written at `offset` of `args`, and copied back after the launch (also after a trap) unless it
    /// is read-only; the buffers are freed afterwards. `options` is a dict of `Device.launch`'s keywords (grid
    /// and workgroup as three ints each; None or a key left out: the default).
    #[pyo3(signature = (kernel, args, arrays = Vec::new(), options = None))]
    fn launch_packed(
        &self,
        kernel: &Bound<'_, Kernel>,
        args: &Bound<'_, PyAny>,
        arrays: Vec<(usize, Bound<'_, PyAny>)>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Stats> {
        let py = kernel.py();
        let device = &self.0;
        let (cfg, placed) = self.stage(py, args, &arrays, options)?;
        let kernel = &kernel.get().0;
        let result = py.detach(|| catching_panics(|| device.launch(kernel, &cfg)));
        if matches!(result, Ok(Ok(_)) | Ok(Err(LaunchError::Trap { .. }))) {
            self.copy_back(py, &placed)?;
        }
        match result {
            Ok(Ok(stats)) => Ok(Stats::from(&stats)),
            Ok(Err(e)) => Err(launch_error(py, e)),
            Err(panic) => Err(error(py, FAILED, format!("internal error (please report): {panic}"))),
        }
    }

    /// Explores the launch `launch_packed` would make (its `schedule` option ignored: the fixed run is the
    /// reference) under `schedules` schedules of `policy` (`"random[:FIRST_SEED]"` or `"pct[:FIRST_SEED[,DEPTH]]"`),
    /// with the GIL released, and returns the report as JSON text (`lanejit.Device.explore` parses it). The
    /// arrays are copied back holding the fixed run's results.
    #[pyo3(signature = (
        kernel, args, arrays = Vec::new(), options = None, schedules = 100, policy = "random", stop_at_first = true
    ))]
    #[allow(clippy::too_many_arguments)]
    fn explore_packed(
        &self,
        kernel: &Bound<'_, Kernel>,
        args: &Bound<'_, PyAny>,
        arrays: Vec<(usize, Bound<'_, PyAny>)>,
        options: Option<&Bound<'_, PyDict>>,
        schedules: u32,
        policy: &str,
        stop_at_first: bool,
    ) -> PyResult<String> {
        let py = kernel.py();
        let device = &self.0;
        let (policy, first_seed) =
            parse_policy(policy).map_err(|e| PyValueError::new_err(format!("policy {policy:?}: {e}")))?;
        let ex = ExploreConfig { schedules, policy, first_seed, stop_at_first, ..Default::default() };
        let (cfg, placed) = self.stage(py, args, &arrays, options)?;
        let kernel = &kernel.get().0;
        let result = py.detach(|| catching_panics(|| explore(device, kernel, &cfg, &ex)));
        match result {
            Ok(Ok(report)) => {
                self.copy_back(py, &placed)?;
                Ok(report.to_json(&ex).to_string())
            }
            Ok(Err(e)) => Err(launch_error(py, e)),
            Err(panic) => Err(error(py, FAILED, format!("internal error (please report): {panic}"))),
        }
    }

    fn __repr__(&self) -> String {
        format!("Device(capacity={})", self.0.arena.capacity())
    }
}

/// Arrays copied to buffers of their own for a launch: each buffer and the host array it came from.
type Placed<'d> = Vec<(lanejit::Buffer<'d>, HostBuffer)>;

impl Device {
    /// The launch configuration of `options` with the argument block `args`, each `(offset, array)` of `arrays`
    /// copied to a buffer of its own whose address is written at `offset` of the block.
    fn stage<'d>(
        &'d self,
        py: Python<'_>,
        args: &Bound<'_, PyAny>,
        arrays: &[(usize, Bound<'_, PyAny>)],
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<(LaunchConfig, Placed<'d>)> {
        let device = &self.0;
        let mut cfg = LaunchOptions::from_dict(options)?.config()?;
        let mut args = HostBuffer::get(args, "args")?.bytes(py).to_vec();
        let mut placed = Vec::with_capacity(arrays.len());
        for (offset, array) in arrays {
            let host = HostBuffer::get(array, &format!("the array argument at byte {offset} of the block"))?;
            let buffer = device.buffer(host.len().max(1) as u64).map_err(|e| error(py, FAILED, e))?;
            device.write(buffer.addr(), host.bytes(py)).map_err(|e| error(py, FAILED, e))?;
            let block_len = args.len();
            let slot = offset.checked_add(ADDRESS_BYTES).and_then(|end| args.get_mut(*offset..end));
            let slot = slot.ok_or_else(|| {
                PyValueError::new_err(format!("array offset {offset} lies past the {block_len}-byte argument block"))
            })?;
            slot.copy_from_slice(&buffer.addr().to_le_bytes());
            placed.push((buffer, host));
        }
        cfg.args = args;
        Ok((cfg, placed))
    }

    /// Copies each writable array's buffer back to the array.
    fn copy_back(&self, py: Python<'_>, placed: &Placed<'_>) -> PyResult<()> {
        for (buffer, host) in placed.iter().filter(|(_, host)| !host.readonly()) {
            host.fill(py, |out| self.0.read_into(buffer.addr(), out))?.map_err(|e| error(py, FAILED, e))?;
        }
        Ok(())
    }
}

/// `f` (a launch or an exploration), with a panic (a bug in lanejit) turned into its message, as the C ABI
/// does: the caller gets `Error` with status 3 instead of pyo3's `PanicException`.
fn catching_panics<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|panic| {
        let text = panic.downcast_ref::<&str>().map(|s| s.to_string());
        text.or_else(|| panic.downcast_ref::<String>().cloned()).unwrap_or_default()
    })
}
