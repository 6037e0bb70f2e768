"""The Python module against the engines: answers, statistics, traps as exceptions, bad input as errors.
Run by `.ci/run` (in the virtual environment target/py-venv, after `maturin develop` built the extension)."""

import pathlib

import numpy as np
import pytest

import lanejit

ROOT = pathlib.Path(__file__).resolve().parents[2]
VADD = (ROOT / "examples" / "vadd.s").read_text()
ENGINES = ["interp", "jit", "auto"]
TWICE = """
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
    with pytest.raises(TypeError, match="budget"):
        d.launch(k, grid=16, budget=-1)
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
    base = np.arange(64, dtype=np.uint32)
    view = base[::2]
    lanejit.Device().launch(lanejit.assemble(TWICE), args=[view])
    assert base[::2].tolist() == [4 * i for i in range(32)] and base[1::2].tolist() == list(range(1, 64, 2))


def test_cancel_from_another_thread_stops_an_endless_launch():
    import threading
    k = lanejit.assemble("loop:\n v.add v3, v3, v0\n j loop\n")
    c = lanejit.Cancel()
    threading.Timer(0.05, c.cancel).start()
    with pytest.raises(lanejit.Trap) as e:
        lanejit.Device().launch(k, deadline=30, cancel=c)  # bounded: a launch holding the GIL fails, not hangs
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


ENDLESS = "loop:\n v.add v3, v3, v0\n j loop\n"
STORE_NINE = """
    .kernel store
    .workgroup 32
    .args 8
        u.ld.b64 u4, u0, 0
        wait sm=0
        v.shl.i v1, v0, 2
        v.mov.k v2, 9
        st.b32 v2, v1, u4, 0
        end
    """


def test_a_read_only_array_is_read_but_not_written_back():
    twice = lanejit.assemble(TWICE)
    frozen = np.arange(32, dtype=np.uint32)
    frozen.setflags(write=False)
    lanejit.Device().launch(twice, args=[frozen])
    assert frozen.tolist() == list(range(32))
    a = np.arange(64, dtype=np.uint32)
    a.setflags(write=False)
    c = np.zeros(64, dtype=np.uint32)
    lanejit.Device().launch(lanejit.assemble(VADD), args=[a, a, c, np.uint32(64)])
    assert (c == 2 * a).all()


def test_budget_and_deadline_stop_an_endless_kernel_each_with_its_own_kind():
    k = lanejit.assemble(ENDLESS)
    d = lanejit.Device()
    with pytest.raises(lanejit.Trap) as e:
        d.launch(k, budget=10_000, deadline=0, engine="interp")  # no deadline: the budget alone stops it
    assert e.value.kind == "BudgetExceeded" and e.value.stats.retired >= 10_000
    with pytest.raises(lanejit.Trap) as e:
        d.launch(k, deadline=0.05)
    assert e.value.kind == "DeadlineExceeded" and e.value.stats.elapsed >= 0.05
    with pytest.raises(ValueError, match="deadline"):
        d.launch(k, deadline=-1)


def test_launches_release_the_gil_so_other_threads_run_and_launch():
    import threading
    import time
    k = lanejit.assemble(ENDLESS)
    d, c, kinds = lanejit.Device(), lanejit.Cancel(), []

    def run():
        try:
            d.launch(k, deadline=30, cancel=c)  # a launch holding the GIL would end here, at its deadline
        except lanejit.Trap as t:
            kinds.append(t.kind)

    workers = [threading.Thread(target=run) for _ in range(2)]
    for w in workers:
        w.start()
    ticks, end = 0, time.monotonic() + 0.2
    while time.monotonic() < end:
        ticks += 1
    assert not c.cancelled
    c.cancel()
    for w in workers:
        w.join()
    assert c.cancelled and kinds == ["Cancelled", "Cancelled"] and ticks > 1000


def test_constant_memory_traps_stores_and_copies_go_straight_into_arrays():
    d = lanejit.Device()
    k = lanejit.assemble(STORE_NINE, "store.s")
    const = d.alloc_const(np.arange(32, dtype=np.uint32))
    with pytest.raises(lanejit.Trap) as e:
        d.launch(k, args=[np.uint64(const)])  # a raw device address is a numpy scalar like any other
    assert e.value.kind == "MemoryFault" and e.value.addresses[0] == const
    out = np.zeros(32, dtype=np.uint32)
    d.read_into(const, out)
    assert out.tolist() == list(range(32))
    buf = d.alloc(128)
    d.launch(k, args=[np.uint64(buf)])
    raw = bytearray(128)
    d.read_into(buf, raw)
    assert np.frombuffer(raw, dtype=np.uint32).tolist() == [9] * 32
    d.write(buf, bytes(128))
    d.launch_packed(k, bytearray(np.uint64(buf).tobytes()))  # an argument block packed by hand, default options
    assert d.read(buf, 128) == np.full(32, 9, dtype=np.uint32).tobytes()
    with pytest.raises(lanejit.Error, match="grid"):
        d.launch_packed(k, np.uint64(buf).tobytes(), [], {"grid": [0, 1, 1], "engine": "interp"})
    d.write(buf, np.arange(64, dtype=np.uint32)[::2])  # a strided view is written through a contiguous copy
    assert d.read(buf, 128) == np.arange(0, 64, 2, dtype=np.uint32).tobytes()
    with pytest.raises(TypeError, match="numpy array"):
        d.write(buf, [1, 2, 3])
    readonly = np.zeros(4, dtype=np.uint32)
    readonly.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        d.read_into(buf, readonly)


def test_errors_carry_the_c_abi_statuses():
    assert issubclass(lanejit.Trap, lanejit.Error) and issubclass(lanejit.Error, ValueError)
    with pytest.raises(lanejit.Error) as e:
        lanejit.Device(capacity=1 << 20).alloc(1 << 30)
    assert e.value.status == 3 and "exhausted" in str(e.value)
    with pytest.raises(lanejit.Trap) as e:
        lanejit.Device().launch(lanejit.assemble("trap 3\n"))
    assert e.value.status == 1 and e.value.kind == "UserTrap" and e.value.code == 3
    assert lanejit.__version__ and lanejit.LANES == 32


def test_a_module_round_trips_through_elf_bytes():
    m = lanejit.Module(".kernel first\n end\n.kernel second\n trap 5\n", "m.s")
    again = lanejit.Module.from_bytes(m.to_elf())
    assert again.names == ["first", "second"] and len(again) == 2 and "second" in again and "third" not in again
    with pytest.raises(lanejit.Trap) as e:
        lanejit.Device().launch(again["second"])
    assert e.value.kind == "UserTrap" and e.value.code == 5
    assert lanejit.Kernel.from_bytes(bytearray(lanejit.Module(VADD).to_elf())).name == "vadd"


PLANTED_WAIT = """
.kernel planted
.workgroup 32
.args 8
    u.ld.b64 u6, u0, 0
    wait sm=0
    v.shl.i v5, v0, 2
    ld.b32 v6, v5, u6, 0
    v.add.i v7, v6, 1
    wait vm=0
    st.b32 v7, v5, u6, 0
    wait vst=0
    end
"""


def test_checkers_report_a_missing_wait_and_a_buffer_nothing_wrote():
    k = lanejit.assemble(PLANTED_WAIT, "planted.s")
    buf = np.zeros(32, dtype=np.uint32)
    stats = lanejit.Device().launch(k, args=[buf], check="waits")
    (f,) = stats.findings
    assert (f["check"], f["kind"], f["counter"], f["register"], f["line"]) == ("wait", "read_before_wait", "vm", "v6", 9)
    assert lanejit.Device().launch(k, args=[buf]).findings == []
    with pytest.raises(ValueError, match="unknown check `wait`"):
        lanejit.Device().launch(k, args=[buf], check="wait")
    # The buffers check: an array is written by the host (defined), a buffer only allocated is not.
    dev = lanejit.Device()
    dev.track_uninit_memory()
    fresh = dev.alloc(128)
    (f,) = dev.launch(k, args=[np.uint64(fresh)], check="buffers").findings
    assert (f["check"], f["sink"], f["register"]) == ("uninit", "kernel_output", "v7")
    assert dev.launch(k, args=[buf], check="all,buffers").findings[0]["check"] == "wait"
    with pytest.raises(lanejit.Error, match="track_uninit_memory"):
        lanejit.Device().launch(k, args=[buf], check="buffers")


def test_timeline_is_trace_event_json_with_a_slice_per_wave(device, tmp_path):
    """`timeline=PATH` writes Chrome Trace Event JSON that Python's json loads (docs/profiling.md)."""
    import json

    k = lanejit.assemble(VADD, "vadd.s")
    n = 1000
    a = np.arange(n, dtype=np.uint32)
    c = np.zeros(n, dtype=np.uint32)
    path = tmp_path / "vadd.json"
    stats = device.launch(k, grid=(n + 63) // 64, args=[a, a, c, np.uint32(n)], engine="jit", threads=1,
                          timeline=path)
    doc = json.loads(path.read_text())
    assert doc["displayTimeUnit"] == "ns"
    events = doc["traceEvents"]
    waves = [e for e in events if e["ph"] == "X" and e["cat"].startswith("wave")]
    assert len(waves) == stats.waves
    assert sum(1 for e in events if e["cat"] == "workgroup") == stats.workgroups
    assert any(e["ph"] == "M" and e["name"] == "thread_name" for e in events)
    assert (c == 2 * a).all()


def test_an_unwritable_timeline_is_refused_before_the_launch(device, tmp_path):
    k = lanejit.assemble(VADD, "vadd.s")
    c = np.zeros(64, dtype=np.uint32)
    with pytest.raises(lanejit.Error, match="timeline"):
        device.launch(k, grid=1, args=[c, c, c, np.uint32(64)], timeline=tmp_path / "missing" / "t.json")
    assert list(tmp_path.iterdir()) == []
