//! Types of the generated ISA tables, and the typed operand values the instruction enums carry.

/// Index of an instruction in [`crate::INSNS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InsnId(pub u16);

impl InsnId {
    pub fn info(self) -> &'static InsnInfo {
        &crate::INSNS[self.0 as usize]
    }
}

pub struct FieldInfo {
    pub name: &'static str,
    pub msb: u8,
    pub lsb: u8,
}

impl FieldInfo {
    pub fn width(&self) -> u32 {
        (self.msb - self.lsb + 1) as u32
    }
}

pub struct FormatInfo {
    pub name: &'static str,
    pub width: u32,
    /// The seed's bit map, `f4[31:28] rs2[27:21] …`.
    pub bits: &'static str,
    pub use_: &'static str,
    /// English for `use_`.
    pub en: &'static str,
    pub fields: &'static [FieldInfo],
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KindClass {
    VReg,
    UReg,
    VHalf,
    SImm,
    UImm,
    Bits,
    PcRel,
    Enum,
    Flag,
    SrcMod,
    DMask,
}

pub struct KindInfo {
    pub name: &'static str,
    pub class: KindClass,
    /// Encoded width; a field wider than this keeps its high bits reserved.
    pub bits: u32,
    /// Encoded value × scale = operand value (toff7 counts 4-byte units).
    pub scale: u32,
    pub pair: bool,
    pub rmw: bool,
    /// Encoded default of a keyword operand.
    pub default: Option<u32>,
    pub values: &'static [(&'static str, u32)],
    /// Enum kinds: named numbers per encoded value (YAML `props`), read by width formulas (`dim.coords`).
    pub props: &'static [(&'static str, &'static [(i64, i64)])],
    pub doc: &'static str,
}

impl KindInfo {
    /// Operand value (as carried by the enums) of an encoded field value.
    pub fn decode_value(&self, raw: u32) -> i64 {
        match self.class {
            KindClass::SImm => sign_extend(raw, self.bits) * self.scale as i64,
            KindClass::PcRel => sign_extend(raw, self.bits) * 4,
            _ => raw as i64 * self.scale as i64,
        }
    }

    /// Encoded field value of an operand value, or why it cannot be encoded.
    pub fn encode_value(&self, v: i64) -> Result<u32, String> {
        let unit = if self.class == KindClass::PcRel { 4 } else { self.scale as i64 };
        if v % unit != 0 {
            return Err(format!("{v} is not a multiple of {unit}"));
        }
        let e = v / unit;
        let (lo, hi) = self.encoded_range();
        if e < lo || e > hi {
            return Err(format!("{v} is out of range {}..={}", lo * unit, hi * unit));
        }
        let raw = (e as u64 & ((1u64 << self.bits) - 1)) as u32;
        if self.class == KindClass::Enum && !self.values.iter().any(|(_, x)| *x == raw) {
            return Err(format!("{raw} is not a value of {}", self.name));
        }
        Ok(raw)
    }

    /// Range of the encoded value, before scaling.
    pub fn encoded_range(&self) -> (i64, i64) {
        match self.class {
            KindClass::SImm | KindClass::PcRel => (-(1i64 << (self.bits - 1)), (1i64 << (self.bits - 1)) - 1),
            _ => (0, (1i64 << self.bits) - 1),
        }
    }

    pub fn value_name(&self, raw: u32) -> Option<&'static str> {
        self.values.iter().find(|(_, x)| *x == raw).map(|(n, _)| *n)
    }
}

pub fn sign_extend(raw: u32, bits: u32) -> i64 {
    let shift = 64 - bits;
    ((raw as i64) << shift) >> shift
}

pub struct OperandInfo {
    pub name: &'static str,
    pub kind: u16,
    pub field: &'static str,
    pub lsb: u8,
    pub field_bits: u8,
    /// Register operands: read, written or both (YAML `regs`); `None` for immediates, enums and flags.
    pub dir: Option<crate::Dir>,
    /// Registers of the group read, from the operand's register up (`Width::Fixed(0)`: not read).
    pub read: crate::Width,
    /// Registers of the group written (`Width::Fixed(0)`: not written).
    pub write: crate::Width,
}

impl OperandInfo {
    pub fn kind(&self) -> &'static KindInfo {
        &crate::KINDS[self.kind as usize]
    }
    pub fn extract(&self, raw: u64) -> u32 {
        ((raw >> self.lsb) & ((1u64 << self.kind().bits) - 1)) as u32
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Latency {
    Fixed(u32),
    Counter(crate::Counter),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Flags(pub u32);

impl Flags {
    pub fn has(self, f: Flags) -> bool {
        self.0 & f.0 == f.0
    }
}

pub struct GroupInfo {
    pub number: u32,
    pub name: &'static str,
    pub title: &'static str,
    pub unit: &'static str,
}

pub struct InsnInfo {
    pub id: InsnId,
    pub mnemonic: &'static str,
    pub group: u32,
    pub group_name: &'static str,
    pub unit: &'static str,
    pub format: usize,
    pub opcode: u8,
    /// Fixed fields with their values, `opcode` first.
    pub fixed: &'static [(&'static str, u32)],
    pub fn_text: &'static str,
    /// Bits that decide the instruction (fixed fields and must-be-zero bits) and their values.
    pub mask: u64,
    pub match_: u64,
    pub reserved: u64,
    pub fixed_mask: u64,
    /// Length in 32-bit words.
    pub words: u32,
    pub operands: &'static [OperandInfo],
    pub latency: Latency,
    pub latency_text: &'static str,
    pub flags: Flags,
    pub flags_text: &'static str,
    pub syntax: &'static str,
    pub sem: &'static str,
    pub en: &'static str,
    /// Loads, stores and atomics of a fixed size: the access (YAML `access`); image accesses are in `image`.
    pub access: Option<MemAccess>,
    /// The YAML `regs` text: direction and width of every register operand.
    pub regs_text: &'static str,
    /// fcsr float-mode fields the result may depend on, for some operand values (see `Insn::float_modes`).
    pub float_modes: crate::FloatModes,
    /// YAML `fmode`, term by term: the modes and the operand value they depend on.
    pub fmode: &'static [crate::FmodeTerm],
    pub fmode_text: &'static str,
    /// May read or write fcsr, for some operand values: its `fcsr` terms, or a float mode (see `Insn::fcsr`).
    pub fcsr: crate::FcsrUse,
    /// YAML `fcsr`, term by term (float-mode reads are not repeated here).
    pub fcsr_terms: &'static [crate::FcsrTerm],
    pub fcsr_text: &'static str,
    /// How the instruction uses EXEC.
    pub exec: crate::ExecUse,
    /// Control-flow kind (YAML `flow`).
    pub flow: crate::Flow,
    /// The YAML `access` text (also for image accesses).
    pub access_text: &'static str,
    /// Image loads and stores (YAML `access: texel …`): bytes and alignment are the descriptor's texel size.
    pub image: Option<crate::ImageAccess>,
}

/// The memory access of a load, store or atomic, per lane (vector memory) or per wave (uniform memory).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemAccess {
    /// Bytes accessed (1, 2, 4, 8, 12, 16 or 32).
    pub bytes: u32,
    /// A load narrower than a register sign-extends (else it zero-extends).
    pub signed: bool,
    /// Required alignment of the address in bytes: natural, except 4 for b96 (tightly packed 12-byte elements).
    pub align: u32,
    /// The memory space: fixed, or the value of an `sp` operand.
    pub space: crate::SpaceOf,
    /// Index (syntax order) of the operand holding the data loaded, stored, or sent to and returned by an atomic.
    pub data: u8,
    /// Atomics: the operation (`None` for plain loads and stores).
    pub atomic: Option<crate::AtomicOp>,
}

impl MemAccess {
    /// Registers the data occupies: one per 4 bytes, at least one.
    pub fn regs(self) -> usize {
        (self.bytes as usize).div_ceil(4)
    }
}

impl InsnInfo {
    pub fn format(&self) -> &'static FormatInfo {
        &crate::FORMATS[self.format]
    }
    pub fn has(&self, f: Flags) -> bool {
        self.flags.has(f)
    }
}

/// Operand values of one instruction, in syntax order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operands {
    len: u8,
    vals: [i64; Operands::MAX],
}

impl Operands {
    pub const MAX: usize = 16;
    pub fn from_slice(v: &[i64]) -> Self {
        let mut vals = [0; Self::MAX];
        vals[..v.len()].copy_from_slice(v);
        Operands { len: v.len() as u8, vals }
    }
    pub fn as_slice(&self) -> &[i64] {
        &self.vals[..self.len as usize]
    }
}

/// Conversion between an operand's typed value and its numeric value (what the encoder, assembler and
/// disassembler work with).
pub trait OperandValue: Sized {
    fn to_value(&self) -> i64;
    fn from_value(v: i64) -> Option<Self>;
}

/// Vector register number (0..=127).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VReg(pub u8);
/// Uniform register number (0..=63).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UReg(pub u8);
/// A 16-bit half of a vector register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VHalf {
    pub reg: u8,
    pub hi: bool,
}

pub const VREGS: usize = 128;
pub const UREGS: usize = 64;

impl VReg {
    pub fn idx(self) -> usize {
        self.0 as usize
    }
}
impl UReg {
    pub fn idx(self) -> usize {
        self.0 as usize
    }
}

impl OperandValue for VReg {
    fn to_value(&self) -> i64 {
        self.0 as i64
    }
    fn from_value(v: i64) -> Option<Self> {
        (0..VREGS as i64).contains(&v).then_some(VReg(v as u8))
    }
}
impl OperandValue for UReg {
    fn to_value(&self) -> i64 {
        self.0 as i64
    }
    fn from_value(v: i64) -> Option<Self> {
        (0..UREGS as i64).contains(&v).then_some(UReg(v as u8))
    }
}
impl OperandValue for VHalf {
    fn to_value(&self) -> i64 {
        self.reg as i64 | (self.hi as i64) << 7
    }
    fn from_value(v: i64) -> Option<Self> {
        (0..256).contains(&v).then_some(VHalf { reg: (v & 0x7f) as u8, hi: v & 0x80 != 0 })
    }
}
impl OperandValue for i32 {
    fn to_value(&self) -> i64 {
        *self as i64
    }
    fn from_value(v: i64) -> Option<Self> {
        i32::try_from(v).ok()
    }
}
impl OperandValue for u32 {
    fn to_value(&self) -> i64 {
        *self as i64
    }
    fn from_value(v: i64) -> Option<Self> {
        u32::try_from(v).ok()
    }
}
impl OperandValue for u8 {
    fn to_value(&self) -> i64 {
        *self as i64
    }
    fn from_value(v: i64) -> Option<Self> {
        u8::try_from(v).ok()
    }
}
impl OperandValue for bool {
    fn to_value(&self) -> i64 {
        *self as i64
    }
    fn from_value(v: i64) -> Option<Self> {
        match v {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }
}
