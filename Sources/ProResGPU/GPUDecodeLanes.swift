import Foundation
import ProResCore

/// A device's decode lane for consecutive runs (`check`'s files), one kind
/// of stream at a time: runs whose decoders would be alike
/// (`GPUDecodeSession.reuseKey`) are streams of one `GPUDecodeLane`, so the
/// GPU stays busy from one file to the next. A run of another kind closes
/// the lane (its decoder kept on the device for the next lane of its kind,
/// as a session's is) and opens one of its own; so does any run after the
/// lane failed.
// @unchecked: `current` and `closedStatistics` are touched only under `lock`.
package final class GPUDecodeLanes: @unchecked Sendable, Equatable {
    package let device: GPUDevice
    private let lock = NSLock()
    private var current: (key: String, lane: GPUDecodeLane)?
    /// Summed over the lanes closed so far.
    private var closedStatistics = GPUDecodeLane.Statistics()
    /// Tests: called with each stream as it opens, so that a test can fail
    /// its lane the way a device error would. Set before the first stream.
    package var streamOpened: ((GPUDecodeStream) -> Void)?

    package init(device: GPUDevice) {
        self.device = device
    }

    deinit { close() }

    /// A stream on the lane of `format`'s and `configuration`'s kind
    /// (`readback` is the stream's own), opening that lane first if needed.
    package func stream(format: FormatDescription, configuration: GPUDecodeSession.Configuration,
                        outputHandler: @escaping FrameOutputHandler, outputIdleHandler: OutputIdleHandler? = nil) throws -> GPUDecodeStream {
        var configuration = configuration
        if configuration.cpus == nil { configuration.cpus = device.placement.cpus }
        let key = GPUDecodeSession.reuseKey(format, configuration)
        lock.lock()
        defer { lock.unlock() }
        if let current, current.key != key || current.lane.failure != nil {
            // Waits for its streams' last frames: the decoder goes back to
            // the device only once every batch completed.
            retire(current.lane)
        }
        let lane = try current.map(\.lane) ?? {
            let made = try GPUDecodeLane(format: format, device: device, configuration: configuration)
            current = (key, made)
            return made
        }()
        let stream = try lane.openStream(readback: configuration.readback, outputHandler: outputHandler, outputIdleHandler: outputIdleHandler)
        streamOpened?(stream)
        return stream
    }

    /// Closes the open lane, once its streams are through.
    package func close() {
        lock.lock()
        defer { lock.unlock() }
        if let current { retire(current.lane) }
    }

    /// What the lanes did so far, summed.
    package var statistics: GPUDecodeLane.Statistics {
        lock.lock()
        defer { lock.unlock() }
        return closedStatistics + (current?.lane.statistics ?? .init())
    }

    /// Under `lock`.
    private func retire(_ lane: GPUDecodeLane) {
        lane.close()
        closedStatistics = closedStatistics + lane.statistics
        current = nil
    }

    package static func == (a: GPUDecodeLanes, b: GPUDecodeLanes) -> Bool { a === b }
}
