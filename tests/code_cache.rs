//! The process's code cache (issue 33, item 3): kernels loaded from the same bytes share their decoded code,
//! compiled code and tiering state, so a kernel loaded 100,000 times compiles once and resident memory stays
//! flat; distinct kernels past the cache's byte bound evict the least recently used. One test: the cache is
//! the process's, and the steps below must not run beside each other.

use lanejit::code_cache::{code_cache_stats, CACHE_BYTES};
use lanejit::{Device, Engine, Kernel, LaunchConfig};
use std::sync::Arc;

fn resident_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap_or("VmRSS: 0 kB");
    line.split_whitespace().nth(1).and_then(|n| n.parse().ok()).unwrap_or(0)
}

const SRC: &str = "
.kernel cached
.workgroup 64
    u.ld.b64 u4, u0, 0
    wait sm=0
    csr.r u11, wg_size_x
    u.mul u12, u2, u11
    v.add.vu v3, v0, u12
    v.shl.i v4, v3, 2
    v.mul v5, v3, v3
    st.b32 v5, v4, u4, 0
    end
";

/// Launches `k` on the JIT over 4 workgroups and checks every square.
fn launch_squares(k: &Kernel) {
    let d = Device::new().unwrap();
    let out = d.alloc(4 * 256).unwrap().addr;
    let cfg =
        LaunchConfig { grid: [4, 1, 1], args: out.to_le_bytes().to_vec(), engine: Engine::Jit, ..Default::default() };
    d.launch(k, &cfg).unwrap();
    let got = d.read_u32s(out, 256).unwrap();
    assert!((0..256u32).all(|i| got[i as usize] == i * i));
}

#[test]
fn one_compilation_per_content_and_a_bounded_cache() {
    let bytes = lanejit_isa::container::write(&lanejit_isa::asm::assemble("cached.s", SRC).unwrap());
    let first = Kernel::from_bytes(&bytes).unwrap();
    launch_squares(&first);
    let quick = first.quick().unwrap() as *const _;
    let before = code_cache_stats();
    let mut rss = 0;
    for i in 0..100_000 {
        let k = Kernel::from_bytes(&bytes).unwrap();
        assert!(std::ptr::eq(k.quick().unwrap(), quick), "load {i} compiled the kernel again");
        assert!(Arc::ptr_eq(&k.auto_tiering, &first.auto_tiering) && Arc::ptr_eq(&k.code, &first.code));
        if i == 1_000 {
            rss = resident_kib();
        }
    }
    let grown = resident_kib().saturating_sub(rss);
    assert!(grown < 4 << 10, "resident memory grew by {grown} KiB over 99,000 loads of one kernel");
    let after = code_cache_stats();
    assert_eq!((after.hits - before.hits, after.misses), (100_000, before.misses));
    // A reloaded kernel runs the shared code.
    launch_squares(&Kernel::from_bytes(&bytes).unwrap());

    // 1,000 distinct kernels of 2,000 words each count more than the bound: the oldest go, the cache stays
    // within it, and a kernel whose entry went still runs its own code.
    let mut words: Vec<u32> = lanejit_isa::asm::assemble("cached.s", SRC).unwrap().words;
    words.resize(2_000, 0);
    for i in 0..1_000u32 {
        words[1_999] = i;
        let k = Kernel::from_program(lanejit_isa::asm::Program { words: words.clone(), ..first.program.clone() });
        assert_eq!(k.code.words[1_999], i);
        let s = code_cache_stats();
        assert!(s.bytes <= CACHE_BYTES, "the cache holds {} bytes, more than {CACHE_BYTES}", s.bytes);
    }
    let s = code_cache_stats();
    assert!(s.evictions > 0 && s.entries < 1_000, "{s:?}");
    launch_squares(&first);
    // Distinct configurations are distinct entries.
    let other = first.clone().with_config(lanejit::tier::CompileConfig { jit_hot: 5, ..Default::default() });
    assert!(!Arc::ptr_eq(&other.code, &first.code));
}
