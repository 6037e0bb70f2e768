//! Which host memory lanejit copies to or from: plain data only (issue 39).
//!
//! A host copy moves raw bytes, so the items of the memory must be nothing but bytes: numbers (bool, integers,
//! floats, complex), C chars, raw void bytes, and records made of those. Device bytes copied into an array of
//! Python objects overwrite its PyObject* slots and crash the interpreter; copied into C pointers (ctypes
//! `c_char_p`) they crash whoever reads them. Text arrays (numpy `U`, `S`) hold no pointers but are refused too:
//! their bytes are numpy's encoding (UCS4 code points, NUL padding), not data a kernel computes on, and device
//! bytes copied into a `U` array can hold code points past U+10FFFF that numpy then refuses to read back. A
//! caller who wants their bytes says so with `x.view(np.uint8)`. A fixed-width text field inside a record stays
//! allowed: it is how a record mirrors a C struct's `char name[8]`.
//!
//! Two checks share the policy: one on a numpy dtype (arrays and scalars; it names the dtype), one on a buffer's
//! format string (memoryviews and every other exporter, and a backstop for numpy).

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyMemoryView;

/// numpy dtype kinds whose items are plain bytes: bool, signed and unsigned integers, floats, complex, void
/// (raw bytes or a record; one holding objects is refused by `hasobject` first).
const PLAIN_KINDS: &str = "biufcV";
/// datetime64 and timedelta64: 8-byte integers (NaT the most negative), copied through an int64 view since numpy
/// lends no buffer of them.
const TIME_KINDS: &str = "Mm";
/// Buffer format item codes (struct module and PEP 3118) of plain data at any depth: pad bytes, chars, bool,
/// integers of every width, and floats (half, single, double, long double; complex is `Z` and one of `fdg`).
const PLAIN_CODES: &[u8] = b"xcbB?hHiIlLqQnNefdg";
/// Item codes of text (bytes, UCS2, UCS4 strings): plain inside a record, refused as a whole buffer's items.
const TEXT_CODES: &[u8] = b"swu";

/// What to hand the buffer protocol for `obj`: `obj` itself, or for a datetime64 or timedelta64 array its int64
/// view (same memory). An error naming the dtype if the items of a numpy array or scalar are not plain data.
pub fn plain_object<'py>(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Bound<'py, PyAny>> {
    let Some(dtype) = obj.getattr_opt("dtype")? else {
        return Ok(obj.clone());
    };
    // Only a numpy dtype has both; anything else that names its items `dtype` is left to the format check.
    let (Some(hasobject), Some(kind)) = (dtype.getattr_opt("hasobject")?, dtype.getattr_opt("kind")?) else {
        return Ok(obj.clone());
    };
    let kind = kind.extract::<char>().unwrap_or('\0');
    let (why, hint) = match kind {
        _ if hasobject.is_truthy()? => ("which holds Python objects (references, not data)", ""),
        k if PLAIN_KINDS.contains(k) => return Ok(obj.clone()),
        k if TIME_KINDS.contains(k) => return obj.call_method1("view", ("i8",)),
        'U' | 'S' => {
            ("which is text in numpy's encoding, not data", " (pass x.view(np.uint8) to copy its bytes on purpose)")
        }
        _ => ("whose items are not plain numbers or bytes", ""),
    };
    Err(PyTypeError::new_err(format!(
        "{what} has dtype {dtype}, {why}; lanejit copies only plain numbers and bytes{hint}"
    )))
}

/// An error naming the format if a buffer's items, as its format string describes them, are not plain data.
pub fn check_format(format: &str, what: &str) -> PyResult<()> {
    let Some(code) = unplain_code(format.as_bytes()) else {
        return Ok(());
    };
    let (why, hint) = match code {
        b'O' => ("Python objects (references, not data)", ""),
        b'z' | b'Z' | b'&' | b'P' => ("pointers", ""),
        c if TEXT_CODES.contains(&c) => ("text", " (pass a uint8 view of it to copy its bytes on purpose)"),
        _ => ("items that are not plain numbers or bytes", ""),
    };
    Err(PyTypeError::new_err(format!(
        "{what} has items of buffer format '{format}', {why}; lanejit copies only plain numbers and bytes{hint}"
    )))
}

/// The first item code of `format` that is not plain data, or None. Byte order and alignment marks, repeat
/// counts, sub-array shapes and field names are skipped; records (`T{...}`) are entered. A code this does not
/// know is refused: a new kind of item is assumed to be anything but plain.
fn unplain_code(format: &[u8]) -> Option<u8> {
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(&c) = format.get(i) {
        i += 1;
        match c {
            b'@' | b'=' | b'<' | b'>' | b'!' | b'^' | b'(' | b')' | b',' | b' ' | b'0'..=b'9' => {}
            b':' => match format[i..].iter().position(|&n| n == b':') {
                Some(len) => i += len + 1,
                None => return Some(c),
            },
            b'T' if format.get(i) == Some(&b'{') => {
                depth += 1;
                i += 1;
            }
            b'}' if depth > 0 => depth -= 1,
            b'Z' if format.get(i).is_some_and(|n| b"fdg".contains(n)) => i += 1,
            c if PLAIN_CODES.contains(&c) => {}
            c if depth > 0 && TEXT_CODES.contains(&c) => {}
            c => return Some(c),
        }
    }
    None
}

/// `lanejit._native._check_plain(obj, what)`: the Python half's check of a launch argument before it packs it
/// (a numpy array or scalar by its dtype, a memoryview by its format), so the error names the argument.
#[pyfunction(name = "_check_plain")]
pub fn check_plain(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<()> {
    plain_object(obj, what)?;
    if obj.is_instance_of::<PyMemoryView>() {
        check_format(&obj.getattr("format")?.extract::<String>()?, what)?;
    }
    Ok(())
}
