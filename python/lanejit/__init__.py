"""lanejit from Python: assemble GPU kernels, launch them on numpy arrays, get statistics or a precise trap.

A thin layer over lanejit's C ABI (``capi/include/lanejit.h``) through ``ctypes``: every call goes through the
same functions a C harness uses, so Python, C and Rust see the same engines, errors and traps.

    import numpy as np, lanejit
    k = lanejit.assemble(open("examples/vadd.s").read())
    a = np.arange(1000, dtype=np.uint32); b = a * 2; c = np.zeros_like(a)
    stats = lanejit.Device().launch(k, grid=16, args=[a, b, c, np.uint32(1000)])
    assert (c == a + b).all()

Arguments are packed as the kernel reads them, each at its natural alignment: a numpy array becomes the 8-byte
device address of a buffer holding a copy of it (copied back into the array after the launch, also after a
trap, unless the array is read-only); a numpy scalar (``np.uint32(5)``, ``np.float32(2.0)``…) its bytes; ``bytes`` are copied as they are.
Plain Python ``int``/``float`` are refused: their width would be a guess.

The shared library is found at ``lanejit.load(path)`` if called, else at ``$LANEJIT_LIB``, else beside this
package, else in the repository's ``target/release`` (``cargo build --release -p lanejit-capi``).
"""

import ctypes as C
import os
import pathlib

import numpy as np

__all__ = ["Device", "Kernel", "Module", "Stats", "Error", "Trap", "Cancel", "assemble", "load", "LANES"]

LANES = 32
_ENGINES = {"interp": 0, "jit": 1, "auto": 2}
_TRAP_KINDS = ["IllegalInsn", "MemoryFault", "Misaligned", "UserTrap", "Breakpoint", "PcOutOfRange",
               "BarrierDeadlock", "BudgetExceeded", "DeadlineExceeded", "Cancelled"]
_OK, _TRAP = 0, 1
_FROM_KERNEL = 0xFFFFFFFF
_NO_DEADLINE = 0xFFFFFFFFFFFFFFFF


class Error(ValueError):
    """A call lanejit refused or failed: bad input (``status == 2``) or an emulator failure (``status == 3``)."""

    def __init__(self, message, status):
        super().__init__(message)
        self.status = status


class Trap(Error):
    """The kernel trapped. ``kind`` (e.g. "MemoryFault"), ``pc``, ``workgroup``, ``wave``, ``lanes`` (bit i =
    lane i), ``addresses`` (in lane order), ``code`` (of a ``trap`` instruction, else None), ``stats``."""

    def __init__(self, message, report, stats):
        super().__init__(message, _TRAP)
        self.kind = _TRAP_KINDS[report.kind]
        self.pc = report.pc
        self.workgroup = tuple(report.workgroup)
        self.wave = report.wave
        self.lanes = report.lanes
        self.addresses = list(report.addresses[: report.address_count])
        self.code = report.code if report.has_code else None
        self.stats = stats


class _LaunchConfig(C.Structure):
    _fields_ = [("grid", C.c_uint32 * 3), ("workgroup", C.c_uint32 * 3), ("args", C.c_void_p),
                ("args_len", C.c_size_t), ("shared_bytes", C.c_uint32), ("private_bytes", C.c_uint32),
                ("budget", C.c_uint64), ("deadline_ms", C.c_uint64), ("engine", C.c_uint32),
                ("threads", C.c_uint32), ("cancel", C.c_void_p)]


class _Stats(C.Structure):
    _fields_ = [(n, C.c_uint64) for n in ("retired", "interpreted", "lane_ops", "workgroups", "waves", "elapsed_ns")]


class _Trap(C.Structure):
    _fields_ = [("kind", C.c_int), ("pc", C.c_uint32), ("workgroup", C.c_uint32 * 3), ("wave", C.c_uint32),
                ("lanes", C.c_uint32), ("addresses", C.c_uint64 * LANES), ("address_count", C.c_uint32),
                ("has_code", C.c_uint32), ("code", C.c_uint32)]


class _KernelInfo(C.Structure):
    _fields_ = [("workgroup", C.c_uint32 * 3), ("shared_bytes", C.c_uint32), ("private_bytes", C.c_uint32),
                ("arg_bytes", C.c_uint32), ("words", C.c_uint32)]


class Stats:
    """A launch's statistics: instructions retired (and of them interpreted), lane operations, workgroups,
    waves, and the elapsed time in seconds."""

    def __init__(self, s):
        self.retired, self.interpreted, self.lane_ops = s.retired, s.interpreted, s.lane_ops
        self.workgroups, self.waves, self.elapsed = s.workgroups, s.waves, s.elapsed_ns / 1e9

    def __repr__(self):
        return (f"Stats(retired={self.retired}, interpreted={self.interpreted}, lane_ops={self.lane_ops}, "
                f"workgroups={self.workgroups}, waves={self.waves}, elapsed={self.elapsed:.6f})")


_lib = None


def _signatures(lib):
    P, U32, U64, S = C.c_void_p, C.c_uint32, C.c_uint64, C.c_size_t
    pp = C.POINTER(C.c_void_p)
    table = {
        "lj_version": ([], C.c_char_p), "lj_last_error": ([], C.c_char_p),
        "lj_device_new": ([U64, pp], C.c_int), "lj_device_free": ([P], None),
        "lj_alloc": ([P, U64, C.POINTER(U64)], C.c_int), "lj_free": ([P, U64], C.c_int),
        "lj_write": ([P, U64, P, S], C.c_int), "lj_read": ([P, U64, P, S], C.c_int),
        "lj_kernel_from_asm": ([C.c_char_p, C.c_char_p, pp], C.c_int),
        "lj_kernel_from_bytes": ([P, S, pp], C.c_int), "lj_kernel_free": ([P], None),
        "lj_kernel_name": ([P], C.c_char_p), "lj_kernel_info": ([P, C.POINTER(_KernelInfo)], C.c_int),
        "lj_launch_config_default": ([], _LaunchConfig),
        "lj_module_from_asm": ([C.c_char_p, C.c_char_p, pp], C.c_int),
        "lj_module_from_bytes": ([P, S, pp], C.c_int), "lj_module_free": ([P], None),
        "lj_module_kernel_count": ([P], U32), "lj_module_kernel_name": ([P, U32], C.c_char_p),
        "lj_module_kernel": ([P, C.c_char_p, pp], C.c_int),
        "lj_cancel_new": ([pp], C.c_int), "lj_cancel": ([P], C.c_int), "lj_cancel_free": ([P], None),
        "lj_launch": ([P, P, C.POINTER(_LaunchConfig), C.POINTER(_Stats), C.POINTER(_Trap)], C.c_int),
    }
    for name, (args, ret) in table.items():
        f = getattr(lib, name)
        f.argtypes, f.restype = args, ret


def _candidates():
    here = pathlib.Path(__file__).resolve().parent
    env = os.environ.get("LANEJIT_LIB")
    if env:
        yield pathlib.Path(env)
    yield here / "liblanejit_c.so"
    yield here.parent.parent / "target" / "release" / "liblanejit_c.so"


def load(path=None):
    """Loads lanejit's shared library (see the module text for where it is looked for); returns its version."""
    global _lib
    paths = [pathlib.Path(path)] if path else list(_candidates())
    for p in paths:
        if p.exists():
            lib = C.CDLL(str(p))
            _signatures(lib)
            _lib = lib
            return lib.lj_version().decode()
    raise OSError("lanejit's shared library was not found at " + ", ".join(map(str, paths))
                  + ": build it with `cargo build --release -p lanejit-capi` or set LANEJIT_LIB")


def _api():
    if _lib is None:
        load()
    return _lib


def _check(status):
    if status != _OK:
        raise Error(_api().lj_last_error().decode(errors="replace"), status)


class Kernel:
    """An assembled kernel; ``name`` and ``info`` (workgroup, shared_bytes, private_bytes, arg_bytes, words)."""

    def __init__(self, handle):
        self._h = handle
        lib = _api()
        self.name = lib.lj_kernel_name(handle).decode()
        info = _KernelInfo()
        _check(lib.lj_kernel_info(handle, C.byref(info)))
        self.info = {"workgroup": tuple(info.workgroup), "shared_bytes": info.shared_bytes,
                     "private_bytes": info.private_bytes, "arg_bytes": info.arg_bytes, "words": info.words}

    @staticmethod
    def from_asm(source, file_name="<string>"):
        h = C.c_void_p()
        _check(_api().lj_kernel_from_asm(file_name.encode(), source.encode(), C.byref(h)))
        return Kernel(h)

    @staticmethod
    def from_bytes(data):
        """An ELF or LJK1 binary written by ``lanejit asm``, or raw little-endian instruction words."""
        data = bytes(data)
        h = C.c_void_p()
        _check(_api().lj_kernel_from_bytes(data, len(data), C.byref(h)))
        return Kernel(h)

    def __del__(self):
        if getattr(self, "_h", None) and _lib is not None:
            _lib.lj_kernel_free(self._h)
            self._h = None

    def __repr__(self):
        return f"Kernel({self.name!r}, {self.info})"


class Module:
    """The kernels of one source (each ``.kernel`` directive starts one) or one ELF file, by name:
    ``Module(src)["saxpy"]`` is a ``Kernel``; ``names`` lists them in file order."""

    def __init__(self, source, file_name="<string>"):
        h = C.c_void_p()
        _check(_api().lj_module_from_asm(file_name.encode(), source.encode(), C.byref(h)))
        self._init(h)

    @classmethod
    def from_bytes(cls, data):
        """An ELF module from ``lanejit asm -o k.elf`` (an LJK1 file or raw words: one kernel)."""
        data = bytes(data)
        h = C.c_void_p()
        _check(_api().lj_module_from_bytes(data, len(data), C.byref(h)))
        m = cls.__new__(cls)
        m._init(h)
        return m

    def _init(self, h):
        self._h = h
        lib = _api()
        self.names = [lib.lj_module_kernel_name(h, i).decode() for i in range(lib.lj_module_kernel_count(h))]

    def __getitem__(self, name):
        h = C.c_void_p()
        _check(_api().lj_module_kernel(self._h, name.encode(), C.byref(h)))
        return Kernel(h)

    def __del__(self):
        if getattr(self, "_h", None) and _lib is not None:
            _lib.lj_module_free(self._h)
            self._h = None


class Cancel:
    """Cancels running launches: pass it as ``launch(..., cancel=c)`` and call ``c.cancel()`` from another
    thread (the launch releases the GIL while it runs); the launch raises ``Trap`` with kind "Cancelled"."""

    def __init__(self):
        h = C.c_void_p()
        _check(_api().lj_cancel_new(C.byref(h)))
        self._h = h

    def cancel(self):
        _check(_api().lj_cancel(self._h))

    def __del__(self):
        if getattr(self, "_h", None) and _lib is not None:
            _lib.lj_cancel_free(self._h)
            self._h = None


def assemble(source, file_name="<string>"):
    """Assembles kernel source text; errors raise ``Error`` naming file:line:col."""
    return Kernel.from_asm(source, file_name)


def _pack(args):
    """The argument bytes and the arrays to place in device memory, as (offset in the bytes, array)."""
    out, arrays = bytearray(), []
    for i, a in enumerate(args):
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
    return out, arrays


class Device:
    """Device memory and launches. ``capacity`` is its address space in bytes (0: the default)."""

    def __init__(self, capacity=0):
        h = C.c_void_p()
        _check(_api().lj_device_new(capacity, C.byref(h)))
        self._h = h

    def __del__(self):
        if getattr(self, "_h", None) and _lib is not None:
            _lib.lj_device_free(self._h)
            self._h = None

    def alloc(self, nbytes):
        """A zeroed buffer of ``nbytes``; returns its device address."""
        addr = C.c_uint64()
        _check(_api().lj_alloc(self._h, nbytes, C.byref(addr)))
        return addr.value

    def free(self, addr):
        _check(_api().lj_free(self._h, addr))

    def write(self, addr, data):
        data = np.ascontiguousarray(data) if isinstance(data, np.ndarray) else bytes(data)
        buf = data.tobytes() if isinstance(data, np.ndarray) else data
        _check(_api().lj_write(self._h, addr, buf, len(buf)))

    def read(self, addr, nbytes):
        out = C.create_string_buffer(nbytes)
        _check(_api().lj_read(self._h, addr, out, nbytes))
        return out.raw

    def _read_back(self, addr, a):
        """Device bytes at ``addr`` into array ``a``: straight into its memory when it is contiguous."""
        if a.flags.c_contiguous:
            _check(_api().lj_read(self._h, addr, a.ctypes.data, a.nbytes))
        else:
            a[...] = np.frombuffer(self.read(addr, a.nbytes), dtype=a.dtype).reshape(a.shape)

    def launch(self, kernel, grid=1, args=(), *, workgroup=None, engine="jit", budget=0, deadline=None,
               threads=0, shared_bytes=None, private_bytes=None, cancel=None):
        """Runs ``kernel`` over ``grid`` workgroups (an int or up to three) and returns its ``Stats``; a trap
        raises ``Trap``, after the arrays were copied back (writes made before the trap stay). ``engine`` is
        "jit", "interp" or "auto"; ``deadline`` in seconds (None: the default of 600 s, 0: none)."""
        if engine not in _ENGINES:
            raise ValueError(f"engine {engine!r} is none of {sorted(_ENGINES)}")
        lib = _api()
        cfg = lib.lj_launch_config_default()
        cfg.grid[:] = _dims(grid, "grid")
        if workgroup is not None:
            cfg.workgroup[:] = _dims(workgroup, "workgroup")
        cfg.engine, cfg.budget, cfg.threads = _ENGINES[engine], budget, threads
        cfg.cancel = cancel._h if cancel is not None else None
        if deadline is not None:
            cfg.deadline_ms = _NO_DEADLINE if deadline == 0 else max(1, int(deadline * 1000))
        cfg.shared_bytes = _FROM_KERNEL if shared_bytes is None else shared_bytes
        cfg.private_bytes = _FROM_KERNEL if private_bytes is None else private_bytes
        packed, arrays = _pack(args)
        placed = []
        try:
            for off, a in arrays:
                addr = self.alloc(max(a.nbytes, 1))
                placed.append((addr, a))
                self.write(addr, a)
                packed[off:off + 8] = addr.to_bytes(8, "little")
            raw = bytes(packed)
            cfg.args, cfg.args_len = C.cast(C.c_char_p(raw), C.c_void_p), len(raw)
            stats, trap = _Stats(), _Trap()
            status = lib.lj_launch(self._h, kernel._h, C.byref(cfg), C.byref(stats), C.byref(trap))
            message = lib.lj_last_error().decode(errors="replace")
            if status in (_OK, _TRAP):
                for addr, a in (p for p in placed if p[1].flags.writeable):
                    self._read_back(addr, a)
            if status == _TRAP:
                raise Trap(message, trap, Stats(stats))
            if status != _OK:
                raise Error(message, status)
            return Stats(stats)
        finally:
            for addr, _ in placed:
                lib.lj_free(self._h, addr)


def _dims(v, what):
    d = [v] if isinstance(v, int) else list(v)
    if not 1 <= len(d) <= 3 or not all(isinstance(x, (int, np.integer)) and x >= 0 for x in d):
        raise ValueError(f"{what} must be an int or one to three non-negative ints, not {v!r}")
    return [int(x) for x in d] + [1] * (3 - len(d))
