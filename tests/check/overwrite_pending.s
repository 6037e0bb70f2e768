; A load's destination overwritten before `wait vm`: the late load result may replace the new value.
; expect: overwrite_before_wait v5 vm 7
.kernel overwrite_pending
    u.ld.b64 u4, u0, 0
    wait sm=0
    ld.b32 v5, v0, u4, 0
    v.li v5, 1
    wait vm=0
    v.add v6, v5, v5
    end
