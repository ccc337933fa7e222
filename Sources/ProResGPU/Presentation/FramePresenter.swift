import GPUKit
import ProResCore

/// Shows converted frames in a window: picks the display colour path from
/// the surface, runs the present pass from the frame's device buffer into a
/// staging buffer and hands it to the swapchain. Nothing is read back.
///
/// Thread-safety: one thread presents at a time (the GPU stage's
/// completion thread while playing, the player's thread while paused).
public final class FramePresenter {
    public let choice: DisplayColourChoice
    private let swapchain: Swapchain
    private let kernel: Kernel
    private let bindingSets: [BindingSet]
    private var staging: VulkanBuffer?
    private let context: VulkanContext
    private let referenceWhite: Double
    private let pixelAspect: Double

    /// `pixelAspect`: the frames' sample aspect ratio (a pixel's width over its height).
    public init(
        device: GPUDevice, surface: PresentationSurface, size: (width: Int, height: Int), referenceWhite: Double,
        mastering: MasteringDisplay? = nil, contentLight: ContentLightLevel? = nil, pixelAspect: Double = 1
    ) throws {
        context = device.context
        self.pixelAspect = pixelAspect
        self.referenceWhite = referenceWhite
        guard
            let choice = DisplayColourChoice.choose(
                from: surface.formats, colorSpaces: context.presentation?.colorSpaces ?? false)
        else {
            throw VulkanError.noPresentation(
                "the window offers no format we can fill (\(surface.formats.map(\.description).joined(separator: ", ")))"
            )
        }
        self.choice = choice
        let framesInFlight = 2
        swapchain = try Swapchain(surface: surface, format: choice.format, size: size, framesInFlight: framesInFlight)
        kernel = try device.kernels.kernel(PresentKernel.interface)
        bindingSets = try kernel.makeBindingSets(framesInFlight)
        if choice.path == .pq, let mastering {
            swapchain.setHDRMetadata(
                red: (mastering.red.x, mastering.red.y), green: (mastering.green.x, mastering.green.y),
                blue: (mastering.blue.x, mastering.blue.y), white: (mastering.whitePoint.x, mastering.whitePoint.y),
                minLuminance: mastering.minLuminance ?? 0, maxLuminance: mastering.maxLuminance ?? 0,
                maxCLL: Double(contentLight?.maxCLL ?? 0), maxFALL: Double(contentLight?.maxFALL ?? 0))
        }
    }

    /// Whether a present returns only once the frame was shown (VK_KHR_present_wait).
    public var knowsWhenShown: Bool { swapchain.knowsWhenShown }

    /// The window's client area changed size.
    public func resize(to size: (width: Int, height: Int)) { swapchain.resize(to: size) }

    /// Shows `frame` (RGBA16F linear Display P3, `width` × `height`).
    public func present(_ frame: VulkanBuffer, width: Int, height: Int) throws {
        try swapchain.present { cb, extent, slot in
            let bytes = extent.width * extent.height * swapchain.format.pixels.bytesPerPixel
            if (staging?.size ?? 0) != bytes {
                staging = try VulkanBuffer(context, size: bytes, usage: [.storage, .transferSource], memory: .device)
            }
            cb.dispatch(
                kernel, set: bindingSets[slot],
                buffers: [BufferRange(frame, bytes: width * height * 8), BufferRange(staging!)],
                push: PresentKernel.values(
                    path: choice.path, format: swapchain.format, source: (width, height),
                    target: extent, referenceWhite: referenceWhite, pixelAspect: pixelAspect),
                groups: (kernel.interface.groups(covering: extent.width), extent.height, 1))
            return staging!
        }
    }
}
