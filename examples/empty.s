; empty: a kernel that only ends, to measure what launching a wave costs.
; Arguments: none read (the runtime still passes them). Any grid.
.kernel empty
.workgroup 64
    end
