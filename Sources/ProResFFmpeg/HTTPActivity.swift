import CFFmpeg
import Foundation
import HostSupport
import ProResCore

/// What one URL's reading has done so far, and the switch that stops it.
///
/// libavformat's http protocol keeps no response headers and says nothing of
/// its progress, but it logs each request (`request: …`, debug) and each
/// line of each reply header (`header='…'`, trace) on the thread that reads;
/// `FFmpegLog` hands those lines to the activity of that thread
/// (`FFmpegLog.recording`). From them come the validators of the responses
/// whose bodies were read (`validators`), the redirects followed (a loop is
/// named), and, at a deadline, which step the server never finished.
///
/// libavformat asks the interrupt callback (`interruptCallback`) before each
/// connect, between polls of a silent socket (every 100 ms) and on every
/// pass of its read loops, so `isStopped` bounds connects, stalls and a
/// decompression that spins on a body it cannot inflate.
public final class HTTPActivity: @unchecked Sendable {
    // @unchecked: every field is touched only under `lock`.
    private let lock = NSLock()
    private let isStopped: @Sendable () -> Bool
    private let started = monotonicNanoseconds()
    private var requests = 0
    private var lastRequestAt: UInt64?
    private var responses: [Response] = []
    /// A reply header begun and not yet ended by its blank line.
    private var inHeader = false
    private var lastProgressAt: UInt64?
    private var bodyBytes: Int64 = 0
    private var undecodableBody: String?
    /// The format context whose `pb` counts the body's bytes (read on the reading thread).
    private var context: UnsafeMutablePointer<AVFormatContext>?
    /// The URL opened, against which relative redirects are resolved.
    private var opened = ""
    /// libavformat calls on the URL under way (`FFmpegLog.recording`).
    private var busy = 0
    /// What the server had not done when the stop reached libavformat.
    private var stallWhenStopped: String?

    /// One reply: its status and the headers that matter here.
    struct Response {
        var status: Int?
        var location: String?
        var etag: String?
        var lastModified: String?
        /// The whole object's size: Content-Range's total, else a 200's Content-Length.
        var length: Int64?
    }

    /// `isStopped`: whether the file's time is up or the check interrupted.
    public init(isStopped: @escaping @Sendable () -> Bool = { false }) {
        self.isStopped = isStopped
    }

    /// The validators every 200/206 response whose body was read agrees on;
    /// nil when there were none or they disagree (the object changed while
    /// it was read).
    public var validators: (etag: String?, lastModified: String?, length: Int64?)? {
        lock.lock()
        defer { lock.unlock() }
        let bodies = responses.filter { $0.status == 200 || $0.status == 206 }
        guard let first = bodies.first, first.etag != nil || first.lastModified != nil else { return nil }
        for other in bodies.dropFirst()
        where other.etag != first.etag || other.lastModified != first.lastModified
            || (other.length != nil && first.length != nil && other.length != first.length)
        {
            return nil
        }
        return (first.etag, first.lastModified, bodies.lazy.compactMap(\.length).first)
    }

    /// Why libavformat's open ended in a bare I/O error, when the replies
    /// say: a redirect back to a URL already visited, or more redirects than
    /// libavformat follows (8). Credentials in the URLs are hidden.
    public var redirectProblem: String? {
        lock.lock()
        let locations = responses.compactMap { [301, 302, 303, 307, 308].contains($0.status ?? 0) ? $0.location : nil }
        var current = opened
        lock.unlock()
        var seen: Set<String> = [current]
        for location in locations {
            current = Self.resolve(location, against: current)
            if !seen.insert(current).inserted { return "redirect loop at \(URLCredentials.redacted(current))" }
        }
        return locations.count >= 8
            ? "too many redirects (\(locations.count), the last to \(URLCredentials.redacted(current)))" : nil
    }

    /// A Location header's URL made absolute, as a client follows it.
    static func resolve(_ location: String, against base: String) -> String {
        if location.contains("://") { return location }
        guard let separator = base.range(of: "://") else { return location }
        let scheme = base[..<separator.lowerBound]
        if location.hasPrefix("//") { return scheme + ":" + location }
        let afterScheme = base[separator.upperBound...]
        let origin = base[..<(afterScheme.firstIndex { "/?#".contains($0) } ?? base.endIndex)]
        if location.hasPrefix("/") { return origin + location }
        let path = base[origin.endIndex...].prefix { $0 != "?" && $0 != "#" }
        let directory = path.lastIndex(of: "/").map { path[...$0] } ?? "/"
        return origin + directory + location
    }

    /// The URL about to be opened, by a new try: the replies of a try that
    /// failed say nothing of this one.
    func begin(_ url: String) {
        lock.lock()
        opened = url
        responses = []
        inHeader = false
        lock.unlock()
    }

    /// What the server had not done when the reading was stopped, in words:
    /// "connect timed out", "the server sent no reply header in 2 s", …;
    /// nil when the stop found no read of the URL under way (the time went
    /// to decoding, not to the server).
    public var stall: String? {
        lock.lock()
        defer { lock.unlock() }
        return stallWhenStopped ?? (busy > 0 ? describeStall() : nil)
    }

    /// What the server has left undone, in the words of `stall`, whether or not a read is under way.
    public var stallNow: String {
        lock.lock()
        defer { lock.unlock() }
        return describeStall()
    }

    /// The caller holds `lock`.
    private func describeStall() -> String {
        let now = monotonicNanoseconds()
        func seconds(since start: UInt64?) -> String {
            JSON.number(Double(now - (start ?? started)) / 1e9, digits: 1) + " s"
        }
        if let undecodableBody { return undecodableBody }
        guard requests > 0 else { return "connect timed out after \(seconds(since: nil))" }
        if inHeader, responses.last?.status == nil {
            return "the server sent no reply header in \(seconds(since: lastRequestAt))"
        }
        if inHeader {
            return "the server's reply header did not end (no header line for \(seconds(since: lastProgressAt)))"
        }
        let quiet = Double(now - (lastProgressAt ?? started)) / 1e9
        if quiet >= 1 { return "the server sent no data for \(seconds(since: lastProgressAt))" }
        return "the server sent data too slowly (\(bodyBytes) bytes of body in \(seconds(since: lastRequestAt)))"
    }

    /// Whether the reading was stopped by `isStopped`, rather than ended by the server.
    public var wasStopped: Bool { isStopped() }

    /// The callback libavformat polls; `self` must outlive the context.
    var interruptCallback: AVIOInterruptCB {
        AVIOInterruptCB(
            callback: { opaque in
                guard let opaque else { return 0 }
                return Unmanaged<HTTPActivity>.fromOpaque(opaque).takeUnretainedValue().poll() ? 1 : 0
            }, opaque: Unmanaged.passUnretained(self).toOpaque())
    }

    func watch(_ context: UnsafeMutablePointer<AVFormatContext>?) {
        lock.lock()
        self.context = context
        lock.unlock()
    }

    /// On the reading thread: notes the body's progress; true to stop.
    private func poll() -> Bool {
        lock.lock()
        if let pb = context?.pointee.pb, pb.pointee.bytes_read != bodyBytes {
            bodyBytes = pb.pointee.bytes_read
            lastProgressAt = monotonicNanoseconds()
        }
        let undecodable = undecodableBody != nil
        lock.unlock()
        // A body that does not inflate never will: libavformat would retry it until the deadline.
        if undecodable { return true }
        guard isStopped() else { return false }
        lock.lock()
        if stallWhenStopped == nil { stallWhenStopped = describeStall() }
        lock.unlock()
        return true
    }

    /// A libavformat call on the URL begins or ends.
    func enter() {
        lock.lock()
        busy += 1
        lock.unlock()
    }
    func leave() {
        lock.lock()
        busy -= 1
        lock.unlock()
    }

    /// A request was sent: the connection is up.
    func requestSent() {
        lock.lock()
        requests += 1
        lastRequestAt = monotonicNanoseconds()
        inHeader = true
        responses.append(Response())
        lock.unlock()
    }

    /// One line of a reply header, as libavformat read it.
    func headerLine(_ line: String) {
        lock.lock()
        defer { lock.unlock() }
        lastProgressAt = monotonicNanoseconds()
        if responses.isEmpty { responses.append(Response()) }
        if line.isEmpty {
            inHeader = false
            return
        }
        inHeader = true
        var response = responses.removeLast()
        defer { responses.append(response) }
        if response.status == nil {
            let words = line.split(separator: " ")
            response.status = words.count >= 2 ? Int(words[1]) : nil
            return
        }
        guard let (name, value) = httpHeaderField(line) else { return }
        switch name {
        case "location": response.location = value
        case "etag": response.etag = value
        case "last-modified": response.lastModified = value
        case "content-range":
            response.length = value.split(separator: "/").last.flatMap { Int64($0) } ?? response.length
        case "content-length" where response.status == 200: response.length = response.length ?? Int64(value)
        default: break
        }
    }

    /// libavformat's inflate failed on the body (a false Content-Encoding).
    func bodyDoesNotInflate(_ message: String) {
        lock.lock()
        if undecodableBody == nil {
            undecodableBody = "the server's body does not decompress as its Content-Encoding says (\(message))"
        }
        lock.unlock()
    }

    /// Why the body could not be read, when it was its encoding.
    public var bodyProblem: String? {
        lock.lock()
        defer { lock.unlock() }
        return undecodableBody
    }
}
