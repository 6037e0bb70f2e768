; A shared-memory load raises ls, not vm (the YAML's counter_when): `wait vm=0` does not cover it.
; expect: read_before_wait v5 ls 8
.kernel ls_shared_load
.shared 256
    v.shl.i v4, v0, 2
    ld.b32 v5, v4, u4, 0, sp=shared
    wait vm=0
    v.add v6, v5, v5
    end
