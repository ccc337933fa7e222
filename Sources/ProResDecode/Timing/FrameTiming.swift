/// Where one frame's time went, in microseconds.
public struct FrameTiming: Sendable {
    public let index: Int
    public let pts: Int64?
    public let status: FrameStatus
    /// Reading the sample out of the container.
    public let demux: Double
    /// From handing the sample to the decoder to receiving its picture.
    public let decode: Double
    /// Converting the planar picture to the requested packed layout (0 for native).
    public let pack: Double
    /// Handing the frame to every sink (writing, hashing).
    public let output: Double
    /// From the start of reading the sample to the end of its output.
    public let latency: Double

    public static let stageNames = ["demux", "decode", "pack", "output", "latency"]

    public var stages: [Double] { [demux, decode, pack, output, latency] }

    /// One JSON object on one line (the `--timing` format).
    public var jsonLine: String {
        let statusText: String
        switch status {
        case .ok: statusText = "ok"
        case .damaged: statusText = "damaged"
        case .failed: statusText = "failed"
        }
        return "{\"frame\":\(index),\"pts\":\(pts.map(String.init) ?? "null"),\"status\":\"\(statusText)\","
            + zip(Self.stageNames, stages).map { "\"\($0)_us\":\(JSON.number($1))" }.joined(separator: ",") + "}"
    }
}
