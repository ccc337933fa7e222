import Foundation
import Glibc
import HostSupport
import ProResCore

/// An http:// object's ETag, Last-Modified and length as it is now, from a
/// HEAD request of our own: what `--resume` compares with those of the GET
/// replies an earlier check read (`HTTPActivity.validators`), as size and
/// time for a local file. https:// is not asked (no TLS here): such URLs
/// are always checked again.
enum HTTPValidators {
    /// nil when the server does not answer 200 with either header within
    /// `timeout` seconds in all (a server that trickles its reply is cut off there).
    static func fetch(_ url: String, timeout: Double = 10) -> (etag: String?, lastModified: String?, length: Int64?)? {
        let deadline = monotonicNanoseconds() + UInt64(timeout * 1e9)
        guard url.prefix(7).lowercased() == "http://" else { return nil }
        let rest = url.dropFirst(7).prefix { $0 != "#" }
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        var target = String(rest.dropFirst(authority.count))
        if target.isEmpty || target.hasPrefix("?") { target = "/" + target }
        guard !authority.contains("@"), !authority.isEmpty else { return nil }
        var host = String(authority)
        var port = "80"
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let after = host[host.index(after: close)...]
            if after.hasPrefix(":") { port = String(after.dropFirst()) }
            host = String(host[host.index(after: host.startIndex)..<close])
        } else if let colon = host.lastIndex(of: ":") {
            port = String(host[host.index(after: colon)...])
            host = String(host[..<colon])
        }
        guard let fd = connect(host: host, port: port, timeout: timeout) else { return nil }
        defer { close(fd) }
        let request =
            "HEAD \(target) HTTP/1.1\r\nHost: \(authority)\r\nUser-Agent: prores-decode\r\nConnection: close\r\n\r\n"
        guard
            Array(request.utf8).withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) })
                == request.utf8.count
        else { return nil }
        var reply: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while reply.count < 65536, !reply.suffix(4).elementsEqual([13, 10, 13, 10]) {
            let now = monotonicNanoseconds()
            guard now < deadline else { return nil }
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, Int32(min((deadline - now) / 1_000_000 + 1, 60_000))) == 1 else { return nil }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            reply += chunk[0..<n]
        }
        let lines = String(decoding: reply, as: UTF8.self).components(separatedBy: "\r\n")
        guard let status = lines.first?.split(separator: " "), status.count >= 2, status[1] == "200" else { return nil }
        var etag: String?
        var lastModified: String?
        var length: Int64?
        for line in lines.dropFirst() {
            guard let (name, value) = httpHeaderField(line) else { continue }
            if name == "etag" {
                etag = value
            } else if name == "last-modified" {
                lastModified = value
            } else if name == "content-length" {
                length = Int64(value)
            }
        }
        return etag == nil && lastModified == nil ? nil : (etag, lastModified, length)
    }

    private static func connect(host: String, port: String, timeout: Double) -> Int32? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, port, &hints, &found) == 0, let first = found else { return nil }
        defer { freeaddrinfo(found) }
        var wait = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            let fd = socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
            if fd >= 0 {
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
                setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
                if Glibc.connect(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 { return fd }
                close(fd)
            }
            entry = address.pointee.ai_next
        }
        return nil
    }
}
