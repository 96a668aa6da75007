/**
 * glibc's malloc for processes that allocate and free blocks of megabytes over and over: blocks up
 * to 8 MB come from the heap, and up to 64 MB of freed heap is kept for the next allocation. With
 * glibc's defaults such a block is mapped fresh and handed back each time, and on a virtual machine
 * every one of its pages then faults on first touch (a fresh 2 MB Buffer took 2.3 ms to fill here,
 * a reused one 0.2 ms). Two processes pay that:
 * - PostgreSQL: the ~1 MB bitmap a 10,000-match search builds (docs/list-performance.md).
 * - delivery: every cache miss's body, about 2 MB for a 720p segment (docs/delivery-performance.md).
 * It reaches them as GLIBC_TUNABLES in their environment; deploy/compose.yaml sets the same
 * (test/deploy/manifests.test.ts holds them equal). Each process keeps up to 64 MB it freed.
 */
export const MALLOC_TUNABLES = 'glibc.malloc.mmap_threshold=8388608:glibc.malloc.trim_threshold=67108864';
