; Twin of overwrite_pending.s.
.kernel overwrite_pending_fixed
    u.ld.b64 u4, u0, 0
    wait sm=0
    ld.b32 v5, v0, u4, 0
    wait vm=0
    v.li v5, 1
    v.add v6, v5, v5
    end
