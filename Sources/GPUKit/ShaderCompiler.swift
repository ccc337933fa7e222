import CShaderc
import Foundation
import HostSupport

/// GLSL compute shaders, compiled to SPIR-V at run time with libshaderc.
/// The GLSL is built into the binary (`EmbeddedShaders`, made from
/// `Shaders/` by Plugins/EmbedShaders), so the tool needs no files beside
/// it wherever it is installed; `$PRORES_DECODE_SHADERS` names a directory
/// to use instead (a shader being edited), passed in by the caller's `Tuning`. Results are cached on disk, keyed
/// by the source's SHA-256, so a second run compiles nothing.
// @unchecked: the directories are immutable; the compile count is touched only under `countLock`.
public final class ShaderCompiler: @unchecked Sendable {
    /// Where the GLSL is read from; nil for the built-in shaders.
    public let shaderDirectory: URL?
    /// The directory came from `$PRORES_DECODE_SHADERS`: errors name it.
    private let directoryFromEnvironment: Bool
    public let cacheDirectory: URL?
    /// Shaders compiled (not taken from the cache) by this instance.
    public var compiledCount: Int {
        countLock.lock()
        defer { countLock.unlock() }
        return compiled
    }
    private var compiled = 0
    /// The first word of every SPIR-V module.
    static let spirvMagic: UInt32 = 0x0723_0203
    /// More than any of our kernels compiles to (the largest is well under 1 MiB).
    static let maximumSPIRVBytes = 16 << 20
    private let countLock = NSLock()

    /// The shaders of `shaderDirectory`, else the built-in ones; no cache without `cacheDirectory`.
    public init(shaderDirectory: URL? = nil, cacheDirectory: URL? = nil) throws {
        self.shaderDirectory = shaderDirectory
        directoryFromEnvironment = false
        self.cacheDirectory = cacheDirectory
    }

    /// The compiler `tuning` asks for: `PRORES_DECODE_SHADERS`'s shaders,
    /// else the built-in ones, cached under the cache's home.
    public init(tuning: Tuning) throws {
        let overriding = try Self.overridingDirectory(tuning)
        shaderDirectory = overriding
        directoryFromEnvironment = overriding != nil
        cacheDirectory = Self.cacheDirectory(tuning)
    }

    static let environmentVariable = "PRORES_DECODE_SHADERS"

    /// `$PRORES_DECODE_SHADERS` when it is set and not empty (empty is unset:
    /// never the current directory); a directory without shaders is an error
    /// that names the variable, not a run on half of them.
    static func overridingDirectory(_ tuning: Tuning) throws -> URL? {
        guard let path = tuning.shaderDirectory else { return nil }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        guard names.contains(where: { $0.hasSuffix(".comp") }) else {
            throw VulkanError.shaderSources(
                "\(environmentVariable)=\(path) holds no shaders (*.comp); unset it to use the built-in ones")
        }
        return URL(fileURLWithPath: path)
    }

    /// The GLSL of the shader `name`, from the directory or built in.
    func glsl(_ name: String) throws -> String {
        guard let shaderDirectory else {
            guard let text = EmbeddedShaders.sources[name] else {
                throw VulkanError.shaderSources("no built-in shader \(name)")
            }
            return text
        }
        let url = shaderDirectory.appendingPathComponent(name)
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw VulkanError.shaderSources(
                "cannot read the shader \(url.path)"
                    + (directoryFromEnvironment
                        ? " (from \(Self.environmentVariable); unset it to use the built-in shaders)" : ""))
        }
        return text
    }

    /// `prores-decode/spirv` under the cache's home (`$XDG_CACHE_HOME`, else `$HOME/.cache`).
    public static func cacheDirectory(_ tuning: Tuning) -> URL? {
        tuning.cacheHome.map { URL(fileURLWithPath: $0).appendingPathComponent("prores-decode/spirv") }
    }

    /// SPIR-V words for a kernel's shader behind its generated interface.
    public func spirv(_ interface: KernelInterface) throws -> [UInt32] {
        try spirv(interface.shader, prelude: interface.glslPrelude)
    }

    /// SPIR-V words for the shader `name` with `prelude` (a kernel's
    /// generated interface) in place of its `// @interface` line; a shader
    /// without that line compiles as it is when there is no prelude.
    public func spirv(_ name: String, prelude: String = "") throws -> [UInt32] {
        let text = try glsl(name)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if let marker = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "// @interface" }) {
            // The body's line numbers stay the file's in compiler errors.
            lines[marker] = prelude + "\n#line \(marker + 2)"
        } else if !prelude.isEmpty {
            throw VulkanError.shaderCompilation("\(name) has no '// @interface' line for its generated declarations")
        }
        let source = lines.joined(separator: "\n")
        let key = SHA256.hex(of: source.utf8)
        let cached = cacheDirectory?.appendingPathComponent("\(name)-\(key).spvc")
        // The entry vouches for the source it was compiled from and the compiler that did it.
        let identity = Array((name + "\n" + GPUKitVersions.shaderc + "\n" + source).utf8)
        if let cached, let data = CacheFile.load(cached, identity: identity, maximumBytes: Self.maximumSPIRVBytes),
            data.count % 4 == 0, data.count > 20
        {
            let words = data.withUnsafeBytes { Array($0.bindMemory(to: UInt32.self)) }
            if words[0] == Self.spirvMagic { return words }
        }
        let words = try compile(source, name: name, listing: text)
        countLock.lock()
        compiled += 1
        countLock.unlock()
        if let cached { _ = CacheFile.store(words.withUnsafeBytes { Data($0) }, identity: identity, at: cached) }
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
        shaderc_compile_options_set_target_env(
            options, shaderc_target_env_vulkan, UInt32(shaderc_env_version_vulkan_1_2.rawValue))
        shaderc_compile_options_set_optimization_level(options, shaderc_optimization_level_performance)
        let result = source.withCString { text in
            shaderc_compile_into_spv(compiler, text, strlen(text), shaderc_compute_shader, name, "main", options)
        }
        defer { shaderc_result_release(result) }
        guard shaderc_result_get_compilation_status(result) == shaderc_compilation_status_success else {
            let message = shaderc_result_get_error_message(result).map { String(cString: $0) } ?? "unknown error"
            throw VulkanError.shaderCompilation(
                "\(name):\n\(message)\(Self.numberedContext(listing ?? source, errors: message, name: name))")
        }
        let length = shaderc_result_get_length(result)
        guard let bytes = shaderc_result_get_bytes(result), length % 4 == 0 else {
            throw VulkanError.shaderCompilation("\(name): libshaderc returned no SPIR-V")
        }
        return Array(
            UnsafeBufferPointer(start: UnsafeRawPointer(bytes).assumingMemoryBound(to: UInt32.self), count: length / 4))
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
            return "\n"
                + lines.enumerated().map { String(format: "%4d | ", $0.offset + 1) + $0.element }.joined(
                    separator: "\n")
        }
        return "\n" + wanted.sorted().map { String(format: "%4d | ", $0) + lines[$0 - 1] }.joined(separator: "\n")
    }
}
