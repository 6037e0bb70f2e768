//! Register-group width formulas (YAML `regs`, e.g. `rd:out[pop(dmask) + rsd]`) as postfix code over the
//! instruction's operand values. This file is shared on purpose: the build script compiles every formula to
//! this code and evaluates it for every operand combination to refuse a width of 0, and the library evaluates
//! the very same code on decoded instructions, so the check and the use cannot drift apart.

/// One step of a width formula; operands are numbered in syntax order and read as their operand values
/// (`Insn::operand_values`: a flag is 0 or 1, an enum its encoded number, a dmask its 4-bit mask).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WOp {
    /// Pushes a constant.
    Lit(i64),
    /// Pushes operand i's value.
    Operand(u8),
    /// Pushes the number of set bits of operand i's value (`pop(dmask)`).
    Pop(u8),
    /// Pushes a property of enum operand i (`dim.coords`): the table maps each encoded value to the property.
    Prop(u8, &'static [(i64, i64)]),
    /// Pops b, a and pushes a + b.
    Add,
    /// Pops b, a and pushes a - b.
    Sub,
    /// Pops b, a and pushes a * b.
    Mul,
    /// Division rounding toward zero (widths are never negative, so this is floor).
    Div,
    /// `c ? a : b`: pops b, a, c and pushes a if c != 0, else b.
    Select,
}

/// Runs `code` on operand values; `None` for code that is malformed, divides by zero, reads a missing
/// operand or meets an enum value the property table lacks (the build script refuses all of these).
pub fn eval(code: &[WOp], vals: &[i64]) -> Option<i64> {
    let mut stack = [0i64; 16];
    let mut sp = 0usize;
    for op in code {
        let pushed = match *op {
            WOp::Lit(x) => x,
            WOp::Operand(i) => *vals.get(i as usize)?,
            WOp::Pop(i) => vals.get(i as usize)?.count_ones() as i64,
            WOp::Prop(i, table) => {
                let v = *vals.get(i as usize)?;
                table.iter().find(|(raw, _)| *raw == v)?.1
            }
            WOp::Add | WOp::Sub | WOp::Mul | WOp::Div => {
                sp = sp.checked_sub(2)?;
                let (a, b) = (stack[sp], stack[sp + 1]);
                match *op {
                    WOp::Add => a.checked_add(b)?,
                    WOp::Sub => a.checked_sub(b)?,
                    WOp::Mul => a.checked_mul(b)?,
                    _ => a.checked_div(b)?,
                }
            }
            WOp::Select => {
                sp = sp.checked_sub(3)?;
                if stack[sp] != 0 {
                    stack[sp + 1]
                } else {
                    stack[sp + 2]
                }
            }
        };
        *stack.get_mut(sp)? = pushed;
        sp += 1;
    }
    (sp == 1).then_some(stack[0])
}
