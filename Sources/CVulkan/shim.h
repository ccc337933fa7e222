// Vulkan behind one thin shim. We never link the loader: it is opened with
// dlopen at run time, so a machine without Vulkan gets a clear error instead
// of a binary that cannot start, and every entry point is fetched through
// vkGetInstanceProcAddr / vkGetDeviceProcAddr (one table, loaded once).
#ifndef PRORES_DECODE_CVULKAN_SHIM_H
#define PRORES_DECODE_CVULKAN_SHIM_H

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>
#include <dlfcn.h>

static const uint32_t PD_VK_API_VERSION_1_2 = VK_API_VERSION_1_2;
static const uint32_t PD_VK_API_VERSION_1_3 = VK_API_VERSION_1_3;
static const uint64_t PD_VK_WHOLE_SIZE = VK_WHOLE_SIZE;
static const uint32_t PD_VK_QUEUE_FAMILY_IGNORED = VK_QUEUE_FAMILY_IGNORED;

static inline uint32_t pd_vk_version_major(uint32_t v) { return VK_API_VERSION_MAJOR(v); }
static inline uint32_t pd_vk_version_minor(uint32_t v) { return VK_API_VERSION_MINOR(v); }
static inline uint32_t pd_vk_version_patch(uint32_t v) { return VK_API_VERSION_PATCH(v); }
static inline uint32_t pd_vk_make_api_version(uint32_t major, uint32_t minor, uint32_t patch) {
    return VK_MAKE_API_VERSION(0, major, minor, patch);
}

// VK_KHR_xcb_surface without <vulkan/vulkan_xcb.h>, which needs xcb's own
// headers: the connection and window reach GPUKit as an opaque pointer and
// a 32-bit id (the layout of VkXcbSurfaceCreateInfoKHR, field for field),
// so xcb stays behind its own shim (CXCB, ProResDisplay).
typedef struct PDXcbSurfaceCreateInfo {
    VkStructureType sType;
    const void *pNext;
    VkFlags flags;
    void *connection;
    uint32_t window;
} PDXcbSurfaceCreateInfo;
typedef VkResult (VKAPI_PTR *PD_PFN_vkCreateXcbSurfaceKHR)(VkInstance instance, const PDXcbSurfaceCreateInfo *info,
                                                            const VkAllocationCallbacks *allocator, VkSurfaceKHR *surface);

#endif
