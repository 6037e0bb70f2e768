; Hand-made: no `end`: the wave runs past the last instruction (PcOutOfRange at the code size).
.kernel falloff
    v.add.i v1, v1, 1
    exec.elect u1
    v.add.i v2, v2, 2
