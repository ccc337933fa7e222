import CVulkan

/// A window's Vulkan surface (VK_KHR_xcb_surface), made from the window
/// system's opaque handles, and what it offers. The context must have been
/// made with `Options.presentation`; the window must outlive this.
///
/// Thread-safety: immutable after init.
public final class PresentationSurface {
    let context: VulkanContext
    let surface: VkSurfaceKHR
    private let functions: VulkanInstanceFunctions.SurfaceFunctions
    /// Every format and colour space, in the driver's order of preference.
    public let formats: [SurfaceFormat]

    /// `connection`: an xcb_connection_t; `window`: an xcb_window_t.
    public init(context: VulkanContext, connection: UnsafeMutableRawPointer, window: UInt32) throws {
        guard let functions = context.vki.surface else {
            preconditionFailure("the context was not made for presenting")
        }
        self.context = context
        self.functions = functions
        var info = PDXcbSurfaceCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_XCB_SURFACE_CREATE_INFO_KHR
        info.connection = connection
        info.window = window
        var made: VkSurfaceKHR?
        try check(functions.vkCreateXcbSurfaceKHR(context.instance, &info, nil, &made), "vkCreateXcbSurfaceKHR")
        surface = made!
        var supported: VkBool32 = 0
        _ = functions.vkGetPhysicalDeviceSurfaceSupportKHR(
            context.physicalDevice, context.computeFamily, surface, &supported)
        guard supported != 0 else {
            functions.vkDestroySurfaceKHR(context.instance, surface, nil)
            throw VulkanError.noPresentation("the compute queue of \(context.info.name) cannot present to this window")
        }
        var count: UInt32 = 0
        _ = functions.vkGetPhysicalDeviceSurfaceFormatsKHR(context.physicalDevice, surface, &count, nil)
        var raw = [VkSurfaceFormatKHR](repeating: .init(), count: Int(count))
        _ = functions.vkGetPhysicalDeviceSurfaceFormatsKHR(context.physicalDevice, surface, &count, &raw)
        formats = raw.prefix(Int(count)).map { SurfaceFormat(.init($0.format), .init($0.colorSpace)) }
    }

    deinit { functions.vkDestroySurfaceKHR(context.instance, surface, nil) }

    func capabilities() throws -> VkSurfaceCapabilitiesKHR {
        var capabilities = VkSurfaceCapabilitiesKHR()
        try check(
            functions.vkGetPhysicalDeviceSurfaceCapabilitiesKHR(context.physicalDevice, surface, &capabilities),
            "vkGetPhysicalDeviceSurfaceCapabilitiesKHR")
        return capabilities
    }
}
