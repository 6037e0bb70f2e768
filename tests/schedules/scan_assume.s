; Planted order dependence: an inclusive scan of the waves' sums in which wave w reads the prefix wave w-1
; wrote, assuming it has run. The fixed order runs the waves in order, so it is right there.
; Arguments: prefix (u32 x 4, one per wave). Grid: 1 workgroup of 128 (4 waves); thread t adds t + 1.
.kernel scan_assume
.workgroup 128
    u.ld.b64 u8, u0, 0          ; prefix
    wait sm=0
    v.add.i v1, v0, 1
    xred.add.u32 u10, v1        ; this wave's sum
    csr.r u11, wave_id
    u.shl.i u12, u11, 2
    u.add.u64.u32 u14, u8, u12  ; &prefix[wave]
    u.li u16, 0
    b.z u11, add
    u.ld.b32 u16, u14, -4       ; prefix[wave - 1], whatever it holds now
    wait sm=0
add:
    u.add u16, u16, u10
    u.st.b32 u16, u14, 0
    wait sm=0
    end
