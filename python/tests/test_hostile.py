"""Hostile host memory (issue 39): arrays whose bytes are not plain data, 0-d arrays, huge reads.

A copy into an object array overwrites its PyObject* slots and the interpreter crashes later, so each such case
runs in a child interpreter: a crash fails the test (negative return code) instead of killing pytest.
"""

import re
import resource
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import lanejit

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
PRELUDE = f"import numpy as np, lanejit\nSTORE_NINE = {STORE_NINE!r}\n"


def run_child(body):
    """Runs `body` in a fresh interpreter; it prints "refused: <message>" when lanejit raised as it should."""
    code = PRELUDE + textwrap.dedent(body)
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert child.returncode >= 0, f"the child died of signal {-child.returncode}: {child.stderr[-2000:]}"
    assert child.returncode == 0, child.stderr[-2000:]
    return child.stdout


def expect_refused(body, *words):
    """`body` must raise TypeError naming `words` (and the child must survive a collection afterwards)."""
    body = textwrap.indent(textwrap.dedent(body).strip(), "    ")
    out = run_child("import gc\ntry:\n" + body + "\nexcept TypeError as e:\n    print('refused:', e)\n"
                    "else:\n    print('accepted')\n"
                    "gc.collect()  # an overwritten PyObject* slot crashes here at the latest\n")
    assert out.startswith("refused:"), out
    for w in words:
        assert w in out, out
    return out


def test_read_into_an_object_array_is_refused():
    expect_refused("""
        d = lanejit.Device()
        buf = d.alloc(64)
        d.write(buf, np.full(64, 0x41, dtype=np.uint8))
        out = np.empty(8, dtype=object)
        d.read_into(buf, out)
        print([type(x) for x in out])
    """, "dtype object", "Python objects")


def test_a_launch_does_not_copy_back_into_an_object_array():
    expect_refused("""
        out = np.array([object() for _ in range(32)], dtype=object)
        lanejit.Device().launch(lanejit.assemble(STORE_NINE), args=[out], engine="interp")
        print([type(x) for x in out])
    """, "argument", "dtype object")


def test_a_record_holding_objects_and_a_memoryview_of_objects_are_refused():
    expect_refused("""
        rec = np.zeros(4, dtype=[("n", "<u4"), ("o", "O")])
        d = lanejit.Device()
        buf = d.alloc(64)
        d.write(buf, np.full(64, 0x41, dtype=np.uint8))
        d.read_into(buf, rec)
        print(rec)
    """, "Python objects")
    expect_refused("""
        d = lanejit.Device()
        buf = d.alloc(64)
        d.write(buf, np.full(64, 0x41, dtype=np.uint8))
        d.read_into(buf, memoryview(np.empty(8, dtype=object)))
    """, "'O'")
    expect_refused("""
        import ctypes
        d = lanejit.Device()
        d.read_into(d.alloc(64), memoryview((ctypes.c_char_p * 8)()))  # char* slots: reading one dereferences them
    """, "'<z'")


@pytest.mark.parametrize("call", [
    "d.write(buf, a)",
    "d.alloc_const(a)",
    "lanejit.Kernel.from_bytes(a)",
    "lanejit.Module.from_bytes(a)",
    "d.launch_packed(lanejit.assemble(STORE_NINE), a)",
    "d.launch(lanejit.assemble(STORE_NINE), args=[a])",
    "d.launch(lanejit.assemble(STORE_NINE), args=[memoryview(a)])",
])
def test_every_copy_from_an_object_array_is_refused(call):
    expect_refused(f"""
        d = lanejit.Device()
        buf = d.alloc(64)
        a = np.array([object() for _ in range(8)], dtype=object)
        {call}
    """, "'O'" if "memoryview" in call else "object")


def test_buffer_formats_are_checked_item_by_item():
    import array
    import ctypes

    class WithObject(ctypes.Structure):
        _fields_ = [("n", ctypes.c_int), ("o", ctypes.py_object)]

    d = lanejit.Device()
    buf = d.alloc(256)
    plain = [np.zeros(4, dtype=[("n", "<u4"), ("name", "S8"), ("m", ">f8", (2,))]),
             np.zeros(4, dtype=np.dtype([("a", "u1"), ("b", "<i4")], align=True)), np.zeros(4, dtype="c8"),
             (ctypes.c_double * 4)(), ctypes.create_string_buffer(8), array.array("d", [1.5])]
    for x in plain:  # reading them copies plain bytes (written through memoryviews: ctypes lends no strides)
        d.write(buf, memoryview(x))
    refused = [((WithObject * 2)(), "'T{<i:n:<O:o:}'"), ((ctypes.c_wchar_p * 2)(), "pointers"),
               ((ctypes.POINTER(ctypes.c_int) * 2)(), "pointers"), (array.array("u", "ab"), "text")]
    for x, words in refused:  # before issue 39 these copied object pointers into device memory
        with pytest.raises(TypeError, match=re.escape(words)):
            d.write(buf, memoryview(x))


@pytest.mark.parametrize("dtype", ["<U2", "S8"])
def test_text_arrays_are_refused_with_a_way_to_copy_their_bytes(dtype):
    d = lanejit.Device()
    buf = d.alloc(64)
    with pytest.raises(TypeError, match=r"view\(np.uint8\)") as e:
        d.read_into(buf, np.zeros(4, dtype=dtype))
    assert np.dtype(dtype).str in str(e.value)
    with pytest.raises(TypeError, match="text"):
        d.launch(lanejit.assemble(STORE_NINE), args=[np.str_("ab")])


def test_plain_dtypes_datetimes_and_records_of_plain_fields_still_copy():
    d = lanejit.Device()
    buf = d.alloc(128)
    k = lanejit.assemble(STORE_NINE)
    for dtype in ["?", "i1", ">u4", "f2", "f8", "c16", "V8", [("n", "<u4"), ("name", "S4")]]:
        a = np.zeros(128 // np.dtype(dtype).itemsize, dtype=dtype)
        d.launch(k, args=[a])
        assert a.view(np.uint32)[:32].tolist() == [9] * 32, dtype
    when = np.zeros(16, dtype="M8[s]")
    d.launch(k, args=[when])
    assert when.view(np.uint32).tolist() == [9] * 32  # datetime64 copies as its int64 values
    span = np.zeros(16, dtype="m8[ns]")
    d.launch(k, args=[np.uint64(buf)])
    d.read_into(buf, span)
    assert span.view(np.uint32).tolist() == [9] * 32
    d.write(buf, np.full(16, np.datetime64(-1, "s")))
    assert d.read(buf, 8) == b"\xff" * 8
    d.launch(k, args=[np.uint64(buf), np.datetime64(7, "D")])  # a datetime scalar packs as its 8 bytes


def test_a_0d_array_is_refused_with_a_message_that_says_so():
    d = lanejit.Device()
    buf = d.alloc(64)
    for call in [lambda a: d.write(buf, a), lambda a: d.read_into(buf, a),
                 lambda a: d.launch(lanejit.assemble(STORE_NINE), args=[a])]:
        with pytest.raises(TypeError, match="0-d array") as e:
            call(np.zeros((), dtype=np.uint32))
        assert "not ndarray" not in str(e.value) and "np.atleast_1d" in str(e.value)


def test_reading_4_gib_fails_before_allocating_it():
    out = run_child("""
        import resource, time
        d = lanejit.Device()
        buf = d.alloc(64)
        start = time.monotonic()
        try:
            d.read(buf, 4 << 30)
        except lanejit.Error as e:
            print("refused:", e.status, e)
        print("seconds:", time.monotonic() - start)
        print("peak MB:", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    """)
    assert out.startswith("refused: 2 ") and "outside every allocation" in out, out
    assert float(out.split("seconds:")[1].split()[0]) < 1.0, out
    # Allocating (and zeroing) the 4 GiB before the range check lifted the child's peak past 4 GB.
    assert float(out.split("peak MB:")[1]) < 500, out
    assert resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss < 500 * 1024  # no child of this test run did
