//! Schedule policies (`LaunchConfig::schedule`): which legal interleaving of waves and workgroups a launch
//! runs. `Fixed` is the launch's own order (waves in index order until each ends or waits at a barrier,
//! workgroups in index order per worker). The others are simulated on one thread (`simulate`), switching waves
//! at instruction counts, so that the same policy and seed give the same interleaving, and so the same
//! results, on every engine and thread count.

/// Most workgroups a simulated schedule keeps in flight at once (each holds its waves' states and its shared
/// memory; a few are enough to interleave a flag one sets and another reads).
pub const MAX_OVERLAP: usize = 4;
/// Unstarted workgroups a random order chooses the next one among (in index order): a bounded window, so
/// that a grid of billions of workgroups needs no permutation in memory.
pub const ORDER_WINDOW: usize = 8;
/// Most priority change points of `pct` (its DEPTH is one more than the change points).
pub const MAX_PCT_DEPTH: u32 = 64;
/// Longest slice `rr:K` may give a wave (one slice is one call of the engine).
pub const MAX_RR_SLICE: u64 = 1 << 32;

/// A launch's interleaving of waves and workgroups. Displayed in the form `parse` reads, so a printed schedule
/// replays.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Schedule {
    /// The launch's own order (`fixed`): fastest, one benign schedule among the legal ones.
    #[default]
    Fixed,
    /// `rr:K`: the waves of the workgroups in flight (two at a time, in index order) take turns of K
    /// instructions each.
    RoundRobin {
        /// Instructions per turn (1..=`MAX_RR_SLICE`).
        every: u64,
    },
    /// `random:SEED`: a random wave runs a random number of instructions, between any two of which it may be
    /// switched out; workgroups start in a random order with a random overlap (1..=`MAX_OVERLAP`).
    Random {
        /// The seed: every choice follows from it.
        seed: u64,
        /// At most this many preemptions (a switch away from a wave that could go on); `None`: no limit. The
        /// random draws stay the same, so a smaller limit replays a prefix of the same choices.
        switches: Option<u32>,
    },
    /// `pct:SEED,DEPTH`: probabilistic concurrency testing. Waves get random priorities and the highest
    /// runnable one runs; at DEPTH-1 random instruction counts (in 1..=horizon) the running wave drops below
    /// every other. A bug that needs d ordering constraints is found with probability at least
    /// 1/(waves × horizon^(d-1)) per schedule when DEPTH >= d.
    Pct {
        /// The seed of the priorities and change points.
        seed: u64,
        /// One more than the number of priority change points (1..=`MAX_PCT_DEPTH`).
        depth: u32,
        /// The instruction counts change points are drawn from (`None`: the kernel's length times the
        /// launch's waves, a guess of the launch's length).
        horizon: Option<u64>,
        /// At most this many preemptions, as for `Random`.
        switches: Option<u32>,
    },
}

impl Schedule {
    /// Reads `fixed`, `rr:K`, `random:SEED[,switches=S]` or `pct:SEED,DEPTH[,horizon=H][,switches=S]`: seeds
    /// are integers in 0..=2^64-1, K in 1..=2^32, DEPTH in 1..=64.
    pub fn parse(text: &str) -> Result<Schedule, String> {
        let t = text.trim();
        let (name, rest) = t.split_once(':').unwrap_or((t, ""));
        let mut parts = rest.split(',').map(str::trim).filter(|p| !p.is_empty());
        let schedule = match name {
            "fixed" if rest.is_empty() => Schedule::Fixed,
            "rr" => {
                let k = number(parts.next(), "rr:K", "K")?;
                if !(1..=MAX_RR_SLICE).contains(&k) {
                    return Err(format!("rr:{k}: K must be in 1..={MAX_RR_SLICE} instructions"));
                }
                Schedule::RoundRobin { every: k }
            }
            "random" => Schedule::Random { seed: number(parts.next(), "random:SEED", "SEED")?, switches: None },
            "pct" => {
                let seed = number(parts.next(), "pct:SEED,DEPTH", "SEED")?;
                let depth = number(parts.next(), "pct:SEED,DEPTH", "DEPTH")?;
                if !(1..=MAX_PCT_DEPTH as u64).contains(&depth) {
                    return Err(format!("pct depth {depth}: DEPTH must be in 1..={MAX_PCT_DEPTH}"));
                }
                Schedule::Pct { seed, depth: depth as u32, horizon: None, switches: None }
            }
            _ => return Err(format!("unknown schedule `{t}`: expected {FORMS}")),
        };
        parts.try_fold(schedule, with_option)
    }

    /// The same schedule with at most `n` preemptions (`Random` and `Pct`; the others have none to limit).
    pub fn with_switches(self, n: Option<u32>) -> Schedule {
        match self {
            Schedule::Random { seed, .. } => Schedule::Random { seed, switches: n },
            Schedule::Pct { seed, depth, horizon, .. } => Schedule::Pct { seed, depth, horizon, switches: n },
            other => other,
        }
    }

    /// The preemption limit, if any.
    pub fn switches(&self) -> Option<u32> {
        match self {
            Schedule::Random { switches, .. } | Schedule::Pct { switches, .. } => *switches,
            _ => None,
        }
    }
}

/// The schedule forms, for error messages.
pub const FORMS: &str = "fixed, rr:K, random:SEED[,switches=S] or pct:SEED,DEPTH[,horizon=H][,switches=S]";

/// A `key=value` option after the numbers of `random` or `pct`.
fn with_option(s: Schedule, part: &str) -> Result<Schedule, String> {
    let (key, value) = part.split_once('=').ok_or_else(|| format!("`{part}`: unexpected in a schedule ({FORMS})"))?;
    match (key.trim(), s) {
        ("switches", Schedule::Random { .. } | Schedule::Pct { .. }) => {
            let n = number(Some(value), "switches=S", "S")?;
            let n = u32::try_from(n).map_err(|_| format!("switches={n}: S must be at most {}", u32::MAX))?;
            Ok(s.with_switches(Some(n)))
        }
        ("horizon", Schedule::Pct { seed, depth, switches, .. }) => {
            let h = number(Some(value), "horizon=H", "H")?.max(1);
            Ok(Schedule::Pct { seed, depth, horizon: Some(h), switches })
        }
        _ => Err(format!("`{part}`: not an option of this schedule ({FORMS})")),
    }
}

/// An integer in 0..=u64::MAX named `what` in the form `form`.
fn number(text: Option<&str>, form: &str, what: &str) -> Result<u64, String> {
    let text = text.ok_or_else(|| format!("{form}: {what} is missing"))?;
    text.trim().parse::<u64>().map_err(|_| format!("{form}: {what} `{text}` is not an integer in 0..={}", u64::MAX))
}

impl std::fmt::Display for Schedule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Schedule::Fixed => f.write_str("fixed")?,
            Schedule::RoundRobin { every } => write!(f, "rr:{every}")?,
            Schedule::Random { seed, .. } => write!(f, "random:{seed}")?,
            Schedule::Pct { seed, depth, horizon, .. } => {
                write!(f, "pct:{seed},{depth}")?;
                if let Some(h) = horizon {
                    write!(f, ",horizon={h}")?;
                }
            }
        }
        match self.switches() {
            Some(n) => write!(f, ",switches={n}"),
            None => Ok(()),
        }
    }
}

/// splitmix64: small, fast, and the same on every host (the schedule must not depend on the platform).
#[derive(Clone, Debug)]
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A value in 0..n (n > 0).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        ((self.next() as u128 * n as u128) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_reads_back_from_its_display() {
        for text in ["fixed", "rr:7", "random:42", "random:1,switches=3", "pct:9,3", "pct:9,3,horizon=100,switches=0"] {
            let s = Schedule::parse(text).unwrap();
            assert_eq!(s.to_string(), text);
            assert_eq!(Schedule::parse(&s.to_string()).unwrap(), s);
        }
    }

    #[test]
    fn out_of_range_values_are_refused_by_name() {
        let err = |t: &str| Schedule::parse(t).unwrap_err();
        assert!(err("random:18446744073709551616").contains("not an integer in 0..=18446744073709551615"));
        assert!(err("random:-1").contains("SEED `-1`"));
        assert!(err("pct:1,0").contains("DEPTH must be in 1..=64"));
        assert!(err("pct:1,65").contains("DEPTH must be in 1..=64"));
        assert!(err("rr:0").contains("K must be in"));
        assert!(err("rr:1,switches=2").contains("not an option"));
        assert!(err("fixed:1").contains("unknown schedule"));
        assert!(err("sometimes").contains("unknown schedule"));
        assert!(err("pct:1").contains("DEPTH is missing"));
    }
}
