//! Architectural state of one wave, and the lane-wise helpers handlers are written with.

use lanejit_isa::{UReg, VReg, LANES, UREGS, VREGS};

/// One 32-lane vector register value.
pub type Lanes = [u32; LANES];

/// Every lane of a wave.
pub const FULL_EXEC: u32 = u32::MAX;

/// Registers, EXEC, PC and status of one wave. `repr(C)` and 64-byte aligned because JIT-compiled code reads
/// and writes it directly (the JIT hands a wave back to the interpreter with nothing to convert).
#[derive(Clone, PartialEq, Eq, Debug)]
#[repr(C, align(64))]
pub struct WaveState {
    /// The vector registers v0..v127, one value per lane.
    pub v: [Lanes; VREGS],
    /// The uniform registers u0..u63, one value per wave.
    pub u: [u32; UREGS],
    /// The execution mask: bit i set = lane i is active.
    pub exec: u32,
    /// Byte address of the next instruction.
    pub pc: u32,
    /// The float control and status register (rounding mode and denormal flushes; see `fpmode`).
    pub fcsr: u32,
    /// Instructions retired by this wave (the `retired` CSR; `cycle` reads it too, so that runs are deterministic).
    pub retired: u64,
    /// Sum over retired instructions of the lanes active in EXEC when each executed (throughput statistics).
    pub lane_ops: u64,
}

impl Default for WaveState {
    fn default() -> Self {
        WaveState { v: [[0; LANES]; VREGS], u: [0; UREGS], exec: 0, pc: 0, fcsr: 0, retired: 0, lane_ops: 0 }
    }
}

/// Is lane `lane` set in `mask`?
#[inline]
pub fn lane_on(mask: u32, lane: usize) -> bool {
    mask >> lane & 1 != 0
}

impl WaveState {
    /// The lanes of vector register `r`.
    #[inline]
    pub fn vr(&self, r: VReg) -> &Lanes {
        &self.v[r.idx()]
    }
    /// The value of uniform register `r`.
    #[inline]
    pub fn ur(&self, r: UReg) -> u32 {
        self.u[r.idx()]
    }
    /// Sets uniform register `r` to `x`.
    #[inline]
    pub fn set_u(&mut self, r: UReg, x: u32) {
        self.u[r.idx()] = x;
    }
    /// Vector register by number, wrapping past v127 is not allowed: callers check ranges first.
    #[inline]
    pub fn vn(&self, n: usize) -> &Lanes {
        &self.v[n]
    }

    /// Writes `vals` into the lanes of `rd` selected by `mask`; other lanes keep their value. Branch-free, with
    /// a plain copy for a full mask (the common case).
    #[inline]
    pub fn write_masked(&mut self, rd: VReg, vals: &Lanes, mask: u32) {
        let d = &mut self.v[rd.idx()];
        if mask == FULL_EXEC {
            *d = *vals;
            return;
        }
        for lane in 0..LANES {
            let m = 0u32.wrapping_sub(mask >> lane & 1);
            d[lane] = (vals[lane] & m) | (d[lane] & !m);
        }
    }

    /// Writes `vals` into the EXEC-active lanes of `rd`.
    #[inline]
    pub fn write_v(&mut self, rd: VReg, vals: &Lanes) {
        let exec = self.exec;
        self.write_masked(rd, vals, exec);
    }

    /// rd = f(s1) lane-wise under EXEC.
    #[inline]
    pub fn map1(&mut self, rd: VReg, rs1: VReg, f: impl Fn(u32) -> u32) {
        let a = *self.vr(rs1);
        self.write_v(rd, &std::array::from_fn(|l| f(a[l])));
    }

    /// rd = f(s1, s2) lane-wise under EXEC.
    #[inline]
    pub fn map2(&mut self, rd: VReg, rs1: VReg, rs2: VReg, f: impl Fn(u32, u32) -> u32) {
        let (a, b) = (*self.vr(rs1), *self.vr(rs2));
        self.write_v(rd, &std::array::from_fn(|l| f(a[l], b[l])));
    }

    /// rd = f(s1, x) lane-wise under EXEC, x a uniform value or immediate.
    #[inline]
    pub fn map2s(&mut self, rd: VReg, rs1: VReg, x: u32, f: impl Fn(u32, u32) -> u32) {
        let a = *self.vr(rs1);
        self.write_v(rd, &std::array::from_fn(|l| f(a[l], x)));
    }

    /// rd = f(s1, s2, s3) lane-wise under EXEC.
    #[inline]
    pub fn map3(&mut self, rd: VReg, rs1: VReg, rs2: VReg, rs3: VReg, f: impl Fn(u32, u32, u32) -> u32) {
        let (a, b, c) = (*self.vr(rs1), *self.vr(rs2), *self.vr(rs3));
        self.write_v(rd, &std::array::from_fn(|l| f(a[l], b[l], c[l])));
    }

    /// 64-bit value of the even-aligned pair starting at `r` in `lane` (low word first).
    #[inline]
    pub fn v64(&self, r: VReg, lane: usize) -> u64 {
        self.v[r.idx()][lane] as u64 | (self.v[r.idx() + 1][lane] as u64) << 32
    }

    /// 64-bit value of the even-aligned uniform pair starting at `r`.
    #[inline]
    pub fn u64_pair(&self, r: UReg) -> u64 {
        self.u[r.idx()] as u64 | (self.u[r.idx() + 1] as u64) << 32
    }

    /// Sets the even-aligned uniform pair starting at `r` to `x` (low word in `r`).
    pub fn set_u64_pair(&mut self, r: UReg, x: u64) {
        self.u[r.idx()] = x as u32;
        self.u[r.idx() + 1] = (x >> 32) as u32;
    }

    /// Writes a 64-bit lane-wise result to the pair starting at `rd` under EXEC.
    pub fn write_v64(&mut self, rd: VReg, vals: &[u64; LANES]) {
        let lo: Lanes = std::array::from_fn(|l| vals[l] as u32);
        let hi: Lanes = std::array::from_fn(|l| (vals[l] >> 32) as u32);
        self.write_v(rd, &lo);
        self.write_v(VReg(rd.0 + 1), &hi);
    }
}
