; Twin of branch_one_path.s: both arms wait.
.kernel branch_one_path_fixed
    u.ld.b64 u4, u0, 0
    wait sm=0
    ld.b32 v5, v0, u4, 0
    b.z u2, skip
    wait vm=0
    v.add v5, v5, v5
    j join
skip:
    wait vm=0
    v.li v7, 0
join:
    v.add v6, v5, v0
    end
