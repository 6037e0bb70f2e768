; The fixed twin of wait_sfu.s.
.kernel wait_sfu_fixed
.workgroup 32
.args 8
    f.rcp.f32 v4, v0
    wait sfu=0
    v.add v5, v4, v4
    end
