//! `lanejit._native`: the Rust half of the Python module `lanejit` (pyo3), over lanejit's embedding API.
//!
//! It holds the device and its memory, kernels and modules, launches (run with the GIL released, so another
//! Python thread can cancel them), statistics and the exceptions. The Python half (`lanejit/__init__.py`)
//! packs numpy arguments into the argument block and re-exports these classes.
//!
//! Errors keep the C ABI's statuses, the `lanejit` command's exit codes: `lanejit.Error` carries `status` 2 for
//! bad input and 3 for a failure of the emulator; `lanejit.Trap` (an `Error` with status 1) carries the trap
//! report.

mod device;
mod host;
mod kernel;
mod plain;

use lanejit::{CancelToken, LaunchError, LaunchStats};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(
    lanejit,
    Error,
    PyValueError,
    "A call lanejit refused or failed: bad input (`status == 2`) or an emulator failure (`status == 3`)."
);
create_exception!(
    lanejit,
    Trap,
    Error,
    "The kernel trapped (`status == 1`). `kind` (e.g. \"MemoryFault\"), `pc`, `workgroup`, `wave`, `lanes` \
     (bit i = lane i), `addresses` (in lane order), `code` (of a `trap` instruction, else None), `stats` (the \
     work up to the trap)."
);

/// `Error.status` of a trap, the `lanejit` command's exit code for it.
const TRAPPED: u8 = 1;
/// `Error.status` of bad input (assembly errors, bad configurations, addresses outside every allocation).
const BAD_INPUT: u8 = 2;
/// `Error.status` of a failure of the emulator (device memory exhausted, a JIT compile error, an internal error).
const FAILED: u8 = 3;

/// A `lanejit.Error` with `status` set.
fn error(py: Python<'_>, status: u8, message: impl ToString) -> PyErr {
    let err = Error::new_err(message.to_string());
    match err.value(py).setattr("status", status) {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// A `lanejit.Trap` carrying the report and the statistics up to it.
fn trap_error(py: Python<'_>, trap: &lanejit::Trap, stats: &LaunchStats) -> PyErr {
    let err = Trap::new_err(trap.to_string());
    let fill = |v: &Bound<'_, pyo3::exceptions::PyBaseException>| -> PyResult<()> {
        v.setattr("status", TRAPPED)?;
        v.setattr("kind", trap.kind.name())?;
        v.setattr("pc", trap.pc)?;
        v.setattr("workgroup", (trap.workgroup[0], trap.workgroup[1], trap.workgroup[2]))?;
        v.setattr("wave", trap.wave)?;
        v.setattr("lanes", trap.lanes)?;
        v.setattr("addresses", trap.addrs.clone())?;
        v.setattr("code", trap.code)?;
        v.setattr("stats", Stats::from(stats))
    };
    match fill(err.value(py)) {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// A failed launch as the Python exception for it (the C ABI's statuses).
fn launch_error(py: Python<'_>, e: LaunchError) -> PyErr {
    match e {
        LaunchError::Config(_) => error(py, BAD_INPUT, e),
        LaunchError::Compile(_) => error(py, FAILED, e),
        LaunchError::Trap { trap, stats } => trap_error(py, &trap, &stats),
    }
}

/// A launch's statistics: instructions retired (and of them interpreted), lane operations, workgroups, waves,
/// and the elapsed time in seconds.
#[pyclass(frozen, get_all, module = "lanejit")]
#[derive(Clone, Debug)]
pub struct Stats {
    retired: u64,
    interpreted: u64,
    lane_ops: u64,
    workgroups: u64,
    waves: u64,
    elapsed: f64,
    /// The checkers' findings as JSON text (`findings` parses it).
    findings_json: String,
}

impl From<&LaunchStats> for Stats {
    fn from(s: &LaunchStats) -> Stats {
        Stats {
            retired: s.retired,
            interpreted: s.interpreted,
            lane_ops: s.lane_ops,
            workgroups: s.workgroups,
            waves: s.waves,
            elapsed: s.elapsed.as_secs_f64(),
            findings_json: lanejit::check::render_json(&s.findings).to_string(),
        }
    }
}

#[pymethods]
impl Stats {
    /// The checkers' findings (launch option `check`), a list of dicts as `lanejit run --check --json` prints
    /// them; empty without checkers.
    #[getter]
    fn findings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.import("json")?.call_method1("loads", (self.findings_json.as_str(),))
    }

    fn __repr__(&self) -> String {
        format!(
            "Stats(retired={}, interpreted={}, lane_ops={}, workgroups={}, waves={}, elapsed={:.6})",
            self.retired, self.interpreted, self.lane_ops, self.workgroups, self.waves, self.elapsed
        )
    }
}

/// Cancels running launches: pass it as `launch(..., cancel=c)` and call `c.cancel()` from another thread (a
/// launch releases the GIL while it runs); the launch raises `Trap` with kind "Cancelled".
#[pyclass(frozen, module = "lanejit")]
#[derive(Debug, Default)]
pub struct Cancel(CancelToken);

#[pymethods]
impl Cancel {
    #[new]
    fn new() -> Cancel {
        Cancel::default()
    }

    /// Cancels every launch using this handle (any thread, any number of times).
    fn cancel(&self) {
        self.0.cancel();
    }

    /// Whether `cancel()` has been called.
    #[getter]
    fn cancelled(&self) -> bool {
        self.0.is_cancelled()
    }
}

/// The module `lanejit._native`.
#[pymodule(name = "_native")]
fn native_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("Trap", py.get_type::<Trap>())?;
    m.add("LANES", lanejit::LANES)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<Stats>()?;
    m.add_class::<Cancel>()?;
    m.add_class::<kernel::Kernel>()?;
    m.add_class::<kernel::Module>()?;
    m.add_class::<device::Device>()?;
    m.add_function(wrap_pyfunction!(plain::check_plain, m)?)?;
    Ok(())
}
