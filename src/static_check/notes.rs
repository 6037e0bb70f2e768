//! The notes: `wait` fields that could be raised without a new hazard, each with the largest such value. Raising a
//! field only lets more operations stay outstanding, so the hazards grow with it and a binary search finds the
//! largest safe value.
//!
//! Each value tried is checked incrementally, not by analysing the whole kernel again (which made a kernel of
//! 2,000 waits take 17 s, 20,000 half an hour). The transfer functions are monotone and a raised field only
//! enlarges its own `wait`'s, so the fixed point with the raised field is reached from the plain one by
//! propagating the change alone: from the `wait` on, the raised state is stepped beside the plain one until the two
//! agree (mostly at the next `wait`), and only when they still differ at the end of the block do the blocks after
//! it get new entry states, to a fixed point again. Hazards can only change where a state did, so only there are
//! they compared with the plain ones. The result is the one a whole new analysis gives (a test compares them).

use super::analysis::{fixpoint, no_new_hazard, Ctx, Hazards, Overrides, State};
use super::cfg::{wait_fields, Cfg};
use super::{Clock, DeadlineExceeded};
use std::collections::{BTreeMap, BTreeSet};

/// A `wait` field stronger than needed.
pub struct Note {
    /// The `wait`.
    pub pc: u32,
    /// Index of the field's counter in `Counter::ALL`.
    pub counter: usize,
    /// The field's value.
    pub value: u32,
    /// The largest value with no new hazard.
    pub weakest: u32,
}

/// What a tried value is checked against: the graph, the plain analysis' entry states and hazards, the deadline.
struct Plain<'a> {
    cfg: &'a Cfg,
    ins: Vec<Option<State>>,
    hazards: &'a Hazards,
    clock: &'a Clock,
}

/// A `wait` field to raise: the `wait` is instruction `index` of block `block`, `before` the plain state there.
struct Field<'a> {
    block: usize,
    index: usize,
    before: &'a State,
    counter: usize,
}

/// The `wait` fields (of reachable `wait`s) that could be raised without a new hazard (`base`: the program's
/// hazards), each with the largest such value.
pub fn strong_waits(cfg: &Cfg, base: &Hazards, clock: &Clock) -> Result<Vec<Note>, DeadlineExceeded> {
    let none = Overrides::new();
    let plain_ctx = Ctx::new(&none, clock);
    let plain = Plain { cfg, ins: fixpoint(cfg, &plain_ctx)?, hazards: base, clock };
    let mut notes = Vec::new();
    let mut scratch = Hazards::new();
    for (block, entry) in plain.ins.iter().enumerate() {
        let Some(mut before) = entry.clone() else { continue };
        for (index, op) in cfg.ops(block).iter().enumerate() {
            for (counter, value, max) in wait_fields(&op.insn).into_iter().filter(|f| f.1 < f.2) {
                let field = Field { block, index, before: &before, counter };
                let (mut lo, mut hi) = (value, max);
                while lo < hi {
                    let mid = lo + (hi - lo).div_ceil(2);
                    if safe(&plain, &field, mid)? {
                        lo = mid;
                    } else {
                        hi = mid - 1;
                    }
                }
                if lo > value {
                    notes.push(Note { pc: op.pc, counter, value, weakest: lo });
                }
            }
            before.step(op.pc, &op.insn, &plain_ctx, &mut scratch);
            scratch.clear();
        }
    }
    Ok(notes)
}

/// Whether `field` raised to `n` adds no hazard (no new one, no new producer of one).
fn safe(plain: &Plain, field: &Field, n: u32) -> Result<bool, DeadlineExceeded> {
    plain.clock.check()?;
    let ops = plain.cfg.ops(field.block);
    let overrides = Overrides::from([((ops[field.index].pc, field.counter), n)]);
    let (none, ctx) = (Overrides::new(), Ctx::new(&overrides, plain.clock));
    let plain_ctx = Ctx::new(&none, plain.clock);
    // The raised state beside the plain one, from the `wait` to where they agree or the block ends.
    let (mut raised, mut same) = (field.before.clone(), field.before.clone());
    let (mut found, mut scratch) = (Hazards::new(), Hazards::new());
    let mut agree = false;
    for op in &ops[field.index..] {
        raised.step(op.pc, &op.insn, &ctx, &mut found);
        same.step(op.pc, &op.insn, &plain_ctx, &mut scratch);
        if raised == same {
            agree = true;
            break;
        }
    }
    if !no_new_hazard(&found, plain.hazards) {
        return Ok(false);
    }
    if agree {
        return Ok(true);
    }
    let changed = propagate(plain, field.block, &raised, &ctx)?;
    found.clear();
    for (&b, entry) in &changed {
        let mut st = entry.clone();
        for op in plain.cfg.ops(b) {
            st.step(op.pc, &op.insn, &ctx, &mut found);
        }
    }
    Ok(no_new_hazard(&found, plain.hazards))
}

/// The entry states that differ from the plain ones once block `from` ends in state `out` (under `ctx`'s raised
/// field), to a fixed point: the plain states are below the raised fixed point, so joining upward from them
/// reaches it.
fn propagate(plain: &Plain, from: usize, out: &State, ctx: &Ctx) -> Result<BTreeMap<usize, State>, DeadlineExceeded> {
    let mut changed: BTreeMap<usize, State> = BTreeMap::new();
    let mut work = BTreeSet::new();
    flow(plain, out, from, &mut changed, &mut work);
    let mut scratch = Hazards::new();
    while let Some(b) = work.pop_first() {
        plain.clock.check()?;
        let Some(mut st) = changed.get(&b).cloned() else { continue };
        for op in plain.cfg.ops(b) {
            st.step(op.pc, &op.insn, ctx, &mut scratch);
        }
        scratch.clear();
        flow(plain, &st, b, &mut changed, &mut work);
    }
    Ok(changed)
}

/// Joins `out`, the state at the end of block `b`, into the entry states of its successors (the plain ones where
/// none has changed yet), queueing every one that grew.
fn flow(plain: &Plain, out: &State, b: usize, changed: &mut BTreeMap<usize, State>, work: &mut BTreeSet<usize>) {
    for &s in &plain.cfg.succs[b] {
        let grew = match changed.get_mut(&s) {
            Some(entry) => entry.join(out),
            None => {
                let mut entry = plain.ins[s].clone().unwrap_or_default();
                let grew = entry.join(out) || plain.ins[s].is_none();
                if grew {
                    changed.insert(s, entry);
                }
                grew
            }
        };
        if grew {
            work.insert(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::static_check::analysis::hazards;
    use lanejit_isa::Program;

    /// The notes as they were first computed: a whole analysis per value tried.
    fn by_full_runs(cfg: &Cfg, base: &Hazards, clock: &Clock) -> Vec<(u32, usize, u32, u32)> {
        let ins = fixpoint(cfg, &Ctx::new(&Overrides::new(), clock)).unwrap();
        let mut notes = Vec::new();
        for (b, _) in ins.iter().enumerate().filter(|(_, s)| s.is_some()) {
            for op in cfg.ops(b) {
                for (c, value, max) in wait_fields(&op.insn).into_iter().filter(|f| f.1 < f.2) {
                    let safe =
                        |n| no_new_hazard(&hazards(cfg, &Overrides::from([((op.pc, c), n)]), clock).unwrap(), base);
                    let weakest = (value..=max).take_while(|&n| n == value || safe(n)).last().unwrap();
                    if weakest > value {
                        notes.push((op.pc, c, value, weakest));
                    }
                }
            }
        }
        notes
    }

    /// Compares both on `p`; the number of notes.
    fn both(name: &str, p: &Program) -> usize {
        let clock = Clock::start(None);
        let cfg = Cfg::new(p);
        let base = hazards(&cfg, &Overrides::new(), &clock).unwrap();
        let fast: Vec<_> =
            strong_waits(&cfg, &base, &clock).unwrap().iter().map(|n| (n.pc, n.counter, n.value, n.weakest)).collect();
        assert_eq!(fast, by_full_runs(&cfg, &base, &clock), "{name}");
        fast.len()
    }

    /// The bundled examples and the planted kernels (with their waits, and with every wait at 0).
    #[test]
    fn incremental_notes_match_whole_analyses_on_the_corpus() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let (mut tried, mut notes) = (0, 0);
        for dir in ["examples", "tests/check"] {
            for entry in std::fs::read_dir(root.join(dir)).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_none_or(|e| e != "s") {
                    continue;
                }
                let src = std::fs::read_to_string(&path).unwrap();
                let strict: String = src.lines().map(|l| strictest_waits(l) + "\n").collect();
                for (name, text) in [("as written", &src), ("every wait at 0", &strict)] {
                    let p = lanejit_isa::assemble(&path.display().to_string(), text).unwrap();
                    notes += both(&format!("{} ({name})", path.display()), &p);
                    tried += 1;
                }
            }
        }
        assert!(tried >= 40 && notes >= 40, "{tried} kernels, {notes} notes");
    }

    /// A `wait` line with every field at 0 (the strongest), other lines as they are.
    fn strictest_waits(line: &str) -> String {
        match line.trim_start().strip_prefix("wait ") {
            Some(_) => "    wait vm=0, vst=0, ls=0, sm=0, tex=0, sfu=0".into(),
            None => line.to_string(),
        }
    }

    const LINES: [&str; 16] = [
        "u.ld.b64 u2, u0, 0",
        "u.ld.b32 u6, u0, 16",
        "ld.b32 v1, v4, u6, 0",
        "ld.b32 v2, v4, u20, 0, sp=shared",
        "st.b32 v1, v4, u6, 0",
        "st.b32 v3, v4, u20, 0, sp=shared",
        "atom.add.u32 v2, v3, u8, 0",
        "f.rcp.f32 v3, v1",
        "v.add v1, v2, v3",
        "v.add v3, v1, v1",
        "u.add u6, u2, u7",
        "u.add u7, u6, u6",
        "b.nz u7, L{}",
        "j L{}",
        "jr u10, 0",
        "jal u12, L{}",
    ];

    /// Random kernels of loads, stores, atomics, transcendentals, waits of random strength, branches, calls and
    /// indirect jumps among a few labels.
    #[test]
    fn incremental_notes_match_whole_analyses_on_random_kernels() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let mut with_notes = 0;
        for k in 0..300 {
            let len = 4 + next(40) as usize;
            let mut src = String::new();
            let label_at: Vec<usize> = (0..4).map(|_| next(len as u64) as usize).collect();
            for i in 0..len {
                for (l, _) in label_at.iter().enumerate().filter(|(_, &at)| at == i) {
                    src += &format!("L{l}:\n");
                }
                let line = match next(4) {
                    0 => {
                        let f = ["vm", "vst", "ls", "sm", "sfu"][next(5) as usize];
                        format!("wait {f}={}", next(3))
                    }
                    _ => LINES[next(LINES.len() as u64) as usize].replace("{}", &next(4).to_string()),
                };
                src += &format!("    {line}\n");
            }
            src += "    end\n";
            let p = lanejit_isa::assemble("random.s", &src).unwrap_or_else(|e| panic!("{e}\n{src}"));
            with_notes += (both(&format!("random kernel {k}:\n{src}"), &p) > 0) as usize;
        }
        assert!(with_notes >= 50, "only {with_notes} kernels with a note");
    }
}
