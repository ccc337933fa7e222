import CVulkan
import Foundation

/// A FIFO swapchain on a window's surface, filled from a buffer each frame:
/// acquire an image, record the caller's pass into a staging buffer, copy
/// it into the image, present. Recreated when the window's size changes.
///
/// Thread-safety: one thread presents; `needsResize` may be set from any.
public final class Swapchain {
    public let format: SurfaceFormat
    public private(set) var extent: (width: Int, height: Int) = (0, 0)
    private let surface: PresentationSurface
    private let context: VulkanContext
    private let functions: VulkanDeviceFunctions.SwapchainFunctions
    private var swapchain: VkSwapchainKHR?
    private var images: [VkImage] = []
    private let recorder: CommandRecorder
    private var submitted: [UInt64]
    private var acquired: [VkSemaphore] = []
    /// One per image, grown and never shrunk: a semaphore a present still
    /// waits on must not be destroyed when the swapchain is remade.
    private var rendered: [VkSemaphore] = []
    private var slot = 0
    private var presentID: UInt64 = 0
    private var outOfDate = false
    /// The size the window asks for where the surface leaves it to us.
    private var wanted: (width: Int, height: Int)
    /// Sent again with every remade swapchain (it belongs to the swapchain).
    private var hdrMetadata: VkHdrMetadataEXT?

    public init(
        surface: PresentationSurface, format: SurfaceFormat, size: (width: Int, height: Int), framesInFlight: Int = 2
    ) throws {
        guard let functions = surface.context.vk.swapchain else {
            preconditionFailure("the context was not made for presenting")
        }
        self.surface = surface
        context = surface.context
        self.functions = functions
        self.format = format
        wanted = size
        recorder = try CommandRecorder(context: context, count: framesInFlight)
        submitted = Array(repeating: 0, count: framesInFlight)
        acquired = try (0..<framesInFlight).map { _ in try makeSemaphore() }
        try remake()
    }

    deinit {
        let device = context.device
        let vk = context.vk
        // The last present still waits on its semaphore until the queue is
        // idle; no other work is submitted once the player lets go of this.
        context.waitUntilIdle()
        functions.vkDestroySwapchainKHR(device, swapchain, nil)
        (acquired + rendered).forEach { vk.vkDestroySemaphore(device, $0, nil) }
    }

    /// The window now has this client size: the next frame remakes the swapchain.
    public func resize(to size: (width: Int, height: Int)) {
        guard size != extent || size != wanted else { return }
        wanted = size
        outOfDate = true
    }

    /// Shows one frame. `record` writes the staging buffer it returns,
    /// `extent` pixels of `format.pixels` rows tightly packed, into the
    /// command buffer given; `slot` (below `framesInFlight`) names the
    /// frame in flight, whose earlier use has completed (for binding sets). Returns when the frame was queued for the
    /// display, or, with VK_KHR_present_wait, when it was shown.
    public func present(_ record: (CommandBuffer, (width: Int, height: Int), _ slot: Int) throws -> VulkanBuffer) throws
    {
        if outOfDate { try remake() }
        try recorder.wait(for: submitted[slot])
        var index: UInt32 = 0
        var result = functions.vkAcquireNextImageKHR(context.device, swapchain, UInt64.max, acquired[slot], nil, &index)
        if result == VK_ERROR_OUT_OF_DATE_KHR {
            try remake()
            result = functions.vkAcquireNextImageKHR(context.device, swapchain, UInt64.max, acquired[slot], nil, &index)
        }
        if result != VK_SUBOPTIMAL_KHR { try check(result, "vkAcquireNextImageKHR") }
        let cb = try recorder.begin(slot)
        let staging = try record(cb, extent, slot)
        cb.copy(
            staging, toSwapchainImage: images[Int(index)], width: extent.width, height: extent.height,
            functions.vkCmdCopyBufferToImage)
        submitted[slot] = try recorder.submit(cb, swapchainImage: (acquired[slot], rendered[Int(index)]))
        slot = (slot + 1) % submitted.count
        presentID += 1
        try queuePresent(image: index)
        if let wait = functions.vkWaitForPresentKHR {
            // Up to a second: a window that is hidden may never show it.
            let waited = wait(context.device, swapchain, presentID, 1_000_000_000)
            if waited != VK_TIMEOUT && waited != VK_ERROR_OUT_OF_DATE_KHR && waited != VK_SUBOPTIMAL_KHR {
                try check(waited, "vkWaitForPresentKHR")
            }
        }
    }

    /// Whether `present` returns when the frame was shown (VK_KHR_present_wait).
    public var knowsWhenShown: Bool { functions.vkWaitForPresentKHR != nil }

    /// VK_EXT_hdr_metadata for the PQ path: the mastering display (CIE xy,
    /// cd/m²) and the content light levels; nothing where unsupported.
    public func setHDRMetadata(
        red: (Double, Double), green: (Double, Double), blue: (Double, Double), white: (Double, Double),
        minLuminance: Double, maxLuminance: Double, maxCLL: Double, maxFALL: Double
    ) {
        guard functions.vkSetHdrMetadataEXT != nil else { return }
        func xy(_ p: (Double, Double)) -> VkXYColorEXT { VkXYColorEXT(x: Float(p.0), y: Float(p.1)) }
        var metadata = VkHdrMetadataEXT()
        metadata.sType = VK_STRUCTURE_TYPE_HDR_METADATA_EXT
        metadata.displayPrimaryRed = xy(red)
        metadata.displayPrimaryGreen = xy(green)
        metadata.displayPrimaryBlue = xy(blue)
        metadata.whitePoint = xy(white)
        metadata.minLuminance = Float(minLuminance)
        metadata.maxLuminance = Float(maxLuminance)
        metadata.maxContentLightLevel = Float(maxCLL)
        metadata.maxFrameAverageLightLevel = Float(maxFALL)
        hdrMetadata = metadata
        sendHDRMetadata()
    }

    private func sendHDRMetadata() {
        guard let set = functions.vkSetHdrMetadataEXT, var metadata = hdrMetadata else { return }
        var chain = swapchain
        set(context.device, 1, &chain, &metadata)
    }

    private func queuePresent(image: UInt32) throws {
        var chain = swapchain
        var index = image
        var wait: VkSemaphore? = rendered[Int(image)]
        var id = presentID
        var presentIDInfo = VkPresentIdKHR()
        presentIDInfo.sType = VK_STRUCTURE_TYPE_PRESENT_ID_KHR
        presentIDInfo.swapchainCount = 1
        let result: VkResult = withUnsafePointer(to: &id) { idPointer in
            presentIDInfo.pPresentIds = idPointer
            return withUnsafePointer(to: &presentIDInfo) { idInfo in
                var info = VkPresentInfoKHR()
                info.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR
                info.pNext = knowsWhenShown ? UnsafeRawPointer(idInfo) : nil
                info.waitSemaphoreCount = 1
                return withUnsafePointer(to: &wait) { waitPointer in
                    withUnsafePointer(to: &chain) { chainPointer in
                        withUnsafePointer(to: &index) { indexPointer in
                            info.pWaitSemaphores = waitPointer
                            info.swapchainCount = 1
                            info.pSwapchains = chainPointer
                            info.pImageIndices = indexPointer
                            context.submitLock.lock()
                            defer { context.submitLock.unlock() }
                            return functions.vkQueuePresentKHR(context.computeQueue, &info)
                        }
                    }
                }
            }
        }
        if result == VK_ERROR_OUT_OF_DATE_KHR || result == VK_SUBOPTIMAL_KHR {
            outOfDate = true
            return
        }
        try check(result, "vkQueuePresentKHR")
    }

    /// (Re)makes the swapchain at the surface's size (or the window's, where
    /// the surface leaves it open), once the frames in flight are done.
    private func remake() throws {
        for value in submitted where value > 0 { try recorder.wait(for: value) }
        let capabilities = try surface.capabilities()
        guard capabilities.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_DST_BIT.rawValue != 0 else {
            throw VulkanError.noPresentation("the surface's images cannot be written by a copy")
        }
        let current = capabilities.currentExtent
        let width = current.width == UInt32.max ? UInt32(wanted.width) : current.width
        let height = current.height == UInt32.max ? UInt32(wanted.height) : current.height
        // A minimised window has no size: keep the old swapchain until it has one.
        guard width > 0, height > 0 else { return }
        var count = capabilities.minImageCount + 1
        if capabilities.maxImageCount > 0 { count = min(count, capabilities.maxImageCount) }
        var info = VkSwapchainCreateInfoKHR()
        info.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR
        info.surface = surface.surface
        info.minImageCount = count
        info.imageFormat = format.pixels.vulkan
        info.imageColorSpace = format.colorSpace.vulkan
        info.imageExtent = VkExtent2D(width: width, height: height)
        info.imageArrayLayers = 1
        info.imageUsage = VK_IMAGE_USAGE_TRANSFER_DST_BIT.rawValue
        info.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE
        info.preTransform = capabilities.currentTransform
        let opaque = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR.rawValue
        info.compositeAlpha = VkCompositeAlphaFlagBitsKHR(
            rawValue: capabilities.supportedCompositeAlpha & opaque != 0
                ? opaque : capabilities.supportedCompositeAlpha & ~(capabilities.supportedCompositeAlpha - 1))
        // FIFO: every driver has it, and it waits for the display's refresh.
        info.presentMode = VK_PRESENT_MODE_FIFO_KHR
        info.clipped = VkBool32(VK_TRUE)
        info.oldSwapchain = swapchain
        var made: VkSwapchainKHR?
        try check(functions.vkCreateSwapchainKHR(context.device, &info, nil, &made), "vkCreateSwapchainKHR")
        functions.vkDestroySwapchainKHR(context.device, swapchain, nil)
        swapchain = made
        var imageCount: UInt32 = 0
        _ = functions.vkGetSwapchainImagesKHR(context.device, made, &imageCount, nil)
        var list = [VkImage?](repeating: nil, count: Int(imageCount))
        try check(
            functions.vkGetSwapchainImagesKHR(context.device, made, &imageCount, &list), "vkGetSwapchainImagesKHR")
        images = list.compactMap { $0 }
        while rendered.count < images.count { rendered.append(try makeSemaphore()) }
        extent = (Int(width), Int(height))
        outOfDate = false
        sendHDRMetadata()
    }

    private func makeSemaphore() throws -> VkSemaphore {
        var info = VkSemaphoreCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO
        var semaphore: VkSemaphore?
        try check(context.vk.vkCreateSemaphore(context.device, &info, nil, &semaphore), "vkCreateSemaphore")
        return semaphore!
    }
}
