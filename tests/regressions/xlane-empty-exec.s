; Hand-made: cross-lane reductions, scans, votes and ballots with EXEC = 0, then with a single lane.
.kernel xlane_empty
    ballot u1, v1
    vote.any u2, v1
    vote.all u3, v1
    xred.min.u32 u4, v1
    xscan.add.u32 v2, v1
    readfirst u5, v1
    exec.elect u6
    u.li u7, 0x40
    exec.set u7
    readfirst u8, v1
    xred.max.i32 u9, v1
    shfl.idx v3, v1, v1
    quad.swizzle v4, v1, 0x1b
    end
