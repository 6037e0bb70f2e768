; Hand-made: a loop whose lanes leave one by one (j.execnz back edge) with an if/else inside; EXEC is narrowed
; by exec.and.save / exec.andn.save and restored at each join and after the loop. Starts with a partial EXEC.
.kernel divergent_loop
    exec.get u40                 ; the lanes we started with
    v.laneid v1
    v.and.i v2, v1, 7            ; trips left per lane: lane % 8
    v.li v3, 0
top:
    cmp.gt.i32.vi u1, v2, 0      ; lanes with trips left
    exec.and.save u41, u1
    j.execz out
    v.and.i v4, v3, 1
    cmp.eq.i32.vi u2, v4, 0
    exec.and.save u42, u2        ; if (v3 even)
    j.execz odd
    v.add.i v3, v3, 3
odd:
    exec.set u42
    exec.andn.save u43, u2       ; else
    j.execz join
    v.xor.i v3, v3, 5
join:
    exec.set u42
    v.add.i v2, v2, -1
    j.execnz top
out:
    exec.set u40
    xscan.add.u32 v5, v3
    xred.add.u32 u5, v3
    end
