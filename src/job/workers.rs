//! How many pages a job works on at once when the user does not say: one
//! per core, but no more than the memory available holds at their peak.
//!
//! Each page is budgeted [`PEAK_PER_PAGE_BYTE`] times its size: parsing and
//! extracting peak under four times (the page, the tree, its text; measured
//! on 200 MB pages by `bench/peak_memory.py`), and healing adds the
//! tree-gram matching and the page's snapshot on top. So `n` pages of the
//! largest size given need `n` times that. A 240 MB page then takes one worker where a 2-core machine
//! with 4 GB free would otherwise run two and run out.
//!
//! The rule reads no clock and no file: the caller gives the cores and the
//! memory available (`MemAvailable` on Linux), and gets the count.
//!
//! ## What it refuses
//!
//! It never gives fewer than one worker, even when the memory holds no page
//! (zero cores count as one), nor more than the cores given. Memory not
//! known leaves the cores alone to decide. A page too large to multiply
//! saturates the arithmetic rather than overflow it.

/// Bytes a page takes at its peak, per byte of the page.
pub const PEAK_PER_PAGE_BYTE: u64 = 10;

/// The worker count for pages of at most `largest_page` bytes on a machine
/// with `cores` cores and `available` bytes of memory free (`None`: not
/// known, so cores alone decide). Never below one.
pub fn default_workers(cores: usize, largest_page: u64, available: Option<u64>) -> usize {
    let cores = cores.max(1);
    let Some(available) = available else {
        return cores;
    };
    let per_page = largest_page.saturating_mul(PEAK_PER_PAGE_BYTE).max(1);
    let fit = usize::try_from(available / per_page).unwrap_or(usize::MAX);
    cores.min(fit).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(cores: usize, largest_page: u64, available: Option<u64>, expected: usize) {
        assert_eq!(
            default_workers(cores, largest_page, available),
            expected,
            "{cores} cores, a {largest_page}-byte page, {available:?} bytes free"
        );
    }

    const MB: u64 = 1_000_000;
    const GB: u64 = 1_000_000_000;

    #[test]
    fn small_pages_take_a_worker_per_core() {
        check(8, 200_000, Some(4 * GB), 8);
        check(2, 5 * MB, Some(16 * GB), 2);
    }

    #[test]
    fn large_pages_take_only_the_workers_memory_holds() {
        // 240 MB pages peak at 2.4 GB: 4 GB holds one.
        check(2, 240 * MB, Some(4 * GB), 1);
        check(16, 200 * MB, Some(20 * GB), 10);
    }

    #[test]
    fn never_fewer_than_one_and_cores_alone_when_memory_is_unknown() {
        check(4, 10 * GB, Some(GB), 1);
        check(0, 0, Some(0), 1);
        check(6, 240 * MB, None, 6);
        check(3, u64::MAX, Some(u64::MAX), 1);
    }
}
