//! The global allocator of the `v4t` binaries: mimalloc (v2, with
//! transparent huge pages).
//!
//! Resolving allocates millions of small maps and strings on a worker
//! thread, where glibc grows a secondary arena with `mprotect` page by page
//! (20% of the family-1 benchmark). The `mimalloc` crate's allocator calls
//! `mi_malloc_aligned` for every request, whose checks cost about 80
//! instructions a call (family 1 seed 10,000: 11% of `v4t resolve`).
//! [`Mimalloc`] calls plain `mi_malloc` where mimalloc's size classes
//! satisfy the alignment by themselves, as the C library's own
//! `mi_malloc_is_naturally_aligned` decides (see [`natural`]), and the
//! aligned entry points otherwise.

use libmimalloc_sys as sys;
use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

/// mimalloc as a [`GlobalAlloc`].
pub struct Mimalloc;

/// Whether a block of mimalloc's size class for `size` is aligned to
/// `align` without asking: every size class is a multiple of 8 bytes, and
/// one of a multiple of 16 bytes holds 16-aligned blocks (a page's first
/// block is aligned to `MI_MAX_ALIGN_SIZE`, 16). Rust sizes are multiples
/// of their alignment, so this is every request of alignment 16 or less.
#[inline]
pub fn natural(size: usize, align: usize) -> bool {
    align <= 8 || (align == 16 && size.is_multiple_of(16))
}

// SAFETY: every method passes the request on to mimalloc, which returns
// null or a block of at least `size` bytes aligned as `natural` says, or
// as asked through the aligned entry points; `dealloc` and `realloc` get
// blocks this allocator gave out.
unsafe impl GlobalAlloc for Mimalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: plain calls into mimalloc.
        unsafe {
            if natural(layout.size(), layout.align()) {
                sys::mi_malloc(layout.size()).cast()
            } else {
                sys::mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: plain calls into mimalloc.
        unsafe {
            if natural(layout.size(), layout.align()) {
                sys::mi_zalloc(layout.size()).cast()
            } else {
                sys::mi_zalloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from this allocator.
        unsafe { sys::mi_free(ptr.cast::<c_void>()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from this allocator; the new block keeps the
        // alignment as `alloc` would give it.
        unsafe {
            if natural(new_size, layout.align()) {
                sys::mi_realloc(ptr.cast::<c_void>(), new_size).cast()
            } else {
                sys::mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align()).cast()
            }
        }
    }
}

/// mimalloc's `mi_option_purge_delay` (its `mi_option_e` in `mimalloc.h`
/// of v2; the bindings name only some options).
const MI_OPTION_PURGE_DELAY: sys::mi_option_t = 15;

/// mimalloc's `mi_option_arena_purge_mult`: arenas purge after this many
/// purge delays.
const MI_OPTION_ARENA_PURGE_MULT: sys::mi_option_t = 24;

/// Memory freed goes back to the system after a second instead of 10 ms:
/// `analyze` frees and allocates hundreds of megabytes again and again
/// (each model count simplifies its own copy of the problem), and every
/// page given back costs a page fault and a zeroed page when taken again
/// (family 1 seed 10,000: 22,800 page faults, a fifth of the time, down to
/// 450). The peak does not change there; elsewhere it would grow
/// (resolving family 2 n = 10,000: 11 MB more), so only `analyze` asks for
/// it. Call it before other threads start.
pub fn keep_freed_memory_a_second() {
    // SAFETY: sets an integer option of the allocator.
    unsafe { sys::mi_option_set(MI_OPTION_PURGE_DELAY, 1000) }
}

/// Memory freed back to mimalloc's arenas (whole 32 MiB segments: a block
/// over 16 MiB such as the source text once parsed, or a segment whose
/// blocks are all free) goes back to the system at once instead of after
/// ten purge delays (100 ms); free pages inside a segment keep their 10 ms,
/// so that a stage that frees and allocates many small blocks reuses its
/// pages instead of faulting them in again. The other commands build their
/// large structures once, and what one stage freed would otherwise still
/// be resident when the next peaks: resolving family 1 seed 100,000 peaks
/// at 592 MB instead of 600-607, for no more page faults (purging every
/// page at once: 585 MB, but family 2 n = 10,000 takes 14% longer with
/// five times the page faults; docs/benchmark.md, twenty-ninth round).
/// Call it before other threads start.
pub fn return_freed_segments_at_once() {
    // SAFETY: sets an integer option of the allocator.
    unsafe { sys::mi_option_set(MI_OPTION_ARENA_PURGE_MULT, 0) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every block is aligned as its layout asks and keeps its bytes
    /// through growing and shrinking, over sizes around mimalloc's small
    /// size classes (8-byte steps up to 64, then four classes per doubling)
    /// and alignments from 1 to 4096.
    #[test]
    fn blocks_are_aligned_and_keep_their_bytes() {
        let a = Mimalloc;
        let mut checked = 0;
        for align in [1usize, 2, 4, 8, 16, 32, 64, 4096] {
            // Sizes as written (a `Layout` need not be a multiple of its
            // alignment: 24 bytes aligned to 16 must not take the 24-byte
            // class) and rounded up to the alignment.
            let sizes = (1usize..=600).chain([4095, 4096, 70_000, 1 << 21]);
            for size in sizes.flat_map(|s| [s, s.next_multiple_of(align)]) {
                let layout = Layout::from_size_align(size, align).unwrap();
                // Several blocks of one class, so that later blocks of a
                // page are checked and not only its first.
                let blocks: Vec<*mut u8> = (0..5)
                    .map(|i| unsafe {
                        let p = if i % 2 == 0 {
                            a.alloc(layout)
                        } else {
                            a.alloc_zeroed(layout)
                        };
                        assert!(!p.is_null());
                        assert_eq!(p as usize % align, 0, "size {size}, align {align}");
                        p.write_bytes(i as u8 + 1, size);
                        p
                    })
                    .collect();
                for (i, &p) in blocks.iter().enumerate() {
                    let bigger = size * 3;
                    let q = unsafe { a.realloc(p, layout, bigger) };
                    assert_eq!(q as usize % align, 0, "size {bigger}, align {align}");
                    let kept = unsafe { std::slice::from_raw_parts(q, size) };
                    assert!(kept.iter().all(|&b| b == i as u8 + 1));
                    let grown = Layout::from_size_align(bigger, align).unwrap();
                    let r = unsafe { a.realloc(q, grown, align) };
                    assert_eq!(r as usize % align, 0);
                    assert_eq!(unsafe { *r }, i as u8 + 1);
                    unsafe { a.dealloc(r, Layout::from_size_align(align, align).unwrap()) };
                    checked += 1;
                }
            }
        }
        assert!(checked > 40_000);
    }

    #[test]
    fn zeroed_blocks_are_zero() {
        let a = Mimalloc;
        for size in [1usize, 24, 48, 1000, 100_000] {
            let layout = Layout::from_size_align(size, 8).unwrap();
            // A dirty block of the same class first, so that a reused
            // block must be cleared.
            unsafe {
                let dirty = a.alloc(layout);
                dirty.write_bytes(0xAB, size);
                a.dealloc(dirty, layout);
                let p = a.alloc_zeroed(layout);
                assert!(std::slice::from_raw_parts(p, size).iter().all(|&b| b == 0));
                a.dealloc(p, layout);
            }
        }
    }

    /// The options these functions set are the purge delay and the
    /// arenas' multiple of it: their defaults are mimalloc v2's 10 ms and
    /// 10 (another option number would read differently), and each
    /// function leaves the value it names.
    #[test]
    fn the_options_set_are_the_purge_delays() {
        let get = |option| unsafe { sys::mi_option_get(option) };
        assert_eq!(get(MI_OPTION_PURGE_DELAY), 10);
        assert_eq!(get(MI_OPTION_ARENA_PURGE_MULT), 10);
        keep_freed_memory_a_second();
        assert_eq!(get(MI_OPTION_PURGE_DELAY), 1000);
        return_freed_segments_at_once();
        assert_eq!(get(MI_OPTION_ARENA_PURGE_MULT), 0);
        assert_eq!(get(MI_OPTION_PURGE_DELAY), 1000);
    }

    #[test]
    fn natural_alignments_are_those_of_size_classes() {
        assert!(natural(24, 8));
        assert!(natural(3, 1));
        assert!(natural(48, 16));
        assert!(!natural(24, 16));
        assert!(!natural(64, 32));
    }
}
