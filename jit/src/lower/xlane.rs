//! Group `xlane` (seed 000): immediate shuffles and quad swizzles become constant permutations, and so do
//! shuffles by a uniform operand in optimised code (a jump table on its value; shfl.xor tests the distance's
//! bits); per-lane deltas (and uniform ones in quick code) gather through a stack slot; ballot, votes, reductions
//! and the scan are native. Derivatives (float, fcsr-dependent) and a trapping `writelane` are left to the
//! interpreter.

use super::Lowered;
use crate::abi::Tier;
use crate::fx::{Fx, Vec32, VECS};
use crate::mutants::active;
use cranelift_codegen::ir::{self, condcodes::IntCC, types::*, InstBuilder, Value};
use lanejit_isa::{LaneFormula, UReg, VReg, XlaneInsn, LANES};

const LANE_MASK: u32 = LANES as u32 - 1;

pub fn lower(fx: &mut Fx, i: &XlaneInsn) -> Lowered {
    use XlaneInsn::*;
    match *i {
        ShflUpVi { rd, rs1, .. }
        | ShflDownVi { rd, rs1, .. }
        | ShflXorVi { rd, rs1, .. }
        | ShflRotVi { rd, rs1, .. }
        | ShflBcastVi { rd, rs1, .. }
        | QuadSwizzle { rd, rs1, .. } => match i.lane_formula() {
            Some(f) => fixed(fx, rd, rs1, |l| source(f, l)),
            None => Lowered::Interpret,
        },
        ShflIdx { rd, rs1, rs2 } => {
            let idx = fx.v(rs2);
            dynamic(fx, rd, rs1, idx)
        }
        ShflXor { rd, rs1, rs2 } => {
            let (ids, m) = (fx.lane_ids(), fx.v(rs2));
            let idx = fx.map2(ids, m, |b, a, c| b.ins().bxor(a, c));
            dynamic(fx, rd, rs1, idx)
        }
        ShflRot { rd, rs1, rs2 } => {
            let (ids, d) = (fx.lane_ids(), fx.v(rs2));
            let idx = fx.map2(ids, d, |b, a, c| b.ins().iadd(a, c));
            dynamic(fx, rd, rs1, idx)
        }
        ShflUp { rd, rs1, rs2 } => {
            let d = fx.v(rs2);
            shift_dynamic(fx, rd, rs1, d, false)
        }
        ShflDown { rd, rs1, rs2 } => {
            let d = fx.v(rs2);
            shift_dynamic(fx, rd, rs1, d, true)
        }
        // Optimised code switches on a uniform operand into the immediate forms' constant permutations.
        ShflBcastVu { rd, rs1, rs2 } if fx.tier() == Tier::Opt => {
            switched(fx, rd, rs1, rs2, LANES, |u, l| source(LaneFormula::Index(u as u32), l))
        }
        ShflXorVu { rd, rs1, rs2 } if fx.tier() == Tier::Opt => xor_switched(fx, rd, rs1, rs2),
        ShflRotVu { rd, rs1, rs2 } if fx.tier() == Tier::Opt => {
            switched(fx, rd, rs1, rs2, LANES, |u, l| source(LaneFormula::Rotate(u as u32), l))
        }
        // Deltas are not truncated: every delta of LANES or more (the last case) leaves each lane its own value.
        ShflUpVu { rd, rs1, rs2 } if fx.tier() == Tier::Opt => {
            switched(fx, rd, rs1, rs2, LANES + 1, |u, l| source(LaneFormula::Up(u as u32), l))
        }
        ShflDownVu { rd, rs1, rs2 } if fx.tier() == Tier::Opt => {
            switched(fx, rd, rs1, rs2, LANES + 1, |u, l| source(LaneFormula::Down(u as u32), l))
        }
        ShflBcastVu { rd, rs1, rs2 } => {
            let u = fx.u(rs2);
            let idx = fx.splat32(u);
            dynamic(fx, rd, rs1, idx)
        }
        ShflXorVu { rd, rs1, rs2 } => {
            let (ids, u) = (fx.lane_ids(), fx.u(rs2));
            let m = fx.splat32(u);
            let idx = fx.map2(ids, m, |b, a, c| b.ins().bxor(a, c));
            dynamic(fx, rd, rs1, idx)
        }
        ShflRotVu { rd, rs1, rs2 } => {
            let (ids, u) = (fx.lane_ids(), fx.u(rs2));
            let d = fx.splat32(u);
            let idx = fx.map2(ids, d, |b, a, c| b.ins().iadd(a, c));
            dynamic(fx, rd, rs1, idx)
        }
        ShflUpVu { rd, rs1, rs2 } => {
            let u = fx.u(rs2);
            let d = fx.splat32(u);
            shift_dynamic(fx, rd, rs1, d, false)
        }
        ShflDownVu { rd, rs1, rs2 } => {
            let u = fx.u(rs2);
            let d = fx.splat32(u);
            shift_dynamic(fx, rd, rs1, d, true)
        }
        Writelane { rd, rs2, rs1 } if (rs1 as usize) < LANES => writelane(fx, rd, rs2, rs1 as usize),
        Writelane { .. } => Lowered::Interpret,
        Readfirst { rd, rs1 } => readfirst(fx, rd, rs1),
        Readlane { rd, rs1, imm } => {
            let s = fx.v(rs1);
            let x = fx.extract(s, LaneFormula::Index(imm).source(0));
            fx.set_u(rd, x);
            Lowered::Native
        }
        ReadlaneU { rd, rs1, rs2 } => {
            let (s, u) = (fx.v(rs1), fx.u(rs2));
            let addr = fx.spill(s);
            let i = fx.b.ins().band_imm_u(u, LANE_MASK as i64);
            let x = fx.load_lane(addr, i);
            fx.set_u(rd, x);
            Lowered::Native
        }
        FddxFineF32 { .. } | FddxCoarseF32 { .. } | FddyFineF32 { .. } | FddyCoarseF32 { .. } => Lowered::Interpret,
        XscanAddU32 { rd, rs1 } => {
            let s = fx.v(rs1);
            let x = fx.active_or(s, 0);
            let sum = fx.prefix_sum(x);
            // Mutant 8: an exclusive scan (each lane's own value left out).
            let sum = if active(8) { fx.map2(sum, x, |b, p, v| b.ins().isub(p, v)) } else { sum };
            fx.set_v(rd, sum);
            Lowered::Native
        }
        Ballot { rd, rs1 } => {
            // Mutant 9: the ballot counts inactive lanes too (EXEC not applied).
            let m = if active(9) {
                let s = fx.v(rs1);
                fx.nonzero_mask(s)
            } else {
                active_nonzero(fx, rs1)
            };
            fx.set_u(rd, m);
            Lowered::Native
        }
        VoteAny { rd, rs1 } => {
            let m = active_nonzero(fx, rs1);
            let r = fx.b.ins().icmp_imm_u(IntCC::NotEqual, m, 0);
            set_bool(fx, rd, r)
        }
        VoteAll { rd, rs1 } => {
            let (m, e) = (active_nonzero(fx, rs1), fx.exec_val());
            // Mutant 11: vote.all asks for all 32 lanes instead of all active lanes.
            let e = if active(11) { fx.b.ins().iconst(I32, -1) } else { e };
            let r = fx.b.ins().icmp(IntCC::Equal, m, e);
            set_bool(fx, rd, r)
        }
        VoteEq { rd, rs1 } => vote_eq(fx, rd, rs1),
        XredAddU32 { rd, rs1 } => reduce(fx, rd, rs1, 0, |f, a, b| f.b.ins().iadd(a, b)),
        // Mutant 6: min.i32 reduces inactive lanes as 0 (a zeroed accumulator) instead of INT_MAX.
        XredMinI32 { rd, rs1 } => {
            let identity = if active(6) { 0 } else { i32::MAX as u32 };
            reduce(fx, rd, rs1, identity, |f, a, b| f.b.ins().smin(a, b))
        }
        XredMaxI32 { rd, rs1 } => reduce(fx, rd, rs1, i32::MIN as u32, |f, a, b| f.b.ins().smax(a, b)),
        XredMinU32 { rd, rs1 } => reduce(fx, rd, rs1, u32::MAX, |f, a, b| f.b.ins().umin(a, b)),
        // Mutant 7: max.u32 takes min.u32's identity (all ones), which wins every partial-EXEC reduction.
        XredMaxU32 { rd, rs1 } => {
            let identity = if active(7) { u32::MAX } else { 0 };
            reduce(fx, rd, rs1, identity, |f, a, b| f.b.ins().umax(a, b))
        }
        XredAndB32 { rd, rs1 } => reduce(fx, rd, rs1, u32::MAX, |f, a, b| f.b.ins().band(a, b)),
        XredOrB32 { rd, rs1 } => reduce(fx, rd, rs1, 0, |f, a, b| f.b.ins().bor(a, b)),
        XredXorB32 { rd, rs1 } => reduce(fx, rd, rs1, 0, |f, a, b| f.b.ins().bxor(a, b)),
    }
}

/// The lane that `lane` reads under the shared formula `f`, or under a planted bug of the shuffles.
fn source(f: LaneFormula, lane: usize) -> usize {
    match f {
        // Mutant 1: off-by-one bound, the lane whose source is exactly lane 0 keeps its own value.
        LaneFormula::Up(d) if active(1) && d as usize == lane => lane,
        // Mutant 2: the source wraps around the wave (a rotation) instead of falling back to the lane itself.
        LaneFormula::Down(d) if active(2) => (lane + d as usize) & LANE_MASK as usize,
        // Mutant 10: the 2-bit selector fields read from the top of imm down (quad lane 0 takes imm[7:6]).
        LaneFormula::Quad(sel) if active(10) => (lane & !3) | (sel as usize >> (6 - 2 * (lane & 3)) & 3),
        f => f.source(lane),
    }
}

fn fixed(fx: &mut Fx, rd: VReg, rs1: VReg, src: impl Fn(usize) -> usize) -> Lowered {
    let perm: [usize; LANES] = std::array::from_fn(src);
    let s = fx.v(rs1);
    let out = fx.permute(s, &perm);
    fx.set_v(rd, out);
    Lowered::Native
}

/// A shuffle by the uniform value u[rs2]: a jump table on the value (u & LANE_MASK when `cases` is LANES, else
/// min(u, cases - 1)) into one constant permutation per case, `src(case, lane)` giving each lane's source, the
/// result joining the block as parameters. One indirect branch instead of a gather through memory.
fn switched(fx: &mut Fx, rd: VReg, rs1: VReg, rs2: UReg, cases: usize, src: impl Fn(usize, usize) -> usize) -> Lowered {
    let s = fx.v(rs1);
    let u = fx.u(rs2);
    let key = if cases == LANES {
        // Mutant 135: the key keeps only 4 bits (shuffles by 16..31 take the permutation of u - 16).
        fx.b.ins().band_imm_u(u, if active(135) { 15 } else { LANE_MASK as i64 })
    } else {
        let last = fx.b.ins().iconst(I32, cases as i64 - 1);
        fx.b.ins().umin(u, last)
    };
    let join = fx.b.create_block();
    for _ in 0..VECS {
        fx.b.append_block_param(join, I32X4);
    }
    let targets: Vec<ir::Block> = (0..cases).map(|_| fx.b.create_block()).collect();
    let table: Vec<ir::BlockCall> =
        targets.iter().map(|&t| ir::BlockCall::new(t, [], &mut fx.b.func.dfg.value_lists)).collect();
    // Every key has its case; the default is never taken.
    let jt = fx.b.create_jump_table(ir::JumpTableData::new(table[cases - 1], &table));
    fx.b.ins().br_table(key, jt);
    for (case, &target) in targets.iter().enumerate() {
        fx.b.switch_to_block(target);
        let perm: [usize; LANES] = std::array::from_fn(|l| src(case, l));
        let out = fx.permute(s, &perm);
        let args: Vec<ir::BlockArg> = out.iter().map(|&v| v.into()).collect();
        fx.b.ins().jump(join, &args);
    }
    fx.b.switch_to_block(join);
    let out: Vec32 = std::array::from_fn(|k| fx.b.block_params(join)[k]);
    fx.set_v(rd, out);
    Lowered::Native
}

/// Distance bits of shfl.xor, highest first: 16, 8 and 4 swap whole vectors (renaming, no instruction), 2 and 1
/// permute the lanes within each vector (one pshufd each).
const XOR_BITS: [usize; 5] = [16, 8, 4, 2, 1];

/// shfl.xor.vu in optimised code where the rest of the block is not forked (`xor_fork`). A distance
/// d = u[rs2] & LANE_MASK with at most one bit set (0, 1, 2, 4, 8, 16: butterflies and tree reductions, whose loops compute it) tests its bits with one conditional branch each,
/// and only a set bit moves data. Those branches follow the loop's pattern, so the predictor learns them,
/// where a jump table on d (an indirect branch) was mispredicted every round of a butterfly. Other distances
/// take the branch-free path (`xor_uniform`). Measured at 2^22 lanes (lanejit bench): testing every distance's
/// bits took butterfly from 74 to 47 ms but a kernel whose distance is pseudo-random (an LCG) from 74 to 126 ms,
/// a mispredicted branch per two bits; with the one-bit test first, butterfly takes 50 ms and that kernel 83.
fn xor_switched(fx: &mut Fx, rd: VReg, rs1: VReg, rs2: UReg) -> Lowered {
    let s = fx.v(rs1);
    let (d, general, bits) = split_distance(fx, rs2);
    let join = vec_block(fx);
    fx.b.switch_to_block(general);
    let out = xor_uniform(fx, s, d);
    fx.b.ins().jump(join, &block_args(&out));
    fx.b.switch_to_block(bits);
    let mut out = s;
    for bit in XOR_BITS {
        out = xor_if_set(fx, out, d, bit);
    }
    fx.b.ins().jump(join, &block_args(&out));
    fx.b.switch_to_block(join);
    let out: Vec32 = std::array::from_fn(|k| fx.b.block_params(join)[k]);
    fx.set_v(rd, out);
    Lowered::Native
}

/// The distance d = u[rs2] & LANE_MASK, and the blocks a branch on it leads to: a cold one when d has more than
/// one bit set, the other when it has at most one (the current block is left ended).
fn split_distance(fx: &mut Fx, rs2: UReg) -> (Value, ir::Block, ir::Block) {
    let u = fx.u(rs2);
    let d = fx.b.ins().band_imm_u(u, LANE_MASK as i64);
    let below = fx.b.ins().iadd_imm_s(d, -1);
    let several = fx.b.ins().band(d, below);
    let (other, bits) = (fx.b.create_block(), fx.b.create_block());
    fx.b.set_cold_block(other);
    fx.b.ins().brif(several, other, &[], bits, &[]);
    (d, other, bits)
}

/// `x` with lane l reading lane l ^ `bit` if that bit of `d` is set, else `x` itself: a diamond whose two
/// edges carry the 8 vectors into a join. Separate diamonds keep every join at two predecessors: one join of all
/// the single-bit cases had its parameters spilled. The swap is a cold block, so a clear bit falls through.
fn xor_if_set(fx: &mut Fx, x: Vec32, d: Value, bit: usize) -> Vec32 {
    let set = fx.b.ins().band_imm_u(d, bit as i64);
    let (swap, join) = (fx.b.create_block(), vec_block(fx));
    fx.b.set_cold_block(swap);
    fx.b.ins().brif(set, swap, &[], join, &block_args(&x));
    fx.b.switch_to_block(swap);
    let out = fx.permute(x, &xor_bit_perm(bit));
    fx.b.ins().jump(join, &block_args(&out));
    fx.b.switch_to_block(join);
    std::array::from_fn(|k| fx.b.block_params(join)[k])
}

/// Each lane's source lane under shfl.xor by the one-bit distance `bit`, or under a planted bug.
fn xor_bit_perm(bit: usize) -> [usize; LANES] {
    // Mutant 179: bits 4 and 8 rotate the vectors (vector j takes j + 1 or j + 2) instead of swapping them.
    // Mutant 180: bits 1 and 2 take each other's permutation within the vector.
    std::array::from_fn(|l| match bit {
        4 | 8 if active(179) => (l + 4 * (bit / 4)) % LANES,
        1 | 2 if active(180) => l ^ (3 - bit),
        _ => l ^ bit,
    })
}

/// One copy of a block's rest after a forked shfl.xor.vu (`xor_fork`): the distance it runs with.
#[derive(Clone, Copy)]
pub enum XorCase {
    /// The distance is this single bit (16, 8, 4: vectors renamed; 2, 1: one pshufd per vector), or 0.
    Bit(usize),
    /// Any other distance, masked to the wave (`xor_uniform`).
    Other(Value),
}

/// Should the full-EXEC variant fork the rest of its block at a shfl.xor.vu, `rest` the instructions after it?
/// In optimised code, when the rest is short and holds no other one (copies would multiply).
pub fn forks(fx: &Fx, rest: &[crate::blocks::Op]) -> bool {
    let is_xor_vu = |i: &lanejit_isa::Insn| matches!(i, lanejit_isa::Insn::Xlane(XlaneInsn::ShflXorVu { .. }));
    fx.tier() == Tier::Opt
        && fx.full_exec()
        && rest.len() <= MAX_FORKED_REST
        && !rest.iter().any(|o| is_xor_vu(&o.insn))
}

/// Most instructions after a forked shfl.xor.vu (each is emitted once per case: 7 copies).
const MAX_FORKED_REST: usize = 24;

/// shfl.xor.vu whose rest of block is emitted once per case of the distance d = u[rs2] & LANE_MASK: the same
/// tests as `xor_switched` (one branch for "more than one bit", then one per bit) lead each case to its own
/// copy, so a distance of 4, 8 or 16 is a renaming of vectors the following instructions read directly, and
/// no join carries the 8 shuffled vectors (whose block parameters, live beside the source, spilled it: a
/// butterfly's multiply-add then went through memory every round). Returns each copy's block and case; the
/// caller emits `xor_case` and then the rest in each.
pub fn xor_fork(fx: &mut Fx, rs2: UReg) -> Vec<(ir::Block, XorCase)> {
    let (d, other, bits) = split_distance(fx, rs2);
    let mut cases = vec![(other, XorCase::Other(d))];
    fx.b.switch_to_block(bits);
    for bit in XOR_BITS {
        let set = fx.b.ins().band_imm_u(d, bit as i64);
        let (case, next) = (fx.b.create_block(), fx.b.create_block());
        fx.b.ins().brif(set, case, &[], next, &[]);
        cases.push((case, XorCase::Bit(bit)));
        fx.b.switch_to_block(next);
    }
    // No bit set: d = 0, every lane reads itself. (This block is the current one.)
    let zero = fx.b.create_block();
    fx.b.ins().jump(zero, &[]);
    cases.push((zero, XorCase::Bit(0)));
    cases
}

/// shfl.xor.vu rd, rs1 in one case of `xor_fork` (in that case's block).
pub fn xor_case(fx: &mut Fx, rd: VReg, rs1: VReg, case: XorCase) {
    let s = fx.v(rs1);
    let out = match case {
        XorCase::Bit(0) => s,
        XorCase::Bit(bit) => fx.permute(s, &xor_bit_perm(bit)),
        XorCase::Other(d) => xor_uniform(fx, s, d),
    };
    fx.set_v(rd, out);
}

/// A block taking a 32-lane value (8 vectors) as its parameters.
fn vec_block(fx: &mut Fx) -> ir::Block {
    let b = fx.b.create_block();
    for _ in 0..VECS {
        fx.b.append_block_param(b, I32X4);
    }
    b
}

fn block_args(x: &Vec32) -> Vec<ir::BlockArg> {
    x.iter().map(|&v| v.into()).collect()
}

/// shfl.xor by the distance d (already masked with LANE_MASK), without a branch: lane 4j + l reads lane
/// 4(j ^ hi) + (l ^ lo), with hi = d >> 2 and lo = d & 3. The source vectors go through a stack slot and come
/// back from vector j ^ hi, then one byte shuffle applies l ^ lo (byte b reads byte b ^ 4·lo). The store to
/// load forwarding costs latency on every shuffle, but no branch depends on d (`xor_switched`).
fn xor_uniform(fx: &mut Fx, s: Vec32, d: Value) -> Vec32 {
    let slot =
        fx.b.create_sized_stack_slot(ir::StackSlotData::new(ir::StackSlotKind::ExplicitSlot, 16 * VECS as u32, 4));
    for (k, &x) in s.iter().enumerate() {
        fx.b.ins().stack_store(I64, x, slot, 16 * k as i32);
    }
    // Mutant 145: the vector part of the distance keeps 2 bits (distances of 16 and more read the wrong half).
    let hi = fx.b.ins().ushr_imm_u(d, 2);
    let hi = if active(145) { fx.b.ins().band_imm_u(hi, 3) } else { hi };
    let lo = fx.b.ins().band_imm_u(d, 3);
    let lo_bytes = fx.b.ins().ishl_imm_u(lo, 2);
    let lo_bytes = fx.b.ins().ireduce(I8, lo_bytes);
    let lo_bytes = fx.b.ins().splat(I8X16, lo_bytes);
    let iota = super::vint::bits::bytes_const(fx, std::array::from_fn(|b| b as u8));
    let control = fx.b.ins().bxor(iota, lo_bytes);
    let base = fx.b.ins().stack_addr(ir::types::I64, slot, 0);
    let hi = fx.b.ins().uextend(ir::types::I64, hi);
    let hi_offset = fx.b.ins().ishl_imm_u(hi, 4);
    let le = super::vint::bits::le();
    std::array::from_fn(|j| {
        let b = &mut fx.b;
        let offset = b.ins().bxor_imm_u(hi_offset, 16 * j as i64);
        let at = b.ins().iadd(base, offset);
        let v = b.ins().load(I32X4, ir::MemFlagsData::new().with_notrap(), at, 0);
        let bytes = b.ins().bitcast(I8X16, le, v);
        let shuffled = b.ins().swizzle(bytes, control);
        b.ins().bitcast(I32X4, le, shuffled)
    })
}

fn dynamic(fx: &mut Fx, rd: VReg, rs1: VReg, idx: Vec32) -> Lowered {
    let s = fx.v(rs1);
    let out = fx.gather(s, idx);
    fx.set_v(rd, out);
    Lowered::Native
}

/// shfl.up/down with run-time deltas, compared untruncated: lanes whose source falls outside the wave read
/// themselves (the index is the lane id), the others read lane ∓ delta.
fn shift_dynamic(fx: &mut Fx, rd: VReg, rs1: VReg, delta: Vec32, down: bool) -> Lowered {
    let ids = fx.lane_ids();
    let lanes = fx.splat_const(LANES as u32);
    // Mutant 3: the delta is truncated to 5 bits (the ISA says it is not), so a delta of 33 shifts by 1.
    let delta = if active(3) {
        let m = fx.splat_const(LANE_MASK);
        fx.map2(delta, m, |b, d, m| b.ins().band(d, m))
    } else {
        delta
    };
    // Mutant 4: shfl.down's bound is off by one: lane + delta = LANES passes and reads lane 0 (index & 31).
    let down_cc = if active(4) { IntCC::UnsignedLessThanOrEqual } else { IntCC::UnsignedLessThan };
    let idx: Vec32 = std::array::from_fn(|k| {
        let b = &mut fx.b;
        let (valid, j) = if down {
            // j = lane + delta < LANES without wrap  <=>  delta < LANES - lane
            let room = b.ins().isub(lanes[k], ids[k]);
            (b.ins().icmp(down_cc, delta[k], room), b.ins().iadd(ids[k], delta[k]))
        } else {
            (b.ins().icmp(IntCC::UnsignedLessThanOrEqual, delta[k], ids[k]), b.ins().isub(ids[k], delta[k]))
        };
        b.ins().bitselect(valid, j, ids[k])
    });
    dynamic(fx, rd, rs1, idx)
}

fn writelane(fx: &mut Fx, rd: VReg, rs2: UReg, lane: usize) -> Lowered {
    let (mut d, x) = (fx.v(rd), fx.u(rs2));
    d[lane / 4] = fx.b.ins().insertlane(d[lane / 4], x, (lane % 4) as u8);
    fx.set_v_all(rd, d);
    Lowered::Native
}

/// The lowest active lane's index (lane 0 when EXEC = 0).
fn first_active(fx: &mut Fx) -> Value {
    let e = fx.exec_val();
    let tz = fx.b.ins().ctz(e);
    let zero = fx.b.ins().iconst(I32, 0);
    let none = fx.b.ins().icmp_imm_u(IntCC::Equal, e, 0);
    fx.b.ins().select(none, zero, tz)
}

fn readfirst(fx: &mut Fx, rd: UReg, rs1: VReg) -> Lowered {
    let s = fx.v(rs1);
    // Mutant 5: always lane 0, active or not.
    let i = if active(5) { fx.b.ins().iconst(I32, 0) } else { first_active(fx) };
    let addr = fx.spill(s);
    let x = fx.load_lane(addr, i);
    fx.set_u(rd, x);
    Lowered::Native
}

fn active_nonzero(fx: &mut Fx, rs1: VReg) -> Value {
    let s = fx.v(rs1);
    let m = fx.nonzero_mask(s);
    let e = fx.exec_val();
    fx.b.ins().band(m, e)
}

fn set_bool(fx: &mut Fx, rd: UReg, cond: Value) -> Lowered {
    let x = fx.b.ins().uextend(I32, cond);
    fx.set_u(rd, x);
    Lowered::Native
}

/// 1 when every active lane equals the first active one (also 1 for an empty EXEC).
fn vote_eq(fx: &mut Fx, rd: UReg, rs1: VReg) -> Lowered {
    let s = fx.v(rs1);
    let i = first_active(fx);
    let addr = fx.spill(s);
    let first = fx.load_lane(addr, i);
    let f = fx.b.ins().splat(I32X4, first);
    let eq: Vec32 = std::array::from_fn(|k| fx.b.ins().icmp(IntCC::Equal, s[k], f));
    let m = fx.pack_mask(eq);
    let e = fx.exec_val();
    let m = fx.b.ins().band(m, e);
    let r = fx.b.ins().icmp(IntCC::Equal, m, e);
    set_bool(fx, rd, r)
}

fn reduce(fx: &mut Fx, rd: UReg, rs1: VReg, identity: u32, op: impl Fn(&mut Fx, Value, Value) -> Value) -> Lowered {
    let s = fx.v(rs1);
    let mut x = fx.active_or(s, identity);
    // Mutant 13: the reduction covers one vector too few (lanes 28..31 are left out). Planted here rather than
    // in `Fx::fold`, which the memory lowering's bounds check also uses: broken there, the JIT reads host memory.
    if active(13) {
        x[x.len() - 1] = fx.splat_const(identity)[0];
    }
    let r = fx.fold(x, op);
    fx.set_u(rd, r);
    Lowered::Native
}
