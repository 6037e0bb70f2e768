//! Parsers of command-line values shared by several commands (grids, workgroups, thread counts, seconds): each
//! refuses what is out of range with a message naming the limit, so clap exits 2 with it.

use lanejit::launch::{check_grid, MAX_DEADLINE, MAX_THREADS};
use std::time::Duration;

fn parse_dim3(s: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.len() > 3 {
        return Err(format!("`{s}`: expected x[,y[,z]]"));
    }
    let mut d = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        d[i] = p.trim().parse().map_err(|_| format!("`{p}` is not an integer in 1..={}", u32::MAX))?;
        if d[i] == 0 {
            return Err(format!("`{s}`: dimensions must be at least 1"));
        }
    }
    Ok(d)
}

/// A grid: three u32 dimensions whose product is within [`lanejit::launch::MAX_GRID_WORKGROUPS`].
pub fn parse_grid(s: &str) -> Result<[u32; 3], String> {
    let g = parse_dim3(s)?;
    check_grid(g)?;
    Ok(g)
}

/// A workgroup shape of at most [`lanejit::launch::MAX_WORKGROUP_THREADS`] threads (no wrap-around).
pub fn parse_workgroup(s: &str) -> Result<[u32; 3], String> {
    let wg = parse_dim3(s)?;
    lanejit_isa::asm::check_workgroup(wg)?;
    Ok(wg)
}

/// A count of worker threads or jobs: 1..=[`MAX_THREADS`].
pub fn parse_threads(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if (1..=MAX_THREADS).contains(&n) => Ok(n),
        Ok(n) => Err(format!("{n} threads: the limit is 1..={MAX_THREADS} (MAX_THREADS)")),
        Err(_) => Err(format!("`{s}` is not an integer in 1..={MAX_THREADS}")),
    }
}

/// Seconds as a finite positive number no larger than `max`.
pub fn parse_seconds(s: &str, max: Duration, limit_name: &str) -> Result<Duration, String> {
    let secs: f64 = s.trim().parse().map_err(|_| format!("`{s}` is not a number of seconds"))?;
    if !secs.is_finite() || secs <= 0.0 {
        return Err(format!("`{s}`: seconds must be a finite number above 0"));
    }
    if secs > max.as_secs_f64() {
        return Err(format!("{secs} s exceeds the limit of {} s ({limit_name})", max.as_secs()));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// A wall-clock deadline for `run` and `wave`, at most [`MAX_DEADLINE`].
pub fn parse_deadline(s: &str) -> Result<Duration, String> {
    parse_seconds(s, MAX_DEADLINE, "MAX_DEADLINE")
}
