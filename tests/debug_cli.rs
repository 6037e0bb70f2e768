//! `lanejit debug` driven by scripts on standard input and with -x: one test per verb, each asserting the
//! values printed, and the exit codes (0 finished, 1 trapped, 2 bad input).

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn debug(args: &[&str], script: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lanejit"))
        .arg("debug")
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the lanejit binary starts");
    // (A debugger that refused its options exits before reading: the script may meet a closed pipe.)
    let _ = child.stdin.take().expect("piped").write_all(script.as_bytes());
    child.wait_with_output().expect("lanejit debug ends")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs `script` on the bundled `divergent` example; it must exit 0 and print every line of `want`.
fn divergent(script: &str, want: &[&str]) -> String {
    let o = debug(&["divergent"], script);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "stdout:\n{out}\nstderr:\n{}", stderr(&o));
    for w in want {
        assert!(out.contains(w), "missing `{w}` in:\n{out}");
    }
    out
}

const STORE_ID: [&str; 3] = ["tests/dap/store_id.s", "--buffer", "u32:32"];

#[test]
fn break_at_a_line_and_run() {
    // Line 26 of divergent.s is `j.execz loop_end`; the first wave's a[1] is 27.
    divergent(
        "break 26\nrun\nprint v5[1]\n",
        &["breakpoint 1: line 26 (pc 0x54)", "breakpoint 1 hit", "wave 0 at pc 0x54, line 26", "v5[1] = 27 (0x1b)"],
    );
}

#[test]
fn break_at_a_pc_with_a_condition_and_hit_count() {
    // Lane 1 starts at 27, so `v5 == 27` holds at the first trip only; `ignore 2 1` skips the first hit.
    let out = divergent(
        "break *0x54 if v5 == 27\nbreak 26\nignore 2 1\nrun\ninfo breakpoints\nc\ninfo breakpoints\n",
        &["breakpoint 1: pc 0x54 (line 26) if v5 == 27", "breakpoint 1 hit", "breakpoint 2 hit"],
    );
    assert!(out.contains("breakpoint 1: pc 0x54 (line 26) if v5 == 27, 1 hits"), "{out}");
    assert!(out.contains("breakpoint 2: line 26 (pc 0x54), 2 hits, stops from hit 2"), "{out}");
}

#[test]
fn stepi_shows_exec_narrowing_in_a_divergent_branch() {
    // At line 29 `exec.and.save u17, u16` keeps the odd running lanes: 27 and 77671 are odd, 1 has stopped.
    let out = divergent("break 29\nrun\np/x exec\nstepi\np/x exec\np/x u17\n", &["wave 0 at pc 0x64, line 30"]);
    let execs: Vec<&str> = out.lines().filter(|l| l.starts_with("exec = ")).collect();
    assert_eq!(execs.len(), 2, "{out}");
    assert_eq!(execs[0], "exec = 0xfffffffe", "{out}");
    assert_ne!(execs[1], execs[0], "{out}");
    assert!(out.contains("u17 = 0xfffffffe"), "{out}");
    // Lane 1 (27) and lane 2 (77671) are odd, lane 0 is inactive.
    let narrowed = u32::from_str_radix(execs[1].trim_start_matches("exec = 0x"), 16).unwrap();
    assert_eq!(narrowed & 0b111, 0b110, "{out}");
}

#[test]
fn step_next_and_finish() {
    let out = divergent("break 27\nrun\nstep\nnext\nfinish\n", &["line 28: cmp.ne.i32.vi u16, v7, 0"]);
    // `next` from line 28 goes on to line 29; `finish` runs to the end of the block, the branch at line 30
    // (not taken: some lanes are odd), so the wave stands at line 31.
    assert!(out.contains("wave 0 at pc 0x60, line 29"), "{out}");
    assert!(out.lines().last().unwrap().contains("wave 0 at pc 0x68, line 31"), "{out}");
}

#[test]
fn next_over_the_back_edge_leaves_the_loop() {
    // `j loop` at line 41 jumps back; `next` runs the loop out to line 43 (`exec.set u14` after loop_end),
    // where `step` would stop at the loop's head (line 24).
    let out = divergent("break 41\nrun\ndelete\nnext\n", &["line 41: j loop"]);
    assert!(out.lines().last().unwrap().contains("line 43: exec.set u14"), "{out}");
    let out = divergent("break 41\nrun\nstep\n", &["line 41: j loop"]);
    assert!(out.lines().last().unwrap().contains("line 24: cmp.ne.i32.vi u15, v5, 1"), "{out}");
}

#[test]
fn info_waves_lanes_registers() {
    let out = divergent(
        "break 26\nrun\ninfo waves\ninfo lanes\nlane 1\ninfo registers\ninfo registers v5[2] exec\n",
        &[
            "* wave 0 workgroup (0,0,0) [0] pc 0x54 line 26 exec 0xfffffffe running",
            "  wave 1 workgroup (0,0,0) [0] pc 0x0",
        ],
    );
    assert!(out.contains("lane  0 inactive") && out.contains("lane  1 active"), "{out}");
    assert!(out.contains("v5[1] = 0x1b"), "{out}");
    assert!(out.contains("v5[2] = 0x12f67") && out.contains("exec = 0xfffffffe"), "{out}");
}

#[test]
fn examine_memory() {
    // divergent's first buffer holds a: 1, 27, 77671, ...
    divergent(
        "x/3wx 0x100000000\nx/2wd 0x100000000\nx/4xb 0x100000004\n",
        &["0x100000000: 0x00000001 0x0000001b 0x00012f67", "0x100000000: 1 27", "0x100000004: 0x1b 0x00 0x00 0x00"],
    );
}

#[test]
fn watch_a_shared_word_stops_at_the_racing_store() {
    // shared_nobarrier: wave 0 reads thread 32's slot (shared 128) before wave 1 writes it: the watchpoint
    // stops at wave 1's store, lane 0 (thread 32), writing 33 over 0.
    let o = debug(&["tests/schedules/shared_nobarrier.s", "--buffer", "u32:64"], "watch shared[128]\nrun\nc\n");
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(out.contains("watchpoint 1: 4 bytes at shared 0x80"), "{out}");
    assert!(
        out.contains("watchpoint 1: written by workgroup (0,0,0) wave 1 lanes 0x00000001 at pc 0x1c: old 0x0 new 0x21"),
        "{out}"
    );
    assert!(out.contains("launch finished"), "{out}");
}

#[test]
fn set_a_register_changes_the_result() {
    let o = debug(&STORE_ID, "break 8\nrun\nprint v5[3]\nset v5[3] = 7\ncontinue\nx/4wd 0x100000000\n");
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(out.contains("v5[3] = 103 (0x67)") && out.contains("v5[3] = 7 (0x7)"), "{out}");
    assert!(out.contains("0x100000000: 100 101 102 7"), "{out}");
}

#[test]
fn wave_focus_and_disassemble() {
    let out = divergent(
        "break 26\nrun\nwave 1\ndisassemble 0x50 3\nwave 0\ndisassemble\n",
        &[
            "workgroup (0,0,0) wave 1 at pc 0x0, line 8",
            "   0x0050  exec.set u15",
            "=> 0x0054  j.execz loop_end  ; 26: j.execz loop_end",
        ],
    );
    assert!(!out.contains("=> 0x0050"), "{out}");
}

#[test]
fn a_trap_stops_with_its_lanes_and_addresses_and_exits_1() {
    let o = debug(&["tests/dap/oob.s", "--buffer", "u32:32"], "run\np/x v4[8]\n");
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    assert!(
        out.contains(
            "trap: MemoryFault at pc 0x10 (workgroup (0,0,0), wave 0), lanes 0xffffff00, addresses [0x100000080,"
        ),
        "{out}"
    );
    assert!(out.contains("v4[8] = 0x80"), "{out}");
}

#[test]
fn a_barrier_deadlock_shows_who_waits_where() {
    let o = debug(&["tests/schedules/deadlock.s", "--buffer", "u32:64"], "run\ninfo waves\n");
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("BarrierDeadlock") && out.contains("wave 0 at 0x34, wave 1 at 0x2c"), "{out}");
    assert!(out.contains("at barrier 0x34") && out.contains("at barrier 0x2c"), "{out}");
}

#[test]
fn script_file_with_x() {
    let dir = std::env::temp_dir().join(format!("lanejit-debug-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("s.gdb");
    std::fs::write(&script, "# a comment\nbreak 8\nrun\nprint v5\nquit\nprint v5[99]\n").unwrap();
    let o = debug(&[STORE_ID[0], STORE_ID[1], STORE_ID[2], "-x", script.to_str().unwrap()], "");
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(out.contains("v5 = [100, 101, 102,"), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_commands_exit_2_and_stop_the_script() {
    let deep = format!("print {}v1{}\nrun\n", "(".repeat(100_000), ")".repeat(100_000));
    for (script, message) in [
        ("bogus\nrun\n", "unknown command `bogus`"),
        ("break 3\nrun\n", "line 3 has no code (nearest lines with code: 4)"),
        ("break *0x2\nrun\n", "pc 0x2 is not the start of an instruction"),
        ("print v999\nrun\n", "registers are v0..v127"),
        ("print v5[40]\nrun\n", "lanes are 0..31"),
        ("x/4wx 0x10\nrun\n", "0x10"),
        ("watch v3\nrun\n", "watch takes a memory place"),
        ("set pc\nrun\n", "set takes TARGET = VALUE"),
        ("wave 9\nrun\n", "wave 9: the workgroup has waves 0..0"),
        ("x/18446744073709551615wx 0x100000000\nrun\n", "units are too many"),
        (deep.as_str(), "the limit is 256"),
    ] {
        let o = debug(&STORE_ID, script);
        let (out, err) = (stdout(&o), stderr(&o));
        assert_eq!(o.status.code(), Some(2), "{script}: {out}{err}");
        assert!(err.contains(message), "{script}: {err}");
        assert!(err.contains("standard input:1:"), "{script}: {err}");
        assert!(!out.contains("launch finished"), "{script}: ran on after the bad command: {out}");
    }
}

#[test]
fn bad_options_exit_2() {
    let o = debug(&["tests/dap/no_such_kernel.s"], "run\n");
    assert_eq!(o.status.code(), Some(2));
    let o = debug(&["divergent", "--check", "races"], "run\n");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--check does not go with the debugger"), "{}", stderr(&o));
}
