import Glibc
import HostSupport
import ProResCore
import ProResOptions
import ProResPipeline

/// The files one command line reads and writes, each with the option (or
/// word) that named it, for `OutputSafety`.
struct CommandFiles {
    struct Named {
        let name: String
        let path: String
    }
    /// A folder a command writes files into (`--save DIR`), with the test
    /// of the names it may write there.
    struct Folder {
        let name: String
        let path: String
        let writes: (String) -> Bool
    }
    var inputs: [Named] = []
    var outputs: [Named] = []
    var folders: [Folder] = []

    mutating func input(_ name: String, _ path: String?) {
        if let path { inputs.append(Named(name: name, path: path)) }
    }

    mutating func output(_ name: String, _ path: String?) {
        if let path { outputs.append(Named(name: name, path: path)) }
    }

    mutating func folder(_ name: String, _ path: String?, writes: @escaping (String) -> Bool) {
        if let path { folders.append(Folder(name: name, path: path, writes: writes)) }
    }
}

/// The output-safety rule, for every command and every output: before
/// anything is written, an output that is the same file as an input, or as
/// another output of the same run, is a usage error naming both, whatever
/// `-y` says. "The same file": the same device and inode when the name
/// exists, else the same resolved path (the real path of the deepest
/// existing parent, then the rest of the name), so `./r.json` and `r.json`,
/// a symlink and its target, and a hard link and its twin all count.
/// The standard streams are files too: stdin, when the command reads `-`,
/// is an input; stdout and stderr are outputs of every command. A folder
/// output (`--save DIR`) clashes with an input that is one of the names it
/// may write there. docs/output-safety.md states it for users.
enum OutputSafety {
    /// Set once a command line passed the rule: only then is the trace written.
    nonisolated(unsafe) private(set) static var traceCleared = false

    /// Throws a `UsageError` naming the first clash; the trace file
    /// (`PRORES_DECODE_TRACE`) is one more output of every command.
    static func check(_ files: CommandFiles, trace: String? = Trace.path) throws {
        try clashes(files, trace: trace)
        traceCleared = true
    }

    /// Writes the trace when the run passed the rule. Like check's reports,
    /// a trace replaces an earlier file of its name (never an input): it is
    /// the diagnosis of this run. A failure is a warning, never a failed run.
    static func writeTrace() {
        guard traceCleared, let path = Trace.path, let document = Trace.document() else { return }
        do {
            let file = try OutputFile(path: path, overwrite: true)
            try file.write(document)
            try file.commit()
        } catch {
            Console.warning("PRORES_DECODE_TRACE: \(ErrorWords.render(error))")
        }
    }

    private static func clashes(_ files: CommandFiles, trace: String?) throws {
        var outputs = files.outputs
        if let trace { outputs.append(.init(name: "PRORES_DECODE_TRACE", path: trace)) }
        let inputs = files.inputs.compactMap(identified)
        let named = outputs.filter(isFile).map { ($0, FileIdentity($0.path)) }
        try streamClashes(inputs: inputs, outputs: named)
        try folderClashes(files.folders, inputs: inputs)
        var earlier: [(CommandFiles.Named, FileIdentity)] = []
        for (output, identity) in named {
            // Any number of outputs may go to /dev/null.
            if case .device = identity { continue }
            if let (input, _) = inputs.first(where: { $0.1 == identity }) {
                throw sameAsInput(output, input)
            }
            if let (other, _) = earlier.first(where: { $0.1 == identity }) {
                throw UsageError(
                    "\(other.name) '\(other.path)' and \(output.name) '\(output.path)' are the same file:"
                        + " each output needs a file of its own")
            }
            earlier.append((output, identity))
        }
    }

    /// An input with the file it names: stdin's for `-`, none for an
    /// unnamed stream (a pipe, a terminal) or the empty name.
    private static func identified(_ input: CommandFiles.Named) -> (CommandFiles.Named, FileIdentity)? {
        if input.path == "-" { return FileIdentity(descriptor: STDIN_FILENO).map { (input, $0) } }
        guard isFile(input) else { return nil }
        return (input, FileIdentity(FileURL.localPath(input.path) ?? input.path))
    }

    private static func sameAsInput(_ output: CommandFiles.Named, _ input: CommandFiles.Named) -> UsageError {
        let shown = input.path == "-" ? "stdin" : "'\(input.path)'"
        return UsageError(
            "\(output.name) '\(output.path)' is the same file as \(input.name) \(shown):"
                + " an output never replaces an input, even with -y")
    }

    /// stdout and stderr redirected onto an input (`1<>clip.mov`,
    /// `2>>clip.mov`), or stdout onto a file another output replaces.
    /// Outputs that name stdout itself (`-`, `/dev/stdout`) are stdout.
    private static func streamClashes(
        inputs: [(CommandFiles.Named, FileIdentity)], outputs: [(CommandFiles.Named, FileIdentity)]
    ) throws {
        for (stream, descriptor) in [("stdout", STDOUT_FILENO), ("stderr", STDERR_FILENO)] {
            guard let identity = FileIdentity(descriptor: descriptor) else { continue }
            if let (input, _) = inputs.first(where: { $0.1 == identity }) {
                // The line would land in the input itself: it goes nowhere.
                if descriptor == STDERR_FILENO { silenceStandardError() }
                throw UsageError(
                    "\(stream) is the same file as \(input.name) '\(input.path)':"
                        + " an output never replaces an input, even with -y")
            }
            guard descriptor == STDOUT_FILENO else { continue }
            for (output, outputIdentity) in outputs where DescriptorNames.descriptor(output.path) != STDOUT_FILENO {
                if outputIdentity == identity {
                    throw UsageError(
                        "stdout and \(output.name) '\(output.path)' are the same file: each output needs a file of its own"
                    )
                }
            }
        }
    }

    private static func silenceStandardError() {
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        if null >= 0 {
            dup2(null, STDERR_FILENO)
            close(null)
        }
    }

    /// An input that is one of the names a folder output may write.
    private static func folderClashes(_ folders: [CommandFiles.Folder], inputs: [(CommandFiles.Named, FileIdentity)])
        throws
    {
        for folder in folders {
            guard let names = Directories.names(folder.path) else { continue }
            for name in names.sorted() where folder.writes(name) {
                let path = folder.path.hasSuffix("/") ? folder.path + name : folder.path + "/" + name
                let identity = FileIdentity(path)
                if let (input, _) = inputs.first(where: { $0.1 == identity }) {
                    throw sameAsInput(CommandFiles.Named(name: folder.name, path: path), input)
                }
            }
        }
    }

    /// stdout/stdin (`-`) and the empty name (refused elsewhere) name no file.
    private static func isFile(_ named: CommandFiles.Named) -> Bool {
        named.path != "-" && !named.path.isEmpty
    }
}

/// What makes two names one file.
enum FileIdentity: Equatable {
    /// An existing file or directory.
    case inode(device: UInt64, inode: UInt64)
    /// An existing character device (`/dev/null`): shared harmlessly.
    case device
    /// A name that does not exist yet, resolved.
    case path(String)

    /// An open descriptor's file; nil for a pipe, socket or terminal,
    /// which no name on the command line can be.
    init?(descriptor: Int32) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG, S_IFDIR, S_IFBLK: self = .inode(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        default: return nil
        }
    }

    init(_ path: String) {
        var info = stat()
        if PathBytes.withCString(path, { stat($0, &info) }) == 0 {
            self =
                info.st_mode & S_IFMT == S_IFCHR
                ? .device : .inode(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        } else {
            self = .path(Self.resolved(path))
        }
    }

    /// The real path of the deepest existing parent, then the missing
    /// components, with `.` and `..` among them applied as mkdir -p would.
    static func resolved(_ path: String) -> String {
        var head = path
        var missing: [Substring] = []
        while !head.isEmpty {
            if let real = realPath(head) { return joined(real, missing) }
            let slash = head.lastIndex(of: "/")
            missing.insert(Substring(head[(slash.map { head.index(after: $0) } ?? head.startIndex)...]), at: 0)
            head = slash.map { $0 == head.startIndex ? "/" : String(head[..<$0]) } ?? ""
        }
        return joined(realPath(".") ?? ".", missing)
    }

    private static func joined(_ base: String, _ components: [Substring]) -> String {
        var parts = base.split(separator: "/", omittingEmptySubsequences: true)
        for component in components where !component.isEmpty && component != "." {
            if component == ".." { _ = parts.popLast() } else { parts.append(component) }
        }
        return "/" + parts.joined(separator: "/")
    }

    private static func realPath(_ path: String) -> String? {
        guard let real = PathBytes.withCString(path, { realpath($0, nil) }) else { return nil }
        defer { free(real) }
        return PathBytes.string(cString: real)
    }
}
