//! `lanejit.Kernel` and `lanejit.Module`: kernels assembled from text or loaded from bytes, by name.

use crate::host::HostBuffer;
use crate::{error, BAD_INPUT};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

/// An assembled kernel, shareable by launches on several threads; `name` and `info` (workgroup,
/// shared_bytes, private_bytes, arg_bytes, words).
#[pyclass(frozen, module = "lanejit")]
#[derive(Debug)]
pub struct Kernel(pub lanejit::Kernel);

#[pymethods]
impl Kernel {
    /// Assembles kernel source text; errors raise `Error` naming file:line:col.
    #[staticmethod]
    #[pyo3(signature = (source, file_name = "<string>"))]
    fn from_asm(py: Python<'_>, source: &str, file_name: &str) -> PyResult<Kernel> {
        lanejit::Kernel::from_asm(file_name, source).map(Kernel).map_err(|e| error(py, BAD_INPUT, e))
    }

    /// An ELF or LJK1 binary written by `lanejit asm`, or raw little-endian instruction words.
    #[staticmethod]
    fn from_bytes(data: &Bound<'_, PyAny>) -> PyResult<Kernel> {
        let py = data.py();
        let host = HostBuffer::get(data, "the kernel binary")?;
        lanejit::Kernel::from_bytes(host.bytes(py)).map(Kernel).map_err(|e| error(py, BAD_INPUT, e))
    }

    /// The kernel's name (its `.kernel` directive).
    #[getter]
    fn name(&self) -> &str {
        &self.0.program.meta.name
    }

    /// Its metadata: workgroup (x, y, z), shared_bytes, private_bytes, arg_bytes (the `.args` a launch must
    /// pass at least), words (code size in 32-bit words).
    #[getter]
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let m = &self.0.program.meta;
        let info = PyDict::new(py);
        info.set_item("workgroup", (m.workgroup[0], m.workgroup[1], m.workgroup[2]))?;
        info.set_item("shared_bytes", m.shared_bytes)?;
        info.set_item("private_bytes", m.private_bytes)?;
        info.set_item("arg_bytes", m.arg_bytes)?;
        info.set_item("words", self.0.program.words.len())?;
        Ok(info)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("Kernel({:?}, {})", self.name(), self.info(py)?.repr()?))
    }
}

/// The kernels of one source (each `.kernel` directive starts one) or one ELF file, by name:
/// `Module(src)["saxpy"]` is a `Kernel` (it outlives the module); `names` lists them in file order.
#[pyclass(frozen, module = "lanejit")]
#[derive(Debug)]
pub struct Module(lanejit::Module);

#[pymethods]
impl Module {
    /// Assembles every kernel of `source`; errors raise `Error` naming file:line:col.
    #[new]
    #[pyo3(signature = (source, file_name = "<string>"))]
    fn new(py: Python<'_>, source: &str, file_name: &str) -> PyResult<Module> {
        lanejit::Module::from_asm(file_name, source).map(Module).map_err(|e| error(py, BAD_INPUT, e))
    }

    /// An ELF module from `lanejit asm -o k.elf` or `Module.to_elf()` (an LJK1 file or raw words: one kernel).
    #[staticmethod]
    fn from_bytes(data: &Bound<'_, PyAny>) -> PyResult<Module> {
        let py = data.py();
        let host = HostBuffer::get(data, "the module binary")?;
        lanejit::Module::from_bytes(host.bytes(py)).map(Module).map_err(|e| error(py, BAD_INPUT, e))
    }

    /// The kernels' names in file order.
    #[getter]
    fn names(&self) -> Vec<String> {
        self.0.names().map(str::to_string).collect()
    }

    /// The module as one ELF file (what `lanejit asm m.s -o m.elf` writes), for `Module.from_bytes`.
    fn to_elf<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.0.to_elf())
    }

    /// The kernel named `name`; `Error` (naming the kernels there are) if none has it.
    fn __getitem__(&self, py: Python<'_>, name: &str) -> PyResult<Kernel> {
        let kernel = self.0.kernel(name).ok_or_else(|| {
            let names = self.names().join(", ");
            error(py, BAD_INPUT, format!("no kernel `{name}` in the module (it has: {names})"))
        })?;
        Ok(Kernel(kernel.clone()))
    }

    fn __contains__(&self, name: &str) -> bool {
        self.0.kernel(name).is_some()
    }

    fn __len__(&self) -> usize {
        self.0.kernels().len()
    }

    fn __repr__(&self) -> String {
        format!("Module({:?})", self.names())
    }
}
