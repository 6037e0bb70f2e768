//! The instructions that may have issued an outstanding operation (a slot's, a hazard's): a set of pcs bounded
//! to the lowest [`MAX_PRODUCERS`], and whether there were more. Unbounded, the sets made the analysis quadratic:
//! 8,000 loads each before an indirect call reach every return point, so every block's state held 8,000 pcs
//! (22 s and 1.6 GB; 20,000 such blocks would take 10 GB). Bounded, a state is at most a fixed factor larger
//! than its registers, and the join stays a join (the lowest pcs of a union are those of the unions of the
//! lowest pcs), so the analysis still terminates at the same fixed point for every kernel of fewer producers.

use std::collections::BTreeSet;

/// Most producers a hazard names (the lowest pcs); beyond them a finding says there are more.
pub const MAX_PRODUCERS: usize = 16;

/// A bounded set of producer pcs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Producers {
    /// The lowest pcs, at most [`MAX_PRODUCERS`].
    pcs: BTreeSet<u32>,
    /// Some pc above those was dropped.
    more: bool,
}

impl Producers {
    /// The one producer `pc`.
    pub fn one(pc: u32) -> Producers {
        Producers { pcs: BTreeSet::from([pc]), more: false }
    }

    /// Adds `o`'s producers (keeping the lowest); whether anything changed.
    pub fn join(&mut self, o: &Producers) -> bool {
        let mut changed = o.more && !self.more;
        self.more |= o.more;
        for &pc in &o.pcs {
            if self.pcs.len() == MAX_PRODUCERS && self.pcs.last().is_some_and(|&top| pc > top) {
                changed |= !self.more;
                self.more = true;
                continue;
            }
            if self.pcs.insert(pc) {
                changed = true;
                if self.pcs.len() > MAX_PRODUCERS {
                    self.pcs.pop_last();
                    self.more = true;
                }
            }
        }
        changed
    }

    /// Whether every producer of `self` is among `o`'s (with more dropped only where `o` dropped some too).
    pub fn is_subset(&self, o: &Producers) -> bool {
        self.pcs.is_subset(&o.pcs) && (!self.more || o.more)
    }

    /// The pcs kept, lowest first.
    pub fn pcs(&self) -> impl Iterator<Item = u32> + '_ {
        self.pcs.iter().copied()
    }

    /// Whether producers beyond [`Producers::pcs`] were dropped.
    pub fn more(&self) -> bool {
        self.more
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(pcs: impl IntoIterator<Item = u32>) -> Producers {
        let mut p = Producers::default();
        for pc in pcs {
            p.join(&Producers::one(pc));
        }
        p
    }

    #[test]
    fn keeps_the_lowest_pcs_and_flags_the_rest() {
        let p = of((0..100).rev());
        assert_eq!(p.pcs().collect::<Vec<_>>(), (0..MAX_PRODUCERS as u32).collect::<Vec<_>>());
        assert!(p.more());
        let small = of([5, 1, 3]);
        assert_eq!((small.pcs().collect::<Vec<_>>(), small.more()), (vec![1, 3, 5], false));
    }

    #[test]
    fn the_join_is_associative_and_reports_change() {
        let (a, b, c) = (of(0..10), of(5..20), of(15..40));
        let mut ab_c = a.clone();
        ab_c.join(&b);
        ab_c.join(&c);
        let mut bc = b.clone();
        bc.join(&c);
        let mut a_bc = a.clone();
        a_bc.join(&bc);
        assert_eq!(ab_c, a_bc);
        assert!(!ab_c.clone().join(&a), "joining what is already there changes nothing");
        assert!(!ab_c.clone().join(&of([100])), "a pc above a full set only sets `more`, already set");
        assert!(of(0..16).join(&of([100])), "the first dropped pc sets `more`");
        assert!(of([1]).is_subset(&of([1, 2])) && !of([3]).is_subset(&of([1, 2])));
        assert!(!of(0..20).is_subset(&of(0..16)), "dropped producers are not in a set that dropped none");
    }
}
