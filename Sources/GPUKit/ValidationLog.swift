import CVulkan
import Foundation
import HostSupport

/// Collects every message of the Khronos validation layer, so tests can fail
/// on any of them and users can see them with PRORES_DECODE_VALIDATION=1.
// @unchecked: messages are appended and read under its lock.
public final class ValidationLog: @unchecked Sendable {
    private let lock = NSLock()
    private var collected: [String] = []

    public var messages: [String] {
        lock.lock()
        defer { lock.unlock() }
        return collected
    }

    fileprivate func append(_ message: String) {
        lock.lock()
        collected.append(message)
        lock.unlock()
        FileHandle.standardError.write(Data("prores-decode: vulkan validation: \(message)\n".utf8))
    }

    func attach(instance: VkInstance, _ vki: VulkanInstanceFunctions) throws -> VkDebugUtilsMessengerEXT {
        guard let create = vki.vkCreateDebugUtilsMessengerEXT else {
            throw VulkanError.missingFunction("vkCreateDebugUtilsMessengerEXT")
        }
        var info = VkDebugUtilsMessengerCreateInfoEXT()
        info.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT
        info.messageSeverity =
            VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT.rawValue
            | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT.rawValue
        info.messageType =
            VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT.rawValue
            | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT.rawValue
            | VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT.rawValue
        info.pfnUserCallback = { _, _, data, user in
            if let user, let message = data?.pointee.pMessage {
                Unmanaged<ValidationLog>.fromOpaque(user).takeUnretainedValue().append(String(cString: message))
            }
            return VkBool32(VK_FALSE)
        }
        info.pUserData = Unmanaged.passUnretained(self).toOpaque()
        var messenger: VkDebugUtilsMessengerEXT?
        try check(create(instance, &info, nil, &messenger), "vkCreateDebugUtilsMessengerEXT")
        return messenger!
    }
}
