; The wait is on one arm of a branch only: the use after the join is a hazard through the other arm.
; expect: read_before_wait v5 vm 14
.kernel branch_one_path
    u.ld.b64 u4, u0, 0
    wait sm=0
    ld.b32 v5, v0, u4, 0
    b.z u2, skip
    wait vm=0
    v.add v5, v5, v5
    j join
skip:
    v.li v7, 0
join:
    v.add v6, v5, v0
    end
