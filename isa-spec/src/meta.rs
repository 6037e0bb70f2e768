//! Types of the generated ISA tables, and the typed operand values the instruction enums carry.

/// Index of an instruction in [`crate::INSNS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InsnId(pub u16);

impl InsnId {
    /// The instruction's table row. Panics on an id past the table, which only a hand-built id can be.
    pub fn info(self) -> &'static InsnInfo {
        &crate::INSNS[self.0 as usize]
    }
}

/// One field of a format's bit map, `name[msb:lsb]`.
pub struct FieldInfo {
    /// The field's name: `opcode`, a function field `f<N>`, a reserved `z`/`z0`/`z1`, or an operand field.
    pub name: &'static str,
    /// Highest bit of the field in the instruction (bit 0 is the first word's lowest).
    pub msb: u8,
    /// Lowest bit of the field.
    pub lsb: u8,
}

impl FieldInfo {
    /// Width of the field in bits.
    pub fn width(&self) -> u32 {
        (self.msb - self.lsb + 1) as u32
    }
}

/// An encoding format (a row of the generated `FORMATS`, YAML `formats.yaml`).
pub struct FormatInfo {
    /// The format's name (`R`, `XL`, `M`, …).
    pub name: &'static str,
    /// Length of an instruction of this format in bits: 32 or 64.
    pub width: u32,
    /// The seed's bit map, `f4[31:28] rs2[27:21] …`.
    pub bits: &'static str,
    /// What the format is for, in the seed's words (Chinese).
    pub use_: &'static str,
    /// English for `use_`.
    pub en: &'static str,
    /// The fields of `bits`, high to low; together they cover every bit exactly once.
    pub fields: &'static [FieldInfo],
}

/// How an operand kind's bits become a value (YAML `class`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KindClass {
    /// A vector register number, 0..=127 ([`VReg`]).
    VReg,
    /// A uniform register number, 0..=63 ([`UReg`]).
    UReg,
    /// A 16-bit half of a vector register: bits 6..0 the register, bit 7 the high half ([`VHalf`]).
    VHalf,
    /// A signed (two's complement) immediate, times the kind's `scale`.
    SImm,
    /// An unsigned immediate, times the kind's `scale`.
    UImm,
    /// A raw 32-bit literal (an integer or the bits of an f32).
    Bits,
    /// A signed PC-relative offset: the field counts words, the value is in bytes (field × 4).
    PcRel,
    /// One of the kind's named `values`; an unlisted encoding is illegal.
    Enum,
    /// A 1-bit keyword, present or absent.
    Flag,
    /// A source-modifier mask, one bit per source operand (negate or absolute value).
    SrcMod,
    /// An image component mask, letters of `rgba` (bit 0 is r); 0 is illegal.
    DMask,
}

/// An operand kind (a row of the generated `KINDS`, YAML `operand_kinds`).
pub struct KindInfo {
    /// The kind's name in instruction syntax (`v`, `up`, `imm24`, `rm`, …).
    pub name: &'static str,
    /// How its bits become a value.
    pub class: KindClass,
    /// Encoded width; a field wider than this keeps its high bits reserved.
    pub bits: u32,
    /// Encoded value × scale = operand value (toff7 counts 4-byte units).
    pub scale: u32,
    /// A register pair kind: the register must be even (`v4` names v4:v5, low word first).
    pub pair: bool,
    /// A destination whose unwritten lanes (or other half) keep their value (seed notation `v*`).
    pub rmw: bool,
    /// Encoded default of a keyword operand.
    pub default: Option<u32>,
    /// Enum kinds: (assembly name, encoded value) of every legal value, in YAML order; empty otherwise.
    pub values: &'static [(&'static str, u32)],
    /// Enum kinds: named numbers per encoded value (YAML `props`), read by width formulas (`dim.coords`).
    pub props: &'static [(&'static str, &'static [(i64, i64)])],
    /// What the kind means, from the YAML.
    pub doc: &'static str,
}

impl crate::Counter {
    /// The largest value of this counter's `wait` field (the encoded maximum of its `cnt_<name>` operand kind):
    /// a `wait` with it does not wait on the counter, and the counter never holds more operations.
    pub fn wait_max(self) -> u32 {
        let kind = crate::KINDS.iter().find(|k| k.name.strip_prefix("cnt_") == Some(self.name()));
        kind.expect("the YAML gives every counter a `cnt_` operand kind").encoded_range().1 as u32
    }
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

    /// Enum kinds: the assembly name of an encoded value; `None` for an unlisted value or another class.
    pub fn value_name(&self, raw: u32) -> Option<&'static str> {
        self.values.iter().find(|(_, x)| *x == raw).map(|(n, _)| *n)
    }
}

/// The low `bits` bits of `raw` (1..=32) read as a two's-complement number.
pub fn sign_extend(raw: u32, bits: u32) -> i64 {
    let shift = 64 - bits;
    ((raw as i64) << shift) >> shift
}

/// One operand of an instruction, in syntax order (`InsnInfo::operands`).
pub struct OperandInfo {
    /// The operand's name in the syntax (`rd`, `imm`, `sp`), also its field in the instruction enum.
    pub name: &'static str,
    /// Index of its kind in [`crate::KINDS`] (see [`OperandInfo::kind`]).
    pub kind: u16,
    /// The format field holding it (usually its name; `name:kind@field` in the syntax names another).
    pub field: &'static str,
    /// Lowest bit of the field; the operand takes the kind's width from here up.
    pub lsb: u8,
    /// Width of the field in bits; bits above the kind's width are reserved (must be zero).
    pub field_bits: u8,
    /// Register operands: read, written or both (YAML `regs`); `None` for immediates, enums and flags.
    pub dir: Option<crate::Dir>,
    /// Registers of the group read, from the operand's register up (`Width::Fixed(0)`: not read).
    pub read: crate::Width,
    /// Registers of the group written (`Width::Fixed(0)`: not written).
    pub write: crate::Width,
}

impl OperandInfo {
    /// The operand's kind.
    pub fn kind(&self) -> &'static KindInfo {
        &crate::KINDS[self.kind as usize]
    }
    /// The operand's encoded bits from an instruction (both words, first word low): the kind's width from
    /// `lsb` up, before [`KindInfo::decode_value`].
    pub fn extract(&self, raw: u64) -> u32 {
        ((raw >> self.lsb) & ((1u64 << self.kind().bits) - 1)) as u32
    }
}

/// When an instruction's result is ready (YAML `latency`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Latency {
    /// After this many cycles (`fixed:N`).
    Fixed(u32),
    /// When this wait counter says so: the instruction raises it, and `wait` waits for it (`counter:C`).
    Counter(crate::Counter),
}

/// A set of instruction flags (YAML `flags`): bit `i` is flag `i` of [`crate::FLAG_NAMES`]; the constants are
/// in [`crate::flag`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Flags(pub u32);

impl Flags {
    /// Whether every flag of `f` is in this set.
    pub fn has(self, f: Flags) -> bool {
        self.0 & f.0 == f.0
    }
}

/// An instruction group (a row of the generated `GROUPS`, one `groups/*.yaml` file).
pub struct GroupInfo {
    /// The group's number (1..), as in its file name.
    pub number: u32,
    /// Short name (`vint`), also the name of its instruction enum (`VintInsn`) and of its `Insn` variant.
    pub name: &'static str,
    /// English heading in the reference docs.
    pub title: &'static str,
    /// The execution unit its instructions run on unless an entry names another.
    pub unit: &'static str,
}

/// Everything the spec says of one instruction (a row of the generated `INSNS`).
pub struct InsnInfo {
    /// The row's own index.
    pub id: InsnId,
    /// Assembly mnemonic (`v.add`, `ld.u8`).
    pub mnemonic: &'static str,
    /// Number of its group ([`GroupInfo::number`]).
    pub group: u32,
    /// Name of its group ([`GroupInfo::name`]).
    pub group_name: &'static str,
    /// The execution unit it runs on.
    pub unit: &'static str,
    /// Index of its format in [`crate::FORMATS`] (see [`InsnInfo::format`]).
    pub format: usize,
    /// The 7-bit opcode (odd for 64-bit formats).
    pub opcode: u8,
    /// Fixed fields with their values, `opcode` first.
    pub fixed: &'static [(&'static str, u32)],
    /// The YAML `fn` text: function-field values (`f4=0x2`).
    pub fn_text: &'static str,
    /// Bits that decide the instruction: fixed fields and must-be-zero bits.
    pub mask: u64,
    /// The values of the `mask` bits: a word `w` is this instruction when `w & mask == match_`.
    pub match_: u64,
    /// Bits that must be zero: reserved fields, unused operand fields, high bits of narrow operands.
    pub reserved: u64,
    /// Bits of the opcode and function fields only.
    pub fixed_mask: u64,
    /// Length in 32-bit words.
    pub words: u32,
    /// Its operands, in syntax order.
    pub operands: &'static [OperandInfo],
    /// When its result is ready.
    pub latency: Latency,
    /// The YAML `latency` text (`fixed:4`, `counter:vm`).
    pub latency_text: &'static str,
    /// Its flags.
    pub flags: Flags,
    /// The YAML `flags` text (`ld st`).
    pub flags_text: &'static str,
    /// The YAML syntax: `name:kind` per operand, in assembly order.
    pub syntax: &'static str,
    /// Short pseudo-code of the effect, where the YAML gives one (`sem`); empty otherwise.
    pub sem: &'static str,
    /// The English description: the instruction's exact semantics, traps included.
    pub en: &'static str,
    /// Loads, stores and atomics of a fixed size: the access (YAML `access`); image accesses are in `image`.
    pub access: Option<MemAccess>,
    /// The YAML `regs` text: direction and width of every register operand.
    pub regs_text: &'static str,
    /// fcsr float-mode fields the result may depend on, for some operand values (see `Insn::float_modes`).
    pub float_modes: crate::FloatModes,
    /// YAML `fmode`, term by term: the modes and the operand value they depend on.
    pub fmode: &'static [crate::FmodeTerm],
    /// The counters raised instead of the latency's own for some operand values (YAML `latency: counter:vm
    /// ls[sp=shared]`; see `Insn::counter`).
    pub counter_terms: &'static [crate::CounterTerm],
    /// The YAML `fmode` text (`frm[rm=dyn] ftz32`).
    pub fmode_text: &'static str,
    /// May read or write fcsr, for some operand values: its `fcsr` terms, or a float mode (see `Insn::fcsr`).
    pub fcsr: crate::FcsrUse,
    /// YAML `fcsr`, term by term (float-mode reads are not repeated here).
    pub fcsr_terms: &'static [crate::FcsrTerm],
    /// The YAML `fcsr` text (`rw[csr=fcsr]`).
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
    /// The instruction's encoding format.
    pub fn format(&self) -> &'static FormatInfo {
        &crate::FORMATS[self.format]
    }
    /// Whether the instruction carries every flag of `f`.
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
    /// Most operands the type holds (more than any instruction has).
    pub const MAX: usize = 16;
    /// The values of `v`. Panics if `v` holds more than `MAX` values; the generated code never passes more
    /// than an instruction's operands.
    pub fn from_slice(v: &[i64]) -> Self {
        let mut vals = [0; Self::MAX];
        vals[..v.len()].copy_from_slice(v);
        Operands { len: v.len() as u8, vals }
    }
    /// The values, in syntax order.
    pub fn as_slice(&self) -> &[i64] {
        &self.vals[..self.len as usize]
    }
}

/// Conversion between an operand's typed value and its numeric value (what the encoder, assembler and
/// disassembler work with).
pub trait OperandValue: Sized {
    /// The numeric value (a register number, an immediate, an enum's encoded number, 0 or 1 for a flag).
    fn to_value(&self) -> i64;
    /// The typed value of a number, or `None` if the type cannot hold it.
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
    /// The vector register number (0..=127).
    pub reg: u8,
    /// `true`: the high 16 bits (`.h`); `false`: the low 16 bits (`.l`).
    pub hi: bool,
}

/// Number of vector registers (v0..v127).
pub const VREGS: usize = 128;
/// Number of uniform registers (u0..u63).
pub const UREGS: usize = 64;

impl VReg {
    /// The register number as an index into a register file.
    pub fn idx(self) -> usize {
        self.0 as usize
    }
}
impl UReg {
    /// The register number as an index into a register file.
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
