//! Huge kernels in the JIT (issue 11): a kernel of any size runs on a worker thread's stack (its compiled
//! functions have bounded frames), compiles in time linear in its size on both tiers, and compiled code is
//! freed when its kernel drops.
//!
//! The kernels: a straight line of `v.add.i v1, v1, 1` and a chain of blocks (`l0: v.add; j l1`, …), each
//! leaving v1 = its length in every lane, stored to a buffer by every wave of the grid.

use lanejit::{Device, Engine, Kernel, LaunchConfig};
use lanejit_isa::LANES;
use lanejit_jit::{compile_blocks, compile_more, CompiledKernel, Tier};
use std::time::Duration;

/// Worker threads' stack: Rust's default for spawned threads (rayon's workers and the test harness's too).
const WORKER_STACK: usize = 2 << 20;
/// The largest frame any compiled function may have. A function holds at most `FUNCTION_WEIGHT` guest
/// instructions and about `FUNCTION_CLIF` CLIF instructions, so this holds whatever the kernel's size; a quarter
/// of a worker's stack leaves room for the runtime's frames below it.
const FRAME_LIMIT: u32 = (WORKER_STACK / 4) as u32;
const GRID: u32 = 8;
const ARGS: u64 = 0x1_0000_0000;
const OUT: u64 = 0x1_0000_1000;

/// Loads the output address, runs `body`, stores v1 to out[global index].
fn kernel(body: &str) -> Kernel {
    let src = format!(
        ".kernel huge\n.workgroup {LANES}\n    u.ld.b64 u6, u0, 0\n    wait sm=0\n{body}    csr.r u12, wg_size_x\n    \
         u.mul u12, u2, u12\n    v.add.vu v3, v0, u12\n    v.shl.i v4, v3, 2\n    st.b32 v1, v4, u6, 0\n    end\n"
    );
    // Compiled on the launch's workers and outside the code cache: the tests below reset and inspect the
    // tiering state right after a launch.
    let config = lanejit::tier::CompileConfig { compile_threads: 0, share: false, ..Default::default() };
    Kernel::from_asm("huge.s", &src).unwrap_or_else(|e| panic!("{e}")).with_config(config)
}

fn straight_line(n: usize) -> Kernel {
    kernel(&"    v.add.i v1, v1, 1\n".repeat(n))
}

fn chain(n: usize) -> Kernel {
    let blocks: String = (0..n).map(|i| format!("l{i}:\n    v.add.i v1, v1, 1\n    j l{}\n", i + 1)).collect();
    kernel(&format!("{blocks}l{n}:\n"))
}

/// Launches `k` on `engine` over `GRID` workgroups on two worker threads; every lane must hold `n`.
fn launch_and_check(k: &Kernel, engine: Engine, n: usize, what: &str) {
    let device = Device::new().expect("device");
    let lanes = GRID as usize * LANES;
    let out = device.alloc(lanes as u64 * 4).expect("output buffer").addr;
    let cfg = LaunchConfig {
        grid: [GRID, 1, 1],
        args: lanejit_cli::examples::args(&[out], &[]),
        engine,
        threads: Some(2),
        ..LaunchConfig::default()
    };
    device.launch(k, &cfg).unwrap_or_else(|e| panic!("{what} on {engine:?}: {e}"));
    let got = device.read_u32s(out, lanes).expect("read back");
    let wrong: Vec<usize> = (0..lanes).filter(|&i| got[i] != n as u32).collect();
    assert!(
        wrong.is_empty(),
        "{what} on {engine:?}: {} lanes wrong, e.g. lane {} = {}",
        wrong.len(),
        wrong[0],
        got[wrong[0]]
    );
}

/// Runs one wave of `k` with `lanejit wave`'s entry point on a thread with a worker's stack: its arguments
/// (the output address) at `ARGS`, the output at `OUT`.
fn wave_and_check(k: &Kernel, engine: Engine, n: usize, what: &str) {
    let k = k.clone();
    let what = what.to_string();
    std::thread::Builder::new()
        .stack_size(WORKER_STACK)
        .spawn(move || {
            let init = lanejit::state_json::StateJson {
                u: [("0".to_string(), ARGS as u32), ("1".to_string(), (ARGS >> 32) as u32)].into(),
                memory: vec![
                    lanejit::state_json::MemJson { addr: ARGS, hex: hex(&OUT.to_le_bytes()), readonly: true },
                    lanejit::state_json::MemJson { addr: OUT, hex: hex(&[0; 4 * LANES]), readonly: false },
                ],
                ..Default::default()
            };
            let out =
                lanejit::wave::run_wave(&k, &init, engine, 1 << 40, None).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert!(out.trap.is_none(), "{what} on {engine:?} (wave): {:?}", out.trap);
            assert_eq!(out.state.v[1], [n as u32; LANES], "{what} on {engine:?} (wave)");
        })
        .expect("spawn")
        .join()
        .expect("the wave ran without crashing");
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Runs `k` on every engine that compiles, in a launch and in a lone wave; `auto` also with a threshold of
/// one start, so that its hot set grows to the whole kernel chunk by chunk (it runs only eight times otherwise:
/// cold, interpreted).
fn runs_everywhere(k: &Kernel, n: usize, what: &str) {
    for engine in [Engine::Jit, Engine::Auto] {
        launch_and_check(k, engine, n, what);
        wave_and_check(k, engine, n, what);
    }
    k.auto_tiering.reset(1);
    launch_and_check(k, Engine::Auto, n, &format!("{what}, every block hot"));
    let ck = k.auto_tiering.current().expect("compiled blocks");
    assert!(ck.guest_insns * 2 > count_insns(k), "{what}: auto compiled {} instructions", ck.guest_insns);
    k.auto_tiering.reset(lanejit::tier::AUTO_HOT_BLOCK);
}

fn count_insns(k: &Kernel) -> usize {
    lanejit_jit::blocks::discover(&k.code).iter().map(|b| b.ops.len()).sum()
}

/// Both tiers; each compiled function's frame is within `FRAME_LIMIT`, and the kernel was split.
fn frames_are_bounded(k: &Kernel, what: &str) {
    for tier in [Tier::Quick, Tier::Opt] {
        let ck = compile_blocks(&k.code, None, tier, &Default::default()).expect("compiles");
        assert!(ck.max_frame_bytes <= FRAME_LIMIT, "{what}, {tier:?}: a frame of {} bytes", ck.max_frame_bytes);
        assert!(ck.functions > 1, "{what}, {tier:?}: one function");
    }
}

/// A 20k-instruction kernel made by `make`: split into bounded frames, runs everywhere.
fn twenty_k(make: fn(usize) -> Kernel, what: &str) {
    let n = 20_000;
    let k = make(n);
    frames_are_bounded(&k, what);
    runs_everywhere(&k, n, what);
}

#[test]
fn a_20k_instruction_straight_line_runs_on_worker_threads() {
    twenty_k(straight_line, "20k straight line");
}

#[test]
fn a_20k_block_chain_runs_on_worker_threads() {
    twenty_k(chain, "20k-block chain");
}

#[test]
#[ignore = "a few minutes in release on 2 cores; the 20k tests and the 8x scaling test run in the suite"]
fn a_100k_instruction_straight_line_and_chain_run_on_worker_threads_and_compile_in_linear_time() {
    let n = 100_000;
    let mut report = Vec::new();
    for (make, what) in [(straight_line as fn(usize) -> Kernel, "straight line"), (chain, "chain")] {
        let (small, big) = (make(1000), make(n));
        frames_are_bounded(&big, what);
        runs_everywhere(&big, n, what);
        for tier in [Tier::Quick, Tier::Opt] {
            let (ts, tb) = (compile_cpu_time(&small, tier, 3), compile_cpu_time(&big, tier, 1));
            let (per_small, per_big) = (ts.as_secs_f64() * 1e6 / 1000.0, tb.as_secs_f64() * 1e6 / n as f64);
            report.push(format!(
                "{what}, {tier:?}: 1k in {ts:?} ({per_small:.1} µs/insn), 100k in {tb:?} ({per_big:.1} µs/insn)"
            ));
            assert!(per_big < 3.0 * per_small, "{}", report.join("\n"));
        }
    }
    println!("{}", report.join("\n"));
}

/// CPU time this thread has spent (ns resolution, unlike getrusage's ticks on some kernels): only the
/// compilation is measured, not time waiting for the other engineers' builds on the same cores.
fn thread_cpu_time() -> Duration {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").expect("schedstat (Linux)");
    Duration::from_nanos(s.split_whitespace().next().and_then(|t| t.parse().ok()).expect("schedstat's first field"))
}

/// Best CPU time of `runs` compilations of `k` (the least disturbed by other processes).
fn compile_cpu_time(k: &Kernel, tier: Tier, runs: usize) -> Duration {
    (0..runs)
        .map(|_| {
            let t0 = thread_cpu_time();
            let ck = compile_blocks(&k.code, None, tier, &Default::default()).expect("compiles");
            let t = thread_cpu_time() - t0;
            drop(ck);
            t
        })
        .min()
        .expect("at least one run")
}

/// Compile time per instruction at 8N is within a generous factor of that at N, on both tiers and for both a
/// straight line and a chain of blocks (it was quadratic in the number of blocks: 67 times longer for 8 times
/// the blocks).
#[test]
fn compile_time_is_linear_in_kernel_size() {
    const FACTOR: f64 = 2.5;
    let mut report = Vec::new();
    for (shape, make, n) in [("straight line", straight_line as fn(usize) -> Kernel, 1000), ("chain", chain, 500)] {
        let (small, big) = (make(n), make(8 * n));
        for tier in [Tier::Quick, Tier::Opt] {
            let (ts, tb) = (compile_cpu_time(&small, tier, 3), compile_cpu_time(&big, tier, 2));
            let ratio = (tb.as_secs_f64() / (8 * n) as f64) / (ts.as_secs_f64() / n as f64);
            report.push(format!("{shape}, {tier:?}: {n} in {ts:?}, {} in {tb:?}: per instruction x{ratio:.2}", 8 * n));
            assert!(ratio < FACTOR, "{}", report.join("\n"));
        }
    }
    println!("{}", report.join("\n"));
}

/// Guest instructions in the blocks of `k` whose start is set in `only`.
fn insns_in(k: &Kernel, only: &[bool]) -> usize {
    lanejit_jit::blocks::discover(&k.code).iter().filter(|b| only[(b.start / 4) as usize]).map(|b| b.ops.len()).sum()
}

/// `compile_more` (what `auto` does once a hot set is large) compiles only the blocks its base lacks: its cost
/// is theirs, not the whole set's.
#[test]
fn compiling_more_blocks_costs_only_the_new_ones() {
    let k = chain(8_000);
    let starts = lanejit_jit::block_starts(&k.code);
    let set = |upto: usize| {
        let mut hot = vec![false; k.code.words.len()];
        starts.iter().take(upto).for_each(|&pc| hot[(pc / 4) as usize] = true);
        hot
    };
    let (most, all) = (set(starts.len() - 100), set(starts.len()));
    let base = compile_blocks(&k.code, Some(&most), Tier::Opt, &Default::default()).expect("compiles");
    let t0 = thread_cpu_time();
    let more: CompiledKernel = compile_more(&base, &k.code, &all).expect("compiles");
    let t_more = thread_cpu_time() - t0;
    assert_eq!(more.guest_insns, insns_in(&k, &all), "every block compiled once");
    assert_eq!(more.guest_insns - base.guest_insns, insns_in(&k, &all) - insns_in(&k, &most));
    assert!(
        t_more * 10 < base.compile_time,
        "100 new blocks took {t_more:?}, the {} before {:?}",
        starts.len() - 100,
        base.compile_time
    );
}

/// Blocks getting hot a few at a time, as reported by chunk ends: the blocks compiled in all recompilations
/// together stay within a small multiple of the hot set (each recompilation compiled every hot block before:
/// quadratic), and the result is exact.
#[test]
fn auto_recompilation_work_is_linear_in_the_hot_blocks() {
    let n = 3_000;
    let k = chain(n);
    let starts: Vec<usize> = lanejit_jit::block_starts(&k.code).iter().map(|&pc| (pc / 4) as usize).collect();
    let threshold = 8;
    k.auto_tiering.reset(threshold);
    let step = 40;
    let mut hot = 0;
    while hot < starts.len() {
        let next = (hot + step).min(starts.len());
        // One chunk end: blocks hot..next started `threshold` times.
        k.auto_tiering.profiled(&k.code, |hits| starts[hot..next].iter().for_each(|&w| hits[w] = threshold));
        hot = next;
    }
    let total = k.auto_tiering.blocks_compiled();
    assert!(total <= 4 * starts.len(), "{total} blocks compiled for {} hot ones, {step} at a time", starts.len());
    assert_eq!(k.auto_tiering.current().expect("compiled").guest_insns, count_insns(&k));
    launch_and_check(&k, Engine::Auto, n, "chain compiled in steps");
}

/// A staircase: iteration i of an outer loop runs the first i of `m` chained blocks, so block j starts
/// `iterations - j` times and the blocks get hot one chunk after another. Under `auto` (and `jit`'s promotion)
/// the hot set grows past `WHOLE_RECOMPILE_BLOCKS` in many steps, most compiled onto the current code.
fn staircase(m: usize, iterations: u32) -> (Kernel, u32) {
    let mut body = String::from("    u.mov.k u13, 0\nouter:\n    u.mov u14, u13\n");
    for j in 0..m {
        body += &format!("s{j}:\n    b.z u14, next\n    u.add.i u14, u14, -1\n    v.add.i v1, v1, 1\n");
    }
    body += &format!(
        "next:\n    u.add.i u13, u13, 1\n    u.mov.k u15, {iterations}\n    u.sub u16, u15, u13\n    b.nz u16, outer\n"
    );
    let expected = (0..iterations).map(|i| i.min(m as u32)).sum();
    (kernel(&body), expected)
}

#[test]
fn blocks_getting_hot_one_after_another_stay_exact() {
    let (m, iterations) = (600, 700);
    let (k, expected) = staircase(m, iterations);
    for (engine, threads) in [(Engine::Auto, 1), (Engine::Auto, 2), (Engine::Jit, 2)] {
        let tiers = if engine == Engine::Jit { &k.jit_promotion } else { &k.auto_tiering };
        tiers.reset(16);
        let device = Device::new().expect("device");
        let lanes = GRID as usize * LANES;
        let out = device.alloc(lanes as u64 * 4).expect("output buffer").addr;
        let cfg = LaunchConfig {
            grid: [GRID, 1, 1],
            args: lanejit_cli::examples::args(&[out], &[]),
            engine,
            threads: Some(threads),
            ..LaunchConfig::default()
        };
        device.launch(&k, &cfg).unwrap_or_else(|e| panic!("staircase on {engine:?}: {e}"));
        assert_eq!(
            device.read_u32s(out, lanes).expect("read back"),
            vec![expected; lanes],
            "staircase on {engine:?}, {threads} threads"
        );
        let ck = tiers.current().expect("the staircase's blocks get hot");
        assert!(ck.guest_insns > 3 * lanejit::tier::WHOLE_RECOMPILE_BLOCKS, "{} instructions compiled", ck.guest_insns);
    }
}

/// RSS in bytes (/proc/self/statm's second field, in pages).
fn resident_bytes() -> u64 {
    let s = std::fs::read_to_string("/proc/self/statm").expect("statm (Linux)");
    s.split_whitespace().nth(1).and_then(|p| p.parse::<u64>().ok()).expect("statm's resident field") * 4096
}

/// Compiling and dropping 20,000 small kernels keeps resident memory flat: a dropped kernel's code memory is
/// freed (it leaked a module, ~85 KB per fuzzer program, before).
#[test]
fn dropped_kernels_release_their_code() {
    let k = straight_line(8);
    let compile_and_drop = |times: usize| {
        for _ in 0..times {
            drop(compile_blocks(&k.code, None, Tier::Quick, &Default::default()).expect("compiles"));
        }
    };
    compile_and_drop(2_000);
    let before = resident_bytes();
    compile_and_drop(18_000);
    let grown = resident_bytes().saturating_sub(before);
    assert!(grown < 8 << 20, "resident memory grew by {} KB over 18,000 compilations", grown >> 10);
}
