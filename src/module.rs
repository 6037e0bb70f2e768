//! Modules: the kernels of one source file or binary, looked up by name (as a CUDA harness gets functions
//! from a module).

use crate::{CompileConfig, ContainerError, Kernel};
use lanejit_isa::asm::AsmErrors;

/// Several kernels from one source (each `.kernel` directive starts one) or one ELF file.
#[derive(Clone, Debug)]
pub struct Module {
    kernels: Vec<Kernel>,
}

impl Module {
    /// Assembles every kernel of `src`; errors carry file, line and column (all kernels' errors at once).
    pub fn from_asm(file_name: &str, src: &str) -> Result<Module, AsmErrors> {
        let programs = lanejit_isa::assemble_module_with_lines(file_name, src)?;
        let kernels = programs.into_iter().map(|(p, lines)| Kernel::from_program(p).with_source_lines(lines)).collect();
        Ok(Module { kernels })
    }

    /// Loads every kernel of an ELF file written by `lanejit asm -o k.elf`; an `LJK1` container or raw words
    /// are a module of one.
    pub fn from_bytes(bytes: &[u8]) -> Result<Module, ContainerError> {
        let programs = if bytes.starts_with(&lanejit_isa::elf_kernel::ELF_MAGIC) {
            lanejit_isa::elf_kernel::read_all(bytes)?
        } else {
            vec![lanejit_isa::container::read_any(bytes)?]
        };
        Ok(Module { kernels: programs.into_iter().map(Kernel::from_program).collect() })
    }

    /// Every kernel compiled and tiered as `config` says.
    pub fn with_config(self, config: CompileConfig) -> Module {
        Module { kernels: self.kernels.into_iter().map(|k| k.with_config(config)).collect() }
    }

    /// The kernel named `name` (its `.kernel` directive).
    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        self.kernels.iter().find(|k| k.program.meta.name == name)
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
