; The fixed twin of uninit_branch.s: u30 is written first.
.kernel uninit_branch_fixed
.workgroup 32
.args 8
    u.li u30, 0
    b.nz u30, skip
    nop
skip:
    end
