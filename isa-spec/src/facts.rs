//! Register and state facts of the instructions (YAML `regs`, `fmode`, `fcsr`, `flow`, `access`): their types,
//! and their evaluation on a decoded instruction (`Insn::reads`, `Insn::writes`, `Insn::float_modes`, …).
//! Everything here is driven by the generated tables; nothing knows an instruction or an operand by name.

use crate::expr::{eval, WOp};
use crate::{Insn, KindClass, Sp, UReg, VReg, FLOAT_MODES, UREGS, VREGS};

pub use crate::vocab::{AtomicOp, Dir, Flow};

/// Number of consecutive registers, from the operand's register up, that an operand reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    /// The same number of registers for every operand value (0: the group is not read, or not written).
    Fixed(u8),
    /// A formula over other operands (its YAML text and postfix code), e.g. an image op's `pop(dmask) + rsd`.
    Expr(&'static str, &'static [WOp]),
}

impl Width {
    /// The width for these operand values (syntax order, as `Insn::operand_values` gives them).
    pub fn eval(&self, vals: &[i64]) -> usize {
        match *self {
            Width::Fixed(n) => n as usize,
            // The build script evaluated the formula for every legal operand combination; an operand value no
            // decoder produces (dmask 0) may give 0, which names no register.
            Width::Expr(_, code) => eval(code, vals).unwrap_or(0).max(0) as usize,
        }
    }
    /// The width when it does not depend on other operands.
    pub fn fixed(&self) -> Option<u8> {
        match *self {
            Width::Fixed(n) => Some(n),
            Width::Expr(..) => None,
        }
    }
}

impl std::fmt::Display for Width {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Width::Fixed(n) => write!(f, "{n}"),
            Width::Expr(text, _) => f.write_str(text),
        }
    }
}

/// A fact that holds only when an operand has a value (`[rm=dyn]`, `[csr=fcsr]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct When {
    /// Operand index in syntax order.
    pub operand: u8,
    /// Its operand value (an enum's encoded number).
    pub value: i64,
}

impl When {
    /// Whether the operand has the value, given the instruction's operand values in syntax order.
    pub fn holds(&self, vals: &[i64]) -> bool {
        vals.get(self.operand as usize) == Some(&self.value)
    }
}

/// A set of fcsr float-mode fields (`float_mode::FRM`, `FTZ32`, `FTZ16`; YAML `float_modes`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct FloatModes(pub u8);

impl FloatModes {
    /// No field: the result does not depend on fcsr.
    pub const NONE: FloatModes = FloatModes(0);
    /// Whether every field of `m` is in this set.
    pub fn has(self, m: FloatModes) -> bool {
        self.0 & m.0 == m.0
    }
    /// Whether the set holds no field.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// The fields of both sets.
    pub fn union(self, m: FloatModes) -> FloatModes {
        FloatModes(self.0 | m.0)
    }
    /// The fcsr bits of these fields: the result is the same for every fcsr that agrees on them.
    pub fn fcsr_mask(self) -> u32 {
        FLOAT_MODES.iter().enumerate().filter(|(i, _)| self.0 >> i & 1 != 0).fold(0, |a, (_, m)| a | m.fcsr_mask)
    }
    /// Names of the fields, in `FLOAT_MODES` order.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        FLOAT_MODES.iter().enumerate().filter(move |(i, _)| self.0 >> i & 1 != 0).map(|(_, m)| m.name)
    }
}

/// One fcsr float-mode field, a row of the generated `FLOAT_MODES` (YAML `float_modes`).
pub struct FloatModeInfo {
    /// The field's name in the YAML and in `fmode` texts (`frm`, `ftz32`, `ftz16`).
    pub name: &'static str,
    /// The field's bits in fcsr.
    pub fcsr_mask: u32,
    /// What the field controls, from the YAML.
    pub doc: &'static str,
}

/// One `fmode` term: these modes matter, always or when an operand has a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FmodeTerm {
    /// The fields the result depends on.
    pub modes: FloatModes,
    /// The operand value under which they matter (`[rm=dyn]`); `None`: always.
    pub when: Option<When>,
}

/// A wait counter raised instead of the latency's own when an operand has a value (`ls[sp=shared]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CounterTerm {
    /// The counter raised.
    pub counter: crate::Counter,
    /// The operand value under which it is raised instead.
    pub when: When,
}

/// Whether an instruction reads or writes fcsr.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct FcsrUse {
    /// fcsr (or a float-mode field of it) is read.
    pub reads: bool,
    /// fcsr is written.
    pub writes: bool,
}

/// One `fcsr` term (reads or writes other than through the float modes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FcsrTerm {
    /// The read and write this term states.
    pub use_: FcsrUse,
    /// The operand value under which it happens (`[csr=fcsr]`); `None`: always.
    pub when: Option<When>,
}

/// How an instruction uses EXEC.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ExecUse {
    /// Acts only in the lanes EXEC enables: writes vector registers or accesses memory lane by lane (not `ei`).
    pub masked: bool,
    /// Reads EXEC as a value (flag `re`: compares, reductions, `exec.*`, `j.execz`).
    pub reads: bool,
    /// Writes EXEC (flag `we`).
    pub writes: bool,
    /// Writes EXEC only as a subset of its old value (YAML `exec: shrinks`): lanes can leave, never join.
    pub shrinks: bool,
    /// Reads its vector sources only in the lanes EXEC enables (YAML `lanes: active`: reductions, ballots,
    /// compares writing a lane mask): an inactive lane's value never reaches the result.
    pub active_reads: bool,
}

impl ExecUse {
    /// The instruction's effect depends on EXEC, as a lane mask or as a value.
    pub fn depends(self) -> bool {
        self.masked || self.reads
    }
}

/// The memory space of an access: fixed, or the value of an operand (index in syntax order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpaceOf {
    /// Always this space (uniform memory is global, for instance).
    Fixed(Sp),
    /// The space named by the `sp` operand at this index (syntax order).
    Operand(u8),
}

/// An image load or store: bytes and alignment are the texel size the descriptor's format gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageAccess {
    /// The memory space the image lives in.
    pub space: SpaceOf,
    /// Index of the data operand (syntax order).
    pub data: u8,
}

/// The two register files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegFile {
    /// The vector registers v0..v127, one 32-bit value per lane.
    V,
    /// The uniform registers u0..u63, one 32-bit value per wave.
    U,
}

/// One register of either file; vector registers order before uniform ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reg {
    /// A vector register.
    V(VReg),
    /// A uniform register.
    U(UReg),
}

/// A set of vector and uniform registers (a fixed-size bitset).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct RegSet {
    v: [u64; VREGS / 64],
    u: [u64; UREGS / 64],
}

const _: () = assert!(VREGS.is_multiple_of(64) && UREGS.is_multiple_of(64));

impl RegSet {
    /// The set of no register.
    pub const EMPTY: RegSet = RegSet { v: [0; VREGS / 64], u: [0; UREGS / 64] };

    /// An empty set (as `EMPTY`).
    pub fn new() -> RegSet {
        RegSet::EMPTY
    }
    /// Adds register `r` of `file`; a number past the file is left out (engines trap on it).
    pub fn insert(&mut self, file: RegFile, r: usize) {
        match file {
            RegFile::V if r < VREGS => self.v[r / 64] |= 1 << (r % 64),
            RegFile::U if r < UREGS => self.u[r / 64] |= 1 << (r % 64),
            _ => {}
        }
    }
    /// Adds registers `first .. first + n` of `file`, leaving out those past the file.
    pub fn insert_group(&mut self, file: RegFile, first: usize, n: usize) {
        for r in first..first.saturating_add(n) {
            self.insert(file, r);
        }
    }
    /// Adds register `r`.
    pub fn add(&mut self, r: Reg) {
        match r {
            Reg::V(v) => self.insert(RegFile::V, v.idx()),
            Reg::U(u) => self.insert(RegFile::U, u.idx()),
        }
    }
    /// Whether register `r` of `file` is in the set (`false` for a number past the file).
    pub fn contains(&self, file: RegFile, r: usize) -> bool {
        match file {
            RegFile::V => r < VREGS && self.v[r / 64] >> (r % 64) & 1 != 0,
            RegFile::U => r < UREGS && self.u[r / 64] >> (r % 64) & 1 != 0,
        }
    }
    /// Whether register `r` is in the set.
    pub fn has(&self, r: Reg) -> bool {
        match r {
            Reg::V(v) => self.contains(RegFile::V, v.idx()),
            Reg::U(u) => self.contains(RegFile::U, u.idx()),
        }
    }
    fn zip(self, o: RegSet, f: impl Fn(u64, u64) -> u64) -> RegSet {
        RegSet { v: std::array::from_fn(|i| f(self.v[i], o.v[i])), u: std::array::from_fn(|i| f(self.u[i], o.u[i])) }
    }
    /// Registers in either set.
    pub fn union(self, o: RegSet) -> RegSet {
        self.zip(o, |a, b| a | b)
    }
    /// Registers in both sets.
    pub fn intersection(self, o: RegSet) -> RegSet {
        self.zip(o, |a, b| a & b)
    }
    /// Registers in this set and not in `o`.
    pub fn difference(self, o: RegSet) -> RegSet {
        self.zip(o, |a, b| a & !b)
    }
    /// Whether every register of this set is in `o`.
    pub fn is_subset(&self, o: &RegSet) -> bool {
        self.difference(*o).is_empty()
    }
    /// Whether the set holds no register.
    pub fn is_empty(&self) -> bool {
        self.v.iter().chain(&self.u).all(|w| *w == 0)
    }
    /// Number of registers in the set, both files.
    pub fn len(&self) -> usize {
        self.v.iter().chain(&self.u).map(|w| w.count_ones() as usize).sum()
    }
    /// Vector registers in ascending order, then uniform registers.
    pub fn iter(&self) -> impl Iterator<Item = Reg> + '_ {
        self.vregs().map(Reg::V).chain(self.uregs().map(Reg::U))
    }
    /// The vector registers of the set, in ascending order.
    pub fn vregs(&self) -> impl Iterator<Item = VReg> + '_ {
        (0..VREGS).filter(|&r| self.contains(RegFile::V, r)).map(|r| VReg(r as u8))
    }
    /// The uniform registers of the set, in ascending order.
    pub fn uregs(&self) -> impl Iterator<Item = UReg> + '_ {
        (0..UREGS).filter(|&r| self.contains(RegFile::U, r)).map(|r| UReg(r as u8))
    }
}

impl std::ops::BitOr for RegSet {
    type Output = RegSet;
    fn bitor(self, o: RegSet) -> RegSet {
        self.union(o)
    }
}

impl std::ops::BitOrAssign for RegSet {
    fn bitor_assign(&mut self, o: RegSet) {
        *self = self.union(o);
    }
}

impl FromIterator<Reg> for RegSet {
    fn from_iter<I: IntoIterator<Item = Reg>>(it: I) -> RegSet {
        let mut s = RegSet::new();
        it.into_iter().for_each(|r| s.add(r));
        s
    }
}

/// One register operand of a decoded instruction: its group and how much of it is read and written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegUse {
    /// Operand index in syntax order.
    pub operand: u8,
    /// Read, written or both (the operand's `regs` direction).
    pub dir: Dir,
    /// The register file of the group.
    pub file: RegFile,
    /// First register (a half's register).
    pub first: u8,
    /// Registers read from `first` up (0: none). They may run past the file: engines trap.
    pub read: u8,
    /// Registers written from `first` up (0: none). They may run past the file: engines trap.
    pub written: u8,
}

/// The register operands of one instruction, in syntax order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegUses {
    len: u8,
    uses: [RegUse; RegUses::MAX],
}

impl RegUses {
    /// Most register operands of any instruction (the build script refuses more).
    pub const MAX: usize = crate::vocab::MAX_REG_OPERANDS;
    /// The register operands, in syntax order.
    pub fn as_slice(&self) -> &[RegUse] {
        &self.uses[..self.len as usize]
    }
}

impl Insn {
    /// Every register operand with its group, evaluated from the operand values (widths and formulas).
    pub fn reg_uses(&self) -> RegUses {
        let info = self.id().info();
        let vals = self.operand_values();
        let vals = vals.as_slice();
        let blank = RegUse { operand: 0, dir: Dir::In, file: RegFile::V, first: 0, read: 0, written: 0 };
        let mut out = RegUses { len: 0, uses: [blank; RegUses::MAX] };
        for (i, op) in info.operands.iter().enumerate() {
            let Some(dir) = op.dir else { continue };
            let k = op.kind();
            let (file, first) = match k.class {
                KindClass::UReg => (RegFile::U, vals[i]),
                KindClass::VHalf => (RegFile::V, vals[i] & 0x7f),
                _ => (RegFile::V, vals[i]),
            };
            let (read, written) = (op.read.eval(vals) as u8, op.write.eval(vals) as u8);
            out.uses[out.len as usize] = RegUse { operand: i as u8, dir, file, first: first as u8, read, written };
            out.len += 1;
        }
        out
    }

    /// Registers the instruction reads (in any lane it acts on); registers past the file are left out.
    pub fn reads(&self) -> RegSet {
        let mut s = RegSet::new();
        for u in self.reg_uses().as_slice() {
            s.insert_group(u.file, u.first as usize, u.read as usize);
        }
        s
    }

    /// Registers the instruction may write; registers past the file are left out.
    pub fn writes(&self) -> RegSet {
        let mut s = RegSet::new();
        for u in self.reg_uses().as_slice() {
            s.insert_group(u.file, u.first as usize, u.written as usize);
        }
        s
    }

    /// fcsr float-mode fields the result depends on with these operand values (`rm = dyn` adds `frm`).
    pub fn float_modes(&self) -> FloatModes {
        let info = self.id().info();
        let vals = self.operand_values();
        info.fmode
            .iter()
            .filter(|t| t.when.is_none_or(|w| w.holds(vals.as_slice())))
            .fold(FloatModes::NONE, |a, t| a.union(t.modes))
    }

    /// Whether this instruction reads or writes fcsr with these operand values (a float mode it depends on
    /// counts as a read; a CSR instruction touches fcsr only when it names fcsr).
    pub fn fcsr(&self) -> FcsrUse {
        let info = self.id().info();
        let vals = self.operand_values();
        let mut u = FcsrUse { reads: !self.float_modes().is_empty(), writes: false };
        for t in info.fcsr_terms.iter().filter(|t| t.when.is_none_or(|w| w.holds(vals.as_slice()))) {
            u.reads |= t.use_.reads;
            u.writes |= t.use_.writes;
        }
        u
    }

    /// How the instruction uses EXEC (from its table row).
    pub fn exec(&self) -> ExecUse {
        self.id().info().exec
    }

    /// The wait counter this instruction raises with these operand values (`None`: a fixed latency): the
    /// latency's counter, or a term's when its condition holds (a shared-memory access raises `ls`).
    pub fn counter(&self) -> Option<crate::Counter> {
        let info = self.id().info();
        let crate::Latency::Counter(own) = info.latency else { return None };
        let vals = self.operand_values();
        Some(info.counter_terms.iter().find(|t| t.when.holds(vals.as_slice())).map_or(own, |t| t.counter))
    }

    /// The instruction's control-flow kind (from its table row).
    pub fn flow(&self) -> Flow {
        self.id().info().flow
    }

    /// The memory space of a load, store, atomic or image access.
    pub fn mem_space(&self) -> Option<Sp> {
        let info = self.id().info();
        let space = info.access.map(|a| a.space).or(info.image.map(|a| a.space))?;
        match space {
            SpaceOf::Fixed(sp) => Some(sp),
            SpaceOf::Operand(i) => Sp::from_raw(*self.operand_values().as_slice().get(i as usize)? as u32),
        }
    }
}
