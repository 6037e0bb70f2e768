; Twin of loop_back_edge.s: the wait is at the top of the body.
.kernel loop_back_edge_fixed
    u.ld.b64 u4, u0, 0
    wait sm=0
    u.li u6, 4
    ld.b32 v5, v0, u4, 0
loop:
    wait vm=0
    v.add v6, v6, v5
    ld.b32 v5, v0, u4, 4
    u.add.i u6, u6, -1
    b.nz u6, loop
    end
