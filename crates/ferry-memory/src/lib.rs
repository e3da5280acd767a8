//! The worker's memory allocator, and how the memory it frees goes back to the system.
//!
//! On Linux the whole process allocates through jemalloc: Ferry's own code and the C libraries
//! it links (librdkafka, OpenSSL, Cyrus SASL). glibc's allocator was the largest cost in every
//! pipeline's profile (`bench/profiles/allocator.md`): librdkafka allocates each fetched or
//! produced message's bookkeeping on its broker thread and the task's thread frees it, and
//! glibc takes the allocating thread's arena lock for every such free and every `calloc` (it has
//! no thread cache for `calloc`), so the two threads spent a quarter of their time in that lock.
//! jemalloc gives each thread a small cache and returns freed memory to its arena in batches.
//!
//! Its thread caches are kept small and its arenas few (see [`SETTINGS`]) because a worker runs
//! four threads per connector client: with jemalloc's defaults a worker with 50 idle source
//! connectors held twice the memory it holds with glibc. `MALLOC_CONF` in the environment still
//! overrides any of these settings, as jemalloc documents.
//!
//! Elsewhere the process keeps the system's allocator.

use std::time::Duration;

/// How often the worker gives freed memory back.
pub const RELEASE_INTERVAL: Duration = Duration::from_secs(5);

/// The global allocator the `ferry` binary (and the benchmarks' raw client) declare.
#[cfg(target_os = "linux")]
pub type Allocator = tikv_jemallocator::Jemalloc;
#[cfg(target_os = "linux")]
pub const ALLOCATOR: Allocator = tikv_jemallocator::Jemalloc;
#[cfg(not(target_os = "linux"))]
pub type Allocator = std::alloc::System;
#[cfg(not(target_os = "linux"))]
pub const ALLOCATOR: Allocator = std::alloc::System;

macro_rules! settings {
    () => {
        concat!(
            "narenas:2,background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0,",
            "tcache_max:4096,tcache_nslots_small_min:4,tcache_nslots_small_max:16,",
            "tcache_nslots_large:2"
        )
    };
}
use settings;

/// jemalloc's settings (its `malloc_conf` string), measured on the benchmarks' workloads:
/// - `narenas:2`: two arenas rather than four per core; the hot threads (a task's, its client's
///   broker thread) are few, and each arena holds partly used pages of every size class.
/// - `tcache_*`: thread caches of at most 16 small and 2 large objects per size class, for
///   sizes up to 4 KiB; jemalloc's defaults (up to 200 per class, up to 32 KiB) cost about
///   50 MiB over 200 mostly idle client threads.
/// - `background_thread`, `dirty_decay_ms`: freed pages go back to the system from a thread of
///   jemalloc's own, a second after they were last used, instead of during an allocation.
pub const SETTINGS: &str = settings!();

/// How many freed blocks of each small size class a thread given [`widen_thread_cache`] keeps.
pub const WIDE_THREAD_CACHE: usize = 128;

/// Gives the calling thread a cache of [`WIDE_THREAD_CACHE`] freed blocks per small size class
/// instead of the process-wide 16; `false` where the allocator has no such setting. For the few
/// threads that run pipelines (Tokio's workers): a source task allocates each record's strings
/// and offset and frees them a batch later, and with 16 blocks per class a fifth of its thread's
/// instructions went to refilling and flushing that cache (`bench/profiles/w1-source-pipeline.md`).
/// The many threads of librdkafka's clients keep the small caches that keep idle connectors
/// light. With `MALLOC_CONF` in the environment the user's cache sizes stand for every thread,
/// and this does nothing.
pub fn widen_thread_cache() -> bool {
    std::env::var_os("MALLOC_CONF").is_none() && imp::widen_thread_cache()
}

/// Returns the free pages of every allocator arena to the operating system at once; `false`
/// where the allocator offers no way to.
pub fn release_free_memory() -> bool {
    imp::release()
}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
mod imp {
    use std::ffi::c_char;
    #[cfg(test)]
    use std::ffi::{c_void, CString};

    /// jemalloc reads this symbol at its first allocation; a strong definition here replaces
    /// its weak default. Kept in the module whose functions the binary calls, so the linker
    /// takes it from this object.
    #[repr(transparent)]
    pub struct ConfString(*const c_char);
    // SAFETY: it points at a 'static, immutable, NUL-terminated string.
    unsafe impl Sync for ConfString {}

    const SETTINGS_NUL: &str = concat!(super::settings!(), "\0");

    #[no_mangle]
    #[used]
    pub static malloc_conf: ConfString = ConfString(SETTINGS_NUL.as_ptr().cast());

    /// `MALLCTL_ARENAS_ALL`: the pseudo-index that names every arena.
    const PURGE_ALL: &[u8] = b"arena.4096.purge\0";

    const NCACHED_MAX_WRITE: &[u8] = b"thread.tcache.ncached_max.write\0";

    pub(super) fn widen_thread_cache() -> bool {
        // jemalloc's per-thread `ncached_max` setting: sizes `from-to:count` (up to tcache_max).
        let Ok(wide) = std::ffi::CString::new(format!("0-4096:{}", super::WIDE_THREAD_CACHE))
        else {
            return false;
        };
        let settings: *const c_char = wide.as_ptr();
        // SAFETY: the setting takes a pointer to a NUL-terminated string, which jemalloc reads
        // during the call; the name is NUL-terminated.
        let rc = unsafe {
            tikv_jemalloc_sys::mallctl(
                NCACHED_MAX_WRITE.as_ptr().cast(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                (&settings as *const *const c_char).cast_mut().cast(),
                std::mem::size_of::<*const c_char>(),
            )
        };
        rc == 0
    }

    /// How many freed blocks of `size` bytes the calling thread's cache keeps.
    #[cfg(test)]
    pub(super) fn thread_cache_slots(size: usize) -> Option<usize> {
        let mut size = size;
        let mut slots = 0usize;
        let mut len = std::mem::size_of::<usize>();
        // SAFETY: the setting reads a size_t size and answers a size_t count into `slots`.
        let rc = unsafe {
            tikv_jemalloc_sys::mallctl(
                c"thread.tcache.ncached_max.read_sizeclass".as_ptr(),
                (&mut slots as *mut usize).cast(),
                &mut len,
                (&mut size as *mut usize).cast(),
                std::mem::size_of::<usize>(),
            )
        };
        (rc == 0).then_some(slots)
    }

    pub(super) fn release() -> bool {
        std::hint::black_box(&malloc_conf);
        // SAFETY: "arena.<i>.purge" takes and returns nothing; the name is NUL-terminated.
        let rc = unsafe {
            tikv_jemalloc_sys::mallctl(
                PURGE_ALL.as_ptr().cast(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                0,
            )
        };
        rc == 0
    }

    /// The value of one of jemalloc's numeric or boolean `opt.*` settings as it runs with it.
    #[cfg(test)]
    pub(super) fn setting(name: &str) -> Option<String> {
        std::hint::black_box(&malloc_conf);
        let key = CString::new(format!("opt.{name}")).ok()?;
        // jemalloc answers only a read of the setting's exact size (a size_t or ssize_t, an
        // unsigned, a bool): try each in turn.
        for size in [std::mem::size_of::<usize>(), 4, 1] {
            let mut value = [0u8; std::mem::size_of::<usize>()];
            let mut len = size;
            // SAFETY: `value` has room for `len` bytes and jemalloc writes at most `len`.
            let rc = unsafe {
                tikv_jemalloc_sys::mallctl(
                    key.as_ptr(),
                    value.as_mut_ptr().cast::<c_void>(),
                    &mut len,
                    std::ptr::null_mut(),
                    0,
                )
            };
            if rc == 0 {
                return Some(match size {
                    1 => (value[0] != 0).to_string(),
                    4 => u32::from_ne_bytes(value[..4].try_into().ok()?).to_string(),
                    _ => (usize::from_ne_bytes(value) as isize).to_string(),
                });
            }
        }
        None
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    pub(super) fn release() -> bool {
        false
    }

    pub(super) fn widen_thread_cache() -> bool {
        false
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[global_allocator]
    static GLOBAL: Allocator = ALLOCATOR;

    #[test]
    fn the_allocator_runs_with_ferry_s_settings() {
        if std::env::var_os("MALLOC_CONF").is_some() {
            panic!("unset MALLOC_CONF: it overrides the settings this test checks");
        }
        assert_eq!(imp::setting("narenas").as_deref(), Some("2"));
        assert_eq!(imp::setting("tcache_max").as_deref(), Some("4096"));
        assert_eq!(
            imp::setting("tcache_nslots_small_max").as_deref(),
            Some("16")
        );
        assert_eq!(imp::setting("background_thread").as_deref(), Some("true"));
        assert_eq!(imp::setting("dirty_decay_ms").as_deref(), Some("1000"));
    }

    #[test]
    fn a_widened_thread_caches_more_and_other_threads_keep_the_small_cache() {
        if std::env::var_os("MALLOC_CONF").is_some() {
            panic!("unset MALLOC_CONF: with it, threads keep the caches it sets");
        }
        let widened = std::thread::spawn(|| {
            let before = imp::thread_cache_slots(112);
            assert!(widen_thread_cache());
            (
                before,
                imp::thread_cache_slots(112),
                imp::thread_cache_slots(4096),
            )
        })
        .join()
        .unwrap();
        assert_eq!(
            widened,
            (Some(16), Some(WIDE_THREAD_CACHE), Some(WIDE_THREAD_CACHE))
        );
        let other = std::thread::spawn(|| imp::thread_cache_slots(112))
            .join()
            .unwrap();
        assert_eq!(other, Some(16));
    }

    #[test]
    fn c_code_allocates_from_the_same_allocator() {
        // A block from C's malloc is one jemalloc knows: its usable size is jemalloc's size
        // class for 100 bytes (112), where glibc's would be 104 or 120.
        let p = unsafe_malloc(100);
        assert_eq!(usable(p), 112);
        unsafe_free(p);
    }

    fn resident_kib() -> u64 {
        std::fs::read_to_string("/proc/self/status")
            .unwrap()
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap()
    }

    #[test]
    fn memory_freed_below_a_live_block_goes_back_to_the_system() {
        // 64 MiB in small blocks, then one block above them that stays.
        let blocks: Vec<Vec<u8>> = (0..65_536).map(|i| vec![i as u8; 1024]).collect();
        let pinned = vec![1u8; 1024];
        drop(blocks);
        let before = resident_kib();
        // jemalloc's background thread may hold the freed pages while it starts returning
        // them on its own schedule (a second after their last use): ask again until they are
        // back, well within that second.
        let deadline = std::time::Instant::now() + std::time::Duration::from_millis(400);
        let mut after;
        loop {
            assert!(release_free_memory());
            after = resident_kib();
            if before.saturating_sub(after) >= 32 * 1024 || std::time::Instant::now() >= deadline {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(
            before.saturating_sub(after) >= 32 * 1024,
            "resident {before} KiB before, {after} KiB after"
        );
        assert_eq!(pinned[0], 1);
    }

    #[allow(unsafe_code)]
    fn unsafe_malloc(size: usize) -> *mut std::ffi::c_void {
        extern "C" {
            fn malloc(size: usize) -> *mut std::ffi::c_void;
        }
        // SAFETY: plain C malloc; freed below with free.
        unsafe { malloc(size) }
    }

    #[allow(unsafe_code)]
    fn unsafe_free(p: *mut std::ffi::c_void) {
        extern "C" {
            fn free(p: *mut std::ffi::c_void);
        }
        // SAFETY: `p` came from malloc above.
        unsafe { free(p) }
    }

    #[allow(unsafe_code)]
    fn usable(p: *mut std::ffi::c_void) -> usize {
        extern "C" {
            fn malloc_usable_size(p: *mut std::ffi::c_void) -> usize;
        }
        // SAFETY: `p` is a live block from malloc.
        unsafe { malloc_usable_size(p) }
    }
}
