//! Lane-wise integer operations that Cranelift emits the same way on I32 and I32X4 (the uniform group uses them
//! on scalars), and the shapes that read a vint instruction's sources whole and write rd under EXEC. Every
//! source is read before rd is defined, so rd may alias a source.

use super::super::Lowered;
use crate::fx::{Fx, Vec32};
use cranelift_codegen::ir::{types::I32X4, InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;
use lanejit_isa::{UReg, VReg};

/// Two-operand integer operations (wrapping; both operands the same type, scalar or vector).
#[derive(Clone, Copy, Debug)]
pub enum Bin {
    Add,
    Sub,
    /// y - x: the reverse subtract of the .vu/.k forms, whose uniform or literal is always source 2.
    Rsub,
    Mul,
    And,
    Or,
    Xor,
    Andn,
    Orn,
    Min,
    Max,
    MinU,
    MaxU,
    Absdiff,
    AbsdiffU,
}

impl Bin {
    pub fn emit(self, b: &mut FunctionBuilder, x: Value, y: Value) -> Value {
        use Bin::*;
        match self {
            Add => b.ins().iadd(x, y),
            Sub => b.ins().isub(x, y),
            Rsub => b.ins().isub(y, x),
            Mul => b.ins().imul(x, y),
            And => b.ins().band(x, y),
            Or => b.ins().bor(x, y),
            Xor => b.ins().bxor(x, y),
            Andn => b.ins().band_not(x, y),
            Orn => b.ins().bor_not(x, y),
            Min => b.ins().smin(x, y),
            Max => b.ins().smax(x, y),
            MinU => b.ins().umin(x, y),
            MaxU => b.ins().umax(x, y),
            // max - min is |x - y| taken mod 2^32 whichever operand is larger (exact as an unsigned value).
            Absdiff => {
                let (hi, lo) = (b.ins().smax(x, y), b.ins().smin(x, y));
                b.ins().isub(hi, lo)
            }
            AbsdiffU => {
                let (hi, lo) = (b.ins().umax(x, y), b.ins().umin(x, y));
                b.ins().isub(hi, lo)
            }
        }
    }
}

/// Applies `f` to each 128-bit slice of `a`.
pub fn map(fx: &mut Fx, a: Vec32, mut f: impl FnMut(&mut Fx, Value) -> Value) -> Vec32 {
    std::array::from_fn(|k| f(fx, a[k]))
}

/// d = s1 op s2.
pub fn vv(fx: &mut Fx, rd: VReg, rs1: VReg, rs2: VReg, op: Bin) -> Lowered {
    let (a, c) = (fx.v(rs1), fx.v(rs2));
    let d = fx.map2(a, c, |b, x, y| op.emit(b, x, y));
    fx.set_v(rd, d);
    Lowered::Native
}

/// d = s1 op y, with y one I32X4 holding the same value in every lane (a splat uniform or a literal).
pub fn vy(fx: &mut Fx, rd: VReg, rs1: VReg, y: Value, op: Bin) -> Lowered {
    let a = fx.v(rs1);
    let d = map(fx, a, |fx, x| op.emit(&mut fx.b, x, y));
    fx.set_v(rd, d);
    Lowered::Native
}

/// d = s1 op u2.
pub fn vu(fx: &mut Fx, rd: VReg, rs1: VReg, rs2: UReg, op: Bin) -> Lowered {
    let u = fx.u(rs2);
    let y = fx.b.ins().splat(I32X4, u);
    vy(fx, rd, rs1, y, op)
}

/// d = s1 op k, k a literal or an immediate already extended to 32 bits.
pub fn vk(fx: &mut Fx, rd: VReg, rs1: VReg, k: u32, op: Bin) -> Lowered {
    let y = fx.kvec(k);
    vy(fx, rd, rs1, y, op)
}

/// d = f(s1), slice by slice.
pub fn un(fx: &mut Fx, rd: VReg, rs1: VReg, f: impl FnMut(&mut Fx, Value) -> Value) -> Lowered {
    let a = fx.v(rs1);
    let d = map(fx, a, f);
    fx.set_v(rd, d);
    Lowered::Native
}

/// d = the same value in every lane.
pub fn fill(fx: &mut Fx, rd: VReg, x: Value) -> Lowered {
    fx.set_v(rd, [x; crate::fx::VECS]);
    Lowered::Native
}
