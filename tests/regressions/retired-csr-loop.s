; Hand-made: the retired and cycle counters read in the middle of blocks and inside a loop (an engine must
; have counted every instruction before the read).
.kernel retired
    csr.r u1, retired
    v.add v1, v1, v1
    csr.r u2, retired
    csr.r u3, cycle
    u.li u4, 3
top:
    v.add.i v1, v1, 1
    csr.r u5, retired
    u.add u6, u6, u5
    u.add.i u4, u4, -1
    b.nz u4, top
    end
