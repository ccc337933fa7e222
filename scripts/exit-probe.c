// What a Vulkan process's exit costs, by what it holds: makes an instance
// and a device, allocates COUNT buffers of MB megabytes of one kind, and
// then either exits holding them (the kernel and driver take them back),
// frees them first, or also destroys the device first, printing how long
// each step took. Run it under scripts/exit-time.py, whose "last line to
// exit" is then the teardown left to the kernel. Issue #11: a decode's exit
// takes 60-70 ms on the H200 and check's 100-115, and `devices` (no logical
// device) 1 ms.
//
//   gcc -O2 -o exit-probe scripts/exit-probe.c -ldl   (with scripts/probe-vulkan.h)
//   exit-probe COUNT MB device|dedicated|host|import|file keep|free|destroy
//
// `file` imports COUNT windows of MB megabytes of the file named by
// $PROBE_FILE, mapped read-only (MAP_SHARED) straight from the page cache:
// whether the driver pins file pages, and at what rate (issue #11's reader
// copies every sample out of the page cache first).
// Needs the Vulkan headers (Debian: libvulkan-dev) to build and the loader
// (libvulkan.so.1) to run; picks the first physical device (set
// VK_DRIVER_FILES to choose).
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "probe-vulkan.h"

int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: exit-probe COUNT MB device|dedicated|host|import keep|free|destroy\n"); return 2; }
    int count = atoi(argv[1]);
    VkDeviceSize bytes = (VkDeviceSize)atoi(argv[2]) << 20;
    const char *kind = argv[3], *end = argv[4];
    // Host memory to import, mapped and touched before anything is timed.
    void **host_memory = calloc(count, sizeof *host_memory);
    if (strcmp(kind, "file") == 0) {
        const char *path = getenv("PROBE_FILE");
        int fd = path ? open(path, O_RDONLY) : -1;
        if (fd < 0) { fprintf(stderr, "file: set PROBE_FILE to a readable file\n"); return 2; }
        for (int i = 0; i < count; i++) {
            host_memory[i] = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, (off_t)i * (off_t)bytes);
            if (host_memory[i] == MAP_FAILED) { perror("mmap"); return 1; }
            volatile unsigned char sum = 0;
            for (VkDeviceSize b = 0; b < bytes; b += 4096) sum += ((unsigned char *)host_memory[i])[b];  // in the page cache, mapped
        }
    }
    for (int i = 0; strcmp(kind, "import") == 0 && i < count; i++) {
        host_memory[i] = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        madvise(host_memory[i], bytes, MADV_HUGEPAGE);
        memset(host_memory[i], 1, bytes);
    }
    int importing = strcmp(kind, "import") == 0 || strcmp(kind, "file") == 0;
    struct probe_vulkan probe;
    if (probe_vulkan_open(&probe, importing ? "VK_EXT_external_memory_host" : NULL)) return 1;
    VkInstance instance = probe.instance;
    VkPhysicalDevice physical = probe.physical;
    VkDevice device = probe.device;
    double t2 = now_ms();
    LOAD(instance, vkGetPhysicalDeviceMemoryProperties);
    DLOAD(probe, vkCreateBuffer);
    DLOAD(probe, vkGetBufferMemoryRequirements);
    DLOAD(probe, vkAllocateMemory);
    DLOAD(probe, vkBindBufferMemory);
    DLOAD(probe, vkDestroyBuffer);
    DLOAD(probe, vkFreeMemory);
    DLOAD(probe, vkDestroyDevice);
    DLOAD(probe, vkGetMemoryHostPointerPropertiesEXT);
    LOAD(instance, vkDestroyInstance);

    VkPhysicalDeviceMemoryProperties memory;
    vkGetPhysicalDeviceMemoryProperties(physical, &memory);
    VkMemoryPropertyFlags want = strcmp(kind, "host") == 0 ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                               : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    VkBuffer *buffers = calloc(count, sizeof *buffers);
    VkDeviceMemory *memories = calloc(count, sizeof *memories);
    for (int i = 0; i < count; i++) {
        VkExternalMemoryBufferCreateInfo external = {.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
                                                     .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT};
        VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .pNext = importing ? &external : NULL, .size = bytes,
                                  .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT};
        CHECK(vkCreateBuffer(device, &bci, NULL, &buffers[i]));
        VkMemoryRequirements req;
        vkGetBufferMemoryRequirements(device, buffers[i], &req);
        VkMemoryDedicatedAllocateInfo dedicated = {.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO, .buffer = buffers[i]};
        VkImportMemoryHostPointerInfoEXT host = {.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT,
                                                 .handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT};
        uint32_t bits = req.memoryTypeBits;
        if (importing) {
            void *p = host_memory[i];
            VkMemoryHostPointerPropertiesEXT props = {.sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT};
            CHECK(vkGetMemoryHostPointerPropertiesEXT(device, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, p, &props));
            bits &= props.memoryTypeBits;
            host.pHostPointer = p;
            want = 0;
        }
        uint32_t type = 0;
        while (type < memory.memoryTypeCount && !((bits >> type) & 1 && (memory.memoryTypes[type].propertyFlags & want) == want)) type++;
        VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = importing ? bytes : req.size,
                                    .memoryTypeIndex = type};
        if (importing) mai.pNext = &host;
        else if (strcmp(kind, "device") != 0) mai.pNext = &dedicated;
        CHECK(vkAllocateMemory(device, &mai, NULL, &memories[i]));
        CHECK(vkBindBufferMemory(device, buffers[i], memories[i], 0));
    }
    double t3 = now_ms();
    double t4 = t3, t5 = t3;
    if (strcmp(end, "keep") != 0) {
        for (int i = 0; i < count; i++) { vkDestroyBuffer(device, buffers[i], NULL); vkFreeMemory(device, memories[i], NULL); }
        t4 = now_ms();
        if (strcmp(end, "destroy") == 0) {
            vkDestroyDevice(device, NULL);
            vkDestroyInstance(instance, NULL);
        }
        t5 = now_ms();
    }
    printf("%d x %s MB %s, %s: instance %.1f ms, device %.1f, allocate %.1f, free %.1f, destroy %.1f\n",
           count, argv[2], kind, end, probe.instance_ms, probe.device_ms, t3 - t2, t4 - t3, t5 - t4);
    fflush(stdout);
    return 0;
}
