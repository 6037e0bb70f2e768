//! Modules: several kernels from one source or ELF file, looked up by name, each launching as a kernel of its
//! own would (same answer on every engine), and the ELF of a module reading back to the same kernels.

use lanejit::{Device, Engine, KernelArgs, LaunchConfig, Module};

const SRC: &str = "\
; Two kernels that share label names: each kernel's labels are its own.
.kernel fill
.workgroup 32
.args 8
    u.ld.b64 u4, u0, 0
    wait sm=0
    v.shl.i v1, v0, 2
    j skip
skip:
    st.b32 v0, v1, u4, 0
    end
.kernel double
.workgroup 32
.args 8
    u.ld.b64 u4, u0, 0
    wait sm=0
    v.shl.i v1, v0, 2
    ld.b32 v2, v1, u4, 0
    wait vm=0
    j skip
skip:
    v.add v2, v2, v2
    st.b32 v2, v1, u4, 0
    end
";

#[test]
fn kernels_of_a_module_run_by_name_on_every_engine() {
    let from_text = Module::from_asm("two.s", SRC).unwrap_or_else(|e| panic!("{e}"));
    let from_elf = Module::from_bytes(&from_text.to_elf()).unwrap();
    assert_eq!(from_text.names().collect::<Vec<_>>(), ["fill", "double"]);
    assert_eq!(from_elf.names().collect::<Vec<_>>(), ["fill", "double"]);
    for m in [&from_text, &from_elf] {
        for engine in [Engine::Interp, Engine::Jit, Engine::Auto] {
            let dev = Device::new().unwrap();
            let buf = dev.buffer(4 * 32).unwrap();
            let cfg = LaunchConfig { args: KernelArgs::new().ptr(buf.addr()).into(), engine, ..Default::default() };
            dev.launch(m.kernel("fill").unwrap(), &cfg).unwrap();
            dev.launch(m.kernel("double").unwrap(), &cfg).unwrap();
            let got: Vec<u32> = dev.read_vec(buf.addr(), 32).unwrap();
            assert_eq!(got, (0..32).map(|i| 2 * i).collect::<Vec<u32>>(), "{engine:?}");
        }
    }
    assert!(from_text.kernel("triple").is_none());
}

#[test]
fn a_module_reports_errors_of_every_kernel_with_their_lines() {
    let err = Module::from_asm("bad.s", ".kernel a\n  bogus1\n.kernel b\n  end\n.kernel c\n  bogus2\n").unwrap_err();
    let text = err.to_string();
    assert!(text.contains("bad.s:2:") && text.contains("bad.s:6:"), "{text}");
}
