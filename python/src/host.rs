//! Host memory through the buffer protocol: bytes, bytearray, memoryview or a numpy array of plain data
//! (`plain.rs`: numbers, raw bytes, records of them), read or written in place as raw bytes (no element-by-element
//! conversion, no intermediate copy).

use crate::plain::{check_format, plain_object};
use pyo3::buffer::PyUntypedBuffer;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyMemoryView;

/// An exported C-contiguous buffer of plain data: its owner can neither resize nor free it while this lives.
pub struct HostBuffer(PyUntypedBuffer);

impl HostBuffer {
    /// The buffer of `obj`; `what` names it in errors (a non-contiguous view must be copied first:
    /// `np.ascontiguousarray`). Its items must be plain data, checked before anything reads or writes them.
    pub fn get(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<HostBuffer> {
        let obj = plain_object(obj, what)?;
        let buf = PyUntypedBuffer::get(&obj).map_err(|e| no_buffer(&obj, what, e))?;
        check_format(&buf.format().to_string_lossy(), what)?;
        if !buf.is_c_contiguous() {
            return Err(PyValueError::new_err(format!("{what} is not contiguous: pass np.ascontiguousarray(...)")));
        }
        Ok(HostBuffer(buf))
    }

    /// Its size in bytes.
    pub fn len(&self) -> usize {
        self.0.len_bytes()
    }

    /// Whether its owner forbids writes (`bytes`, a numpy array with `writeable` off).
    pub fn readonly(&self) -> bool {
        self.0.readonly()
    }

    /// Its bytes. The caller holds the GIL (`py`), so no Python code changes them while they are read.
    pub fn bytes<'a>(&'a self, _py: Python<'a>) -> &'a [u8] {
        if self.len() == 0 {
            return &[];
        }
        // SAFETY: a C-contiguous buffer's `len_bytes()` bytes start at `buf_ptr()` and stay valid while the
        // buffer is exported (the lifetime of `self`); holding the GIL keeps Python code from writing them.
        unsafe { std::slice::from_raw_parts(self.0.buf_ptr().cast::<u8>(), self.len()) }
    }

    /// Lets `fill` write its bytes in place; a read-only buffer is an error.
    pub fn fill<T>(&self, _py: Python<'_>, fill: impl FnOnce(&mut [u8]) -> T) -> PyResult<T> {
        if self.readonly() {
            return Err(PyValueError::new_err("the destination buffer is read-only"));
        }
        if self.len() == 0 {
            return Ok(fill(&mut []));
        }
        // SAFETY: as in `bytes`, and the exporter said the memory is writable; no other Rust reference to it
        // exists while `fill` runs, and the GIL keeps Python code from touching it.
        let out = unsafe { std::slice::from_raw_parts_mut(self.0.buf_ptr().cast::<u8>(), self.len()) };
        Ok(fill(out))
    }
}

/// Why `obj` lent no buffer (`err`), as the caller can act on it: a 0-d array (pyo3 takes buffers with a shape
/// only), an exporter's own refusal, or an object that is no buffer at all.
fn no_buffer(obj: &Bound<'_, PyAny>, what: &str, err: PyErr) -> PyErr {
    let type_name = obj.get_type().name().map(|n| n.to_string()).unwrap_or_default();
    let Ok(view) = PyMemoryView::from(obj) else {
        return PyTypeError::new_err(format!(
            "{what} must be bytes, a bytearray, a memoryview or a numpy array, not {type_name}"
        ));
    };
    if view.getattr("ndim").and_then(|n| n.extract::<usize>()).ok() == Some(0) {
        return PyTypeError::new_err(format!(
            "{what} is a 0-d array ({type_name}), and host copies take arrays of one or more dimensions: pass \
             np.atleast_1d(x) for a one-element buffer or, as a launch argument, its value as a numpy scalar (x[()])"
        ));
    }
    PyTypeError::new_err(format!(
        "{what} ({type_name}) lends no buffer lanejit can use ({err}); memoryview(x) may lend a usable one"
    ))
}
