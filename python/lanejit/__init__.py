"""lanejit from Python: assemble GPU kernels, launch them on numpy arrays, get statistics or a precise trap.

The device, memory, kernels, modules, launches and exceptions are a Rust extension (``lanejit._native``, built
with pyo3 and maturin over lanejit's embedding API); this file packs numpy arguments into a kernel's argument
block. Install it with ``pip install ./python`` (or ``maturin develop --release -m python/Cargo.toml`` in a
virtual environment).

    import numpy as np, lanejit
    k = lanejit.assemble(open("examples/vadd.s").read())
    a = np.arange(1000, dtype=np.uint32); b = a * 2; c = np.zeros_like(a)
    stats = lanejit.Device().launch(k, grid=16, args=[a, b, c, np.uint32(1000)])
    assert (c == a + b).all()

Arguments are packed as the kernel reads them, each at its natural alignment: a numpy array of plain data
(numbers, raw bytes or records of them, datetime64 as int64; not objects or text) becomes the 8-byte
device address of a buffer holding a copy of it (copied back into the array after the launch, also after a
trap, unless the array is read-only); a numpy scalar (``np.uint32(5)``, ``np.float32(2.0)``…) its bytes; ``bytes`` are copied as they are.
Plain Python ``int``/``float`` are refused: their width would be a guess.
"""

import json
import os

import numpy as np

from . import _native
from ._native import LANES, Cancel, Error, Kernel, Module, Stats, Trap, __version__

__all__ = ["Device", "Kernel", "Module", "Stats", "Error", "Trap", "Cancel", "assemble", "LANES", "__version__"]


def assemble(source, file_name="<string>"):
    """Assembles kernel source text; errors raise ``Error`` naming file:line:col."""
    return Kernel.from_asm(source, file_name)


def _pack(args):
    """The argument bytes and the arrays to place in device memory, as (offset in the bytes, array)."""
    out, arrays = bytearray(), []
    for i, a in enumerate(args):
        if isinstance(a, (np.ndarray, np.generic, memoryview)):
            _native._check_plain(a, f"argument {i}")  # its dtype or format: plain numbers and bytes only
        if isinstance(a, np.ndarray):
            out += bytes(-len(out) % 8)
            arrays.append((len(out), a))
            out += bytes(8)
        elif isinstance(a, np.generic):
            raw = a.tobytes()
            out += bytes(-len(out) % a.dtype.alignment) + raw
        elif isinstance(a, (bytes, bytearray, memoryview)):
            out += bytes(a)
        else:
            raise TypeError(f"argument {i} is a {type(a).__name__}: pass a numpy array, a numpy scalar "
                            f"(np.uint32, np.int32, np.float32, np.uint64…) or bytes")
    return bytes(out), arrays


def _dims(v, what):
    d = [v] if isinstance(v, (int, np.integer)) else list(v)
    if not 1 <= len(d) <= 3 or not all(isinstance(x, (int, np.integer)) and x >= 0 for x in d):
        raise ValueError(f"{what} must be an int or one to three non-negative ints, not {v!r}")
    return [int(x) for x in d] + [1] * (3 - len(d))


class Device(_native.Device):
    """Device memory and launches. ``capacity`` is its address space in bytes (0: the default). ``alloc``,
    ``alloc_const``, ``free``, ``write``, ``read`` and ``read_into`` copy straight between device memory and
    bytes-like objects or numpy arrays of plain data (numbers, raw bytes, records of them; an array of objects
    or text raises ``TypeError``)."""

    def write(self, addr, data):
        """Copies ``data`` (bytes-like or a numpy array, contiguous or not) to device address ``addr``."""
        if isinstance(data, np.ndarray) and not data.flags.c_contiguous:
            data = np.ascontiguousarray(data)
        super().write(addr, data)

    def launch(self, kernel, grid=1, args=(), *, workgroup=None, engine="auto", budget=0, deadline=None,
               threads=0, shared_bytes=None, private_bytes=None, cancel=None, check=None, schedule=None,
               timeline=None):
        """Runs ``kernel`` over ``grid`` workgroups (an int or up to three) and returns its ``Stats``; a trap
        raises ``Trap``, after the arrays were copied back (writes made before the trap stay). ``engine`` is
        "auto" (tiered: starts at once in the interpreter, hot blocks compiled in the background), "jit"
        (compiled up front: the launch waits for the compiler) or "interp"; ``budget`` the most instructions (0: the default, 2^40); ``deadline`` in
        seconds (None: the default of 600 s, 0: none); ``threads`` the workers (0: one per core). The GIL is
        released while the kernel runs: ``cancel`` (a ``Cancel``) stops it from another thread. ``check`` runs
        checkers, named as ``lanejit run --check`` names them ("waits,races,barriers,uninit", "all", and
        "buffers" on a device after ``track_uninit_memory()``); their findings are ``Stats.findings`` (a
        ``Trap``'s stats hold them too). ``schedule`` runs another legal interleaving of waves and workgroups,
        as ``lanejit run --schedule`` names it ("fixed", the default; "rr:K", "random:SEED", "pct:SEED,DEPTH",
        docs/schedules.md), simulated on one thread so that a seed gives the same results on every engine; one
        that does not parse raises ``ValueError``. ``timeline`` (a path) writes the launch's timeline there as
        Chrome Trace Event JSON for Perfetto (docs/profiling.md); a path that cannot be written raises
        ``Error`` before the launch."""
        options = self._options(grid, workgroup, engine, budget, deadline, threads, shared_bytes, private_bytes,
                                cancel, check, schedule)
        if timeline is not None:
            options["timeline"] = os.fspath(timeline)
        return self._staged(args, lambda packed, staged: self.launch_packed(kernel, packed, staged, options))

    def explore(self, kernel, grid=1, args=(), *, schedules=100, policy="random", stop_at_first=True,
                workgroup=None, engine="auto", budget=0, deadline=None, threads=0, shared_bytes=None,
                private_bytes=None, cancel=None):
        """Runs the launch ``launch`` would make once in the fixed order, then under ``schedules`` schedules of
        ``policy`` ("random[:FIRST_SEED]" or "pct[:FIRST_SEED[,DEPTH]]", seeds counting up), each compared with
        the fixed run (how it ended; when both finished, every byte of writable memory), and returns the report
        as a dict, the object ``lanejit run --explore N --json`` prints: ``differ``, ``schedules``,
        ``differing``, ``fixed``, and ``first_difference`` (None, or with ``schedule``, the shrunk schedule that
        replays it as ``launch(..., schedule=...)``, and the first differing ``bytes``). Device memory is restored
        before each schedule; afterwards the arrays hold the fixed run's results. With ``stop_at_first`` False
        every schedule runs and ``differing`` counts them all. A bad policy raises ``ValueError``."""
        options = self._options(grid, workgroup, engine, budget, deadline, threads, shared_bytes, private_bytes,
                                cancel, None, None)
        text = self._staged(args, lambda packed, staged: self.explore_packed(
            kernel, packed, staged, options, schedules, policy, stop_at_first))
        return json.loads(text)

    @staticmethod
    def _options(grid, workgroup, engine, budget, deadline, threads, shared_bytes, private_bytes, cancel, check,
                 schedule):
        return dict(grid=_dims(grid, "grid"), workgroup=None if workgroup is None else _dims(workgroup, "workgroup"),
                    engine=engine, budget=budget, deadline=deadline, threads=threads, shared_bytes=shared_bytes,
                    private_bytes=private_bytes, cancel=cancel, check=check, schedule=schedule)

    @staticmethod
    def _staged(args, run):
        """``run(packed, staged)`` with the packed argument block and the arrays staged contiguous, each strided
        one copied back into its view afterwards."""
        packed, arrays = _pack(args)
        # A strided view goes to the device through a contiguous copy, copied back into the view afterwards.
        staged = [(off, a if a.flags.c_contiguous else np.ascontiguousarray(a)) for off, a in arrays]
        try:
            return run(packed, staged)
        finally:
            for (_, a), (_, s) in zip(arrays, staged):
                if s is not a and a.flags.writeable:
                    a[...] = s
