//! Cross-lane building blocks over 32-lane values (8 × I32X4): constant permutations with byte shuffles,
//! dynamic gathers through a stack slot, lane masks packed to 32 bits, and horizontal folds.

use crate::fx::{Fx, Vec32, VECS};
use cranelift_codegen::ir::{
    condcodes::IntCC, types::*, ConstantData, Endianness, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind,
    Value,
};
use lanejit_isa::LANES;

/// Lanes per 128-bit vector.
const PER: usize = 4;

fn le() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

impl Fx<'_> {
    /// Byte shuffle of two I32X4 values: output lane j takes lane `sel[j]` of concat(a, b) (0..8).
    pub(crate) fn shuffle32(&mut self, a: Value, b: Value, sel: [usize; PER]) -> Value {
        let mask: Vec<u8> = sel.iter().flat_map(|&l| (0..4).map(move |byte| (l * 4 + byte) as u8)).collect();
        let imm = self.b.func.dfg.immediates.push(ConstantData::from(mask));
        let (a8, b8) = (self.b.ins().bitcast(I8X16, le(), a), self.b.ins().bitcast(I8X16, le(), b));
        let s = self.b.ins().shuffle(a8, b8, imm);
        self.b.ins().bitcast(I32X4, le(), s)
    }

    /// out[l] = src[perm[l]] for a permutation known at compile time.
    pub fn permute(&mut self, src: Vec32, perm: &[usize; LANES]) -> Vec32 {
        std::array::from_fn(|k| {
            let lanes: [usize; PER] = std::array::from_fn(|j| perm[k * PER + j]);
            let mut vecs: Vec<usize> = lanes.iter().map(|l| l / PER).collect();
            vecs.dedup();
            vecs.sort_unstable();
            vecs.dedup();
            if lanes.iter().enumerate().all(|(j, &l)| l == (l / PER) * PER + j) && vecs.len() == 1 {
                return src[vecs[0]];
            }
            if vecs.len() <= 2 {
                let (a, b) = (vecs[0], *vecs.get(1).unwrap_or(&vecs[0]));
                let sel = lanes.map(|l| if l / PER == a { l % PER } else { PER + l % PER });
                return self.shuffle32(src[a], src[b], sel);
            }
            // Three or four source vectors: two partial shuffles, then one that merges them.
            let (p, q) = (vecs[..2].to_vec(), vecs[2..].to_vec());
            let part = |lanes: &[usize; PER], pair: &[usize]| {
                lanes.map(|l| if l / PER == pair[0] { l % PER } else { PER + l % PER })
            };
            let q1 = *q.get(1).unwrap_or(&q[0]);
            let lo = self.shuffle32(src[p[0]], src[p[1]], part(&lanes, &p));
            let hi = self.shuffle32(src[q[0]], src[q1], part(&lanes, &[q[0], q1]));
            let sel: [usize; PER] = std::array::from_fn(|j| if p.contains(&(lanes[j] / PER)) { j } else { PER + j });
            self.shuffle32(lo, hi, sel)
        })
    }

    /// out[l] = src[idx[l] & 31] with run-time indices: spill `src` to a stack slot and load each lane.
    pub fn gather(&mut self, src: Vec32, idx: Vec32) -> Vec32 {
        let addr = self.spill(src);
        // Mutant 12: the index is masked to half a wave (& 15), so sources in the upper half are never read.
        let mask = if crate::mutants::active(12) { LANES as i64 / 2 - 1 } else { LANES as i64 - 1 };
        std::array::from_fn(|k| {
            let mut out = self.b.ins().iconst(I32, 0);
            let mut v = self.b.ins().splat(I32X4, out);
            for j in 0..PER {
                let i = self.b.ins().extractlane(idx[k], j as u8);
                let i = self.b.ins().band_imm_u(i, mask);
                out = self.load_lane(addr, i);
                v = self.b.ins().insertlane(v, out, j as u8);
            }
            v
        })
    }

    /// Stores a 32-lane value to a fresh stack slot; returns its address.
    pub fn spill(&mut self, src: Vec32) -> Value {
        let slot =
            self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, (LANES * 4) as u32, 4));
        let addr = self.b.ins().stack_addr(I64, slot, 0);
        for (k, v) in src.iter().enumerate() {
            self.b.ins().store(MemFlagsData::trusted(), *v, addr, (k * 16) as i32);
        }
        addr
    }

    /// Lane `i` (an I32 in 0..LANES) of a spilled value.
    pub fn load_lane(&mut self, addr: Value, i: Value) -> Value {
        let off = self.b.ins().uextend(I64, i);
        let off = self.b.ins().ishl_imm_u(off, 2);
        let p = self.b.ins().iadd(addr, off);
        self.b.ins().load(I32, MemFlagsData::trusted(), p, 0)
    }

    /// Lane `lane` (known at compile time).
    pub fn extract(&mut self, src: Vec32, lane: usize) -> Value {
        self.b.ins().extractlane(src[lane / PER], (lane % PER) as u8)
    }

    /// 32-bit mask with bit l set where lane l of `m` (all-ones/zero lanes) is set.
    pub fn pack_mask(&mut self, m: Vec32) -> Value {
        self.sign_bits(m)
    }

    /// Lanes where `x != 0`, as a 32-bit mask.
    pub fn nonzero_mask(&mut self, x: Vec32) -> Value {
        let zero = self.b.ins().iconst(I32, 0);
        let z = self.b.ins().splat(I32X4, zero);
        let m: Vec32 = std::array::from_fn(|k| self.b.ins().icmp(IntCC::NotEqual, x[k], z));
        self.pack_mask(m)
    }

    /// Replaces the lanes outside EXEC by `identity` (nothing to do in the full-EXEC variant).
    pub fn active_or(&mut self, x: Vec32, identity: u32) -> Vec32 {
        if self.full_exec() {
            return x;
        }
        let id = self.splat_const(identity)[0];
        std::array::from_fn(|k| {
            let m = self.exec_lane_mask(k);
            self.b.ins().bitselect(m, x[k], id)
        })
    }

    /// Folds all 32 lanes with an associative, commutative lane-wise op.
    pub fn fold(&mut self, x: Vec32, op: impl Fn(&mut Fx, Value, Value) -> Value) -> Value {
        let mut v: Vec<Value> = x.to_vec();
        while v.len() > 1 {
            v = v.chunks(2).map(|p| op(self, p[0], p[1])).collect();
        }
        let acc = v[0];
        let swapped = self.shuffle32(acc, acc, [2, 3, 0, 1]);
        let acc = op(self, acc, swapped);
        let swapped = self.shuffle32(acc, acc, [1, 0, 3, 2]);
        let acc = op(self, acc, swapped);
        self.b.ins().extractlane(acc, 0)
    }

    /// Inclusive prefix sum over the 32 lanes (wrapping).
    pub fn prefix_sum(&mut self, x: Vec32) -> Vec32 {
        let zero = self.splat_const(0)[0];
        let mut carry = self.b.ins().iconst(I32, 0);
        let mut out = [zero; VECS];
        for k in 0..VECS {
            // Within the vector: add the value one lane down, then two lanes down (zeros shift in).
            let s1 = self.shuffle32(zero, x[k], [0, 4, 5, 6]);
            let v = self.b.ins().iadd(x[k], s1);
            let s2 = self.shuffle32(zero, v, [0, 1, 4, 5]);
            let v = self.b.ins().iadd(v, s2);
            let c = self.b.ins().splat(I32X4, carry);
            out[k] = self.b.ins().iadd(v, c);
            // Mutant 14: the carry into the next vector is taken from lane 2 instead of the last lane 3.
            carry = self.b.ins().extractlane(out[k], if crate::mutants::active(14) { 2 } else { 3 });
        }
        out
    }
}
