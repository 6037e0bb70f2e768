; Twin of sfu_rcp.s.
.kernel sfu_rcp_fixed
    f.rcp.f32 v2, v0
    f.rsq.f32 v3, v0
    wait sfu=1
    f.add.f32 v4, v2, v2
    wait sfu=0
    f.add.f32 v5, v3, v3
    end
