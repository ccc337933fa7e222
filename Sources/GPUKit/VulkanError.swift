import CVulkan
import HostSupport

/// Why the Vulkan path could not do its work, in words a user can act on.
public enum VulkanError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No Vulkan loader (libvulkan.so.1) on this machine.
    case loaderMissing(String)
    /// No usable device.
    case noDevice(String)
    /// The device selector matched none of `candidates` ("INDEX: NAME" each).
    case noMatchingDevice(selector: String, candidates: [String])
    /// Only a hardware device would do (`Options.hardwareOnly`), and none
    /// (that the selector names) is: every device's name.
    case noHardwareDevice([String])
    /// A required entry point or extension is missing.
    case missingFunction(String)
    case missingExtension(String)
    case missingFeature(String)
    /// A Vulkan call failed.
    case call(String, Int32)
    /// A shader failed to compile; the message carries numbered source lines.
    case shaderCompilation(String)
    /// The GLSL could not be found or read.
    case shaderSources(String)
    case outOfMemory(String)
    /// Frames cannot be shown in a window: no surface extension, no
    /// swapchain, or a queue that cannot present to the window.
    case noPresentation(String)

    public var description: String {
        switch self {
        case .loaderMissing(let why): return "Vulkan is not available: \(why)"
        case .noDevice(let why): return "no usable Vulkan device: \(why)"
        case .noMatchingDevice(let selector, let candidates):
            return "no usable Vulkan device: " + DeviceSelectorWords.noMatch(selector: selector, candidates: candidates)
        case .noHardwareDevice(let names): return "no hardware Vulkan device (\(names.joined(separator: ", ")))"
        case .missingFunction(let name): return "the Vulkan driver lacks the function \(name)"
        case .missingExtension(let name): return "the Vulkan device lacks the extension \(name)"
        case .missingFeature(let name): return "the Vulkan device lacks the feature \(name)"
        case .call(let name, let result): return "\(name) failed: \(VulkanError.name(of: result))"
        case .shaderCompilation(let message): return "shader compilation failed: \(message)"
        case .shaderSources(let message): return message
        case .outOfMemory(let what): return "out of GPU memory: \(what)"
        case .noPresentation(let why): return "cannot present to a window: \(why)"
        }
    }

    static func name(of result: Int32) -> String {
        switch result {
        case VK_ERROR_OUT_OF_HOST_MEMORY.rawValue: return "VK_ERROR_OUT_OF_HOST_MEMORY"
        case VK_ERROR_OUT_OF_DEVICE_MEMORY.rawValue: return "VK_ERROR_OUT_OF_DEVICE_MEMORY"
        case VK_ERROR_INITIALIZATION_FAILED.rawValue: return "VK_ERROR_INITIALIZATION_FAILED"
        case VK_ERROR_DEVICE_LOST.rawValue: return "VK_ERROR_DEVICE_LOST"
        case VK_ERROR_LAYER_NOT_PRESENT.rawValue: return "VK_ERROR_LAYER_NOT_PRESENT"
        case VK_ERROR_EXTENSION_NOT_PRESENT.rawValue: return "VK_ERROR_EXTENSION_NOT_PRESENT"
        case VK_ERROR_FEATURE_NOT_PRESENT.rawValue: return "VK_ERROR_FEATURE_NOT_PRESENT"
        case VK_ERROR_INCOMPATIBLE_DRIVER.rawValue: return "VK_ERROR_INCOMPATIBLE_DRIVER (no Vulkan driver installed?)"
        case VK_ERROR_INVALID_EXTERNAL_HANDLE.rawValue: return "VK_ERROR_INVALID_EXTERNAL_HANDLE"
        case VK_TIMEOUT.rawValue: return "VK_TIMEOUT"
        default: return "VkResult \(result)"
        }
    }
}

/// Throws unless a Vulkan call succeeded.
@inline(__always)
func check(_ result: VkResult, _ call: @autoclosure () -> String) throws {
    guard result == VK_SUCCESS else {
        if result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY {
            throw VulkanError.outOfMemory(call())
        }
        throw VulkanError.call(call(), result.rawValue)
    }
}
