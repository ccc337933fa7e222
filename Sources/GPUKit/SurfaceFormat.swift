import CVulkan

/// A pixel format and colour space a window surface offers, in our words
/// (the choice of colour path is made from a list of these, in ProResGPU,
/// without Vulkan types, so it can be tested on made-up lists).
public struct SurfaceFormat: Equatable, Sendable, CustomStringConvertible {
    public enum Pixels: Equatable, Sendable {
        case bgra8Unorm, bgra8SRGB, rgba8Unorm, rgba8SRGB
        /// 10 bits a channel, 2 of alpha, in one 32-bit word.
        case a2b10g10r10, a2r10g10b10
        case rgba16Float
        case other(UInt32)

        var vulkan: VkFormat {
            switch self {
            case .bgra8Unorm: return VK_FORMAT_B8G8R8A8_UNORM
            case .bgra8SRGB: return VK_FORMAT_B8G8R8A8_SRGB
            case .rgba8Unorm: return VK_FORMAT_R8G8B8A8_UNORM
            case .rgba8SRGB: return VK_FORMAT_R8G8B8A8_SRGB
            case .a2b10g10r10: return VK_FORMAT_A2B10G10R10_UNORM_PACK32
            case .a2r10g10b10: return VK_FORMAT_A2R10G10B10_UNORM_PACK32
            case .rgba16Float: return VK_FORMAT_R16G16B16A16_SFLOAT
            case .other(let raw): return VkFormat(rawValue: raw)
            }
        }

        init(_ format: VkFormat) {
            switch format {
            case VK_FORMAT_B8G8R8A8_UNORM: self = .bgra8Unorm
            case VK_FORMAT_B8G8R8A8_SRGB: self = .bgra8SRGB
            case VK_FORMAT_R8G8B8A8_UNORM: self = .rgba8Unorm
            case VK_FORMAT_R8G8B8A8_SRGB: self = .rgba8SRGB
            case VK_FORMAT_A2B10G10R10_UNORM_PACK32: self = .a2b10g10r10
            case VK_FORMAT_A2R10G10B10_UNORM_PACK32: self = .a2r10g10b10
            case VK_FORMAT_R16G16B16A16_SFLOAT: self = .rgba16Float
            default: self = .other(format.rawValue)
            }
        }

        /// Bytes a pixel (4 for the formats we can fill).
        public var bytesPerPixel: Int { self == .rgba16Float ? 8 : 4 }
    }

    public enum ColorSpace: Equatable, Sendable {
        case srgbNonlinear, extendedSRGBLinear, hdr10ST2084
        case other(UInt32)

        var vulkan: VkColorSpaceKHR {
            switch self {
            case .srgbNonlinear: return VK_COLOR_SPACE_SRGB_NONLINEAR_KHR
            case .extendedSRGBLinear: return VK_COLOR_SPACE_EXTENDED_SRGB_LINEAR_EXT
            case .hdr10ST2084: return VK_COLOR_SPACE_HDR10_ST2084_EXT
            case .other(let raw): return VkColorSpaceKHR(rawValue: raw)
            }
        }

        init(_ space: VkColorSpaceKHR) {
            switch space {
            case VK_COLOR_SPACE_SRGB_NONLINEAR_KHR: self = .srgbNonlinear
            case VK_COLOR_SPACE_EXTENDED_SRGB_LINEAR_EXT: self = .extendedSRGBLinear
            case VK_COLOR_SPACE_HDR10_ST2084_EXT: self = .hdr10ST2084
            default: self = .other(space.rawValue)
            }
        }
    }

    public let pixels: Pixels
    public let colorSpace: ColorSpace

    public init(_ pixels: Pixels, _ colorSpace: ColorSpace) {
        self.pixels = pixels
        self.colorSpace = colorSpace
    }

    public var description: String { "\(pixels.vulkanName) \(colorSpace.vulkanName)" }
}

extension SurfaceFormat.Pixels {
    /// The VkFormat's name, for `--verbose`.
    public var vulkanName: String {
        switch self {
        case .bgra8Unorm: return "B8G8R8A8_UNORM"
        case .bgra8SRGB: return "B8G8R8A8_SRGB"
        case .rgba8Unorm: return "R8G8B8A8_UNORM"
        case .rgba8SRGB: return "R8G8B8A8_SRGB"
        case .a2b10g10r10: return "A2B10G10R10_UNORM_PACK32"
        case .a2r10g10b10: return "A2R10G10B10_UNORM_PACK32"
        case .rgba16Float: return "R16G16B16A16_SFLOAT"
        case .other(let raw): return "VkFormat \(raw)"
        }
    }
}

extension SurfaceFormat.ColorSpace {
    public var vulkanName: String {
        switch self {
        case .srgbNonlinear: return "SRGB_NONLINEAR"
        case .extendedSRGBLinear: return "EXTENDED_SRGB_LINEAR"
        case .hdr10ST2084: return "HDR10_ST2084"
        case .other(let raw): return "VkColorSpaceKHR \(raw)"
        }
    }
}
