; No race: both waves add to the same shared word with atomics (atomic against atomic is not a race).
.kernel atomics_fixed
.workgroup 64
.shared 4
.args 8
    u.li u20, 0
    v.li v5, 0
    v.li v6, 1
    atom.add.u32 v6, v5, u20, 0, sp=shared
    wait ls=0
    end
