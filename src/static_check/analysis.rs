//! The data-flow analysis: the outstanding operations of each counter at every block entry, to a fixed point,
//! then one more pass that records every hazard. (`notes` searches for `wait` fields stronger than needed.)

use super::cfg::{counter_index, counter_max, wait_fields, Cfg};
use super::producers::Producers;
use super::{Clock, DeadlineExceeded, FindingKind};
use lanejit_isa::{Counter, Insn, Reg, RegSet};
use std::collections::{BTreeMap, BTreeSet};

/// What an outstanding operation does later with a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Role {
    /// It will write it (a load's, an atomic's, an image or transcendental result).
    Dest,
    /// It still reads it (a store's or an atomic's data).
    Source,
}

/// (counter index, role, register).
type Key = (usize, Role, Reg);

/// The outstanding operations of one counter that touch one register in one role, merged over the paths.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Slot {
    /// Operations of the same counter issued after the newest of them, on the path with the fewest (a `wait`
    /// with a field at most this covers them); saturates at the counter's maximum.
    younger: u32,
    /// The pcs that may have issued them.
    producers: Producers,
}

/// The analysis state at one point: every outstanding (counter, role, register).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct State(BTreeMap<Key, Slot>);

/// `wait` field values to use instead of the program's, by (pc, counter index): how a note is tried.
pub type Overrides = BTreeMap<(u32, usize), u32>;

/// One hazard, without its producers: the using pc, the register, the kind and the counter index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct HazardKey {
    /// The using instruction.
    pub pc: u32,
    /// The register.
    pub reg: Reg,
    /// What the use is.
    pub kind: FindingKind,
    /// Index of the counter in `Counter::ALL`.
    pub counter: usize,
}

/// Every hazard with the pcs that may have produced it.
pub type Hazards = BTreeMap<HazardKey, Producers>;

/// What one analysis run reads besides the state: the field overrides, each counter's maximum and the deadline.
pub(super) struct Ctx<'a> {
    overrides: &'a Overrides,
    caps: Vec<u32>,
    clock: &'a Clock,
}

impl<'a> Ctx<'a> {
    pub(super) fn new(overrides: &'a Overrides, clock: &'a Clock) -> Ctx<'a> {
        Ctx { overrides, caps: (0..Counter::ALL.len()).map(counter_max).collect(), clock }
    }
}

/// The registers whose values an asynchronous operation still reads after it issues: its data operand (a store's
/// or an atomic's). Addresses are read at issue.
fn still_read(insn: &Insn) -> RegSet {
    let info = insn.id().info();
    let mut s = RegSet::new();
    let Some(data) = info.access.map(|a| a.data).or(info.image.map(|a| a.data)) else { return s };
    for u in insn.reg_uses().as_slice().iter().filter(|u| u.operand == data) {
        s.insert_group(u.file, u.first as usize, u.read as usize);
    }
    s
}

impl State {
    /// Merges `o` into this state: an operation outstanding on either path is outstanding, with the fewer
    /// younger operations and every producer. Whether anything changed.
    pub(super) fn join(&mut self, o: &State) -> bool {
        let mut changed = false;
        for (k, s) in &o.0 {
            match self.0.get_mut(k) {
                Some(mine) => {
                    changed |= s.younger < mine.younger;
                    mine.younger = mine.younger.min(s.younger);
                    changed |= mine.producers.join(&s.producers);
                }
                None => {
                    self.0.insert(*k, s.clone());
                    changed = true;
                }
            }
        }
        changed
    }

    /// One instruction: its `wait` fields retire what they cover; its reads and writes are checked against what
    /// is outstanding; if asynchronous, it becomes the newest operation of its counter.
    pub(super) fn step(&mut self, pc: u32, insn: &Insn, ctx: &Ctx, sink: &mut Hazards) {
        for (c, v, max) in wait_fields(insn) {
            let n = ctx.overrides.get(&(pc, c)).copied().unwrap_or(v);
            if n < max {
                // All but the newest n operations of c have completed.
                self.0.retain(|k, s| k.0 != c || s.younger < n);
            }
        }
        let own = insn.counter().map(counter_index);
        let writes = insn.writes();
        self.report(insn.reads(), Role::Dest, None, FindingKind::ReadBeforeWait, pc, sink);
        // Operations of one counter complete in issue order, so a new operation of the same counter may write a
        // register an older one writes or reads.
        self.report(writes, Role::Dest, own, FindingKind::OverwriteBeforeWait, pc, sink);
        self.report(writes, Role::Source, own, FindingKind::StoreSourceOverwritten, pc, sink);
        if let Some(c) = own {
            self.issue(c, pc, writes, still_read(insn), ctx.caps[c]);
        }
    }

    /// Records a hazard for every outstanding `role` register in `regs` (of any counter but `same`), and
    /// forgets it: one report per path, not one per later use.
    fn report(
        &mut self,
        regs: RegSet,
        role: Role,
        same: Option<usize>,
        kind: FindingKind,
        pc: u32,
        sink: &mut Hazards,
    ) {
        let hit: Vec<Key> =
            self.0.keys().filter(|k| k.1 == role && Some(k.0) != same && regs.has(k.2)).copied().collect();
        for k in hit {
            let slot = self.0.remove(&k).expect("the key was just listed");
            let key = HazardKey { pc, reg: k.2, kind, counter: k.0 };
            sink.entry(key).or_default().join(&slot.producers);
        }
    }

    /// A new operation of counter `c` at `pc`: every older one of `c` has one more younger operation.
    fn issue(&mut self, c: usize, pc: u32, dest: RegSet, source: RegSet, cap: u32) {
        for (_, s) in self.0.iter_mut().filter(|(k, _)| k.0 == c) {
            s.younger = (s.younger + 1).min(cap);
        }
        let fresh = || Slot { younger: 0, producers: Producers::one(pc) };
        for r in dest.iter() {
            self.0.insert((c, Role::Dest, r), fresh());
        }
        for r in source.iter() {
            self.0.insert((c, Role::Source, r), fresh());
        }
    }
}

/// The state at the entry of every block reachable from pc 0 (`None`: unreachable), to a fixed point. States
/// only grow (joins), over a finite lattice (bounded counts, finite pc sets), so loops terminate; the clock is
/// read at every block, so a huge kernel stops at the deadline.
pub(super) fn fixpoint(cfg: &Cfg, ctx: &Ctx) -> Result<Vec<Option<State>>, DeadlineExceeded> {
    let mut ins: Vec<Option<State>> = vec![None; cfg.nodes()];
    let Some(entry) = cfg.entry() else { return Ok(ins) };
    ins[entry] = Some(State::default());
    let mut work = BTreeSet::from([entry]);
    let mut scratch = Hazards::new();
    while let Some(b) = work.pop_first() {
        ctx.clock.check()?;
        let Some(mut st) = ins[b].clone() else { continue }; // only reached nodes are queued
        for op in cfg.ops(b) {
            st.step(op.pc, &op.insn, ctx, &mut scratch);
        }
        scratch.clear();
        for &s in &cfg.succs[b] {
            let changed = match &mut ins[s] {
                Some(x) => x.join(&st),
                None => {
                    ins[s] = Some(st.clone());
                    true
                }
            };
            if changed {
                work.insert(s);
            }
        }
    }
    Ok(ins)
}

/// Every hazard of the program, with the `wait` fields of `overrides` in place of the program's.
pub fn hazards(cfg: &Cfg, overrides: &Overrides, clock: &Clock) -> Result<Hazards, DeadlineExceeded> {
    let ctx = Ctx::new(overrides, clock);
    let mut out = Hazards::new();
    for (b, st) in fixpoint(cfg, &ctx)?.into_iter().enumerate() {
        let Some(mut st) = st else { continue };
        for op in cfg.ops(b) {
            st.step(op.pc, &op.insn, &ctx, &mut out);
        }
    }
    Ok(out)
}

/// Whether `h` holds nothing `base` does not: no new hazard, no new producer of one.
pub(super) fn no_new_hazard(h: &Hazards, base: &Hazards) -> bool {
    h.iter().all(|(k, p)| base.get(k).is_some_and(|bp| p.is_subset(bp)))
}
