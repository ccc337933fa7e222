import Glibc

/// The one reader of every auxiliary text input: golden files, .cube LUTs,
/// `--timing` logs (docs/inputs.md). Each is a regular file or a pipe (a
/// directory, device or socket is refused before a byte is read), at most
/// `kind.maximumBytes` long, read line by line: a line longer than
/// `kind.maximumLineBytes`, holding a NUL byte or not UTF-8, or one the
/// kind's `accepts` says cannot be its own, ends the read at once, so an
/// endless or binary stream (`/dev/zero` through a pipe) costs one line of
/// memory, not all of it.
public struct AuxiliaryInput: Sendable {
    /// What the input is, in the words an error uses ("golden file").
    public let noun: String
    public let maximumBytes: Int
    public let maximumLineBytes: Int
    /// Nil if the line (without its line break) could belong to this kind,
    /// else why it cannot. A cheap lexical look: the kind's parser has the
    /// last word on everything that passes.
    public let accepts: @Sendable (ArraySlice<UInt8>) -> String?

    public init(
        noun: String, maximumBytes: Int, maximumLineBytes: Int,
        accepts: @escaping @Sendable (ArraySlice<UInt8>) -> String?
    ) {
        self.noun = noun
        self.maximumBytes = maximumBytes
        self.maximumLineBytes = maximumLineBytes
        self.accepts = accepts
    }

    /// Why an input was refused; `line` is 1-based, nil when the file as a whole was.
    public struct Refusal: Error, Equatable, Sendable {
        public let line: Int?
        public let message: String

        /// `line N: message`, or the message alone.
        public var text: String { (line.map { "line \($0): " } ?? "") + message }
    }

    /// The bytes of `path` (`-`: stdin), every line accepted.
    public func read(_ path: String) throws(Refusal) -> [UInt8] {
        let fd: Int32
        if path == "-" {
            fd = dup(STDIN_FILENO)
        } else {
            // O_NONBLOCK: opening a FIFO with no writer must not hang before the type check.
            fd = PathBytes.withCString(path) { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        }
        guard fd >= 0 else {
            throw Refusal(line: nil, message: errno == ENOENT ? "no such file" : String(cString: strerror(errno)))
        }
        defer { close(fd) }
        guard try isFIFO(fd), path != "-" else { return try readLines(fd) }
        // A named pipe opened without blocking reads an end at once when its
        // writer is not there yet: open it again, waiting for the writer.
        let blocking = PathBytes.withCString(path) { open($0, O_RDONLY | O_CLOEXEC) }
        guard blocking >= 0 else { throw Refusal(line: nil, message: String(cString: strerror(errno))) }
        defer { close(blocking) }
        return try readLines(blocking)
    }

    /// Whether `fd` is a pipe; throws unless it is a pipe or a regular file within the size bound.
    private func isFIFO(_ fd: Int32) throws(Refusal) -> Bool {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Refusal(line: nil, message: String(cString: strerror(errno))) }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            if Int(info.st_size) > maximumBytes {
                throw Refusal(
                    line: nil, message: "is \(info.st_size) bytes, more than a \(noun) may hold (\(maximumBytes))")
            }
            return false
        case S_IFIFO: return true
        case S_IFDIR: throw Refusal(line: nil, message: "is a directory, not a \(noun)")
        case S_IFCHR, S_IFBLK: throw Refusal(line: nil, message: "is a device, not a \(noun)")
        case S_IFSOCK: throw Refusal(line: nil, message: "is a socket, not a \(noun)")
        default: throw Refusal(line: nil, message: "is not a regular file or a pipe")
        }
    }

    private func readLines(_ fd: Int32) throws(Refusal) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var lineStart = 0
        var lineNumber = 1
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Refusal(line: nil, message: String(cString: strerror(errno)))
            }
            if n == 0 {
                if lineStart < bytes.count { try check(bytes[lineStart...], lineNumber) }
                return bytes
            }
            guard bytes.count + n <= maximumBytes else {
                throw Refusal(line: nil, message: "holds more than \(maximumBytes) bytes, more than a \(noun) may hold")
            }
            let scanFrom = bytes.count
            bytes += chunk[0..<n]
            var index = scanFrom
            while let newline = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) {
                try check(bytes[lineStart..<newline], lineNumber)
                lineStart = newline + 1
                lineNumber += 1
                index = lineStart
            }
            if bytes.count - lineStart > maximumLineBytes { try check(bytes[lineStart...], lineNumber) }
        }
    }

    private func check(_ line: ArraySlice<UInt8>, _ number: Int) throws(Refusal) {
        func refuse(_ why: String) -> Refusal {
            // The start of the line, as the user would look for it (the CLI escapes control bytes).
            let excerpt = String(decoding: line.prefix(40), as: UTF8.self)
            return Refusal(line: number, message: "\(why): '\(excerpt)\(line.count > 40 ? "…" : "")'")
        }
        if line.count > maximumLineBytes { throw refuse("longer than \(maximumLineBytes) bytes: not a \(noun)") }
        if line.contains(0) { throw refuse("holds a NUL byte: binary data, not a \(noun)") }
        if String(validating: line, as: UTF8.self) == nil { throw refuse("not UTF-8 text: not a \(noun)") }
        if let why = accepts(line) { throw refuse(why) }
    }
}
