; Planted order dependence: *out += i^4 (as f32) with a float atomic per lane. Float addition is not
; associative and the sum is beyond f32's exact integers, so it depends on the order the waves' atomics land
; in. Found by `run --explore 100` (random).
; Arguments: out (one f32). Grid: 2 workgroups of 64.
.kernel fadd_sum
.workgroup 64
    u.ld.b64 u8, u0, 0          ; out
    wait sm=0
    csr.r u12, wg_size_x
    u.mul u12, u2, u12
    v.add.vu v3, v0, u12        ; i
    f.cvt.f32.u32 v5, v3
    f.mul.f32 v5, v5, v5
    f.mul.f32 v5, v5, v5        ; i^4
    v.li v7, 0
    atom.fadd.f32 v5, v7, u8, 0
    end
