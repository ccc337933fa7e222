import GPUKit
import ProResCore
import ProResFFmpeg

/// `prores-decode --version`: our version and every library a decode depends
/// on, compiled and loaded, so a bug report says which FFmpeg and Vulkan ran.
enum VersionReport {
    static var text: String {
        var lines = ["prores-decode \(ProResDecodeVersion.string)", "FFmpeg \(FFmpegVersions.release)"]
        for library in FFmpegVersions.libraries {
            let mismatch = library.compiled == library.runtime ? "" : " (differs: rebuild or reinstall)"
            lines.append("\(library.name) \(library.runtime) (compiled against \(library.compiled))\(mismatch)")
        }
        // The loader is opened at run time, so a machine may have none.
        lines.append("Vulkan loader \(GPUKitVersions.vulkanLoader ?? "none")")
        lines.append("shaderc (linked statically) \(GPUKitVersions.shaderc)")
        return lines.joined(separator: "\n") + "\n"
    }
}
