// What reading a file from the page cache can reach on this machine, apart
// from prores-decode: T threads pread(2) consecutive chunks of FILE (each
// thread its own reused buffer), against T threads copying memory, and
// mapping the file and copying from the mapping, and pread(2) into blocks
// taken in turn from one large pool as prores-decode's SampleMemory hands
// them out (`pool`: the pool touched first, so no page faults; `pool-fresh`:
// a new mapping, faulted in by the reads). Then prores-decode's two ways
// into a touched pool: `piece-pool`, pread of a 512 KB piece that stays in
// the cache and a streaming copy on (StreamingPread, the default), and
// `map-pool`, the file mapped once (not populated), each chunk populated
// with MADV_POPULATE_READ and streamed out of the file's own pages (the
// reader's `PRORES_DECODE_READ_COPY=mapped-once` until the seventeenth
// session, removed when it lost on the H200: BENCHMARKS.md §7); a fresh
// mapping for every thread count, so each pays its page tables as it did.
// Prints GB/s per method and thread count. The file should be in the page
// cache (read it once first).
//
//   cc -O2 -pthread -ISources/CStreamingCopy/include -o read-ceiling scripts/read-ceiling.c Sources/CStreamingCopy/streaming_copy.c
//   ./read-ceiling FILE [CHUNK_BYTES (3800000)]
//   (READER_ONLY=1 in the environment: only piece-pool and map-pool;
//   POOL_MB=N: a pool of N MB instead of 2048)
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "streaming_copy.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

static const char *path;
static size_t chunk;
static off_t fileSize;
static int fd;
static unsigned char *mapped;
// POOL: blocks of `chunk` bytes (page-rounded), chunk c in block c % poolBlocks.
static unsigned char *pool;
static size_t poolBlocks, poolStride;

enum method { PREAD, MEMCPY, MMAP_COPY, POOL, PIECE_POOL, MAP_POOL };
enum { PIECE = 512 << 10 };
struct job { int thread, threads; enum method method; unsigned char *buffer, *source; size_t bytes; };

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void *work(void *arg) {
    struct job *j = arg;
    size_t chunks = (size_t)(fileSize / (off_t)chunk);
    for (size_t c = (size_t)j->thread; c < chunks; c += (size_t)j->threads) {
        off_t offset = (off_t)(c * chunk);
        switch (j->method) {
        case PREAD:
        case POOL: {
            unsigned char *to = j->method == POOL ? pool + (c % poolBlocks) * poolStride : j->buffer;
            size_t done = 0;
            while (done < chunk) {
                ssize_t n = pread(fd, to + done, chunk - done, offset + (off_t)done);
                if (n <= 0) { perror("pread"); exit(1); }
                done += (size_t)n;
            }
            break;
        }
        case PIECE_POOL: {
            unsigned char *to = pool + (c % poolBlocks) * poolStride;
            for (size_t done = 0; done < chunk;) {
                size_t want = chunk - done < PIECE ? chunk - done : PIECE;
                ssize_t n = pread(fd, j->buffer, want, offset + (off_t)done);
                if (n <= 0) { perror("pread"); exit(1); }
                pd_copy_streaming(to + done, j->buffer, (size_t)n);
                done += (size_t)n;
            }
            break;
        }
        case MAP_POOL: {
            off_t start = offset & ~(off_t)4095;
            if (madvise(mapped + start, (size_t)(offset - start) + chunk, MADV_POPULATE_READ) != 0) { perror("madvise"); exit(1); }
            pd_copy_streaming(pool + (c % poolBlocks) * poolStride, mapped + offset, chunk);
            break;
        }
        case MEMCPY: memcpy(j->buffer, j->source + (c % 64) * chunk, chunk); break;
        case MMAP_COPY: memcpy(j->buffer, mapped + offset, chunk); break;
        }
        j->bytes += chunk;
    }
    return NULL;
}

static void measure(const char *name, enum method method, int threads, unsigned char *source) {
    pthread_t ids[64];
    struct job jobs[64];
    for (int t = 0; t < threads; t++) {
        jobs[t] = (struct job){ t, threads, method, aligned_alloc(4096, chunk), source, 0 };
        memset(jobs[t].buffer, 1, chunk);  // touched: no page faults in the timed part
    }
    double start = now();
    for (int t = 0; t < threads; t++) pthread_create(&ids[t], NULL, work, &jobs[t]);
    size_t bytes = 0;
    for (int t = 0; t < threads; t++) { pthread_join(ids[t], NULL); bytes += jobs[t].bytes; free(jobs[t].buffer); }
    double seconds = now() - start;
    printf("%-10s threads %2d: %6.2f GB/s (%.2f GB in %.3f s)\n", name, threads, bytes / seconds / 1e9, bytes / 1e9, seconds);
    fflush(stdout);
}

// Whether the pool's block of the file's last whole chunk holds its bytes
// (read again with pread): the copies above are what they claim to be.
static void checkPool(const char *name) {
    size_t chunks = (size_t)(fileSize / (off_t)chunk);
    if (chunks == 0) return;
    unsigned char *expect = malloc(chunk);
    off_t offset = (off_t)((chunks - 1) * chunk);
    int same = pread(fd, expect, chunk, offset) == (ssize_t)chunk
        && memcmp(expect, pool + ((chunks - 1) % poolBlocks) * poolStride, chunk) == 0;
    printf("%-10s the pool's last chunk %s the file\n", name, same ? "equals" : "DIFFERS FROM");
    // Cleared, so the next method's check sees only its own copy.
    memset(pool + ((chunks - 1) % poolBlocks) * poolStride, 0, chunk);
    free(expect);
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: read-ceiling FILE [CHUNK_BYTES]\n"); return 2; }
    path = argv[1];
    chunk = argc > 2 ? strtoul(argv[2], NULL, 10) : 3800000;
    fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) { perror(path); return 1; }
    fileSize = st.st_size;
    int counts[] = { 1, 2, 4, 8, 12, 16 };
    unsigned char *source = aligned_alloc(4096, 64 * chunk);
    memset(source, 3, 64 * chunk);
    measure("warm-up", PREAD, 16, NULL);
    poolStride = (chunk + 4095) / 4096 * 4096;
    poolBlocks = ((size_t)(getenv("POOL_MB") ? atoi(getenv("POOL_MB")) : 2048) << 20) / poolStride;
    if (poolBlocks == 0) { fprintf(stderr, "the pool holds no chunk\n"); return 2; }
    if (!getenv("READER_ONLY")) {
        for (unsigned i = 0; i < sizeof counts / sizeof *counts; i++) measure("pread", PREAD, counts[i], NULL);
        for (unsigned i = 0; i < sizeof counts / sizeof *counts; i++) measure("memcpy", MEMCPY, counts[i], source);
        mapped = mmap(NULL, (size_t)fileSize, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
        if (mapped == MAP_FAILED) { perror("mmap"); return 1; }
        for (unsigned i = 0; i < sizeof counts / sizeof *counts; i++) measure("mmap-copy", MMAP_COPY, counts[i], NULL);
        // A pool of 2 GiB by default (~560 blocks of 3.8 MB), huge pages advised, as SampleMemory maps its regions.
        for (int fresh = 0; fresh < 2; fresh++) {
            for (unsigned i = 0; i < sizeof counts / sizeof *counts; i++) {
                pool = mmap(NULL, poolBlocks * poolStride, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                if (pool == MAP_FAILED) { perror("mmap pool"); return 1; }
                madvise(pool, poolBlocks * poolStride, MADV_HUGEPAGE);
                if (!fresh) memset(pool, 1, poolBlocks * poolStride);
                measure(fresh ? "pool-fresh" : "pool", POOL, counts[i], NULL);
                munmap(pool, poolBlocks * poolStride);
            }
        }
        munmap(mapped, (size_t)fileSize);
    }
    pool = mmap(NULL, poolBlocks * poolStride, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pool == MAP_FAILED) { perror("mmap pool"); return 1; }
    madvise(pool, poolBlocks * poolStride, MADV_HUGEPAGE);
    memset(pool, 1, poolBlocks * poolStride);
    for (unsigned i = 0; i < sizeof counts / sizeof *counts; i++) {
        measure("piece-pool", PIECE_POOL, counts[i], NULL);
        if (i == 0) checkPool("piece-pool");
        mapped = mmap(NULL, (size_t)fileSize, PROT_READ, MAP_SHARED, fd, 0);
        if (mapped == MAP_FAILED) { perror("mmap"); return 1; }
        measure("map-pool", MAP_POOL, counts[i], NULL);
        if (i == 0) checkPool("map-pool");
        // The reader unmaps when it goes, inside the process's time.
        double start = now();
        munmap(mapped, (size_t)fileSize);
        printf("map-pool   threads %2d: then unmapping the file took %.1f ms\n", counts[i], (now() - start) * 1e3);
    }
    return 0;
}
