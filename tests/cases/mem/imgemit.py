"""Case emission for gen_image.py: runs a program on the model and writes init and the expected changes."""
import copy
import os

import imgmodel as m

HERE = os.path.dirname(os.path.abspath(__file__))
L = m.L


def hx(x):
    return '"0x%x"' % (x & m.M32)


def vec_yaml(v):
    if all(x == v[0] for x in v):
        return hx(v[0])
    items = [hx(x) for x in v]
    rows = [", ".join(items[i:i + 8]) for i in range(0, L, 8)]
    return "[" + (",\n            ").join(rows) + "]"


def words_of(data):
    return [int.from_bytes(data[i:i + 4], "little") for i in range(0, len(data), 4)]


def mem_yaml(addr, data):
    items = [hx(w) for w in words_of(data)]
    rows = [", ".join(items[i:i + 8]) for i in range(0, len(items), 8)]
    return "        - {addr: 0x%x, words: [%s]}" % (addr, (",\n                 ").join(rows))


def state_lines(st, regs=None, mems=None):
    out = ['      exec: %s' % hx(st["exec"])]
    vs = sorted(st["v"]) if regs is None else regs
    if vs:
        out.append("      v:")
        out += ["        %d: %s" % (r, vec_yaml(st["v"][r])) for r in vs]
    if regs is None and st["u"]:
        out.append("      u: {%s}" % ", ".join("%d: %s" % (r, hx(x)) for r, x in sorted(st["u"].items())))
    ms = st["mem"] if mems is None else mems
    if ms:
        out.append("      memory:")
        out += [mem_yaml(a, d) for a, d in ms]
    return out


def asm(ins):
    """Assembly of one model instruction."""
    op = ins["op"]
    if op == "vaddi":
        return "v.add.i v%d, v%d, %d" % (ins["rd"], ins["rs1"], ins["imm"])
    if op == "vaddk":
        return "v.add.k v%d, v%d, %d" % (ins["rd"], ins["rs1"], ins["imm"])
    dm = "".join("rgba"[c] for c in range(4) if ins["dmask"] >> c & 1)
    if op == "query":
        return "img.query v%d, u%d, %s, dmask=%s" % (ins["rd"], ins["rs3"], ins["dim"], dm)
    parts = ["img.%s v%d, v%d, u%d, %s" % (op, ins["rd"], ins["rs1"], ins["rs3"], ins["dim"])]
    if ins.get("toff"):
        parts.append("toff=%d" % ins["toff"])
    parts.append("dmask=%s" % dm)
    for f in ("d16", "a16", "rsd", "voff"):
        if ins.get(f):
            parts.append(f)
    return ", ".join(parts)


def run(st, prog):
    """Runs the program on a copy of st: (final state, trap or None, pc of the trap)."""
    st = copy.deepcopy(st)
    pc = 0
    for ins in prog:
        if ins["op"] in ("vaddi", "vaddk"):
            for lane in m.lanes_on(st):
                m.vreg(st, ins["rd"])[lane] = (m.vreg(st, ins["rs1"])[lane] + ins["imm"]) & m.M32
            pc += 4 if ins["op"] == "vaddi" else 8
            continue
        t = m.execute(st, ins)
        if t:
            return st, t, pc
        pc += 8
    return st, None, pc


def case(name, prog, st):
    """The YAML text of one case: the model runs prog from st; expect names only what changed."""
    assert '"' not in name
    for ins in prog:
        for f in ("toff", "d16", "a16", "rsd", "voff"):
            ins.setdefault(f, 0)
    # every register an instruction names is in init, so the model and the engines start from the same state
    for ins in prog:
        if ins["op"] not in ("query",):
            m.vreg(st, ins["rs1"])
        m.vreg(st, ins["rd"])
    end, t, pc = run(st, prog)
    lines = ['  - name: "%s"' % name, "    code: |"]
    lines += ["      %s" % asm(i) for i in prog] + ["      end", "    init:"]
    lines += state_lines(st)
    changed = [r for r in sorted(end["v"]) if end["v"][r] != st["v"].get(r, [0] * L)]
    mems = [(a, d) for (a, d), (_, d0) in zip(end["mem"], st["mem"]) if d != d0]
    if t:
        assert not changed and not mems, "a trapping instruction changes nothing"
        lines.append("    expect:")
        trap = "      trap: {kind: %s, pc: %d" % (t[0], pc)
        if t[1] is not None:
            trap += ', lanes: "0x%x"' % t[1]
        if t[2] is not None:
            trap += ", addrs: [%s]" % ", ".join("0x%x" % a for a in t[2])
        lines.append(trap + "}")
        return "\n".join(lines) + "\n"
    body = state_lines(end, changed, mems)[1:]
    lines += ["    expect:"] + body if body else ["    expect: {}"]
    return "\n".join(lines) + "\n"


def write_file(name, what, cases):
    head = "# %s\n# Expected values computed by an independent Python model of the `en` text (imgmodel.py); " \
           "written by gen_image.py.\ncases:\n" % what
    with open(os.path.join(HERE, name), "w") as f:
        f.write(head + "\n".join(cases))
