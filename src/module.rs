//! Modules: the kernels of one source file or binary, looked up by name (as a CUDA harness gets functions
//! from a module).

use crate::{CompileConfig, ContainerError, Kernel};
use lanejit_isa::asm::AsmErrors;
use std::collections::HashMap;

/// Several kernels from one source (each `.kernel` directive starts one) or one ELF file.
#[derive(Clone, Debug)]
pub struct Module {
    kernels: Vec<Kernel>,
    /// Index in `kernels` by name (the loaders refuse a name twice): a harness that looks up each of 100,000
    /// kernels does not search the list each time.
    by_name: HashMap<String, usize>,
}

impl Module {
    /// Assembles every kernel of `src`; errors carry file, line and column (all kernels' errors at once).
    pub fn from_asm(file_name: &str, src: &str) -> Result<Module, AsmErrors> {
        let programs = lanejit_isa::assemble_module_with_lines(file_name, src)?;
        let kernels = programs.into_iter().map(|(p, lines)| Kernel::from_program(p).with_source_lines(lines)).collect();
        Ok(Module::of(kernels))
    }

    /// [`Module::from_asm`] with the assembler's configuration (the resolver `.include` reads through, the
    /// expansion limits).
    pub fn from_asm_with(
        file_name: &str,
        src: &str,
        config: &lanejit_isa::asm::AsmConfig,
    ) -> Result<Module, AsmErrors> {
        let programs = lanejit_isa::asm::assemble_module_with_config(file_name, src, config)?;
        let kernels = programs.into_iter().map(|(p, lines)| Kernel::from_program(p).with_source_lines(lines)).collect();
        Ok(Module::of(kernels))
    }

    /// Loads every kernel of an ELF file written by `lanejit asm -o k.elf`; an `LJK1` container or raw words
    /// are a module of one.
    pub fn from_bytes(bytes: &[u8]) -> Result<Module, ContainerError> {
        let programs = lanejit_isa::container::read_module(bytes)?;
        Ok(Module::of(programs.into_iter().map(Kernel::from_program).collect()))
    }

    /// A module of `kernels`, whose names the loaders have made distinct (were one repeated, the first wins).
    fn of(kernels: Vec<Kernel>) -> Module {
        let mut by_name = HashMap::with_capacity(kernels.len());
        for (i, k) in kernels.iter().enumerate() {
            by_name.entry(k.program.meta.name.clone()).or_insert(i);
        }
        Module { kernels, by_name }
    }

    /// Every kernel compiled and tiered as `config` says.
    pub fn with_config(self, config: CompileConfig) -> Module {
        let kernels = self.kernels.into_iter().map(|k| k.with_config(config)).collect();
        Module { kernels, by_name: self.by_name }
    }

    /// The kernel named `name` (its `.kernel` directive).
    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        self.by_name.get(name).map(|&i| &self.kernels[i])
    }

    /// The kernels, in file order.
    pub fn kernels(&self) -> &[Kernel] {
        &self.kernels
    }

    /// The kernels' names, in file order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.kernels.iter().map(|k| k.program.meta.name.as_str())
    }

    /// The ELF file of every kernel (`Module::from_bytes` reads it back).
    pub fn to_elf(&self) -> Vec<u8> {
        let programs: Vec<_> = self.kernels.iter().map(|k| k.program.clone()).collect();
        lanejit_isa::elf_kernel::write_all(&programs)
    }
}
