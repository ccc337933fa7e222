import Foundation
import HostSupport
import ProResCore

/// A device's decode lane for consecutive runs (`check`'s files), one kind
/// of stream at a time: runs whose decoders would be alike
/// (`GPUDecodeSession.reuseKey`) are streams of one `GPUDecodeLane`, so the
/// GPU stays busy from one file to the next. A run of another kind closes
/// the lane (its decoder kept on the device for the next lane of its kind,
/// as a session's is) and opens one of its own; so does any run after the
/// lane failed. The new lane is made first and the old one closed on a
/// thread of its own: the new decoder's pipelines and buffers (~13 ms on
/// the H200) then build while the old lane's last batches finish, instead
/// of after (a 16 ms gap with the GPU idle where `check` went from 4K HQ to
/// 4444 XQ files).
// @unchecked: `current`, `closing` and `closedStatistics` are touched only under `lock`.
package final class GPUDecodeLanes: @unchecked Sendable, Equatable {
    package let device: GPUDevice
    private let lock = NSLock()
    private var current: (key: String, lane: GPUDecodeLane)?
    /// Lanes being closed, each on a thread of its own, with what they did.
    private var closing: [Deferred<GPUDecodeLane.Statistics>] = []
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
    package func stream(
        format: FormatDescription, configuration: GPUDecodeSession.Configuration,
        outputHandler: @escaping FrameOutputHandler, outputIdleHandler: OutputIdleHandler? = nil
    ) throws -> GPUDecodeStream {
        var configuration = configuration
        if configuration.cpus == nil { configuration.cpus = device.placement.cpus }
        let key = GPUDecodeSession.reuseKey(format, configuration)
        lock.lock()
        defer { lock.unlock() }
        var replaced: GPUDecodeLane?
        if let current, current.key != key || current.lane.failure != nil {
            replaced = current.lane
            self.current = nil
        }
        let lane: GPUDecodeLane
        do {
            lane =
                try current.map(\.lane)
                ?? {
                    let made = try GPUDecodeLane(format: format, device: device, configuration: configuration)
                    current = (key, made)
                    return made
                }()
        } catch {
            if let replaced { retire(replaced) }
            throw error
        }
        // Closing waits for its streams' last frames (the decoder goes back
        // to the device only once every batch completed): not on this thread.
        if let replaced {
            closing.append(
                Deferred("prores-decode.lane-close") {
                    replaced.close()
                    return replaced.statistics
                })
        }
        let stream = try lane.openStream(
            readback: configuration.readback, outputHandler: outputHandler, outputIdleHandler: outputIdleHandler)
        streamOpened?(stream)
        return stream
    }

    /// Closes the open lane and waits for those closing, once their
    /// streams are through.
    package func close() {
        lock.lock()
        defer { lock.unlock() }
        if let current { retire(current.lane) }
        for lane in closing { closedStatistics = closedStatistics + ((try? lane.get()) ?? .init()) }
        closing.removeAll()
    }

    /// What the lanes did so far, summed (lanes still closing count once closed).
    package var statistics: GPUDecodeLane.Statistics {
        lock.lock()
        defer { lock.unlock() }
        let closed = closing.reduce(closedStatistics) { $0 + ((try? $1.get()) ?? .init()) }
        return closed + (current?.lane.statistics ?? .init())
    }

    /// Under `lock`.
    private func retire(_ lane: GPUDecodeLane) {
        lane.close()
        closedStatistics = closedStatistics + lane.statistics
        current = nil
    }

    package static func == (a: GPUDecodeLanes, b: GPUDecodeLanes) -> Bool { a === b }
}
