//! The process's code cache: kernels made from the same code words with the same `CompileConfig` share one
//! decoded form, one compiled code of each tier and one tiering state (heat and hot-block code), so a harness
//! that loads a kernel again (from Python, C, or a file it re-reads) compiles it once. The key leaves out the
//! kernel's metadata (name, workgroup size, memory sizes, argument block): nothing compiled reads it, so
//! kernels that differ only there share code too.
//!
//! The cache keeps its entries alive after their kernels are dropped, up to `CACHE_BYTES`; past that, the least
//! recently used entries go. An entry counts its words, their decoded form and its machine code: compiled code
//! arrives after the entry is made (often on a compile thread), so until a look-up measures it again, an entry
//! counts the most machine code its words are expected to make (`CODE_BYTES_PER_WORD`). An evicted entry
//! stays valid for the kernels that still hold it.

use crate::tier::{CompileConfig, HotBlocks};
use lanejit_interp::Code;
use lanejit_jit::{CompiledKernel, JitError};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock};

/// Bytes the cache may hold before it drops its least recently used entries.
pub const CACHE_BYTES: usize = 256 << 20;

/// Machine code bytes an entry is counted for per code word until it is measured: above what the optimising
/// tier makes of the bundled examples plus their quick code, so that the cache errs towards holding less.
const CODE_BYTES_PER_WORD: usize = 512;

/// What kernels of one content share.
pub(crate) struct Shared {
    pub code: Arc<Code>,
    pub jit: Arc<OnceLock<Result<CompiledKernel, JitError>>>,
    pub quick: Arc<OnceLock<Result<CompiledKernel, JitError>>>,
    pub auto_tiering: Arc<HotBlocks>,
    pub jit_promotion: Arc<HotBlocks>,
}

impl Shared {
    /// Nothing decoded beyond `words`, nothing compiled or counted.
    pub fn new(words: Vec<u32>, config: &CompileConfig) -> Shared {
        let code = Arc::new(Code::new(words));
        let memo = config.reuse_opt_code.then(Arc::default);
        let tiering = |threshold| {
            HotBlocks::new(&code, threshold, config.jit).with_background(config.background()).with_memo(memo.clone())
        };
        let (auto_tiering, jit_promotion) = (Arc::new(tiering(config.auto_hot)), Arc::new(tiering(config.jit_hot)));
        Shared { code, jit: Arc::default(), quick: Arc::default(), auto_tiering, jit_promotion }
    }

    fn clone_parts(&self) -> Shared {
        Shared {
            code: self.code.clone(),
            jit: self.jit.clone(),
            quick: self.quick.clone(),
            auto_tiering: self.auto_tiering.clone(),
            jit_promotion: self.jit_promotion.clone(),
        }
    }

    /// Bytes held: the words and their decoded form, and the machine code compiled so far or, if more, the
    /// machine code expected of the words (`CODE_BYTES_PER_WORD`).
    fn bytes(&self) -> usize {
        let decoded = std::mem::size_of_val(self.code.decoded.as_slice());
        let compiled = |c: &OnceLock<Result<CompiledKernel, JitError>>| {
            c.get().and_then(|r| r.as_ref().ok()).map_or(0, |k| k.code_bytes)
        };
        let tiered = |t: &HotBlocks| t.current().map_or(0, |k| k.code_bytes);
        let machine =
            compiled(&self.jit) + compiled(&self.quick) + tiered(&self.auto_tiering) + tiered(&self.jit_promotion);
        4 * self.code.words.len() + decoded + machine.max(CODE_BYTES_PER_WORD * self.code.words.len())
    }
}

/// The cache's counts (`code_cache_stats`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CodeCacheStats {
    /// Kernels made from a content already in the cache.
    pub hits: u64,
    /// Kernels whose content was new to it.
    pub misses: u64,
    /// Entries dropped to stay within `CACHE_BYTES`.
    pub evictions: u64,
    /// Entries held now.
    pub entries: usize,
    /// Bytes held now, as last measured (see the module's text).
    pub bytes: usize,
}

#[derive(PartialEq, Eq, Hash, Clone)]
struct Key {
    words: Arc<[u32]>,
    config: CompileConfig,
}

struct Entry {
    shared: Shared,
    /// Its place in `Cache::by_use`.
    used: u64,
    bytes: usize,
}

#[derive(Default)]
struct Cache {
    entries: HashMap<Key, Entry>,
    /// Entries by last use, oldest first.
    by_use: BTreeMap<u64, Key>,
    tick: u64,
    stats: CodeCacheStats,
}

fn cache() -> &'static Mutex<Cache> {
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    CACHE.get_or_init(Mutex::default)
}

/// The shared parts for `words` under `config`: those of the cache's entry, or new ones it now holds.
pub(crate) fn lookup(words: &[u32], config: &CompileConfig) -> Shared {
    let mut c = cache().lock().expect("code cache");
    c.tick += 1;
    let tick = c.tick;
    let key = Key { words: Arc::from(words), config: *config };
    if let Some(e) = c.entries.get_mut(&key) {
        let (old, parts) = (std::mem::replace(&mut e.used, tick), e.shared.clone_parts());
        let (before, now) = (e.bytes, e.shared.bytes());
        e.bytes = now;
        c.by_use.remove(&old);
        c.by_use.insert(tick, key);
        c.stats.hits += 1;
        c.stats.bytes = c.stats.bytes - before + now;
        return parts;
    }
    let shared = Shared::new(words.to_vec(), config);
    let (parts, bytes) = (shared.clone_parts(), shared.bytes());
    c.entries.insert(key.clone(), Entry { shared, used: tick, bytes });
    c.by_use.insert(tick, key);
    c.stats.misses += 1;
    c.stats.bytes += bytes;
    c.evict();
    parts
}

impl Cache {
    /// Drops the least recently used entries while the cache holds more than `CACHE_BYTES`. The newest entry
    /// stays.
    fn evict(&mut self) {
        while self.stats.bytes > CACHE_BYTES && self.entries.len() > 1 {
            let Some((_, key)) = self.by_use.pop_first() else { break };
            if let Some(e) = self.entries.remove(&key) {
                self.stats.bytes = self.stats.bytes.saturating_sub(e.bytes);
                self.stats.evictions += 1;
            }
        }
        self.stats.entries = self.entries.len();
    }
}

/// The code cache's hits, misses, evictions, entries and bytes so far in this process.
pub fn code_cache_stats() -> CodeCacheStats {
    let c = cache().lock().expect("code cache");
    CodeCacheStats { entries: c.entries.len(), ..c.stats }
}
