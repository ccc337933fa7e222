import Foundation
import HostSupport
import ProResCore
import ProResGPU

/// How fast the GPU decoder could go if the host → device link were all that
/// limited it: the bytes each frame's input takes across the link (what the
/// decoder's uploads copy, counted as they are recorded), the link's
/// bandwidth measured in the same run (`VulkanRoofline.hostToDevice`), their
/// quotient as frames per second, and the share of it a run reached.
public struct LinkCeiling: Sendable {
    /// Bytes a frame took across the link: its sample, the zero padding
    /// after it, and its share of its batch's slice and frame tables.
    public let bytesPerFrame: Double
    public let sampleBytesPerFrame: Double
    public let paddingBytesPerFrame: Double
    public let tableBytesPerFrame: Double
    /// Summed over the devices (each has a link of its own); nil when a
    /// device's could not be measured.
    public let bytesPerSecond: Double?
    /// How the link was measured, or why it was not.
    public let method: String

    /// Frames per second the link allows.
    public var ceilingFramesPerSecond: Double? {
        bytesPerSecond.flatMap { bytesPerFrame > 0 ? $0 / bytesPerFrame : nil }
    }

    /// `framesPerSecond` as a share of the ceiling (1: the link is full).
    public func share(of framesPerSecond: Double) -> Double? {
        ceilingFramesPerSecond.flatMap { $0 > 0 ? framesPerSecond / $0 : nil }
    }

    init(traffic: LinkTraffic, links: [Swift.Result<VulkanRoofline.Link, Error>]) {
        let frames = Double(max(1, traffic.frames))
        bytesPerFrame = Double(traffic.bytes) / frames
        sampleBytesPerFrame = Double(traffic.sampleBytes) / frames
        paddingBytesPerFrame = Double(traffic.paddingBytes) / frames
        tableBytesPerFrame = Double(traffic.tableBytes) / frames
        let measured = links.compactMap { try? $0.get() }
        if measured.count == links.count, let first = measured.first {
            bytesPerSecond = measured.reduce(0) { $0 + $1.bytesPerSecond }
            method = first.method + (measured.count > 1 ? ", summed over \(measured.count) devices" : "")
        } else {
            bytesPerSecond = nil
            let failure = links.lazy.compactMap { link -> Error? in
                if case .failure(let error) = link { return error }
                return nil
            }.first
            method = "not measured: " + (failure.map { "\($0)" } ?? "no device")
        }
    }

    /// "  link: 94.1 kB a frame (…): 12.3 GB/s (…) = 130,000 fps ceiling, 0.02% reached".
    func text(framesPerSecond: Double) -> String {
        var text =
            "  link: \(Self.bytes(bytesPerFrame)) a frame to the device (\(Self.bytes(sampleBytesPerFrame)) of sample, "
            + "\(Self.bytes(paddingBytesPerFrame)) of padding, \(Self.bytes(tableBytesPerFrame)) of tables)"
        if let bytesPerSecond, let ceiling = ceilingFramesPerSecond, let share = share(of: framesPerSecond) {
            text +=
                "; host → device \(JSON.number(bytesPerSecond / 1e9, digits: 2)) GB/s (\(method)): "
                + "ceiling \(JSON.number(ceiling, digits: 1)) fps, \(Self.percent(share)) of it reached"
        } else {
            text += "; host → device \(method)"
        }
        return text + "\n"
    }

    func json(framesPerSecond: Double) -> String {
        JSON.object([
            ("bytes_per_frame", JSON.number(bytesPerFrame, digits: 1)),
            ("sample_bytes_per_frame", JSON.number(sampleBytesPerFrame, digits: 1)),
            ("padding_bytes_per_frame", JSON.number(paddingBytesPerFrame, digits: 1)),
            ("table_bytes_per_frame", JSON.number(tableBytesPerFrame, digits: 1)),
            ("bytes_per_second", bytesPerSecond.map { JSON.number($0, digits: 0) } ?? "null"),
            ("method", JSON.string(method)),
            ("ceiling_fps", ceilingFramesPerSecond.map { JSON.number($0, digits: 1) } ?? "null"),
            ("share", share(of: framesPerSecond).map { JSON.number($0, digits: 8) } ?? "null"),
        ])
    }

    /// Bytes, kB or MB (decimal), three or four significant digits.
    static func bytes(_ value: Double) -> String {
        if value < 1000 { return "\(JSON.number(value, digits: 0)) B" }
        if value < 1e6 { return "\(JSON.number(value / 1e3, digits: 1)) kB" }
        return "\(JSON.number(value / 1e6, digits: 2)) MB"
    }

    /// A share as a percentage with three significant digits (0.0123%).
    static func percent(_ share: Double) -> String {
        let percent = share * 100
        guard percent > 0 else { return "0%" }
        let digits = max(1, 2 - Int((log10(percent)).rounded(.down)))
        return "\(JSON.number(percent, digits: digits))%"
    }
}
