; Planted: a branch on u30, which nothing wrote.
.kernel uninit_branch
.workgroup 32
.args 8
    b.nz u30, skip              ; PLANTED: u30 was never written
    nop
skip:
    end
