import Glibc
import HostSupport
import ProResCore

/// Opens `input` (a path, `-` for stdin, or a URL libavformat understands)
/// and picks the ProRes track: the first one, or `track` (a stream index).
/// An http(s) URL is opened as `URLOpening` says; `retried` hears each
/// failed try that is tried again; `activity` follows and stops its
/// requests. A URL is named in messages without its password.
public func openSampleSource(
    _ input: String, track: Int? = nil, retried: ((String) -> Void)? = nil,
    activity: HTTPActivity? = nil
) throws -> SampleSource {
    FFmpegLog.install()
    if let path = FileURL.localPath(input) { return try openSampleSource(path, track: track) }
    if input == "-" {
        let prefix = try readPrefix(fd: STDIN_FILENO, path: "stdin")
        if ElementaryStreamReader.looksLikeElementaryStream(prefix) {
            try requireNoTrack(track)
            return try ElementaryStreamReader(fd: STDIN_FILENO, path: "stdin", prefix: prefix, ownsDescriptor: false)
        }
        return try AssetReader(pipePrefix: prefix, track: track)
    }
    if FileURL.isRemote(input) {
        let scheme = input.prefix(8).lowercased()
        if scheme.hasPrefix("http://") || scheme.hasPrefix("https://") {
            return try AssetReader.open(
                url: input, displayPath: URLCredentials.redacted(input), track: track,
                activity: activity ?? HTTPActivity(), retried: retried)
        }
        return try AssetReader(url: input, displayPath: URLCredentials.redacted(input), track: track)
    }
    let (fd, regular) = try openLocalFile(input)
    let prefix: [UInt8]
    do { prefix = try readPrefix(fd: fd, path: input) } catch {
        close(fd)
        throw error
    }
    if ElementaryStreamReader.looksLikeElementaryStream(prefix) {
        do { try requireNoTrack(track) } catch {
            close(fd)
            throw error
        }
        // A regular file is read by offset; a stream continues after the prefix.
        return try ElementaryStreamReader(fd: fd, path: input, prefix: regular ? [] : prefix, ownsDescriptor: true)
    }
    guard regular else {
        // A FIFO or /dev/fd/N cannot be opened twice: the bytes sniffed would
        // be lost, or the second open would wait for a writer forever.
        return try AssetReader(pipePrefix: prefix, fd: fd, displayPath: input, ownsDescriptor: true, track: track)
    }
    close(fd)
    return try AssetReader(url: "file:" + input, displayPath: input, track: track, localPath: input)
}

/// Opens a local file for reading, turning each way it can fail into words;
/// says whether it is a regular file (which can be read by offset).
private func openLocalFile(_ path: String) throws -> (fd: Int32, regular: Bool) {
    var info = stat()
    guard PathBytes.withCString(path, { stat($0, &info) }) == 0 else {
        let reason = errno == ENOENT ? "no such file" : String(cString: strerror(errno))
        throw ProResDecodeError.inputUnreadable(path: path, reason: reason)
    }
    if info.st_mode & S_IFMT == S_IFDIR {
        throw ProResDecodeError.inputUnreadable(path: path, reason: "is a directory")
    }
    if info.st_mode & S_IFMT == S_IFREG && info.st_size == 0 {
        throw ProResDecodeError.inputUnreadable(path: path, reason: "file is empty")
    }
    let fd = PathBytes.withCString(path) { open($0, O_RDONLY | O_CLOEXEC) }
    guard fd >= 0 else {
        throw ProResDecodeError.inputUnreadable(path: path, reason: String(cString: strerror(errno)))
    }
    // fstat, not the stat above: the path may have changed in between.
    guard fstat(fd, &info) == 0 else {
        let reason = String(cString: strerror(errno))
        close(fd)
        throw ProResDecodeError.inputUnreadable(path: path, reason: reason)
    }
    return (fd, info.st_mode & S_IFMT == S_IFREG)
}

/// Reads up to 8 bytes: enough to tell an elementary stream from a container.
private func readPrefix(fd: Int32, path: String) throws -> [UInt8] {
    var prefix = [UInt8](repeating: 0, count: 8)
    var filled = 0
    while filled < prefix.count {
        let n = prefix.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
        if n < 0 {
            if errno == EINTR { continue }
            throw ProResDecodeError.inputUnreadable(path: path, reason: String(cString: strerror(errno)))
        }
        if n == 0 { break }
        filled += n
    }
    guard filled > 0 else { throw ProResDecodeError.inputUnreadable(path: path, reason: "input is empty") }
    return Array(prefix[0..<filled])
}

private func requireNoTrack(_ track: Int?) throws {
    if let track, track != 0 {
        throw ProResDecodeError.badRequest(.elementaryStreamHasOneTrack(requested: track))
    }
}
