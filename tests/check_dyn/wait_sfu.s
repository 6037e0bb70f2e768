; Planted: a transcendental result (counter sfu) is read before `wait sfu=0`.
.kernel wait_sfu
.workgroup 32
.args 8
    f.rcp.f32 v4, v0
    v.add v5, v4, v4            ; PLANTED: reads v4 before wait sfu=0
    wait sfu=0
    end
