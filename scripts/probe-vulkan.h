// Shared by the device probes (exit-probe.c, bar-probe.c): the Vulkan
// loader opened with dlopen, one instance, the first physical device (set
// VK_DRIVER_FILES to choose) and a device with one queue of family 0,
// each step timed. Header-only, so each probe still builds with one gcc
// line.
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>
#include <vulkan/vulkan.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static PFN_vkGetInstanceProcAddr gipa;
#define LOAD(instance, name) PFN_##name name = (PFN_##name)gipa(instance, #name)
#define CHECK(call) do { VkResult r = (call); if (r != VK_SUCCESS) { fprintf(stderr, "%s failed: %d\n", #call, r); return 1; } } while (0)
#define DLOAD(probe, name) PFN_##name name = (PFN_##name)(probe).getDeviceProcAddr((probe).device, #name)

struct probe_vulkan {
    VkInstance instance;
    VkPhysicalDevice physical;
    VkDevice device;
    PFN_vkGetDeviceProcAddr getDeviceProcAddr;
    double instance_ms, device_ms;
};

// Opens the loader (before anything is timed), then makes the instance and
// the device with `extension` enabled when it is not NULL. 0, or 1 with the
// failure printed.
static int probe_vulkan_open(struct probe_vulkan *probe, const char *extension) {
    void *loader = dlopen("libvulkan.so.1", RTLD_NOW);
    if (!loader) { fprintf(stderr, "no libvulkan.so.1\n"); return 1; }
    gipa = (PFN_vkGetInstanceProcAddr)dlsym(loader, "vkGetInstanceProcAddr");
    double t0 = now_ms();
    LOAD(NULL, vkCreateInstance);
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_3};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    CHECK(vkCreateInstance(&ici, NULL, &probe->instance));
    double t1 = now_ms();
    LOAD(probe->instance, vkEnumeratePhysicalDevices);
    LOAD(probe->instance, vkCreateDevice);
    probe->getDeviceProcAddr = (PFN_vkGetDeviceProcAddr)gipa(probe->instance, "vkGetDeviceProcAddr");
    uint32_t n = 1;
    vkEnumeratePhysicalDevices(probe->instance, &n, &probe->physical);
    float priority = 1;
    VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = 0,
                                   .queueCount = 1, .pQueuePriorities = &priority};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci,
                              .enabledExtensionCount = extension ? 1 : 0, .ppEnabledExtensionNames = &extension};
    CHECK(vkCreateDevice(probe->physical, &dci, NULL, &probe->device));
    probe->instance_ms = t1 - t0;
    probe->device_ms = now_ms() - t1;
    return 0;
}
