import CShaderc
import CVulkan
import HostSupport

/// The versions of the GPU libraries, for `--version`; the C stays here.
public enum GPUKitVersions {
    /// The Vulkan loader's instance version (`1.3.239`, vkEnumerateInstanceVersion),
    /// or nil when no loader can be opened.
    public static var vulkanLoader: String? {
        guard let loader = try? VulkanLoader.shared.get() else { return nil }
        var version: UInt32 = 0
        guard loader.vkEnumerateInstanceVersion(&version) == VK_SUCCESS else { return nil }
        return "\(pd_vk_version_major(version)).\(pd_vk_version_minor(version)).\(pd_vk_version_patch(version))"
    }

    /// libshaderc states no release number of its own; what it reports is the
    /// SPIR-V version and the generator revision it emits (`SPIR-V 1.6, revision 1`),
    /// which changes with the glslang it was built from.
    public static var shaderc: String {
        var version: UInt32 = 0
        var revision: UInt32 = 0
        shaderc_get_spv_version(&version, &revision)
        return "SPIR-V \((version >> 16) & 0xFF).\((version >> 8) & 0xFF), revision \(revision)"
    }
}
