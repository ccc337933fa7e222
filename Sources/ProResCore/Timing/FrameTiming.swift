import HostSupport

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
    /// From the start of reading the sample to the end of its output (with
    /// `--vulkan`: to the end of its GPU work and GPU sinks).
    public var latency: Double
    /// GPU time (timestamp queries) of the upload to device memory and of
    /// the conversion shader; nil without `--vulkan`.
    public var gpuUpload: Double?
    public var gpuConvert: Double?
    /// GPU time of each `--effect` pass, in order; nil without effects.
    public var gpuEffects: [Double]?

    public init(
        index: Int, pts: Int64?, status: FrameStatus, demux: Double, decode: Double, pack: Double,
        output: Double, latency: Double, gpuUpload: Double? = nil, gpuConvert: Double? = nil
    ) {
        self.index = index
        self.pts = pts
        self.status = status
        self.demux = demux
        self.decode = decode
        self.pack = pack
        self.output = output
        self.latency = latency
        self.gpuUpload = gpuUpload
        self.gpuConvert = gpuConvert
    }

    /// (name, microseconds) for every stage this frame went through.
    public var stages: [(name: String, microseconds: Double)] {
        var all = [("demux", demux), ("decode", decode), ("pack", pack), ("output", output)]
        if let gpuUpload { all.append(("gpu_upload", gpuUpload)) }
        if let gpuConvert { all.append(("gpu_convert", gpuConvert)) }
        if let gpuEffects { all.append(("gpu_effects", gpuEffects.reduce(0, +))) }
        all.append(("latency", latency))
        return all
    }

    /// One JSON object on one line (the `--timing` format).
    public var jsonLine: String {
        let statusText: String
        switch status {
        case .ok: statusText = "ok"
        case .damaged: statusText = "damaged"
        case .failed: statusText = "failed"
        }
        return "{\"frame\":\(index),\"pts\":\(pts.map(String.init) ?? "null"),\"status\":\"\(statusText)\","
            + stages.map { "\"\($0.name)_us\":\(JSON.number($0.microseconds))" }.joined(separator: ",")
            + (gpuEffects.map { ",\"effects_us\":" + JSON.array($0.map { JSON.number($0) }) } ?? "") + "}"
    }
}
