; Two transcendental results (counter sfu) and `wait sfu=1`: the older one may be read, the newer one not.
; expect: read_before_wait v3 sfu 8
.kernel sfu_rcp
    f.rcp.f32 v2, v0
    f.rsq.f32 v3, v0
    wait sfu=1
    f.add.f32 v4, v2, v2
    f.add.f32 v5, v3, v3
    end
