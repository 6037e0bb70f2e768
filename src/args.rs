//! Kernel argument blocks, built value by value in the order the kernel reads them.

/// A kernel's argument block (`LaunchConfig::args`): each value is placed at the next offset aligned to its size,
/// as a kernel reading it with `u.ld.b32`/`u.ld.b64` at those offsets expects (the layout of a C struct of the
/// same fields). A launch checks the block is at least the kernel's `.args` long.
///
/// ```
/// # use lanejit::KernelArgs;
/// let args = KernelArgs::new().ptr(0x1_0000_0000).u32(1000).f32(2.5).ptr(0x1_0000_1000);
/// assert_eq!(args.offsets(), &[0, 8, 12, 16]);
/// let bytes: Vec<u8> = args.into();
/// assert_eq!(bytes.len(), 24);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelArgs {
    bytes: Vec<u8>,
    offsets: Vec<usize>,
}

impl KernelArgs {
    /// An empty block.
    pub fn new() -> KernelArgs {
        KernelArgs::default()
    }

    fn push(mut self, align: usize, value: &[u8]) -> KernelArgs {
        let at = self.bytes.len().next_multiple_of(align);
        self.bytes.resize(at, 0);
        self.bytes.extend_from_slice(value);
        self.offsets.push(at);
        self
    }

    /// A device address (8 bytes), e.g. `Alloc::addr` or `Buffer::addr`.
    pub fn ptr(self, addr: u64) -> KernelArgs {
        self.push(8, &addr.to_le_bytes())
    }
    /// A 32-bit unsigned integer.
    pub fn u32(self, v: u32) -> KernelArgs {
        self.push(4, &v.to_le_bytes())
    }
    /// A 32-bit signed integer.
    pub fn i32(self, v: i32) -> KernelArgs {
        self.push(4, &v.to_le_bytes())
    }
    /// A 32-bit float (its bits).
    pub fn f32(self, v: f32) -> KernelArgs {
        self.push(4, &v.to_le_bytes())
    }
    /// A 64-bit unsigned integer.
    pub fn u64(self, v: u64) -> KernelArgs {
        self.push(8, &v.to_le_bytes())
    }
    /// A 64-bit float (its bits).
    pub fn f64(self, v: f64) -> KernelArgs {
        self.push(8, &v.to_le_bytes())
    }
    /// An image descriptor's 8 words (32 bytes), at the next offset aligned to 32 so that one `u.ld.b256`
    /// loads it into the uniform registers an image instruction names.
    pub fn image(self, d: &crate::image::Descriptor) -> KernelArgs {
        let words = d.to_words();
        self.push(32, bytemuck::cast_slice(&words))
    }
    /// Raw bytes, placed right after the previous value (no alignment).
    pub fn bytes(self, b: &[u8]) -> KernelArgs {
        self.push(1, b)
    }
    /// The offset of each value pushed so far, in order.
    pub fn offsets(&self) -> &[usize] {
        &self.offsets
    }
    /// The block's length in bytes.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }
    /// Nothing pushed yet.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

impl From<KernelArgs> for Vec<u8> {
    fn from(a: KernelArgs) -> Vec<u8> {
        a.bytes
    }
}
