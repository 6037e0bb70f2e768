; divergent: steps[i] = number of Collatz steps from a[i] (>= 1) down to 1, for i < n.
; Structured divergence the AMD way: a compare gives a lane mask, exec.and.save / exec.andn.save narrow EXEC
; and keep the old one, j.execz skips a side no lane takes, exec.set restores EXEC at the join. The loop runs
; until no lane is left: each trip first drops the lanes whose value reached 1.
; Arguments: a, steps (8-byte addresses), n (u32).
.kernel divergent
.workgroup 256
    u.ld.b64 u6, u0, 0          ; a
    u.ld.b64 u8, u0, 8          ; steps
    u.ld.b32 u10, u0, 16        ; n
    wait sm=0
    csr.r u11, wg_size_x
    u.mul u11, u2, u11
    v.add.vu v3, v0, u11        ; i
    cmp.lt.u32.vu u12, v3, u10
    exec.and.save u13, u12      ; only lanes with an element
    j.execz done
    v.shl.i v4, v3, 2
    ld.b32 v5, v4, u6, 0        ; x
    wait vm=0
    v.li v6, 0                  ; steps
    exec.get u14                ; lanes with an element, for the store after the loop
loop:
    cmp.ne.i32.vi u15, v5, 1    ; running lanes (a subset of EXEC)
    exec.set u15
    j.execz loop_end
    v.and.i v7, v5, 1
    cmp.ne.i32.vi u16, v7, 0    ; odd lanes
    exec.and.save u17, u16      ; if (odd): u17 = running lanes
    j.execz even
    v.mul.i v5, v5, 3
    v.add.i v5, v5, 1           ;   x = 3x + 1
even:
    exec.set u17
    exec.andn.save u18, u16     ; else
    j.execz join
    v.shr.i v5, v5, 1           ;   x = x / 2
join:
    exec.set u17
    v.add.i v6, v6, 1
    j loop
loop_end:
    exec.set u14
    st.b32 v6, v4, u8, 0
done:
    end
