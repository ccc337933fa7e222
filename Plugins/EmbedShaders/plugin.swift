import Foundation
import PackagePlugin

/// Builds Shaders/*.comp into GPUKit as one Swift source of string
/// literals (`EmbeddedShaders.sources`), so the binary carries its GLSL
/// and runs wherever it is installed, with nothing beside it. The command
/// is /bin/sh, not a tool built from this package: flags given to the
/// build (sanitizers, a static Swift runtime, extra linker inputs) never
/// reach it. An edited or added shader is picked up by the next build.
@main
struct EmbedShaders: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let directory = context.package.directoryURL.appending(path: "Shaders")
        let shaders = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "comp" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedShaders.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(shaders.count) shaders from Shaders/",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", Self.script, "embed-shaders", output.path] + shaders.map(\.path),
                inputFiles: shaders, outputFiles: [output])
        ]
    }

    /// $1 the Swift file to write, then the shaders. Each becomes a raw
    /// multi-line literal whose closing delimiter starts its line, so the
    /// text is the file's, byte for byte (a trailing newline included).
    static let script = ##"""
        set -e
        out=$1; shift
        {
            echo '// Generated at build time from Shaders/*.comp by Plugins/EmbedShaders; edit the shaders.'
            echo 'enum EmbeddedShaders {'
            echo '    /// Each shader'"'"'s GLSL, by file name.'
            echo '    static let sources: [String: String] = ['
            for shader; do
                if grep -q '"""#' "$shader"; then
                    echo "$shader: the text \"\"\"# would end its Swift literal" >&2
                    exit 1
                fi
                printf '        "%s": #"""\n' "${shader##*/}"
                cat "$shader"
                printf '\n"""#,\n'
            done
            echo '    ]'
            echo '}'
        } > "$out.part"
        mv "$out.part" "$out"
        """##
}
