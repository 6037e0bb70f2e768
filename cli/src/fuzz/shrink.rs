//! Delta debugging of a failing case: delete chunks of nodes (halving the chunk size), inline structures and
//! calls (a leading if/else becomes its body with the lanes it ran in moved into the initial EXEC), strip what
//! structures add (empty else, the skip over an empty branch, extra loop trips), run a workgroup case as fewer
//! waves, drop functions, then move operands, immediates and the initial state toward simpler values, keeping
//! each change only while the case still fails. Works on the program tree, so every candidate is a valid,
//! terminating program.

use super::prog::{ids, op, GenProgram, LoopKind, Node};
use lanejit::state_json::StateJson;
use lanejit_isa::{encode_values, KindClass};

/// Which list of nodes: main (`None`) or a function, then child lists (node index, 0 = body/then, 1 = else).
#[derive(Clone, Debug)]
struct ListPath {
    root: Option<usize>,
    steps: Vec<(usize, u8)>,
}

fn children(n: &mut Node, which: u8) -> Option<&mut Vec<Node>> {
    match (n, which) {
        (Node::Skip { body, .. } | Node::Loop { body, .. }, 0) => Some(body),
        (Node::If { then, .. }, 0) => Some(then),
        (Node::If { els: Some(e), .. }, 1) => Some(e),
        _ => None,
    }
}

fn list_mut<'a>(p: &'a mut GenProgram, lp: &ListPath) -> Option<&'a mut Vec<Node>> {
    let mut l = match lp.root {
        None => &mut p.main,
        Some(f) => p.funcs.get_mut(f)?,
    };
    for &(i, w) in &lp.steps {
        l = children(l.get_mut(i)?, w)?;
    }
    Some(l)
}

/// Every node list in pre-order.
fn all_lists(p: &GenProgram) -> Vec<ListPath> {
    fn walk(ns: &[Node], lp: ListPath, out: &mut Vec<ListPath>) {
        out.push(lp.clone());
        for (i, n) in ns.iter().enumerate() {
            let kids: Vec<(u8, &Vec<Node>)> = match n {
                Node::Skip { body, .. } | Node::Loop { body, .. } => vec![(0, body)],
                Node::If { then, els, .. } => std::iter::once((0, then)).chain(els.iter().map(|e| (1, e))).collect(),
                _ => vec![],
            };
            for (w, k) in kids {
                let mut c = lp.clone();
                c.steps.push((i, w));
                walk(k, c, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(&p.main, ListPath { root: None, steps: vec![] }, &mut out);
    for (f, body) in p.funcs.iter().enumerate() {
        walk(body, ListPath { root: Some(f), steps: vec![] }, &mut out);
    }
    out
}

/// The shrinking state; `pred` answers "does this case still fail?".
pub struct Shrinker<F> {
    /// The smallest failing program so far.
    pub prog: GenProgram,
    /// Its initial state.
    pub init: StateJson,
    pred: F,
    /// Times the predicate has been evaluated.
    pub evals: usize,
    max_evals: usize,
}

impl<F: FnMut(&GenProgram, &StateJson) -> bool> Shrinker<F> {
    /// Shrinks `prog` from `init` while `pred` holds, at most `max_evals` evaluations.
    pub fn new(prog: GenProgram, init: StateJson, pred: F, max_evals: usize) -> Self {
        Shrinker { prog, init, pred, evals: 0, max_evals }
    }

    /// Applies `edit` to a copy; keeps it if the edit applied and the case still fails.
    fn attempt(&mut self, edit: impl FnOnce(&mut GenProgram, &mut StateJson) -> bool) -> bool {
        if self.evals >= self.max_evals {
            return false;
        }
        let (mut p, mut s) = (self.prog.clone(), self.init.clone());
        if !edit(&mut p, &mut s) || (p == self.prog && s == self.init) {
            return false;
        }
        self.evals += 1;
        if (self.pred)(&p, &s) {
            self.prog = p;
            self.init = s;
            true
        } else {
            false
        }
    }

    /// Shrinks until a whole round changes nothing (or the evaluation budget runs out).
    pub fn run(mut self) -> (GenProgram, StateJson, usize) {
        loop {
            let before = (self.prog.clone(), self.init.clone());
            self.delete_nodes();
            self.inline_structures();
            self.exec_into_state();
            self.simplify_structures();
            self.fewer_waves();
            self.drop_functions();
            self.simplify_tail();
            self.simplify_operands();
            self.simplify_state();
            if (self.prog.clone(), self.init.clone()) == before || self.evals >= self.max_evals {
                return (self.prog, self.init, self.evals);
            }
        }
    }

    /// ddmin over each list, last lists first (pre-order reversed: an edit never moves a list not yet visited).
    fn delete_nodes(&mut self) {
        for lp in all_lists(&self.prog).into_iter().rev() {
            let Some(len) = list_mut(&mut self.prog, &lp).map(|l| l.len()) else { continue };
            let mut chunk = len.div_ceil(2).max(1);
            loop {
                let mut start = 0;
                while start < list_mut(&mut self.prog, &lp).map_or(0, |l| l.len()) {
                    let lp2 = lp.clone();
                    let mut removed = self.attempt(|p, _| match list_mut(p, &lp2) {
                        Some(l) if start < l.len() => {
                            l.drain(start..(start + chunk).min(l.len()));
                            true
                        }
                        _ => false,
                    });
                    if !removed && self.init.budget.is_some() {
                        // Under a cut budget, plain instructions removed before the stop point move it: remove
                        // them and lower the budget by as many, so that the run stops at the same instruction.
                        let lp2 = lp.clone();
                        removed = self.attempt(|p, s| match (list_mut(p, &lp2), s.budget) {
                            (Some(l), Some(b)) if start < l.len() => {
                                let gone: Vec<Node> = l.drain(start..(start + chunk).min(l.len())).collect();
                                let ops = gone.iter().filter(|n| matches!(n, Node::Op(_))).count() as u64;
                                ops == gone.len() as u64 && b > ops && {
                                    s.budget = Some(b - ops);
                                    true
                                }
                            }
                            _ => false,
                        });
                    }
                    if !removed {
                        start += chunk;
                    }
                }
                if chunk == 1 {
                    break;
                }
                chunk = chunk.div_ceil(2);
            }
        }
    }

    /// Replaces a structure by its code (then and else bodies in sequence), a call by the function's body.
    fn inline_structures(&mut self) {
        for lp in all_lists(&self.prog).into_iter().rev() {
            let len = list_mut(&mut self.prog, &lp).map_or(0, |l| l.len());
            for i in (0..len).rev() {
                let lp2 = lp.clone();
                self.attempt(|p, _| {
                    let funcs = p.funcs.clone();
                    let Some(l) = list_mut(p, &lp2) else { return false };
                    let inner = match l.get(i) {
                        Some(Node::Skip { body, .. } | Node::Loop { body, .. }) => body.clone(),
                        Some(Node::If { then, els, .. }) => then.iter().chain(els.iter().flatten()).cloned().collect(),
                        Some(Node::Call { func, .. }) => match funcs.get(*func) {
                            Some(body) => body.clone(),
                            None => return false,
                        },
                        _ => return false,
                    };
                    l.splice(i..i + 1, inner);
                    true
                });
            }
        }
    }

    /// A leading if/else becomes straight code: its then (else) body, with the initial EXEC narrowed to the lanes
    /// that ran it (EXEC & u[mask], or EXEC & !u[mask]). A bug that needs a partial EXEC otherwise keeps the
    /// structure's save, skip and restore instructions around the one instruction that matters.
    fn exec_into_state(&mut self) {
        for take_else in [false, true] {
            self.attempt(|p, s| {
                let Some(Node::If { mask, then, els, .. }) = p.main.first() else { return false };
                let m = s.u.get(&mask.to_string()).copied().unwrap_or(0);
                let exec = s.exec.unwrap_or(u32::MAX);
                let (body, lanes) = match (take_else, els) {
                    (false, _) => (then.clone(), exec & m),
                    (true, Some(e)) => (e.clone(), exec & !m),
                    (true, None) => return false,
                };
                p.main.splice(0..1, body);
                s.exec = Some(lanes);
                true
            });
        }
    }

    /// Drops what a structure adds around its bodies: an empty else, the `j.execz` over an empty branch, loop
    /// trips beyond the first, the EXEC save/restore and exit test of a divergent loop (it becomes a counted one).
    fn simplify_structures(&mut self) {
        for lp in all_lists(&self.prog).into_iter().rev() {
            let len = list_mut(&mut self.prog, &lp).map_or(0, |l| l.len());
            for i in 0..len {
                for edit in 0..4 {
                    let lp2 = lp.clone();
                    self.attempt(|p, _| {
                        let Some(n) = list_mut(p, &lp2).and_then(|l| l.get_mut(i)) else { return false };
                        match (n, edit) {
                            (Node::If { els, .. }, 0) if els.as_ref().is_some_and(|e| e.is_empty()) => {
                                *els = None;
                                true
                            }
                            (Node::If { skip_empty, .. }, 1) if *skip_empty => {
                                *skip_empty = false;
                                true
                            }
                            (Node::Loop { count, .. }, 2) if *count > 1 => {
                                *count = 1;
                                true
                            }
                            (Node::Loop { kind, .. }, 3) if *kind == LoopKind::Divergent => {
                                *kind = LoopKind::Nz;
                                true
                            }
                            _ => false,
                        }
                    });
                }
            }
        }
    }

    /// A workgroup case down to one wave if it still fails so (barriers then trap in a lone wave, so they go
    /// first, with the node deletions), else one wave fewer.
    fn fewer_waves(&mut self) {
        self.attempt(|p, _| {
            fn drop_barriers(ns: &mut Vec<Node>) {
                ns.retain(|n| !matches!(n, Node::Barrier));
            }
            drop_barriers(&mut p.main);
            p.waves = 1;
            true
        });
        self.attempt(|p, _| {
            p.waves = p.waves.saturating_sub(1).max(1);
            true
        });
    }

    /// Removes a function and every call to it.
    fn drop_functions(&mut self) {
        for f in (0..self.prog.funcs.len()).rev() {
            self.attempt(|p, _| {
                if f >= p.funcs.len() {
                    return false;
                }
                p.funcs.remove(f);
                fn fix(ns: &mut Vec<Node>, f: usize) {
                    ns.retain(|n| !matches!(n, Node::Call { func, .. } if *func == f));
                    for n in ns.iter_mut() {
                        match n {
                            Node::Call { func, .. } if *func > f => *func -= 1,
                            Node::Skip { body, .. } | Node::Loop { body, .. } => fix(body, f),
                            Node::If { then, els, .. } => {
                                fix(then, f);
                                if let Some(e) = els {
                                    fix(e, f)
                                }
                            }
                            _ => {}
                        }
                    }
                }
                fix(&mut p.main, f);
                true
            });
        }
    }

    fn simplify_tail(&mut self) {
        let end = op(ids().end, &[]);
        self.attempt(|p, _| {
            p.tail = Some(end);
            true
        });
    }

    /// Every operand toward zero (registers toward v0/u0), literals to 0 or 1, enums to their default.
    fn simplify_operands(&mut self) {
        let mut paths = Vec::new();
        for lp in all_lists(&self.prog) {
            let len = list_mut(&mut self.prog, &lp).map_or(0, |l| l.len());
            paths.extend((0..len).map(|i| (Some(lp.clone()), i)));
        }
        paths.push((None, 0));
        for (lp, i) in paths {
            let nvals = self.op_at(&lp, i).map_or(0, |o| o.vals.len());
            for j in 0..nvals {
                for cand in self.op_at(&lp, i).map(|o| candidates(&o, j)).unwrap_or_default() {
                    let lp2 = lp.clone();
                    if self.attempt(|p, _| {
                        let o = match &lp2 {
                            Some(lp) => match list_mut(p, lp).and_then(|l| l.get_mut(i)) {
                                Some(Node::Op(o)) => o,
                                _ => return false,
                            },
                            None => match &mut p.tail {
                                Some(o) => o,
                                None => return false,
                            },
                        };
                        o.vals[j] = cand;
                        encode_values(o.info(), &o.vals).is_ok()
                    }) {
                        break;
                    }
                }
            }
        }
    }

    fn op_at(&mut self, lp: &Option<ListPath>, i: usize) -> Option<super::prog::Op> {
        match lp {
            Some(lp) => match list_mut(&mut self.prog, lp)?.get(i)? {
                Node::Op(o) => Some(o.clone()),
                _ => None,
            },
            None => self.prog.tail.clone(),
        }
    }

    fn simplify_state(&mut self) {
        self.attempt(|_, s| s.budget.take().is_some());
        self.attempt(|_, s| {
            s.exec = Some(u32::MAX);
            true
        });
        self.attempt(|_, s| {
            s.fcsr = None;
            true
        });
        for k in self.init.v.keys().cloned().collect::<Vec<_>>() {
            self.attempt(|_, s| s.v.remove(&k).is_some());
        }
        for k in self.init.u.keys().cloned().collect::<Vec<_>>() {
            self.attempt(|_, s| s.u.remove(&k).is_some());
        }
        for m in (0..self.init.memory.len()).rev() {
            if !self.attempt(|_, s| {
                s.memory.remove(m);
                true
            }) {
                self.attempt(|_, s| {
                    let h = &mut s.memory[m].hex;
                    *h = "0".repeat(h.len());
                    true
                });
            }
        }
    }
}

/// Simpler values for operand `j` of `o`, simplest first; each strictly simpler than the current one.
fn candidates(o: &super::prog::Op, j: usize) -> Vec<i64> {
    let k = o.info().operands[j].kind();
    let v = o.vals[j];
    let unit = if k.class == KindClass::PcRel { 4 } else { k.scale.max(1) as i64 };
    let mut out = match k.class {
        KindClass::Enum => {
            k.default.or_else(|| k.values.first().map(|x| x.1)).map(|d| vec![k.decode_value(d)]).unwrap_or_default()
        }
        KindClass::DMask => vec![1],
        KindClass::Bits => vec![0, 1],
        KindClass::VReg | KindClass::UReg => vec![0, if k.pair { (v / 2) & !1 } else { v / 2 }],
        KindClass::VHalf => vec![0, v & 0x7f],
        _ => vec![0, v / 2 / unit * unit, v.signum() * unit],
    };
    let simpler = |c: &i64| if k.class == KindClass::Enum { *c != v } else { c.unsigned_abs() < v.unsigned_abs() };
    out.retain(simpler);
    out.dedup();
    out
}

/// Shrinks a failing case within `max_evals` evaluations of `pred`; returns the case and the evaluations used.
pub fn shrink(
    prog: GenProgram,
    init: StateJson,
    pred: impl FnMut(&GenProgram, &StateJson) -> bool,
    max_evals: usize,
) -> (GenProgram, StateJson, usize) {
    Shrinker::new(prog, init, pred, max_evals).run()
}
