import CShaderc
import Foundation
import HostSupport

/// GLSL compute shaders from `Shaders/`, compiled to SPIR-V at run time with
/// libshaderc. Results are cached on disk, keyed by the source's SHA-256, so a
/// second run compiles nothing.
// @unchecked: the directories are immutable; the compile count is touched only under `countLock`.
public final class ShaderCompiler: @unchecked Sendable {
    public let shaderDirectory: URL
    public let cacheDirectory: URL?
    /// Shaders compiled (not taken from the cache) by this instance.
    public var compiledCount: Int {
        countLock.lock()
        defer { countLock.unlock() }
        return compiled
    }
    private var compiled = 0
    private let countLock = NSLock()

    public init(shaderDirectory: URL? = nil, cacheDirectory: URL? = ShaderCompiler.defaultCacheDirectory) throws {
        guard let directory = shaderDirectory ?? Self.locateShaders() else {
            throw VulkanError.shaderCompilation("cannot find the Shaders directory (looked beside the executable and in PRORES_DECODE_SHADERS)")
        }
        self.shaderDirectory = directory
        self.cacheDirectory = cacheDirectory
    }

    /// `$PRORES_DECODE_SHADERS`, else `Shaders/` beside the executable or in
    /// a parent of it (a bundle, or `.build/<config>/` inside the checkout),
    /// so the tool works from any current directory.
    static func locateShaders() -> URL? {
        let fm = FileManager.default
        if let env = ProcessInfo.processInfo.environment["PRORES_DECODE_SHADERS"] {
            return URL(fileURLWithPath: env)
        }
        let executable = URL(fileURLWithPath: (try? fm.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        var directory = executable.deletingLastPathComponent()
        for _ in 0..<5 {
            let candidate = directory.appendingPathComponent("Shaders")
            if fm.fileExists(atPath: candidate.appendingPathComponent("convert_to_p3.comp").path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        // Tests run from the package root's build directory; fall back to the source tree.
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Shaders")
        return fm.fileExists(atPath: source.path) ? source : nil
    }

    public static var defaultCacheDirectory: URL? {
        let env = ProcessInfo.processInfo.environment
        if let base = env["XDG_CACHE_HOME"], !base.isEmpty { return URL(fileURLWithPath: base).appendingPathComponent("prores-decode/spirv") }
        if let home = env["HOME"], !home.isEmpty { return URL(fileURLWithPath: home).appendingPathComponent(".cache/prores-decode/spirv") }
        return nil
    }

    /// SPIR-V words for a kernel's shader behind its generated interface.
    public func spirv(_ interface: KernelInterface) throws -> [UInt32] {
        try spirv(interface.shader, prelude: interface.glslPrelude)
    }

    /// SPIR-V words for `Shaders/<name>` with `prelude` (a kernel's
    /// generated interface) in place of its `// @interface` line; a shader
    /// without that line compiles as it is when there is no prelude.
    public func spirv(_ name: String, prelude: String = "") throws -> [UInt32] {
        let url = shaderDirectory.appendingPathComponent(name)
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw VulkanError.shaderCompilation("cannot read \(url.path)")
        }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if let marker = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "// @interface" }) {
            // The body's line numbers stay the file's in compiler errors.
            lines[marker] = prelude + "\n#line \(marker + 2)"
        } else if !prelude.isEmpty {
            throw VulkanError.shaderCompilation("\(name) has no '// @interface' line for its generated declarations")
        }
        let source = lines.joined(separator: "\n")
        let key = SHA256.hex(of: source.utf8)
        let cached = cacheDirectory?.appendingPathComponent("\(name)-\(key).spv")
        if let cached, let data = try? Data(contentsOf: cached), data.count % 4 == 0, data.count > 20 {
            return data.withUnsafeBytes { Array($0.bindMemory(to: UInt32.self)) }
        }
        let words = try compile(source, name: name, listing: text)
        countLock.lock()
        compiled += 1
        countLock.unlock()
        if let cached { _ = storeCacheFile(words.withUnsafeBytes { Data($0) }, at: cached) }
        return words
    }

    /// `listing` is the source as the user wrote it, for numbered error context.
    func compile(_ source: String, name: String, listing: String? = nil) throws -> [UInt32] {
        guard let compiler = shaderc_compiler_initialize(), let options = shaderc_compile_options_initialize() else {
            throw VulkanError.shaderCompilation("cannot start libshaderc")
        }
        defer {
            shaderc_compile_options_release(options)
            shaderc_compiler_release(compiler)
        }
        shaderc_compile_options_set_target_env(options, shaderc_target_env_vulkan, UInt32(shaderc_env_version_vulkan_1_2.rawValue))
        shaderc_compile_options_set_optimization_level(options, shaderc_optimization_level_performance)
        let result = source.withCString { text in
            shaderc_compile_into_spv(compiler, text, strlen(text), shaderc_compute_shader, name, "main", options)
        }
        defer { shaderc_result_release(result) }
        guard shaderc_result_get_compilation_status(result) == shaderc_compilation_status_success else {
            let message = shaderc_result_get_error_message(result).map { String(cString: $0) } ?? "unknown error"
            throw VulkanError.shaderCompilation("\(name):\n\(message)\(Self.numberedContext(listing ?? source, errors: message, name: name))")
        }
        let length = shaderc_result_get_length(result)
        guard let bytes = shaderc_result_get_bytes(result), length % 4 == 0 else {
            throw VulkanError.shaderCompilation("\(name): libshaderc returned no SPIR-V")
        }
        return Array(UnsafeBufferPointer(start: UnsafeRawPointer(bytes).assumingMemoryBound(to: UInt32.self), count: length / 4))
    }

    /// The source lines around each line an error names, numbered.
    static func numberedContext(_ source: String, errors: String, name: String) -> String {
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        var wanted = Set<Int>()
        for line in errors.split(separator: "\n") {
            // glslang says "name:LINE: error: ..."
            let parts = line.split(separator: ":")
            if parts.count > 2, parts[0].hasSuffix(name), let number = Int(parts[1]) {
                for n in max(1, number - 2)...min(lines.count, number + 2) { wanted.insert(n) }
            }
        }
        guard !wanted.isEmpty else {
            return "\n" + lines.enumerated().map { String(format: "%4d | ", $0.offset + 1) + $0.element }.joined(separator: "\n")
        }
        return "\n" + wanted.sorted().map { String(format: "%4d | ", $0) + lines[$0 - 1] }.joined(separator: "\n")
    }
}
