import Foundation

/// Whether the machine shows a device node that a hardware GPU's Vulkan
/// driver opens: anything under /dev/dri (the DRM nodes of Mesa's drivers
/// and of NVIDIA's), NVIDIA's /dev/nvidiactl, or WSL's /dev/dxg. Without
/// one, no hardware Vulkan device can exist, and `--decoder auto` need not
/// load the Vulkan loader and every installed driver to learn it: Mesa's
/// lavapipe alone costs a CPU-only run about 60 ms and 80 MB.
public enum GPUDeviceNodes {
    public static let described = "/dev/dri, /dev/nvidiactl, /dev/dxg"

    /// `root`: the device directory (tests give their own).
    public static func present(root: String = "/dev") -> Bool {
        let fm = FileManager.default
        if let dri = try? fm.contentsOfDirectory(atPath: root + "/dri"), !dri.isEmpty { return true }
        return ["nvidiactl", "dxg"].contains { fm.fileExists(atPath: root + "/" + $0) }
    }
}
