import CVulkan
import Glibc
import HostSupport

/// The Vulkan loader, opened at run time, and its global entry points.
// @unchecked: immutable after init (the library and its entry points, loaded once by `shared`).
final class VulkanLoader: @unchecked Sendable {
    let getInstanceProcAddr: PFN_vkGetInstanceProcAddr
    let vkCreateInstance: PFN_vkCreateInstance
    let vkEnumerateInstanceExtensionProperties: PFN_vkEnumerateInstanceExtensionProperties
    let vkEnumerateInstanceLayerProperties: PFN_vkEnumerateInstanceLayerProperties
    let vkEnumerateInstanceVersion: PFN_vkEnumerateInstanceVersion
    private let handle: UnsafeMutableRawPointer

    /// Loaded once per process: the loader is never unloaded.
    static let shared: Result<VulkanLoader, VulkanError> = Result { try VulkanLoader() }.mapError { $0 as! VulkanError }

    private init() throws {
        guard let handle = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL) else {
            let why = dlerror().map { String(cString: $0) } ?? "dlopen failed"
            throw VulkanError.loaderMissing(
                "cannot load libvulkan.so.1 (\(why)); install a Vulkan loader and driver, e.g. libvulkan1 and mesa-vulkan-drivers"
            )
        }
        self.handle = handle
        guard let symbol = dlsym(handle, "vkGetInstanceProcAddr") else {
            throw VulkanError.missingFunction("vkGetInstanceProcAddr")
        }
        let getProc = unsafeBitCast(symbol, to: PFN_vkGetInstanceProcAddr.self)
        getInstanceProcAddr = getProc
        func load<T>(_ name: String) throws -> T {
            guard let f = getProc(nil, name) else { throw VulkanError.missingFunction(name) }
            return unsafeBitCast(f, to: T.self)
        }
        vkCreateInstance = try load("vkCreateInstance")
        vkEnumerateInstanceExtensionProperties = try load("vkEnumerateInstanceExtensionProperties")
        vkEnumerateInstanceLayerProperties = try load("vkEnumerateInstanceLayerProperties")
        vkEnumerateInstanceVersion = try load("vkEnumerateInstanceVersion")
    }
}

/// Instance-level entry points, loaded once with a clear error naming any
/// that the driver lacks.
struct VulkanInstanceFunctions {
    let vkDestroyInstance: PFN_vkDestroyInstance
    let vkEnumeratePhysicalDevices: PFN_vkEnumeratePhysicalDevices
    let vkGetPhysicalDeviceProperties2: PFN_vkGetPhysicalDeviceProperties2
    let vkGetPhysicalDeviceFeatures2: PFN_vkGetPhysicalDeviceFeatures2
    let vkGetPhysicalDeviceMemoryProperties: PFN_vkGetPhysicalDeviceMemoryProperties
    let vkGetPhysicalDeviceQueueFamilyProperties: PFN_vkGetPhysicalDeviceQueueFamilyProperties
    let vkEnumerateDeviceExtensionProperties: PFN_vkEnumerateDeviceExtensionProperties
    let vkCreateDevice: PFN_vkCreateDevice
    let vkGetDeviceProcAddr: PFN_vkGetDeviceProcAddr
    let vkCreateDebugUtilsMessengerEXT: PFN_vkCreateDebugUtilsMessengerEXT?
    let vkDestroyDebugUtilsMessengerEXT: PFN_vkDestroyDebugUtilsMessengerEXT?
    /// Present only on an instance made for presenting (`Options.presentation`).
    let surface: SurfaceFunctions?

    /// VK_KHR_surface and VK_KHR_xcb_surface.
    struct SurfaceFunctions {
        let vkCreateXcbSurfaceKHR: PD_PFN_vkCreateXcbSurfaceKHR
        let vkDestroySurfaceKHR: PFN_vkDestroySurfaceKHR
        let vkGetPhysicalDeviceSurfaceSupportKHR: PFN_vkGetPhysicalDeviceSurfaceSupportKHR
        let vkGetPhysicalDeviceSurfaceCapabilitiesKHR: PFN_vkGetPhysicalDeviceSurfaceCapabilitiesKHR
        let vkGetPhysicalDeviceSurfaceFormatsKHR: PFN_vkGetPhysicalDeviceSurfaceFormatsKHR
        let vkGetPhysicalDeviceSurfacePresentModesKHR: PFN_vkGetPhysicalDeviceSurfacePresentModesKHR
    }

    init(loader: VulkanLoader, instance: VkInstance, presentation: Bool = false) throws {
        func load<T>(_ name: String) throws -> T {
            guard let f = loader.getInstanceProcAddr(instance, name) else { throw VulkanError.missingFunction(name) }
            return unsafeBitCast(f, to: T.self)
        }
        func optional<T>(_ name: String) -> T? {
            loader.getInstanceProcAddr(instance, name).map { unsafeBitCast($0, to: T.self) }
        }
        vkDestroyInstance = try load("vkDestroyInstance")
        vkEnumeratePhysicalDevices = try load("vkEnumeratePhysicalDevices")
        vkGetPhysicalDeviceProperties2 = try load("vkGetPhysicalDeviceProperties2")
        vkGetPhysicalDeviceFeatures2 = try load("vkGetPhysicalDeviceFeatures2")
        vkGetPhysicalDeviceMemoryProperties = try load("vkGetPhysicalDeviceMemoryProperties")
        vkGetPhysicalDeviceQueueFamilyProperties = try load("vkGetPhysicalDeviceQueueFamilyProperties")
        vkEnumerateDeviceExtensionProperties = try load("vkEnumerateDeviceExtensionProperties")
        vkCreateDevice = try load("vkCreateDevice")
        vkGetDeviceProcAddr = try load("vkGetDeviceProcAddr")
        vkCreateDebugUtilsMessengerEXT = optional("vkCreateDebugUtilsMessengerEXT")
        vkDestroyDebugUtilsMessengerEXT = optional("vkDestroyDebugUtilsMessengerEXT")
        if presentation {
            surface = SurfaceFunctions(
                vkCreateXcbSurfaceKHR: try load("vkCreateXcbSurfaceKHR"),
                vkDestroySurfaceKHR: try load("vkDestroySurfaceKHR"),
                vkGetPhysicalDeviceSurfaceSupportKHR: try load("vkGetPhysicalDeviceSurfaceSupportKHR"),
                vkGetPhysicalDeviceSurfaceCapabilitiesKHR: try load("vkGetPhysicalDeviceSurfaceCapabilitiesKHR"),
                vkGetPhysicalDeviceSurfaceFormatsKHR: try load("vkGetPhysicalDeviceSurfaceFormatsKHR"),
                vkGetPhysicalDeviceSurfacePresentModesKHR: try load("vkGetPhysicalDeviceSurfacePresentModesKHR"))
        } else {
            surface = nil
        }
    }
}

/// Device-level entry points (one table per device).
package struct VulkanDeviceFunctions {
    let vkDestroyDevice: PFN_vkDestroyDevice
    let vkGetDeviceQueue: PFN_vkGetDeviceQueue
    let vkDeviceWaitIdle: PFN_vkDeviceWaitIdle
    let vkCreateBuffer: PFN_vkCreateBuffer
    let vkDestroyBuffer: PFN_vkDestroyBuffer
    let vkGetBufferMemoryRequirements: PFN_vkGetBufferMemoryRequirements
    let vkAllocateMemory: PFN_vkAllocateMemory
    let vkFreeMemory: PFN_vkFreeMemory
    let vkBindBufferMemory: PFN_vkBindBufferMemory
    let vkMapMemory: PFN_vkMapMemory
    let vkUnmapMemory: PFN_vkUnmapMemory
    let vkInvalidateMappedMemoryRanges: PFN_vkInvalidateMappedMemoryRanges
    let vkFlushMappedMemoryRanges: PFN_vkFlushMappedMemoryRanges
    let vkGetMemoryHostPointerPropertiesEXT: PFN_vkGetMemoryHostPointerPropertiesEXT?
    /// VK_KHR_pipeline_executable_properties, where it was enabled (`PipelineStatistics`).
    let vkGetPipelineExecutablePropertiesKHR: PFN_vkGetPipelineExecutablePropertiesKHR?
    let vkGetPipelineExecutableStatisticsKHR: PFN_vkGetPipelineExecutableStatisticsKHR?
    let vkCreateShaderModule: PFN_vkCreateShaderModule
    let vkDestroyShaderModule: PFN_vkDestroyShaderModule
    let vkCreateDescriptorSetLayout: PFN_vkCreateDescriptorSetLayout
    let vkDestroyDescriptorSetLayout: PFN_vkDestroyDescriptorSetLayout
    let vkCreatePipelineLayout: PFN_vkCreatePipelineLayout
    let vkDestroyPipelineLayout: PFN_vkDestroyPipelineLayout
    let vkCreateComputePipelines: PFN_vkCreateComputePipelines
    let vkCreatePipelineCache: PFN_vkCreatePipelineCache
    let vkGetPipelineCacheData: PFN_vkGetPipelineCacheData
    let vkDestroyPipelineCache: PFN_vkDestroyPipelineCache
    let vkDestroyPipeline: PFN_vkDestroyPipeline
    let vkCreateDescriptorPool: PFN_vkCreateDescriptorPool
    let vkDestroyDescriptorPool: PFN_vkDestroyDescriptorPool
    let vkAllocateDescriptorSets: PFN_vkAllocateDescriptorSets
    let vkUpdateDescriptorSets: PFN_vkUpdateDescriptorSets
    let vkCreateCommandPool: PFN_vkCreateCommandPool
    let vkDestroyCommandPool: PFN_vkDestroyCommandPool
    let vkAllocateCommandBuffers: PFN_vkAllocateCommandBuffers
    let vkBeginCommandBuffer: PFN_vkBeginCommandBuffer
    let vkEndCommandBuffer: PFN_vkEndCommandBuffer
    let vkResetCommandBuffer: PFN_vkResetCommandBuffer
    package let vkCmdBindPipeline: PFN_vkCmdBindPipeline
    package let vkCmdBindDescriptorSets: PFN_vkCmdBindDescriptorSets
    package let vkCmdPushConstants: PFN_vkCmdPushConstants
    package let vkCmdDispatch: PFN_vkCmdDispatch
    let vkCmdPipelineBarrier: PFN_vkCmdPipelineBarrier
    package let vkCmdCopyBuffer: PFN_vkCmdCopyBuffer
    package let vkCmdFillBuffer: PFN_vkCmdFillBuffer
    let vkCmdWriteTimestamp: PFN_vkCmdWriteTimestamp
    let vkCmdResetQueryPool: PFN_vkCmdResetQueryPool
    /// Core in Vulkan 1.2, usable when the hostQueryReset feature is enabled.
    let vkResetQueryPool: PFN_vkResetQueryPool?
    let vkCreateQueryPool: PFN_vkCreateQueryPool
    let vkDestroyQueryPool: PFN_vkDestroyQueryPool
    let vkGetQueryPoolResults: PFN_vkGetQueryPoolResults
    let vkQueueSubmit: PFN_vkQueueSubmit
    let vkCreateSemaphore: PFN_vkCreateSemaphore
    let vkDestroySemaphore: PFN_vkDestroySemaphore
    let vkWaitSemaphores: PFN_vkWaitSemaphores
    let vkGetSemaphoreCounterValue: PFN_vkGetSemaphoreCounterValue
    /// Present only on a device made for presenting.
    let swapchain: SwapchainFunctions?

    /// VK_KHR_swapchain, with VK_KHR_present_wait and VK_EXT_hdr_metadata where enabled.
    struct SwapchainFunctions {
        let vkCreateSwapchainKHR: PFN_vkCreateSwapchainKHR
        let vkDestroySwapchainKHR: PFN_vkDestroySwapchainKHR
        let vkGetSwapchainImagesKHR: PFN_vkGetSwapchainImagesKHR
        let vkAcquireNextImageKHR: PFN_vkAcquireNextImageKHR
        let vkQueuePresentKHR: PFN_vkQueuePresentKHR
        let vkCmdCopyBufferToImage: PFN_vkCmdCopyBufferToImage
        let vkWaitForPresentKHR: PFN_vkWaitForPresentKHR?
        let vkSetHdrMetadataEXT: PFN_vkSetHdrMetadataEXT?
    }

    init(instance: VulkanInstanceFunctions, device: VkDevice, presentation: VulkanContext.Presentation? = nil) throws {
        func load<T>(_ name: String) throws -> T {
            guard let f = instance.vkGetDeviceProcAddr(device, name) else { throw VulkanError.missingFunction(name) }
            return unsafeBitCast(f, to: T.self)
        }
        func optional<T>(_ name: String) -> T? {
            instance.vkGetDeviceProcAddr(device, name).map { unsafeBitCast($0, to: T.self) }
        }
        vkDestroyDevice = try load("vkDestroyDevice")
        vkGetDeviceQueue = try load("vkGetDeviceQueue")
        vkDeviceWaitIdle = try load("vkDeviceWaitIdle")
        vkCreateBuffer = try load("vkCreateBuffer")
        vkDestroyBuffer = try load("vkDestroyBuffer")
        vkGetBufferMemoryRequirements = try load("vkGetBufferMemoryRequirements")
        vkAllocateMemory = try load("vkAllocateMemory")
        vkFreeMemory = try load("vkFreeMemory")
        vkBindBufferMemory = try load("vkBindBufferMemory")
        vkMapMemory = try load("vkMapMemory")
        vkUnmapMemory = try load("vkUnmapMemory")
        vkInvalidateMappedMemoryRanges = try load("vkInvalidateMappedMemoryRanges")
        vkFlushMappedMemoryRanges = try load("vkFlushMappedMemoryRanges")
        vkGetMemoryHostPointerPropertiesEXT = optional("vkGetMemoryHostPointerPropertiesEXT")
        vkGetPipelineExecutablePropertiesKHR = optional("vkGetPipelineExecutablePropertiesKHR")
        vkGetPipelineExecutableStatisticsKHR = optional("vkGetPipelineExecutableStatisticsKHR")
        vkCreateShaderModule = try load("vkCreateShaderModule")
        vkDestroyShaderModule = try load("vkDestroyShaderModule")
        vkCreateDescriptorSetLayout = try load("vkCreateDescriptorSetLayout")
        vkDestroyDescriptorSetLayout = try load("vkDestroyDescriptorSetLayout")
        vkCreatePipelineLayout = try load("vkCreatePipelineLayout")
        vkDestroyPipelineLayout = try load("vkDestroyPipelineLayout")
        vkCreateComputePipelines = try load("vkCreateComputePipelines")
        vkCreatePipelineCache = try load("vkCreatePipelineCache")
        vkGetPipelineCacheData = try load("vkGetPipelineCacheData")
        vkDestroyPipelineCache = try load("vkDestroyPipelineCache")
        vkDestroyPipeline = try load("vkDestroyPipeline")
        vkCreateDescriptorPool = try load("vkCreateDescriptorPool")
        vkDestroyDescriptorPool = try load("vkDestroyDescriptorPool")
        vkAllocateDescriptorSets = try load("vkAllocateDescriptorSets")
        vkUpdateDescriptorSets = try load("vkUpdateDescriptorSets")
        vkCreateCommandPool = try load("vkCreateCommandPool")
        vkDestroyCommandPool = try load("vkDestroyCommandPool")
        vkAllocateCommandBuffers = try load("vkAllocateCommandBuffers")
        vkBeginCommandBuffer = try load("vkBeginCommandBuffer")
        vkEndCommandBuffer = try load("vkEndCommandBuffer")
        vkResetCommandBuffer = try load("vkResetCommandBuffer")
        vkCmdBindPipeline = try load("vkCmdBindPipeline")
        vkCmdBindDescriptorSets = try load("vkCmdBindDescriptorSets")
        vkCmdPushConstants = try load("vkCmdPushConstants")
        vkCmdDispatch = try load("vkCmdDispatch")
        vkCmdPipelineBarrier = try load("vkCmdPipelineBarrier")
        vkCmdCopyBuffer = try load("vkCmdCopyBuffer")
        vkCmdFillBuffer = try load("vkCmdFillBuffer")
        vkCmdWriteTimestamp = try load("vkCmdWriteTimestamp")
        vkCmdResetQueryPool = try load("vkCmdResetQueryPool")
        vkResetQueryPool = optional("vkResetQueryPool")
        vkCreateQueryPool = try load("vkCreateQueryPool")
        vkDestroyQueryPool = try load("vkDestroyQueryPool")
        vkGetQueryPoolResults = try load("vkGetQueryPoolResults")
        vkQueueSubmit = try load("vkQueueSubmit")
        vkCreateSemaphore = try load("vkCreateSemaphore")
        vkDestroySemaphore = try load("vkDestroySemaphore")
        vkWaitSemaphores = try load("vkWaitSemaphores")
        vkGetSemaphoreCounterValue = try load("vkGetSemaphoreCounterValue")
        if let presentation {
            swapchain = SwapchainFunctions(
                vkCreateSwapchainKHR: try load("vkCreateSwapchainKHR"),
                vkDestroySwapchainKHR: try load("vkDestroySwapchainKHR"),
                vkGetSwapchainImagesKHR: try load("vkGetSwapchainImagesKHR"),
                vkAcquireNextImageKHR: try load("vkAcquireNextImageKHR"),
                vkQueuePresentKHR: try load("vkQueuePresentKHR"),
                vkCmdCopyBufferToImage: try load("vkCmdCopyBufferToImage"),
                vkWaitForPresentKHR: presentation.presentWait ? try load("vkWaitForPresentKHR") : nil,
                vkSetHdrMetadataEXT: presentation.hdrMetadata ? try load("vkSetHdrMetadataEXT") : nil)
        } else {
            swapchain = nil
        }
    }
}
