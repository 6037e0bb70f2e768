//! Launch times of `run --repeat N` and `bench KERNEL --repeat N` in bounded memory, whatever N is (up to
//! 2^32 - 1 launches: keeping every time grew by 15 MB a second).
//!
//! The first launch (compilation included) is kept apart; of the others, the count, the best and the worst are
//! exact, and so is the median up to [`EXACT_LAUNCHES`] of them (their times are kept and sorted). Past that,
//! the times go into a histogram of buckets 1% wide (a few thousand counters, whatever the series' length) and
//! the median is the middle of its bucket: within 0.5% of the true median, and reported as approximate (`≈`
//! in text, `"median_exact": false` in JSON).

use std::time::Duration;

/// Launches after the first whose times are kept, so that their median is exact.
pub const EXACT_LAUNCHES: usize = 4096;

/// Ratio between the bounds of consecutive histogram buckets.
const BUCKET_RATIO: f64 = 1.01;

/// Histogram buckets: bucket k holds times from 1.01^k to 1.01^(k+1) nanoseconds, up to 1.01^3500 ns (about 15
/// days, twice the longest deadline); a longer time counts in the last one.
const BUCKETS: usize = 3500;

/// The times of a series of launches.
#[derive(Clone, Debug, Default)]
pub struct LaunchTimes {
    first: Option<Duration>,
    /// Launches after the first.
    rest: u64,
    best: Duration,
    worst: Duration,
    /// Their times while there are at most [`EXACT_LAUNCHES`] (emptied into `histogram` past that).
    exact: Vec<Duration>,
    /// Their counts by bucket, once there have been more than [`EXACT_LAUNCHES`].
    histogram: Vec<u64>,
}

/// The summary of a series: the first launch, then best and median of the others (of the first alone when it
/// is the only one).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    /// Launches timed.
    pub launches: u64,
    /// The first launch (compilation included).
    pub first: Duration,
    /// The fastest of the others.
    pub best: Duration,
    /// Their median (the upper one of an even count), within 0.5% when not `median_exact`.
    pub median: Duration,
    /// Whether `median` is exact (at most [`EXACT_LAUNCHES`] launches after the first).
    pub median_exact: bool,
}

fn bucket(d: Duration) -> usize {
    let ns = d.as_nanos().max(1) as f64;
    ((ns.ln() / BUCKET_RATIO.ln()) as usize).min(BUCKETS - 1)
}

impl LaunchTimes {
    /// Counts one launch's time.
    pub fn push(&mut self, d: Duration) {
        if self.first.is_none() {
            self.first = Some(d);
            return;
        }
        self.best = if self.rest == 0 { d } else { self.best.min(d) };
        self.worst = self.worst.max(d);
        self.rest += 1;
        if self.histogram.is_empty() && self.exact.len() < EXACT_LAUNCHES {
            self.exact.push(d);
            return;
        }
        if self.histogram.is_empty() {
            self.histogram = vec![0; BUCKETS];
            for t in std::mem::take(&mut self.exact) {
                self.histogram[bucket(t)] += 1;
            }
        }
        self.histogram[bucket(d)] += 1;
    }

    /// Launches counted.
    pub fn launches(&self) -> u64 {
        self.rest + u64::from(self.first.is_some())
    }

    /// First, best and median (`None` before the first launch).
    pub fn summary(&self) -> Option<Summary> {
        let first = self.first?;
        let launches = self.launches();
        if self.rest == 0 {
            return Some(Summary { launches, first, best: first, median: first, median_exact: true });
        }
        let (median, median_exact) = match self.histogram.is_empty() {
            true => {
                let mut sorted = self.exact.clone();
                sorted.sort();
                (sorted[sorted.len() / 2], true)
            }
            false => (self.histogram_median(), false),
        };
        Some(Summary { launches, first, best: self.best, median, median_exact })
    }

    /// The middle (geometrically) of the bucket holding the median, within the times seen.
    fn histogram_median(&self) -> Duration {
        let rank = self.rest / 2;
        let mut below = 0;
        let k = self.histogram.iter().position(|&n| {
            below += n;
            below > rank
        });
        let mid_ns = BUCKET_RATIO.powf(k.unwrap_or(BUCKETS - 1) as f64 + 0.5);
        Duration::from_secs_f64(mid_ns / 1e9).clamp(self.best, self.worst)
    }
}

impl Summary {
    /// The text line of `run --repeat`.
    pub fn line(&self) -> String {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        format!(
            "timing: {} launches: first {:.3} ms (compilation included), then best {:.3} ms, median {}{:.3} ms{}",
            self.launches,
            ms(self.first),
            ms(self.best),
            if self.median_exact { "" } else { "≈ " },
            ms(self.median),
            if self.median_exact { "" } else { " (from a histogram of 1% buckets, within 0.5%)" }
        )
    }

    /// The JSON object of `run --repeat --json`.
    pub fn json(&self) -> serde_json::Value {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        serde_json::json!({
            "launches": self.launches, "first_ms": ms(self.first), "best_ms": ms(self.best),
            "median_ms": ms(self.median), "median_exact": self.median_exact,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_is_exact_then_within_half_a_percent_in_bounded_memory() {
        let mut t = LaunchTimes::default();
        assert_eq!(t.summary(), None);
        t.push(Duration::from_millis(50));
        let s = t.summary().unwrap();
        assert_eq!((s.launches, s.best, s.median, s.median_exact), (1, s.first, s.first, true));
        for i in 1..=EXACT_LAUNCHES as u64 {
            t.push(Duration::from_micros(1000 + i));
        }
        let s = t.summary().unwrap();
        assert!(s.median_exact);
        assert_eq!((s.best, s.median), (Duration::from_micros(1001), Duration::from_micros(1000 + 2049)));
        // A million more launches take no more memory than the histogram.
        let mut all: Vec<Duration> = (1..=EXACT_LAUNCHES as u64).map(|i| Duration::from_micros(1000 + i)).collect();
        for i in 0..1_000_000u64 {
            let d = Duration::from_nanos(2_000_000 + i * 7919 % 3_000_000);
            t.push(d);
            all.push(d);
        }
        let s = t.summary().unwrap();
        assert!(!s.median_exact && t.exact.capacity() == 0 && t.histogram.len() == BUCKETS);
        all.sort();
        let (want, got) = (all[all.len() / 2].as_secs_f64(), s.median.as_secs_f64());
        assert!((got - want).abs() / want <= 0.005, "median {got} s, exact {want} s");
        assert_eq!(s.launches, 1 + EXACT_LAUNCHES as u64 + 1_000_000);
        assert!(s.line().contains("median ≈ "), "{}", s.line());
    }

    #[test]
    fn extreme_times_land_in_the_first_and_last_buckets() {
        assert_eq!(bucket(Duration::ZERO), 0);
        assert_eq!(bucket(Duration::MAX), BUCKETS - 1);
    }
}
