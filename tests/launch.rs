//! Launches reuse each worker's wave storage across workgroups: every wave must still start as the ABI says
//! (all registers zero but the ABI's), in every workgroup, whichever worker ran the workgroups before it.

use lanejit::{Device, Engine, Kernel, LaunchConfig};

/// Every thread adds 1 to v5 and u20 (zero at wave start) and stores v5 + u20 = 2 at its global index.
const SRC: &str = "
.workgroup 48
    u.ld.b64 u6, u0, 0
    wait sm=0
    csr.r u12, wg_size_x
    u.mul u12, u2, u12
    v.add.vu v3, v0, u12
    v.shl.i v4, v3, 2
    v.add.k v5, v5, 1
    u.add.i u20, u20, 1
    v.add.vu v5, v5, u20
    st.b32 v5, v4, u6, 0
    end
";

#[test]
fn every_wave_of_every_workgroup_starts_from_zero() {
    let kernel = Kernel::from_asm("fresh.s", SRC).unwrap_or_else(|e| panic!("{e}"));
    // 48-thread workgroups: the second wave of each is partial, so its inactive lanes are not written.
    const GROUPS: u32 = 40;
    let n = (GROUPS * 48) as usize;
    for engine in [Engine::Interp, Engine::Jit, Engine::Auto] {
        for threads in [1, 2] {
            let d = Device::new().unwrap();
            let out = d.alloc(4 * n as u64).unwrap().addr;
            let cfg = LaunchConfig { grid: [GROUPS, 1, 1], args: out.to_le_bytes().to_vec(), engine, threads: Some(threads), ..Default::default() };
            d.launch(&kernel, &cfg).unwrap_or_else(|e| panic!("{engine:?}: {e}"));
            let got = d.read_u32s(out, n).unwrap();
            let bad: Vec<usize> = (0..n).filter(|&i| got[i] != 2).collect();
            assert!(bad.is_empty(), "{engine:?}, {threads} threads: {} wrong, first at {} = {}", bad.len(), bad[0], got[bad[0]]);
        }
    }
}
