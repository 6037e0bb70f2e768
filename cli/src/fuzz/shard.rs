//! Shards of a campaign (`lanejit fuzz --shard K/N`): N runs that cover disjoint, contiguous parts of one
//! campaign's programs, each reproducible on its own, whose `--json` reports `lanejit fuzz merge` combines.
//!
//! Shards are numbered from 1 to N, as `cargo nextest --partition count:K/N` and `split -n K/N` number theirs
//! (a batch scheduler's array job runs `--shard $TASK/N` with tasks 1..=N). Shard K of a campaign whose
//! programs are numbered `a..b` runs `a + (K-1)·L/N .. a + K·L/N` (L = b - a), so the shards tile the
//! campaign whatever N divides.

use std::ops::Range;

/// Shard `index` (1-based) of `of`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shard {
    /// Which shard, 1..=`of`.
    pub index: u64,
    /// How many shards the campaign is split into.
    pub of: u64,
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.of)
    }
}

/// Parses `K/N` (1 ≤ K ≤ N): the error says which part is wrong.
pub fn parse_shard(s: &str) -> Result<Shard, String> {
    let (k, n) = s.split_once('/').ok_or_else(|| format!("`{s}`: expected K/N, e.g. 1/4 (shards count from 1)"))?;
    let num =
        |t: &str, what: &str| t.trim().parse::<u64>().map_err(|_| format!("`{s}`: {what} `{t}` is not a whole number"));
    let (index, of) = (num(k, "K")?, num(n, "N")?);
    if of == 0 {
        return Err(format!("`{s}`: N must be at least 1"));
    }
    if index == 0 || index > of {
        return Err(format!("`{s}`: K must be in 1..={of} (shards count from 1, as `split -n K/N` does)"));
    }
    Ok(Shard { index, of })
}

impl Shard {
    /// The part of `programs` this shard runs; an error when there are fewer programs than shards (some shard
    /// would be empty, which is always a mistake in the command line).
    pub fn part(&self, programs: &Range<u64>) -> Result<Range<u64>, String> {
        let len = programs.end.saturating_sub(programs.start);
        if len < self.of {
            return Err(format!(
                "--shard {self}: a campaign of {len} programs cannot be split into {} shards (at most one shard per program)",
                self.of
            ));
        }
        let at = |k: u64| programs.start + ((len as u128 * k as u128) / self.of as u128) as u64;
        Ok(at(self.index - 1)..at(self.index))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_tile_the_campaign() {
        for (len, of) in [(10u64, 3u64), (7, 7), (1000, 16), (u64::MAX - 1, 5)] {
            let all = 1..1 + len;
            let mut next = all.start;
            for index in 1..=of {
                let p = Shard { index, of }.part(&all).unwrap();
                assert_eq!(p.start, next);
                assert!(p.end > p.start);
                next = p.end;
            }
            assert_eq!(next, all.end);
        }
    }

    #[test]
    fn not_run_lists_what_no_part_ran() {
        use crate::fuzz::report::Report;
        let part = |planned, ran| crate::fuzz::report::Part { shard: None, planned, ran, lost: None };
        let parts = vec![part((0, 10), (0, 4)), part((20, 30), (20, 30))];
        let settings = |count| crate::fuzz::report::Settings {
            seed: Some(1),
            count,
            size: 4,
            states: 1,
            groups: 0,
            ignore: vec![],
            mutant: None,
            shrink: true,
            backtracking: 8,
        };
        let report = |count| {
            let sum = crate::fuzz::Summary::default();
            let mut r = Report::of_run(settings(count), parts[0].clone(), &sum, vec![]);
            r = Report::assemble(r.campaign, parts.clone(), (0, 0, 0.0), r.coverage, vec![], vec![]);
            (r.not_run, r.complete)
        };
        assert_eq!(report(Some(40)), (vec![(4, 20), (30, 40)], false));
        assert_eq!(report(None), (vec![(4, 10)], false));
    }

    #[test]
    fn bad_shards_are_refused() {
        for bad in ["0/4", "5/4", "1/0", "x/2", "1", "1/2/3", "-1/2", ""] {
            assert!(parse_shard(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_shard("2/4"), Ok(Shard { index: 2, of: 4 }));
        assert!(Shard { index: 1, of: 5 }.part(&(0..4)).is_err());
    }
}
