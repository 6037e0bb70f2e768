#!/usr/bin/env python3
"""Regenerates the image-instruction conformance cases in this directory (img_*.yaml).

Expected values come from imgmodel.py, an independent model of the `en` texts of img.load, img.store,
img.sample and img.query (isa-spec/groups/6-mem.yaml). The case builders are in imgcases.py (the product of
dims, formats and flags, edges, traps) and imgconv.py (the number conversions over all their inputs).

Run: python3 tests/cases/mem/gen_image.py
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import imgcases  # noqa: E402
import imgconv  # noqa: E402
from imgemit import write_file  # noqa: E402

HEAD = "Expected values computed by an independent Python model of the `en` text (imgmodel.py, gen_image.py)."


def main():
    write_file("img_load.yaml", "img.load: every dim x format x d16 x a16 x voff, rsd and toff spread over them.",
               imgcases.load_cases())
    write_file("img_store.yaml", "img.store: every dim x format x d16 x a16 x voff, toff spread over them.",
               imgcases.store_cases())
    for filt, name in ((0, "nearest"), (1, "bilinear")):
        write_file("img_sample_%s.yaml" % name,
                   "img.sample, %s: every dim x format x d16 x a16, addressing modes and voff spread over them." % name,
                   imgcases.sample_cases(filt))
    write_file("img_query.yaml", "img.query: every dim, dmask, partial EXEC, invalid descriptors.",
               imgcases.query_cases())
    write_file("img_traps.yaml", "Image traps: invalid descriptors, register groups at the top, Misaligned, "
               "MemoryFault, EXEC = 0.", imgcases.trap_cases())
    write_file("img_conv.yaml", "Image conversions: unorm8 over all 256 bytes both ways, f32 -> f16 at its edges.",
               imgconv.conv_cases())
    for part, cases in enumerate(imgconv.f16_cases()):
        write_file("img_f16_%d.yaml" % part, "rgba16f -> f32 over all 65,536 f16 inputs (part %d)." % part, cases)


if __name__ == "__main__":
    main()
