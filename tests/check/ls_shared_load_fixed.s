; Twin of ls_shared_load.s.
.kernel ls_shared_load_fixed
.shared 256
    v.shl.i v4, v0, 2
    ld.b32 v5, v4, u4, 0, sp=shared
    wait ls=0
    v.add v6, v5, v5
    end
