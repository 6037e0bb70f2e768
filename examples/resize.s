; resize: bilinear resampling of a 2d rgba8 image into another, one thread per output pixel (x, y):
; img.sample at the pixel centre s = (x + 0.5) * (1/W'), t = (y + 0.5) * (1/H') (f32, rounded to nearest even)
; with the source's sampler (bilinear, clamp to edge), then img.store to the destination (rgba8 unorm).
; Arguments: source descriptor (8 words), destination descriptor (8 words), 1/W' and 1/H' (f32), W', H' (u32).
; Grid: ceil(W'/16) x ceil(H'/16).
.kernel resize
.workgroup 16, 16
    u.ld.b256 u8, u0, 0         ; source descriptor
    u.ld.b256 u16, u0, 32       ; destination descriptor
    u.ld.b64 u24, u0, 64        ; u24 = 1/W', u25 = 1/H'
    u.ld.b64 u26, u0, 72        ; u26 = W', u27 = H'
    wait sm=0
    u.shl.i u28, u2, 4
    u.shl.i u29, u3, 4
    v.add.vu v3, v0, u28        ; x
    v.add.vu v4, v1, u29        ; y (v3, v4: the store's coordinates)
    cmp.lt.u32.vu u30, v3, u26
    cmp.lt.u32.vu u31, v4, u27
    u.and u30, u30, u31
    exec.and.save u32, u30
    j.execz done                ; the whole wave is outside the destination
    f.cvt.f32.u32 v5, v3, rm=rne
    f.cvt.f32.u32 v6, v4, rm=rne
    f.add.k.f32 v5, v5, 0.5     ; exact: x < 2^23
    f.add.k.f32 v6, v6, 0.5
    v.mov.u v7, u24
    v.mov.u v8, u25
    f.mul.f32 v5, v5, v7, rm=rne
    f.mul.f32 v6, v6, v8, rm=rne
    img.sample v10, v5, u8, 2d, dmask=rgba
    wait tex=0
    img.store v10, v3, u16, 2d, dmask=rgba
done:
    end
