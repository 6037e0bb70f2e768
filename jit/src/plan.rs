//! How a launch's next wave begins, written once in Rust (`StartFacts::start`) and mirrored by compiled code
//! (`fx/next_wave.rs`), so that a wave's `end` can start the next wave without leaving compiled code.
//!
//! A launch runs the waves of a worker back to back in one reused wave state (`NextWave`). Between two waves
//! it re-zeroes the registers the kernel may have left non-zero where the next wave can read them (the clear
//! set, `registers_to_clear`), and writes what the ABI gives the new wave: its workgroup id (u2..u4), EXEC,
//! and, when they differ between waves or the kernel may overwrite them, the thread ids (v0..v2) and the
//! argument address (u0:u1). `WavePlan` is what compiled code needs to do that itself: how many waves it may
//! still start, where each wave index's ids and EXEC are, and where it counts what it did for the launch.

use crate::clear::registers_to_clear;
use lanejit_interp::{Code, Lanes, WaveEnv, WaveState, LANES};
use std::mem::offset_of;
use std::ops::Range;

/// What the ABI gives wave `i` of every workgroup of a launch (`WavePlan::starts[i]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct WaveStart {
    /// The thread ids, x y z (v0..v2).
    pub ids: [Lanes; 3],
    /// The lanes that hold a thread.
    pub exec: u32,
}

impl WaveStart {
    /// The starts of the waves of a workgroup of `wg_size` threads: thread `t` of the workgroup is lane
    /// `t % LANES` of wave `t / LANES`, with ids x fastest.
    pub fn of_workgroup(wg_size: [u32; 3]) -> Vec<WaveStart> {
        let [sx, sy, _] = wg_size;
        let threads = wg_size.iter().product::<u32>();
        (0..threads.div_ceil(LANES as u32))
            .map(|wave| {
                let mut s = WaveStart { ids: [[0; LANES]; 3], exec: 0 };
                for lane in (0..LANES).filter(|&l| wave * LANES as u32 + (l as u32) < threads) {
                    let t = wave * LANES as u32 + lane as u32;
                    s.exec |= 1 << lane;
                    s.ids[0][lane] = t % sx;
                    s.ids[1][lane] = t / sx % sy;
                    s.ids[2][lane] = t / (sx * sy);
                }
                s
            })
            .collect()
    }
}

/// The facts of a kernel a wave's start depends on (computed from its code, the same for the launch and for
/// compiled code).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StartFacts {
    /// Registers re-zeroed before a wave reuses a state, as runs of consecutive numbers (vector, uniform).
    pub clear: (Vec<Range<usize>>, Vec<Range<usize>>),
    /// The thread-id registers v0..v2 the kernel names (the others are never written: nothing reads them).
    pub ids_named: [bool; 3],
    /// The kernel may write a register the ABI sets to the same value in every wave (v0..v2, u0:u1).
    pub writes_launch_abi: bool,
    /// The kernel may write u0 or u1 (the argument address).
    pub writes_args: bool,
}

impl StartFacts {
    /// The facts of `code` (every word offset counts, as for `registers_to_clear`).
    pub fn of(code: &Code) -> StartFacts {
        let clear = registers_to_clear(code);
        let written = crate::runtime::registers_written(code);
        let named = crate::runtime::registers_named(code);
        let writes_args = written.1.iter().any(|&r| r < 2);
        StartFacts {
            clear: (runs(&clear.0), runs(&clear.1)),
            ids_named: std::array::from_fn(|r| named.0.contains(&r)),
            writes_launch_abi: written.0.iter().any(|&r| r < 3) || writes_args,
            writes_args,
        }
    }

    /// Gives `w` the state wave `start` of workgroup `wg_id` begins with, `w` holding a wave of the same launch
    /// that has ended (or, with `whole_abi`, any state whose other registers are zero): the clear set zeroed,
    /// then the ABI's values (the ids and the argument address only with `whole_abi`; they are already there
    /// otherwise), pc, fcsr and the counters zero. Compiled code does the same (`fx/next_wave.rs`).
    pub fn start(&self, w: &mut WaveState, start: &WaveStart, wg_id: [u32; 3], args_addr: u64, whole_abi: bool) {
        for r in &self.clear.0 {
            w.v[r.clone()].fill([0; LANES]);
        }
        for r in &self.clear.1 {
            w.u[r.clone()].fill(0);
        }
        if whole_abi {
            for r in (0..3).filter(|&r| self.ids_named[r]) {
                w.v[r] = start.ids[r];
            }
            w.set_u64_pair(lanejit_isa::UReg(0), args_addr);
        }
        w.u[2..5].copy_from_slice(&wg_id);
        (w.exec, w.pc, w.fcsr, w.retired, w.lane_ops) = (start.exec, 0, 0, 0, 0);
    }
}

/// Sorted register numbers as runs of consecutive ones: [3, 4, 5, 9] -> [3..6, 9..10].
fn runs(regs: &[usize]) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    for &r in regs {
        match out.last_mut() {
            Some(last) if last.end == r => last.end = r + 1,
            _ => out.push(r..r + 1),
        }
    }
    out
}

/// The next waves compiled code may start itself at a wave's `end` (`NextWave::plan`), and what it reports
/// back. Owned by the launch; compiled code reads and writes it at the offsets below while a run lasts.
/// Wave and workgroup ids live in `JitCtx::env` (compiled code moves them on there).
#[derive(Debug)]
#[repr(C)]
pub struct WavePlan {
    /// Waves compiled code may still start (it counts them down); at 0 it asks `NextWave::next`.
    pub waves_left: u64,
    /// Workgroups compiled code has moved on to (the launch takes and zeroes them).
    pub crossed: u64,
    /// Instructions and lane-ops retired by the waves compiled code ended (the launch takes and zeroes them).
    pub ended: [u64; 2],
    /// Per wave index of a workgroup: its ids and EXEC (`JitCtx::env.wave_count` entries).
    pub starts: *const WaveStart,
    /// Non-zero: stop at the next wave's start (a workgroup of the launch trapped).
    pub stop: *const u8,
    /// The argument buffer's address (u0:u1).
    pub args_addr: u64,
    /// Non-zero: every wave's start writes the ids and the argument address (`StartFacts::start`'s
    /// `whole_abi`).
    pub whole_abi: u8,
}

impl WavePlan {
    /// A plan that starts no wave (`waves_left` 0).
    pub fn idle() -> WavePlan {
        WavePlan {
            waves_left: 0,
            crossed: 0,
            ended: [0; 2],
            starts: std::ptr::null(),
            stop: std::ptr::null(),
            args_addr: 0,
            whole_abi: 0,
        }
    }

    /// Moves `env` on to the wave after the one it describes (the next workgroup in launch order after its
    /// last wave), counting the crossing: what compiled code does before it starts a wave. Returns the new
    /// wave's index in its workgroup.
    pub fn advance(&mut self, env: &mut WaveEnv) -> usize {
        env.wave_id += 1;
        if env.wave_id == env.wave_count {
            env.wave_id = 0;
            env.wg_id = following_id(env.grid, env.wg_id);
            self.crossed += 1;
        }
        env.wave_id as usize
    }
}

/// The id of the workgroup after `id` in launch order (x fastest), without the three divisions of computing
/// it from the index.
fn following_id(grid: [u32; 3], [x, y, z]: [u32; 3]) -> [u32; 3] {
    if x + 1 < grid[0] {
        [x + 1, y, z]
    } else if y + 1 < grid[1] {
        [0, y + 1, z]
    } else {
        [0, 0, z + 1]
    }
}

pub(crate) const PLAN_WAVES_LEFT: i32 = offset_of!(WavePlan, waves_left) as i32;
pub(crate) const PLAN_CROSSED: i32 = offset_of!(WavePlan, crossed) as i32;
pub(crate) const PLAN_ENDED: i32 = offset_of!(WavePlan, ended) as i32;
pub(crate) const PLAN_STARTS: i32 = offset_of!(WavePlan, starts) as i32;
pub(crate) const PLAN_STOP: i32 = offset_of!(WavePlan, stop) as i32;
pub(crate) const PLAN_ARGS: i32 = offset_of!(WavePlan, args_addr) as i32;
pub(crate) const PLAN_WHOLE_ABI: i32 = offset_of!(WavePlan, whole_abi) as i32;
pub(crate) const START_SIZE: i64 = std::mem::size_of::<WaveStart>() as i64;
pub(crate) const START_IDS: i32 = offset_of!(WaveStart, ids) as i32;
pub(crate) const START_EXEC: i32 = offset_of!(WaveStart, exec) as i32;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_following_id_is_the_next_index_in_launch_order() {
        let id_of = |grid: [u32; 3], i: u64| {
            let (x, y) = (grid[0] as u64, grid[1] as u64);
            [(i % x) as u32, (i / x % y) as u32, (i / (x * y)) as u32]
        };
        for grid in [[1, 1, 1], [3, 1, 1], [1, 4, 1], [3, 2, 4], [1, 1, 5], [7, 1, 3]] {
            let count = grid.iter().map(|&d| d as u64).product::<u64>();
            for i in 0..count - 1 {
                assert_eq!(following_id(grid, id_of(grid, i)), id_of(grid, i + 1), "{grid:?} {i}");
            }
        }
    }

    #[test]
    fn registers_group_into_runs_of_consecutive_numbers() {
        assert_eq!(runs(&[3, 4, 5, 9, 11, 12]), vec![3..6, 9..10, 11..13]);
        assert_eq!(runs(&[]), vec![]);
        assert_eq!(runs(&[0]), vec![0..1]);
    }

    #[test]
    fn a_workgroup_of_70_threads_has_two_full_waves_and_one_of_six_lanes() {
        let s = WaveStart::of_workgroup([10, 7, 1]);
        assert_eq!(s.iter().map(|w| w.exec).collect::<Vec<_>>(), [u32::MAX, u32::MAX, 0b11_1111]);
        // Thread 69 (lane 5 of wave 2) is x = 9, y = 6.
        assert_eq!((s[2].ids[0][5], s[2].ids[1][5], s[2].ids[2][5]), (9, 6, 0));
        assert_eq!(s[2].ids[0][6], 0, "lanes past the workgroup hold no thread");
    }

    #[test]
    fn advance_crosses_into_the_next_workgroup_after_its_last_wave() {
        let mut plan = WavePlan::idle();
        let mut env = WaveEnv { wave_id: 0, wave_count: 2, wg_size: [64, 1, 1], grid: [2, 2, 1], wg_id: [1, 0, 0] };
        assert_eq!(plan.advance(&mut env), 1);
        assert_eq!((env.wg_id, plan.crossed), ([1, 0, 0], 0));
        assert_eq!(plan.advance(&mut env), 0);
        assert_eq!((env.wg_id, plan.crossed), ([0, 1, 0], 1));
    }
}
