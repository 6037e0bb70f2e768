//! Typed device buffers: `len` values of one plain-data type, freed when dropped, copied as `&[T]` at memcpy
//! speed (`Device::buffer_of`).

use crate::{AllocError, Buffer, Device, MemoryError};
use std::marker::PhantomData;

/// A device allocation holding `len` values of `T` (zeroed at first), freed when dropped. Its address goes into
/// a kernel's arguments (`KernelArgs::ptr(buf.addr())`); `write` and `read` copy whole slices of `T`.
pub struct TypedBuffer<'a, T> {
    dev: &'a Device,
    buf: Buffer<'a>,
    len: usize,
    _values: PhantomData<T>,
}

impl Device {
    /// A zeroed global buffer of `len` values of `T`, freed when the returned buffer is dropped. A size past
    /// `u64` bytes is reported as the memory it would need (`AllocError::Exhausted`).
    pub fn buffer_of<T: bytemuck::Pod>(&self, len: usize) -> Result<TypedBuffer<'_, T>, AllocError> {
        let bytes = (len as u64).saturating_mul(std::mem::size_of::<T>() as u64);
        let buf = self.buffer(bytes)?;
        Ok(TypedBuffer { dev: self, buf, len, _values: PhantomData })
    }
}

impl<T: bytemuck::Pod> TypedBuffer<'_, T> {
    /// Its first device address.
    pub fn addr(&self) -> u64 {
        self.buf.addr()
    }

    /// The number of values it holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Holds no value.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Writes `data` from the buffer's start; more values than it holds is an error and writes nothing.
    pub fn write(&self, data: &[T]) -> Result<(), MemoryError> {
        self.write_at(0, data)
    }

    /// Writes `data` from value `index` on; a range past the end is an error and writes nothing.
    pub fn write_at(&self, index: usize, data: &[T]) -> Result<(), MemoryError> {
        self.check(index, data.len())?;
        self.dev.write_slice(self.value_addr(index), data)
    }

    /// Every value, copied once into a new vector.
    pub fn read(&self) -> Result<Vec<T>, MemoryError> {
        self.dev.read_vec(self.addr(), self.len)
    }

    /// Fills `out` with the values from `index` on; a range past the end is an error.
    pub fn read_into(&self, index: usize, out: &mut [T]) -> Result<(), MemoryError> {
        self.check(index, out.len())?;
        self.dev.read_into(self.value_addr(index), bytemuck::cast_slice_mut(out))
    }

    /// Device address of value `index` (at most `len`, checked by the caller).
    fn value_addr(&self, index: usize) -> u64 {
        self.addr() + (index * std::mem::size_of::<T>()) as u64
    }

    /// Values `index..index + count` lie inside the buffer; else the error names the bytes asked for.
    fn check(&self, index: usize, count: usize) -> Result<(), MemoryError> {
        let fits = index.checked_add(count).is_some_and(|end| end <= self.len);
        if fits {
            return Ok(());
        }
        let size = std::mem::size_of::<T>() as u64;
        let addr = self.addr().saturating_add((index as u64).saturating_mul(size));
        Err(MemoryError { addr, len: (count as u64).saturating_mul(size) })
    }
}

impl<T> std::fmt::Debug for TypedBuffer<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TypedBuffer")
            .field("type", &std::any::type_name::<T>())
            .field("addr", &format_args!("{:#x}", self.buf.addr()))
            .field("len", &self.len)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_buffers_copy_slices_check_ranges_and_free_on_drop() {
        let dev = Device::new().unwrap();
        let addr = {
            let b = dev.buffer_of::<f32>(1000).unwrap();
            assert_eq!((b.len(), b.is_empty()), (1000, false));
            assert_eq!(b.read().unwrap(), vec![0.0; 1000], "zeroed");
            let xs: Vec<f32> = (0..1000).map(|i| i as f32 * 0.5).collect();
            b.write(&xs).unwrap();
            assert_eq!(b.read().unwrap(), xs);
            b.write_at(998, &[7.0, 8.0]).unwrap();
            let mut tail = [0f32; 3];
            b.read_into(997, &mut tail).unwrap();
            assert_eq!(tail, [498.5, 7.0, 8.0]);
            // Past the end: refused, nothing written or read.
            let e = b.write_at(999, &[1.0, 2.0]).unwrap_err();
            assert_eq!((e.addr, e.len), (b.addr() + 999 * 4, 8));
            assert!(b.read_into(usize::MAX, &mut tail).is_err());
            assert!(b.write(&vec![1.0; 1001]).is_err());
            assert_eq!(b.read().unwrap()[999], 8.0);
            assert_eq!(dev.read_vec::<f32>(b.addr() + 4, 1).unwrap(), [0.5], "the bytes a kernel sees");
            b.addr()
        };
        assert!(dev.read_vec::<u32>(addr, 1).is_err(), "freed when dropped");
        assert!(dev.buffer_of::<u64>(usize::MAX).is_err(), "a size past u64 is refused, not wrapped");
    }
}
