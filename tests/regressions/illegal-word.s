; Hand-made: an illegal word reached after a few instructions (IllegalInsn at its pc, nothing retired
; after), and code that falls off the end is never reached.
.kernel illegal
    v.add.i v1, v1, 1
    u.li u1, 1
    .word 0x0000007f
    end
