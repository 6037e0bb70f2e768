//! Test-only oracle: exact arithmetic on decoded floats, independent of both the host FPU and
//! rustc_apfloat.
//!
//! A finite float is `±mant · 2^exp` with integer `mant`. Sums of such terms (and products of
//! two of them) are exact integers once scaled by the smallest exponent, so a small fixed-size
//! bignum decides the sign of `exact - v` for any candidate `v`. With that, [`check`] verifies a
//! result *by certificate*: e.g. in RDN, `y ≤ exact < next_up(y)`; in RNE, `exact` lies between
//! the midpoints around `y`, with ties going to the even `y`. Nothing here rounds, so it cannot
//! share a rounding bug with the code under test.

use super::{soft, Fmt, FpMode, Round};
use std::cmp::Ordering::{self, Equal, Greater, Less};

/// SplitMix64: tiny, deterministic, good enough to spray bit patterns.
pub(crate) struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// An exact finite value `(-1)^neg · mant · 2^exp`. Zero keeps its sign in `neg`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Val {
    pub neg: bool,
    pub mant: u128,
    pub exp: i32,
}

impl Val {
    pub fn negate(self) -> Val {
        Val { neg: !self.neg, ..self }
    }
    /// Exact product (mantissas stay below 2^128 for every use here: ≤ 55 + 55 bits).
    pub fn mul(self, o: Val) -> Val {
        Val { neg: self.neg ^ o.neg, mant: self.mant * o.mant, exp: self.exp + o.exp }
    }
    pub fn int(x: i64) -> Val {
        Val { neg: x < 0, mant: x.unsigned_abs() as u128, exp: 0 }
    }
}

/// Decode finite bits of format F.
pub(crate) fn val<F: Fmt>(b: u64) -> Val {
    let e = ((b & F::EXP_MASK) >> F::MAN) as i32;
    let f = b & F::FRAC_MASK;
    let (mant, exp) =
        if e == 0 { (f, 1 - F::BIAS - F::MAN as i32) } else { (f | 1 << F::MAN, e - F::BIAS - F::MAN as i32) };
    Val { neg: b & F::SIGN != 0, mant: mant as u128, exp }
}

/// The value one step beyond the largest finite number: 2^(emax+1), where rounding overflows.
fn beyond<F: Fmt>(neg: bool) -> Val {
    Val { neg, mant: 1, exp: F::BIAS + 1 }
}

/// Exact midpoint of two values (used for adjacent floats only).
fn mid(a: Val, b: Val) -> Val {
    let c = a.exp.min(b.exp);
    let sa = ((a.mant << (a.exp - c)) as i128) * if a.neg { -1 } else { 1 };
    let sb = ((b.mant << (b.exp - c)) as i128) * if b.neg { -1 } else { 1 };
    let s = sa + sb;
    Val { neg: s < 0, mant: s.unsigned_abs(), exp: c - 1 }
}

const LIMBS: usize = 80;

/// acc += m · 2^sh, on a little-endian bignum.
fn add_shifted(acc: &mut [u64; LIMBS], m: u128, sh: usize) {
    let (w, b) = (sh / 64, (sh % 64) as u32);
    let lo = m << b;
    let top = if b == 0 { 0 } else { (m >> (128 - b)) as u64 };
    let words = [lo as u64, (lo >> 64) as u64, top];
    assert!(w + 4 <= LIMBS, "bignum too small");
    let mut carry = 0u64;
    let mut i = w;
    for (k, wd) in words.iter().enumerate() {
        let (s1, c1) = acc[w + k].overflowing_add(*wd);
        let (s2, c2) = s1.overflowing_add(carry);
        acc[w + k] = s2;
        carry = (c1 | c2) as u64;
        i = w + k + 1;
    }
    while carry != 0 {
        let (s, c) = acc[i].overflowing_add(1);
        acc[i] = s;
        carry = c as u64;
        i += 1;
    }
}

/// Exact sign of a sum of terms.
pub(crate) fn sum_sign(terms: &[Val]) -> Ordering {
    let Some(min_e) = terms.iter().filter(|t| t.mant != 0).map(|t| t.exp).min() else { return Equal };
    let (mut pos, mut neg) = ([0u64; LIMBS], [0u64; LIMBS]);
    for t in terms.iter().filter(|t| t.mant != 0) {
        add_shifted(if t.neg { &mut neg } else { &mut pos }, t.mant, (t.exp - min_e) as usize);
    }
    pos.iter().rev().cmp(neg.iter().rev())
}

/// The exact, unrounded result of an operation with finite inputs.
pub(crate) enum Exact {
    /// Σ terms (add, sub, mul, fma, conversions).
    Sum(Vec<Val>),
    /// a / b, b ≠ 0.
    Quot(Val, Val),
    /// √x, x ≥ 0.
    Root(Val),
}

impl Exact {
    /// Sign of (exact - v).
    pub fn cmp(&self, v: Val) -> Ordering {
        match self {
            Exact::Sum(t) => {
                let mut all = t.clone();
                all.push(v.negate());
                sum_sign(&all)
            }
            // a/b - v has the sign of (a - v·b) · sign(b).
            Exact::Quot(a, b) => {
                let s = sum_sign(&[*a, v.mul(*b).negate()]);
                if b.neg {
                    s.reverse()
                } else {
                    s
                }
            }
            // √x ≥ 0, and for v ≥ 0, √x - v has the sign of x - v².
            Exact::Root(x) => {
                if v.neg && v.mant != 0 {
                    Greater
                } else {
                    sum_sign(&[*x, v.mul(v).negate()])
                }
            }
        }
    }

    /// IEEE sign of an exactly-zero result: a sum of zeros of one sign keeps it; any other exact
    /// zero sum is +0, except -0 when rounding down. Products and quotients: xor of signs.
    pub fn zero_neg(&self, r: Round) -> bool {
        match self {
            Exact::Sum(t) => {
                if t.iter().all(|v| v.mant == 0 && v.neg) {
                    true
                } else if t.iter().all(|v| v.mant == 0 && !v.neg) {
                    false
                } else {
                    r == Round::Rdn
                }
            }
            Exact::Quot(a, b) => a.neg ^ b.neg,
            Exact::Root(x) => x.neg,
        }
    }
}

fn next_up<F: Fmt>(b: u64) -> Option<u64> {
    if b == F::MAX {
        None
    } else if b & !F::SIGN == 0 {
        Some(1)
    } else if b & F::SIGN == 0 {
        Some(b + 1)
    } else {
        Some(b - 1)
    }
}

fn next_down<F: Fmt>(b: u64) -> Option<u64> {
    next_up::<F>(b ^ F::SIGN).map(|x| x ^ F::SIGN)
}

/// Is `y` the correctly rounded value of `ex` in mode `r`? Err says why not.
pub(crate) fn check<F: Fmt>(y: u64, r: Round, ex: &Exact) -> Result<(), &'static str> {
    if F::is_nan(y) {
        return Err("NaN for a finite exact result");
    }
    let neg = y & F::SIGN != 0;
    if y & !F::SIGN == F::EXP_MASK {
        let max = val::<F>(F::MAX | (y & F::SIGN));
        let h = mid(max, beyond::<F>(neg));
        let ok = match r {
            Round::Rne | Round::Rmm => ex.cmp(h) != if neg { Greater } else { Less },
            Round::Rup => !neg && ex.cmp(max) == Greater,
            Round::Rdn => neg && ex.cmp(max) == Less,
            Round::Rtz => false,
        };
        return if ok { Ok(()) } else { Err("wrong overflow to infinity") };
    }
    let yv = val::<F>(y);
    let c = ex.cmp(yv);
    if y & !F::SIGN == 0 {
        let want_neg = match c {
            Equal => ex.zero_neg(r),
            Less => true,
            Greater => false,
        };
        if neg != want_neg {
            return Err("sign of zero");
        }
    }
    let at_max = y & !F::SIGN == F::MAX;
    let lo = next_down::<F>(y).map(val::<F>).unwrap_or(beyond::<F>(true));
    let hi = next_up::<F>(y).map(val::<F>).unwrap_or(beyond::<F>(false));
    // Directed modes never overflow past ±MAX on their "toward" side, hence no bound there.
    let down_ok = c != Less && ((at_max && !neg) || ex.cmp(hi) == Less);
    let up_ok = c != Greater && ((at_max && neg) || ex.cmp(lo) == Greater);
    let ok = match r {
        Round::Rdn => down_ok,
        Round::Rup => up_ok,
        Round::Rtz => {
            if neg {
                up_ok
            } else {
                down_ok
            }
        }
        Round::Rne | Round::Rmm => {
            let (cl, ch) = (ex.cmp(mid(lo, yv)), ex.cmp(mid(yv, hi)));
            // At a tie RNE keeps the even pattern, RMM the larger magnitude.
            let even = y & 1 == 0;
            let tie_lo = if r == Round::Rne { even } else { !neg };
            let tie_hi = if r == Round::Rne { even } else { neg };
            (cl == Greater || (cl == Equal && tie_lo)) && (ch == Less || (ch == Equal && tie_hi))
        }
    };
    if ok {
        Ok(())
    } else {
        Err("not the correctly rounded value")
    }
}

/// Exact value of finite-or-not bits of F as a host f64 (exact for all three formats).
pub(crate) fn to_f64<F: Fmt>(b: u64) -> f64 {
    match F::MAN {
        52 => f64::from_bits(b),
        23 => f32::from_bits(b as u32) as f64,
        _ => {
            if b & !F::SIGN >= F::EXP_MASK {
                let x = if F::is_nan(b) { f64::NAN } else { f64::INFINITY };
                return if b & F::SIGN != 0 { -x } else { x };
            }
            let v = val::<F>(b);
            let x = v.mant as f64 * 2f64.powi(v.exp);
            if v.neg {
                -x
            } else {
                x
            }
        }
    }
}

/// Expected bits of F for a result that is NaN, infinite or zero (non-finite inputs).
pub(crate) fn special_bits<F: Fmt>(h: f64) -> u64 {
    let sign = if h.is_sign_negative() { F::SIGN } else { 0 };
    if h.is_nan() {
        F::QNAN
    } else if h.is_infinite() {
        sign | F::EXP_MASK
    } else {
        assert!(h == 0.0, "non-finite inputs gave a finite non-zero {h}");
        sign
    }
}

pub(crate) fn is_finite<F: Fmt>(b: u64) -> bool {
    b & F::EXP_MASK != F::EXP_MASK
}

/// What a correct engine must produce: fixed bits (NaN, inf, or zeros from inf operands) or a
/// value to round.
pub(crate) enum Outcome {
    Special(u64),
    Finite(Exact),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum ArOp {
    Add,
    Sub,
    Mul,
    Div,
    Fma,
    Sqrt,
}

/// The outcome of an arithmetic op on (unflushed) inputs of F.
pub(crate) fn arith_outcome<F: Fmt>(op: ArOp, x: &[u64]) -> Outcome {
    let div0 = op == ArOp::Div && x[1] & !F::SIGN == 0;
    if !x.iter().all(|&b| is_finite::<F>(b)) || div0 {
        // Non-finite results do not depend on the rounding mode: let the host produce them.
        let h: Vec<f64> = x.iter().map(|&b| to_f64::<F>(b)).collect();
        let r = match op {
            ArOp::Add => h[0] + h[1],
            ArOp::Sub => h[0] - h[1],
            ArOp::Mul => h[0] * h[1],
            ArOp::Div => h[0] / h[1],
            ArOp::Fma => h[0].mul_add(h[1], h[2]),
            ArOp::Sqrt => h[0].sqrt(),
        };
        return Outcome::Special(special_bits::<F>(r));
    }
    let v: Vec<Val> = x.iter().map(|&b| val::<F>(b)).collect();
    Outcome::Finite(match op {
        ArOp::Add => Exact::Sum(vec![v[0], v[1]]),
        ArOp::Sub => Exact::Sum(vec![v[0], v[1].negate()]),
        ArOp::Mul => Exact::Sum(vec![v[0].mul(v[1])]),
        ArOp::Div => Exact::Quot(v[0], v[1]),
        ArOp::Fma => Exact::Sum(vec![v[0].mul(v[1]), v[2]]),
        ArOp::Sqrt if v[0].neg && v[0].mant != 0 => return Outcome::Special(F::QNAN),
        ArOp::Sqrt => Exact::Root(v[0]),
    })
}

/// Edge-case bit patterns of F, both signs: zeros, subnormal and normal limits, values around 1
/// and around its half-ulp, MAX, infinities and assorted NaNs (quiet, signalling, payloads).
pub(crate) fn specials<F: Fmt>() -> Vec<u64> {
    let one = (F::BIAS as u64) << F::MAN;
    let two = one + (1 << F::MAN);
    let exp_of = |e: i32| ((F::BIAS + e) as u64) << F::MAN;
    let man = F::MAN as i32;
    let pos = [
        0,
        1,
        2,
        3,
        F::FRAC_MASK,
        F::FRAC_MASK + 1,
        F::FRAC_MASK + 2,
        one - 1,
        one,
        one + 1,
        one | 1 << (F::MAN - 1),
        two - 1,
        two,
        exp_of(-man - 1),
        exp_of(-man),
        exp_of(-man - 1) | 1,
        exp_of(-man - 2) | F::FRAC_MASK,
        F::MAX,
        F::MAX - 1,
        exp_of(F::BIAS),
        F::EXP_MASK,
        F::EXP_MASK | 1,
        F::QNAN,
        F::QNAN | 5,
        F::EXP_MASK | F::FRAC_MASK,
    ];
    pos.iter().flat_map(|&b| [b, b | F::SIGN]).collect()
}

/// A random input of F. `rel` (an earlier operand, or a product for fma's addend) steers some
/// draws next to it, to provoke cancellation, exact results and rounding ties.
pub(crate) fn gen<F: Fmt>(rng: &mut Rng, rel: Option<u64>, sp: &[u64]) -> u64 {
    let width = F::MAN + F::EXP + 1;
    let mask = if width == 64 { !0 } else { (1u64 << width) - 1 };
    let r = rng.next();
    let sign = (rng.next() & 1) * F::SIGN;
    let exp_field = |e: i64| (e.clamp(0, (1 << F::EXP) - 2) as u64) << F::MAN;
    match rng.below(20) {
        0..=1 => sp[rng.below(sp.len() as u64) as usize],
        2..=7 => r & mask,
        8..=10 => sign | exp_field(F::BIAS as i64 + rng.below(9) as i64 - 4) | (r & F::FRAC_MASK),
        11..=12 => {
            // Few significant bits: exact products and sums, ties such as 1 + 2^-24.
            let frac = if r & 1 == 0 { (r >> 8) & 7 } else { ((r >> 8) & 7) << (F::MAN - 3) };
            sign | exp_field((r >> 16) as i64 & ((1 << F::EXP) - 1)) | frac
        }
        _ => match rel.filter(|&p| is_finite::<F>(p)) {
            None => r & mask,
            Some(p) => {
                let pe = ((p & F::EXP_MASK) >> F::MAN) as i64;
                match rng.below(4) {
                    // Near-cancellation partner.
                    0 => (p ^ F::SIGN) ^ (r & 0xf),
                    // Around half an ulp of p: ties and near-ties.
                    1 => sign | exp_field(pe - F::MAN as i64 - 1 + (r % 3) as i64 - 1) | ((r >> 4) & 3),
                    // Same magnitude, other bits.
                    2 => sign | (p & F::EXP_MASK) | ((r >> 4) & F::FRAC_MASK),
                    _ => p ^ (r & 3),
                }
            }
        },
    }
}

/// The op under test, as a function of operand bits and mode.
pub(crate) type OpFn<'a> = &'a dyn Fn(&[u64], FpMode) -> u64;

/// Check an arithmetic op of F: `f` (the public function: host fast path in RNE, apfloat
/// otherwise) against `soft` (the apfloat path forced, if any) bit for bit, and both against the
/// oracle, in all five modes; then the same with both flush bits on, where the result must equal
/// the unflushed op on flushed inputs, flushed. Every special pattern (pairs and, for arity 3,
/// a third from the list) is run, plus `n` random cases per mode. Returns the cases checked.
pub(crate) fn run_arith<F: Fmt>(op: ArOp, arity: usize, n: usize, f: OpFn, soft: Option<OpFn>) -> usize {
    let sp = specials::<F>();
    let mut rng = Rng(0x5eed ^ (op as u64) << 8 ^ F::MAN as u64);
    let mut cases: Vec<Vec<u64>> = Vec::new();
    for &a in &sp {
        for (j, &b) in sp.iter().enumerate() {
            let mut c = vec![a, b];
            if arity == 3 {
                c.push(sp[(j * 7 + c.len()) % sp.len()]);
            }
            c.truncate(arity);
            cases.push(c);
        }
    }
    for _ in 0..n {
        let a = gen::<F>(&mut rng, None, &sp);
        let b = gen::<F>(&mut rng, Some(a), &sp);
        let mut c = vec![a, b];
        if arity == 3 {
            let p = soft::mul::<F>(a, b, FpMode::RNE);
            c.push(gen::<F>(&mut rng, Some(p), &sp));
        }
        c.truncate(arity);
        cases.push(c);
    }
    let mut fails = Vec::new();
    let mut checked = 0;
    for round in Round::ALL {
        let m = FpMode::with_round(round);
        let mf = FpMode { round, flush32: true, flush16: true };
        for x in &cases {
            let y = f(x, m);
            if let Some(s) = soft {
                let z = s(x, m);
                if y != z {
                    fails.push(format!("{op:?} {round:?} {x:x?}: fast {y:#x} != soft {z:#x}"));
                }
            }
            let verdict = match arith_outcome::<F>(op, x) {
                Outcome::Special(e) => {
                    if y == e {
                        Ok(())
                    } else {
                        Err("special value")
                    }
                }
                Outcome::Finite(ex) => check::<F>(y, round, &ex),
            };
            if let Err(why) = verdict {
                fails.push(format!("{op:?} {round:?} {x:x?}: got {y:#x}: {why}"));
            }
            // Flush: definitional check on the public function, and fast vs soft again.
            let xf: Vec<u64> = x.iter().map(|&b| F::daz(b, F::flushes(mf))).collect();
            let yf = f(x, mf);
            let want = F::daz(f(&xf, m), F::flushes(mf));
            if yf != want || soft.is_some_and(|s| s(x, mf) != yf) {
                fails.push(format!("{op:?} {round:?} flush {x:x?}: got {yf:#x}, want {want:#x}"));
            }
            checked += 2;
            if fails.len() > 20 {
                break;
            }
        }
    }
    assert!(fails.is_empty(), "{} failures, first ones:\n{}", fails.len(), fails.join("\n"));
    checked
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fp::S;

    #[test]
    fn bignum_sign() {
        let v = |neg, mant, exp| Val { neg, mant, exp };
        assert_eq!(sum_sign(&[v(false, 1, 2000), v(true, 1, -2000)]), Greater);
        assert_eq!(sum_sign(&[v(false, 1, 64), v(true, 1 << 64, 0)]), Equal);
        assert_eq!(sum_sign(&[v(false, u128::MAX, 0), v(false, 1, 0), v(true, 1, 128)]), Equal);
        assert_eq!(sum_sign(&[v(true, 3, -5), v(false, 1, -3)]), Greater);
        assert_eq!(sum_sign(&[v(true, 5, -5), v(false, 1, -3)]), Less);
    }

    #[test]
    fn certificate_rejects_neighbours() {
        // 1 + 2^-24 (a tie) in f32: each mode accepts exactly one of 1.0 and next_up(1.0).
        let ex = Exact::Sum(vec![val::<S>(0x3f80_0000), val::<S>(0x3380_0000)]);
        let want = [
            (Round::Rne, 0x3f80_0000),
            (Round::Rtz, 0x3f80_0000),
            (Round::Rdn, 0x3f80_0000),
            (Round::Rup, 0x3f80_0001),
            (Round::Rmm, 0x3f80_0001),
        ];
        for (r, w) in want {
            for y in [0x3f7f_ffffu64, 0x3f80_0000, 0x3f80_0001, 0x3f80_0002] {
                assert_eq!(check::<S>(y, r, &ex).is_ok(), y == w, "{r:?} {y:#x}");
            }
        }
        // Overflow: MAX + MAX.
        let ex = Exact::Sum(vec![val::<S>(S::MAX), val::<S>(S::MAX)]);
        for (r, w) in [(Round::Rne, 0x7f80_0000), (Round::Rtz, S::MAX), (Round::Rup, 0x7f80_0000)] {
            assert!(check::<S>(w, r, &ex).is_ok());
            assert!(check::<S>(w ^ 0x7f80_0000 ^ S::MAX, r, &ex).is_err());
        }
    }
}
