#!/usr/bin/env python3
"""Regenerates the group-3 (vector float ALU) conformance cases in this directory.

Expected values come from fmodel.py (exact Fraction arithmetic rounded once per mode, rules written from the
`en` text of isa-spec/groups/3-vfloat.yaml), independently of the interpreter. The case layout helpers are in
common.py; the cases themselves in cases_arith.py, cases_conv.py and cases_misc.py.

Run: python3 tests/cases/vfloat/gen.py   (rewrites the *.yaml files beside it)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import cases_arith  # noqa: E402
import cases_conv  # noqa: E402
import cases_misc  # noqa: E402

files = cases_arith.build() + cases_conv.build() + cases_misc.build()
total = 0
for fname, title, cs in files:
    common.write(fname, title, cs)
    total += len(cs)
    print("%-14s %3d cases" % (fname, len(cs)))
missing = common.MNEMONICS - common.COVERED
extra = common.COVERED - common.MNEMONICS - {"wait"}
print("%d cases; covered %d of %d mnemonics" % (total, len(common.COVERED & common.MNEMONICS), len(common.MNEMONICS)))
if missing or extra:
    sys.exit("missing: %s, unknown: %s" % (sorted(missing), sorted(extra)))
