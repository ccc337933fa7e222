// How fast the file reader could fill each kind of memory the GPU can read
// (issues #11 and #14: a decode from a file is bound by copying samples out
// of the page cache into imported host memory, ~28 GB/s with eight reads
// in flight while the GPU's DMA reads the same memory, and the imports cost
// ~28 ms a GB to pin and again to unpin at exit).
//
// Prints the device's memory heaps and types, then reads FILE (which should
// be in the page cache) in CHUNK_KB pieces, like samples, with each thread
// count of THREADS (comma-separated), into a ring of RING_MB megabytes of:
//   anon        anonymous memory, touched first (what SampleMemory holds);
//   anon-nt     the same, but read into a per-thread 1 MB buffer that stays
//               in cache and copied out with the reader's own streaming
//               copy (Sources/CStreamingCopy);
//   bar         device-local memory the host can map (resizable BAR), if the
//               device has it: pread straight into video memory over PCIe;
//   bar-bounce  the same through a per-thread 1 MB buffer;
//   anon-nt+dma anon-nt into a ring imported into Vulkan
//               (VK_EXT_external_memory_host) while a transfer copies that
//               ring into device memory again and again, as the decoder's
//               upload reads the reader's blocks: does the GPU's DMA of
//               host memory slow the reader, which writing video memory
//               over PCIe (bar) would spare? Printed beside it: the DMA's
//               own GB/s then, and alone (`dma alone`).
// and times allocating, mapping and freeing the BAR ring.
//
//   gcc -O2 -pthread -ISources/CStreamingCopy/include -o bar-probe scripts/bar-probe.c Sources/CStreamingCopy/streaming_copy.c -ldl
//   bar-probe FILE RING_MB CHUNK_KB THREADS
//
// Needs the Vulkan headers to build and the loader (libvulkan.so.1) to run;
// picks the first physical device.
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probe-vulkan.h"
#include "streaming_copy.h"

enum mode { DIRECT, BOUNCE, BOUNCE_NT };

struct job {
    int fd;
    long long file_bytes;
    size_t chunk;
    size_t slot;          // chunk rounded up to whole pages
    size_t slots;
    unsigned char **ring; // slot pointers
    enum mode mode;
    atomic_long next;
    atomic_int failed;
};

static void *worker(void *arg) {
    struct job *job = arg;
    const size_t bounce_bytes = 1 << 20;
    unsigned char *bounce = job->mode == DIRECT ? NULL : aligned_alloc(4096, bounce_bytes);
    long chunks = (long)((job->file_bytes - 4096) / (long long)job->chunk);
    for (;;) {
        long i = atomic_fetch_add(&job->next, 1);
        if (i >= chunks) break;
        unsigned char *to = job->ring[i % (long)job->slots];
        off_t offset = (off_t)i * (off_t)job->chunk + 1000;  // samples are not page-aligned in the file
        for (size_t done = 0; done < job->chunk;) {
            size_t want = job->chunk - done;
            if (bounce && want > bounce_bytes) want = bounce_bytes;
            ssize_t n = pread(job->fd, bounce ? bounce : to + done, want, offset + (off_t)done);
            if (n <= 0) { atomic_store(&job->failed, 1); goto out; }
            if (job->mode == BOUNCE) memcpy(to + done, bounce, (size_t)n);
            if (job->mode == BOUNCE_NT) pd_copy_streaming(to + done, bounce, (size_t)n);
            done += (size_t)n;
        }
    }
out:
    free(bounce);
    return NULL;
}

// One pass over the file; GB/s.
static double pass(struct job *job, int threads) {
    pthread_t tids[256];
    atomic_store(&job->next, 0);
    double t0 = now_ms();
    for (int t = 0; t < threads; t++) pthread_create(&tids[t], NULL, worker, job);
    for (int t = 0; t < threads; t++) pthread_join(tids[t], NULL);
    double ms = now_ms() - t0;
    long chunks = (long)((job->file_bytes - 4096) / (long long)job->chunk);
    return (double)chunks * (double)job->chunk / ms / 1e6;
}

static void run(const char *name, struct job *job, const char *threads_list) {
    char list[256];
    snprintf(list, sizeof list, "%s", threads_list);
    for (char *s = strtok(list, ","); s; s = strtok(NULL, ",")) {
        int threads = atoi(s);
        if (threads < 1 || threads > 256) continue;
        double first = pass(job, threads), second = pass(job, threads), third = pass(job, threads);
        printf("%-11s threads %2d: %6.2f / %6.2f / %6.2f GB/s%s\n", name, threads, first, second, third,
               atomic_load(&job->failed) ? "  (a read FAILED)" : "");
        fflush(stdout);
    }
}

// The upload's stand-in: copies the imported ring into a device-local
// buffer, one submission a pass over the ring, until `stop`.
struct dma {
    VkDevice device;
    VkQueue queue;
    VkCommandBuffer commands;
    VkFence fence;
    size_t ring_bytes;
    PFN_vkQueueSubmit submit;
    PFN_vkWaitForFences wait;
    PFN_vkResetFences reset;
    atomic_int stop;
    double bytes, ms;
    int failed;
};

static void *dma_loop(void *arg) {
    struct dma *d = arg;
    double t0 = now_ms();
    d->bytes = 0;
    while (!atomic_load(&d->stop)) {
        VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &d->commands};
        if (d->submit(d->queue, 1, &si, d->fence) != VK_SUCCESS
            || d->wait(d->device, 1, &d->fence, VK_TRUE, UINT64_MAX) != VK_SUCCESS
            || d->reset(d->device, 1, &d->fence) != VK_SUCCESS) { d->failed = 1; break; }
        d->bytes += (double)d->ring_bytes;
    }
    d->ms = now_ms() - t0;
    return NULL;
}

static void dma_start(struct dma *d, pthread_t *thread) {
    atomic_store(&d->stop, 0);
    pthread_create(thread, NULL, dma_loop, d);
}

static double dma_stop(struct dma *d, pthread_t thread) {
    atomic_store(&d->stop, 1);
    pthread_join(thread, NULL);
    return d->bytes / d->ms / 1e6;
}

// Imports `ring` (page-aligned, `bytes` a whole number of pages) and records
// its copy into device memory. 0, or 1 with the reason printed.
static int dma_make(struct probe_vulkan *probe, unsigned char *ring, size_t bytes, struct dma *d) {
    VkDevice device = probe->device;
    LOAD(probe->instance, vkGetPhysicalDeviceMemoryProperties);
    DLOAD(*probe, vkGetMemoryHostPointerPropertiesEXT);
    DLOAD(*probe, vkAllocateMemory);
    DLOAD(*probe, vkCreateBuffer);
    DLOAD(*probe, vkGetBufferMemoryRequirements);
    DLOAD(*probe, vkBindBufferMemory);
    DLOAD(*probe, vkCreateCommandPool);
    DLOAD(*probe, vkAllocateCommandBuffers);
    DLOAD(*probe, vkBeginCommandBuffer);
    DLOAD(*probe, vkCmdCopyBuffer);
    DLOAD(*probe, vkEndCommandBuffer);
    DLOAD(*probe, vkGetDeviceQueue);
    DLOAD(*probe, vkCreateFence);
    VkPhysicalDeviceMemoryProperties memory;
    vkGetPhysicalDeviceMemoryProperties(probe->physical, &memory);

    VkMemoryHostPointerPropertiesEXT host = {.sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT};
    CHECK(vkGetMemoryHostPointerPropertiesEXT(device, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, ring, &host));
    VkExternalMemoryBufferCreateInfo external = {.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
                                                 .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT};
    VkBufferCreateInfo sbi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .pNext = &external, .size = bytes,
                              .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT, .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VkBuffer source;
    CHECK(vkCreateBuffer(device, &sbi, NULL, &source));
    VkMemoryRequirements need;
    vkGetBufferMemoryRequirements(device, source, &need);
    uint32_t bits = host.memoryTypeBits & need.memoryTypeBits;
    if (!bits) { printf("dma: no memory type can import the ring\n"); return 1; }
    VkImportMemoryHostPointerInfoEXT import = {.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT,
                                               .handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
                                               .pHostPointer = ring};
    VkMemoryAllocateInfo imi = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .pNext = &import, .allocationSize = bytes,
                                .memoryTypeIndex = (uint32_t)__builtin_ctz(bits)};
    VkDeviceMemory imported;
    double t0 = now_ms();
    CHECK(vkAllocateMemory(device, &imi, NULL, &imported));
    printf("dma: imported the %.0f MB ring in %.1f ms\n", bytes / 1048576.0, now_ms() - t0);
    CHECK(vkBindBufferMemory(device, source, imported, 0));

    // The destination: 256 MB of device-local memory, written over and over.
    size_t piece = bytes < ((size_t)256 << 20) ? bytes : (size_t)256 << 20;
    VkBufferCreateInfo dbi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = piece,
                              .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT, .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VkBuffer target;
    CHECK(vkCreateBuffer(device, &dbi, NULL, &target));
    vkGetBufferMemoryRequirements(device, target, &need);
    int type = -1;
    for (uint32_t t = 0; t < memory.memoryTypeCount && type < 0; t++)
        if ((need.memoryTypeBits >> t & 1) && (memory.memoryTypes[t].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)) type = (int)t;
    if (type < 0) { printf("dma: no device-local type for the target\n"); return 1; }
    VkMemoryAllocateInfo dmi = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = need.size,
                                .memoryTypeIndex = (uint32_t)type};
    VkDeviceMemory local;
    CHECK(vkAllocateMemory(device, &dmi, NULL, &local));
    CHECK(vkBindBufferMemory(device, target, local, 0));

    VkCommandPoolCreateInfo cpi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = 0};
    VkCommandPool pool;
    CHECK(vkCreateCommandPool(device, &cpi, NULL, &pool));
    VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = pool,
                                       .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
    CHECK(vkAllocateCommandBuffers(device, &cai, &d->commands));
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    CHECK(vkBeginCommandBuffer(d->commands, &begin));
    for (size_t at = 0; at < bytes; at += piece) {
        VkBufferCopy region = {.srcOffset = at, .dstOffset = 0, .size = bytes - at < piece ? bytes - at : piece};
        vkCmdCopyBuffer(d->commands, source, target, 1, &region);
    }
    CHECK(vkEndCommandBuffer(d->commands));
    vkGetDeviceQueue(device, 0, 0, &d->queue);
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    CHECK(vkCreateFence(device, &fci, NULL, &d->fence));
    d->device = device;
    d->ring_bytes = bytes;
    d->submit = (PFN_vkQueueSubmit)probe->getDeviceProcAddr(device, "vkQueueSubmit");
    d->wait = (PFN_vkWaitForFences)probe->getDeviceProcAddr(device, "vkWaitForFences");
    d->reset = (PFN_vkResetFences)probe->getDeviceProcAddr(device, "vkResetFences");
    return 0;
}

static void print_flags(VkMemoryPropertyFlags f) {
    if (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) printf(" DEVICE_LOCAL");
    if (f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) printf(" HOST_VISIBLE");
    if (f & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) printf(" HOST_COHERENT");
    if (f & VK_MEMORY_PROPERTY_HOST_CACHED_BIT) printf(" HOST_CACHED");
    if (f & VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT) printf(" LAZY");
}

int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: bar-probe FILE RING_MB CHUNK_KB THREADS\n"); return 2; }
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) { perror(argv[1]); return 2; }
    size_t ring_bytes = (size_t)atoi(argv[2]) << 20;
    size_t chunk = (size_t)atoi(argv[3]) << 10;
    size_t slot = (chunk + 4095) / 4096 * 4096;
    size_t slots = ring_bytes / slot;
    if (slots < 1) { fprintf(stderr, "the ring holds no chunk\n"); return 2; }

    struct probe_vulkan probe;
    if (probe_vulkan_open(&probe, "VK_EXT_external_memory_host")) return 1;
    VkDevice device = probe.device;
    LOAD(probe.instance, vkGetPhysicalDeviceMemoryProperties);
    DLOAD(probe, vkAllocateMemory);
    DLOAD(probe, vkMapMemory);
    DLOAD(probe, vkFreeMemory);

    VkPhysicalDeviceMemoryProperties memory;
    vkGetPhysicalDeviceMemoryProperties(probe.physical, &memory);
    for (uint32_t h = 0; h < memory.memoryHeapCount; h++)
        printf("heap %u: %.1f MB%s\n", h, memory.memoryHeaps[h].size / 1048576.0,
               memory.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT ? " DEVICE_LOCAL" : "");
    int bar_type = -1;
    for (uint32_t t = 0; t < memory.memoryTypeCount; t++) {
        VkMemoryPropertyFlags f = memory.memoryTypes[t].propertyFlags;
        printf("type %u: heap %u", t, memory.memoryTypes[t].heapIndex);
        print_flags(f);
        printf("\n");
        VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
        if (bar_type < 0 && (f & want) == want) bar_type = (int)t;
    }
    FILE *thp = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    char line[256] = "?";
    if (thp) { if (!fgets(line, sizeof line, thp)) line[0] = 0; fclose(thp); }
    printf("transparent hugepages: %s", line);
    printf("file %.2f GB, chunk %zu KB, ring %zu slots (%.0f MB)\n", st.st_size / 1e9, chunk >> 10, slots, slots * slot / 1048576.0);
    fflush(stdout);

    struct job job = {.fd = fd, .file_bytes = st.st_size, .chunk = chunk, .slot = slot, .slots = slots};
    job.ring = calloc(slots, sizeof *job.ring);

    unsigned char *anon = mmap(NULL, slots * slot, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (anon == MAP_FAILED) { perror("mmap"); return 1; }
    madvise(anon, slots * slot, MADV_HUGEPAGE);
    memset(anon, 1, slots * slot);
    for (size_t s = 0; s < slots; s++) job.ring[s] = anon + s * slot;
    job.mode = DIRECT;
    run("anon", &job, argv[4]);
    job.mode = BOUNCE_NT;
    run("anon-nt", &job, argv[4]);

    // The same reads while the GPU's DMA reads the ring: the decoder's
    // steady state, with the upload's host-memory traffic beside the reads.
    struct dma dma = {0};
    if (dma_make(&probe, anon, slots * slot, &dma) == 0) {
        pthread_t thread;
        dma_start(&dma, &thread);
        usleep(500000);
        printf("dma alone:  %6.2f GB/s%s\n", dma_stop(&dma, thread), dma.failed ? "  (a submission FAILED)" : "");
        char list[256];
        snprintf(list, sizeof list, "%s", argv[4]);
        char *rest;  // run() uses strtok: this loop keeps its own place
        for (char *t = strtok_r(list, ",", &rest); t; t = strtok_r(NULL, ",", &rest)) {
            dma_start(&dma, &thread);
            run("anon-nt+dma", &job, t);
            printf("            (the DMA meanwhile: %6.2f GB/s%s)\n", dma_stop(&dma, thread), dma.failed ? ", a submission FAILED" : "");
            fflush(stdout);
        }
    }

    if (bar_type < 0) { printf("bar: the device has no DEVICE_LOCAL | HOST_VISIBLE type\n"); return 0; }
    // The ring in 64 MB allocations, as a pool would hold it.
    const size_t piece = 64 << 20;
    size_t per_piece = piece / slot, pieces = (slots + per_piece - 1) / per_piece;
    VkDeviceMemory *memories = calloc(pieces, sizeof *memories);
    double t0 = now_ms(), allocated = 0, mapped = 0;
    for (size_t p = 0; p < pieces; p++) {
        VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = piece,
                                    .memoryTypeIndex = (uint32_t)bar_type};
        double a = now_ms();
        VkResult r = vkAllocateMemory(device, &mai, NULL, &memories[p]);
        if (r != VK_SUCCESS) { printf("bar: vkAllocateMemory of piece %zu failed: %d\n", p, r); return 0; }
        double b = now_ms();
        void *base;
        CHECK(vkMapMemory(device, memories[p], 0, piece, 0, &base));
        mapped += now_ms() - b;
        allocated += b - a;
        for (size_t s = p * per_piece; s < slots && s < (p + 1) * per_piece; s++)
            job.ring[s] = (unsigned char *)base + (s - p * per_piece) * slot;
    }
    printf("bar: type %d, %zu x 64 MB: allocate %.1f ms, map %.1f ms (%.1f ms in all)\n", bar_type, pieces, allocated, mapped,
           now_ms() - t0);
    fflush(stdout);
    job.mode = DIRECT;
    run("bar", &job, argv[4]);
    // What landed in video memory is the file (read back a little: slow).
    {
        unsigned char expect[4096], got[4096];
        long chunks = (long)((st.st_size - 4096) / (long long)chunk);
        long i = (chunks - 1) - ((chunks - 1) % (long)slots);  // the last pass's chunk in slot 0
        if (pread(fd, expect, sizeof expect, (off_t)i * (off_t)chunk + 1000) != (ssize_t)sizeof expect) return 1;
        memcpy(got, job.ring[0], sizeof got);
        printf("bar: read back slot 0 %s the file\n", memcmp(got, expect, sizeof got) == 0 ? "equals" : "DIFFERS FROM");
    }
    job.mode = BOUNCE;
    run("bar-bounce", &job, argv[4]);
    double f0 = now_ms();
    for (size_t p = 0; p < pieces; p++) vkFreeMemory(device, memories[p], NULL);
    printf("bar: free %.1f ms\n", now_ms() - f0);
    fflush(stdout);
    return 0;
}
