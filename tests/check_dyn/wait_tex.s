; Planted: an image load's result is read before `wait tex=0`. Arguments: a 32x1 r32ui image's descriptor,
; then the output buffer.
.kernel wait_tex
.workgroup 32
.args 40
    u.ld.b256 u8, u0, 0         ; the image's descriptor
    u.ld.b64 u6, u0, 32         ; the output buffer
    wait sm=0
    v.mov v2, v0                ; x = lane
    v.li v3, 0                  ; y = 0
    img.load v10, v2, u8, 2d, dmask=r
    v.shl.i v5, v0, 2
    v.add.i v11, v10, 1         ; PLANTED: reads v10 before wait tex=0
    wait tex=0
    st.b32 v11, v5, u6, 0
    wait vst=0
    end
