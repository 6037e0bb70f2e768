//! The launch a debugger drives (`crate::debug`): the fixed order (one workgroup at a time, its waves in
//! turn, each until it ends or waits at a barrier), one instruction at a time on the interpreter. It reuses
//! the launch's own set-up (`prepare`, `reset_wave`) and barrier release, so a debugged launch starts its
//! waves and releases its barriers exactly as a `Fixed` launch does; the normal launch path is untouched.

use super::schedule::{release_barrier, WaveStatus};
use super::{prepare, reset_wave, workgroup_count, workgroup_id, LaunchCtx, LaunchError};
use crate::wavemem::WaveMemory;
use crate::{Device, Kernel, LaunchConfig};
use lanejit_interp::memory::MemFault;
use lanejit_interp::{HostRegion, Memory, Stop, Trap, TrapKind, WaveState, LANES};
use lanejit_isa::Sp;

/// One guest write an instruction made: space, lane, address (an offset for shared and private memory) and
/// size in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GuestWrite {
    /// The memory space written.
    pub sp: Sp,
    /// The lane that wrote (0 for a uniform store).
    pub lane: usize,
    /// The address (global) or the offset (shared; private: inside the lane's own area).
    pub addr: u64,
    /// Bytes written.
    pub size: u32,
}

/// A debugged launch: the launch context, the workgroup in flight and where the fixed order stands.
pub(crate) struct Machine<'a> {
    cx: LaunchCtx<'a>,
    count: u64,
    /// The workgroup in flight (its index), once one has started.
    wg_index: Option<u64>,
    wg_id: [u32; 3],
    waves: Vec<WaveState>,
    status: Vec<WaveStatus>,
    shared: Vec<u8>,
    private: Vec<u8>,
    /// The wave the fixed order runs now.
    current: usize,
    retired: u64,
    /// How the launch ended: every workgroup ran (Ok) or a trap stopped it.
    outcome: Option<Result<(), Trap>>,
}

impl<'a> Machine<'a> {
    /// A debugged launch of `kernel` on `device` as `cfg` says (its engine, threads and schedule are not
    /// looked at: a debugged launch runs the fixed order on the interpreter).
    pub(crate) fn new(device: &'a Device, kernel: &'a Kernel, cfg: &LaunchConfig) -> Result<Self, LaunchError> {
        device.arena.define_all_live();
        let cx = prepare(device, kernel, cfg)?;
        let n = cx.starts.len();
        Ok(Machine {
            count: workgroup_count(cfg.grid),
            wg_index: None,
            wg_id: [0; 3],
            waves: vec![WaveState::default(); n],
            status: vec![WaveStatus::Ended; n],
            shared: vec![0; cx.shared_bytes as usize],
            private: vec![0; cx.private_bytes as usize * LANES * n],
            current: 0,
            retired: 0,
            outcome: None,
            cx,
        })
    }

    /// The wave that runs next and its pc, starting workgroups and releasing barriers as the fixed order
    /// does; `Ok(None)` once every workgroup has ended, `Err` for a barrier deadlock (or an earlier trap).
    pub(crate) fn next_to_run(&mut self) -> Result<Option<(usize, u32)>, Trap> {
        if let Some(o) = &self.outcome {
            return o.clone().map(|_| None);
        }
        loop {
            if self.wg_index.is_some() {
                if let Some(w) = (self.current..self.waves.len()).find(|&w| self.status[w] == WaveStatus::Running) {
                    self.current = w;
                    return Ok(Some((w, self.waves[w].pc)));
                }
                match release_barrier(&mut self.status) {
                    Ok(true) => {
                        self.current = 0;
                        continue;
                    }
                    Ok(false) => {}
                    Err(mut t) => {
                        t.workgroup = self.wg_id;
                        self.outcome = Some(Err(t.clone()));
                        return Err(t);
                    }
                }
            }
            let next = self.wg_index.map_or(0, |i| i + 1);
            if next >= self.count {
                self.outcome = Some(Ok(()));
                return Ok(None);
            }
            self.start_workgroup(next);
        }
    }

    fn start_workgroup(&mut self, index: u64) {
        let wg_id = workgroup_id(self.cx.env.grid, index);
        for (wi, w) in self.waves.iter_mut().enumerate() {
            reset_wave(&self.cx, w, wi, wg_id, true);
        }
        self.status.fill(WaveStatus::Running);
        self.shared.fill(0);
        self.private.fill(0);
        (self.wg_index, self.wg_id, self.current) = (Some(index), wg_id, 0);
    }

    /// Executes one instruction of the wave `next_to_run` named, noting its guest writes in `writes`; a trap
    /// ends the launch (the instruction has no effect).
    pub(crate) fn execute(&mut self, writes: &mut Vec<GuestWrite>) -> Result<(), Trap> {
        let wi = self.current;
        let pstride = self.cx.private_bytes as usize * LANES;
        let mut inner = WaveMemory::new(
            &self.cx.device.arena,
            &self.cx.allocs,
            &mut self.shared[..],
            &mut self.private[wi * pstride..(wi + 1) * pstride],
            self.cx.private_bytes as u64,
        );
        let mut mem = Recording { inner: &mut inner, writes };
        let env = lanejit_interp::WaveEnv { wave_id: wi as u32, wg_id: self.wg_id, ..self.cx.env };
        let w = &mut self.waves[wi];
        let result = lanejit_interp::run(&self.cx.kernel.code, w, &mut mem, &env, 1, None);
        let pc = w.pc;
        let stop = result.and_then(|stop| {
            self.retired += 1;
            if self.retired > self.cx.budget {
                let detail = format!("instruction budget of {} exhausted", self.cx.budget);
                return Err(Trap::new(TrapKind::BudgetExceeded, pc, detail));
            }
            Ok(stop)
        });
        match stop {
            Ok(Stop::End) => self.status[wi] = WaveStatus::Ended,
            Ok(Stop::Barrier) => self.status[wi] = WaveStatus::AtBarrier(pc.wrapping_sub(4)),
            Ok(Stop::Steps) => {}
            Err(mut t) => {
                (t.wave, t.workgroup) = (wi as u32, self.wg_id);
                self.outcome = Some(Err(t.clone()));
                return Err(t);
            }
        }
        Ok(())
    }

    /// How the launch ended, once it has.
    pub(crate) fn outcome(&self) -> Option<&Result<(), Trap>> {
        self.outcome.as_ref()
    }

    /// The workgroup in flight: its index and id.
    pub(crate) fn workgroup(&self) -> Option<(u64, [u32; 3])> {
        self.wg_index.map(|i| (i, self.wg_id))
    }

    /// Workgroups in the grid.
    pub(crate) fn workgroup_count(&self) -> u64 {
        self.count
    }

    /// The waves of the workgroup in flight and where each stands.
    pub(crate) fn waves(&self) -> (&[WaveState], &[WaveStatus]) {
        (&self.waves, &self.status)
    }

    /// A wave's state, to change.
    pub(crate) fn wave_mut(&mut self, wave: usize) -> Option<&mut WaveState> {
        self.waves.get_mut(wave)
    }

    /// The workgroup's shared memory.
    pub(crate) fn shared_mut(&mut self) -> &mut [u8] {
        &mut self.shared
    }

    /// Lane `lane` of wave `wave`: its private bytes.
    pub(crate) fn private_mut(&mut self, wave: usize, lane: usize) -> Option<&mut [u8]> {
        let pb = self.cx.private_bytes as usize;
        let at = (wave * LANES + lane) * pb;
        (wave < self.waves.len() && lane < LANES).then(|| &mut self.private[at..at + pb])
    }

    /// Instructions retired so far.
    pub(crate) fn retired(&self) -> u64 {
        self.retired
    }

    /// The device the launch runs on.
    pub(crate) fn device(&self) -> &'a Device {
        self.cx.device
    }

    /// The kernel launched.
    pub(crate) fn kernel(&self) -> &'a Kernel {
        self.cx.kernel
    }

    /// The address of the launch's argument buffer (constant memory).
    pub(crate) fn args_addr(&self) -> u64 {
        self.cx.args_addr
    }
}

/// The wave's memory, noting every write (stores and atomics, lane by lane) for the watchpoints.
struct Recording<'m, 'a> {
    inner: &'m mut WaveMemory<'a>,
    writes: &'m mut Vec<GuestWrite>,
}

impl Memory for Recording<'_, '_> {
    fn check(&self, sp: Sp, lane: usize, addr: u64, size: u32, write: bool) -> Result<(), MemFault> {
        self.inner.check(sp, lane, addr, size, write)
    }
    fn load(&mut self, sp: Sp, lane: usize, addr: u64, size: u32) -> Result<u64, MemFault> {
        self.inner.load(sp, lane, addr, size)
    }
    fn store(&mut self, sp: Sp, lane: usize, addr: u64, size: u32, value: u64) -> Result<(), MemFault> {
        self.inner.store(sp, lane, addr, size, value)?;
        self.writes.push(GuestWrite { sp, lane, addr, size });
        Ok(())
    }
    fn rmw32(&mut self, sp: Sp, lane: usize, addr: u64, f: &mut dyn FnMut(u32) -> u32) -> Result<u32, MemFault> {
        let old = self.inner.rmw32(sp, lane, addr, f)?;
        self.writes.push(GuestWrite { sp, lane, addr, size: 4 });
        Ok(old)
    }
    fn check_span(&self, sp: Sp, lo: u64, len: u64, write: bool) -> bool {
        self.inner.check_span(sp, lo, len, write)
    }
    // `load_lanes` and `store_lanes` keep their lane-by-lane defaults (through `store`, which notes each
    // write), and no host region is handed out: every write goes through `store` or `rmw32`.
    fn host_region(&mut self, _sp: Sp, _addr: u64, _write: bool) -> Option<HostRegion> {
        None
    }
}
