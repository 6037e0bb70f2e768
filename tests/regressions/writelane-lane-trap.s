; Hand-made: writelane ignores EXEC (EXEC is 0 here); a lane number >= 32 traps IllegalInsn at that
; instruction with nothing written, after the lane-31 write before it took effect.
.kernel writelane_trap
    v.laneid v1
    u.li u1, 77
    writelane v1, u1, 31
    readlane u2, v1, 31
    writelane v1, u1, 32
    end
