"""The Python module against the engines: answers, statistics, traps as exceptions, bad input as errors.
Run by the Rust test capi/tests/python.rs (in the virtual environment `.ci/run` makes)."""

import pathlib

import numpy as np
import pytest

import lanejit

ROOT = pathlib.Path(__file__).resolve().parents[2]
VADD = (ROOT / "examples" / "vadd.s").read_text()
ENGINES = ["interp", "jit", "auto"]


@pytest.fixture(scope="module")
def device():
    return lanejit.Device()


@pytest.mark.parametrize("engine", ENGINES)
def test_vector_add_matches_numpy_on_every_engine(device, engine):
    k = lanejit.assemble(VADD, "vadd.s")
    n = 1000
    a = np.arange(n, dtype=np.uint32) * 7
    b = np.full(n, 0xFFFFFFF0, dtype=np.uint32)
    c = np.zeros(n, dtype=np.uint32)
    stats = device.launch(k, grid=(n + 63) // 64, args=[a, b, c, np.uint32(n)], engine=engine)
    assert (c == a + b).all()  # wraps modulo 2^32 in both
    assert stats.workgroups == 16 and stats.waves == 32 and stats.retired > 0
    assert stats.interpreted == (stats.retired if engine == "interp" else stats.interpreted)


def test_float_arguments_and_a_2d_array():
    src = """
    .kernel scale
    .workgroup 32
    .args 12
        u.ld.b64 u4, u0, 0
        u.ld.b32 u6, u0, 8
        wait sm=0
        v.shl.i v1, v0, 2
        ld.b32 v2, v1, u4, 0
        wait vm=0
        v.mov.u v3, u6
        f.mul.f32 v2, v2, v3, rm=rne
        st.b32 v2, v1, u4, 0
        end
    """
    x = np.linspace(-4, 4, 32, dtype=np.float32).reshape(4, 8)
    want = x * np.float32(0.5)
    lanejit.Device().launch(lanejit.assemble(src), args=[x, np.float32(0.5)])
    assert x.shape == (4, 8) and x.dtype == np.float32
    assert np.array_equal(x, want)


def test_a_trap_is_an_exception_with_its_report_and_earlier_writes_stay():
    src = """
    .kernel oob
    .workgroup 32
    .args 8
        u.ld.b64 u4, u0, 0
        wait sm=0
        v.shl.i v1, v0, 2
        v.mov.k v2, 7
        st.b32 v2, v1, u4, 0
        st.b32 v2, v1, u4, 128
        end
    """
    buf = np.zeros(32, dtype=np.uint32)
    with pytest.raises(lanejit.Trap) as e:
        lanejit.Device().launch(lanejit.assemble(src, "oob.s"), args=[buf], engine="jit")
    t = e.value  # pc 32: the second st.b32 (byte offsets; several of these instructions take two words)
    assert t.kind == "MemoryFault" and t.pc == 32 and t.workgroup == (0, 0, 0) and t.wave == 0
    assert t.lanes == 0xFFFFFFFF and len(t.addresses) == 32 and t.addresses[0] - t.addresses[31] == -124
    assert "MemoryFault" in str(t) and t.stats.retired > 0
    assert buf.tolist() == [7] * 32  # the first store, before the trap, stayed and was copied back


def test_bad_assembly_names_file_and_line():
    with pytest.raises(lanejit.Error) as e:
        lanejit.assemble("end\nv.add v1, v2\n", "broken.s")
    assert "broken.s:2:" in str(e.value) and e.value.status == 2


def test_arguments_are_checked():
    k = lanejit.assemble(VADD)
    d = lanejit.Device()
    with pytest.raises(TypeError, match="numpy scalar"):
        d.launch(k, args=[np.zeros(4, np.uint32), np.zeros(4, np.uint32), np.zeros(4, np.uint32), 4])
    with pytest.raises(ValueError, match="engine"):
        d.launch(k, engine="gpu")
    with pytest.raises(ValueError, match="grid"):
        d.launch(k, grid=(1, 2, 3, 4))
    with pytest.raises(lanejit.Error) as e:
        d.launch(k, grid=0)
    assert e.value.status == 2


def test_device_memory_round_trip_and_errors():
    d = lanejit.Device()
    addr = d.alloc(1 << 20)
    data = np.random.default_rng(1).integers(0, 256, 1 << 20, dtype=np.uint8)
    d.write(addr, data)
    assert d.read(addr, 1 << 20) == data.tobytes()
    with pytest.raises(lanejit.Error, match="outside every allocation"):
        d.read(addr + (1 << 20), 1)
    d.free(addr)
    with pytest.raises(lanejit.Error):
        d.free(addr)


def test_kernels_from_bytes_and_their_metadata():
    k = lanejit.assemble(VADD)
    assert k.name == "vadd" and k.info["workgroup"] == (64, 1, 1) and k.info["words"] > 0
    with pytest.raises(lanejit.Error):
        lanejit.Kernel.from_bytes(b"\x01\x02\x03")


def test_the_readme_python_example_runs(monkeypatch, capsys):
    readme = (ROOT / "README.md").read_text()
    start = readme.index("```python\n") + len("```python\n")
    example = readme[start:readme.index("```\n", start)]
    monkeypatch.chdir(ROOT)
    exec(compile(example, "README.md", "exec"), {})
    assert "Stats(retired=" in capsys.readouterr().out


def test_a_strided_view_is_copied_in_and_back():
    src = """
    .kernel twice
    .workgroup 32
    .args 8
        u.ld.b64 u4, u0, 0
        wait sm=0
        v.shl.i v1, v0, 2
        ld.b32 v2, v1, u4, 0
        wait vm=0
        v.add v2, v2, v2
        st.b32 v2, v1, u4, 0
        end
    """
    base = np.arange(64, dtype=np.uint32)
    view = base[::2]
    lanejit.Device().launch(lanejit.assemble(src), args=[view])
    assert base[::2].tolist() == [4 * i for i in range(32)] and base[1::2].tolist() == list(range(1, 64, 2))


def test_cancel_from_another_thread_stops_an_endless_launch():
    import threading
    k = lanejit.assemble("loop:\n v.add v3, v3, v0\n j loop\n")
    c = lanejit.Cancel()
    threading.Timer(0.05, c.cancel).start()
    with pytest.raises(lanejit.Trap) as e:
        lanejit.Device().launch(k, deadline=0, cancel=c)
    assert e.value.kind == "Cancelled" and e.value.stats.retired > 0


def test_a_module_holds_kernels_by_name():
    m = lanejit.Module(".kernel first\n end\n.kernel second\n.workgroup 64\n trap 5\n", "m.s")
    assert m.names == ["first", "second"]
    k = m["second"]
    del m  # the kernel outlives its module
    assert k.name == "second" and k.info["workgroup"] == (64, 1, 1)
    with pytest.raises(lanejit.Trap) as e:
        lanejit.Device().launch(k)
    assert e.value.kind == "UserTrap" and e.value.code == 5
    with pytest.raises(lanejit.Error, match="first"):
        lanejit.Module(".kernel first\n end\n")["third"]
