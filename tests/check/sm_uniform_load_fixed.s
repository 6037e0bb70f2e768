; Twin of sm_uniform_load.s.
.kernel sm_uniform_load_fixed
    u.ld.b64 u4, u0, 0
    wait sm=0
    ld.b32 v5, v0, u4, 0
    wait vm=0
    v.add v6, v5, v5
    end
