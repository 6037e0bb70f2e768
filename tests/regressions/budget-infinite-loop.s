; Hand-made: a loop that never ends; every engine must stop at exactly the instruction budget
; (BudgetExceeded, same pc, same registers, same retired count).
.kernel spin
top:
    v.add.i v1, v1, 1
    u.add.i u1, u1, 1
    j top
