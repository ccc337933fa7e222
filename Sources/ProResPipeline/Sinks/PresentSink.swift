import Foundation
import GPUKit
import ProResCore
import ProResGPU

/// `play`'s sink. Paused, each converted frame goes to the window at once.
/// Playing, it is copied on the GPU into a ring of held frames, and shown
/// when the pacer presents it at its tick (`present`, on the pacer's
/// thread): the window shows what the pacing summary counts as presented,
/// and a dropped frame never reaches it. Nothing is read back to the host.
// @unchecked: the ring's bookkeeping, `pendingSize` and `failure` are touched
// only under `lock`; the presenter is used by one thread at a time (the
// completion thread while paused, the pacer's thread while playing).
public final class PresentSink: ConvertedFrameSink, @unchecked Sendable {
    private struct Held {
        let index: Int
        let width: Int
        let height: Int
    }

    private let presenter: FramePresenter
    private let context: VulkanContext
    private let shown: (Int) -> Void
    private let lock = NSLock()
    private var pendingSize: (width: Int, height: Int)?
    private var failure: Error?
    /// Frames held for the pacer: its queue (3), the one being copied, and
    /// one more, so that a slot is reused only after its frame was
    /// presented or dropped.
    private static let ringSize = FramePacer.defaultCapacity + 2
    private var ring: [VulkanBuffer?] = Array(repeating: nil, count: ringSize)
    private var held: [Held?] = Array(repeating: nil, count: ringSize)
    private var copies: [UInt64] = Array(repeating: 0, count: ringSize)
    private let recorder: CommandRecorder
    /// Whether frames wait for the pacer (`present`) or are shown at once.
    public var paced = false

    /// `shown` is called with each frame's index once it was presented.
    public init(presenter: FramePresenter, context: VulkanContext, shown: @escaping (Int) -> Void) throws {
        self.presenter = presenter
        self.context = context
        self.shown = shown
        recorder = try CommandRecorder(context: context, count: Self.ringSize)
    }

    public var readsPixels: Bool { false }

    /// The window's new client size, applied before the next frame (from
    /// the thread watching the window, while another may be presenting).
    public func resize(to size: (width: Int, height: Int)) {
        lock.lock()
        pendingSize = size
        lock.unlock()
    }

    public func consume(_ frame: ConvertedFrame) throws {
        guard paced else {
            try show(frame.device, Held(index: frame.index, width: frame.width, height: frame.height))
            return
        }
        let slot = frame.index % Self.ringSize
        let bytes = frame.width * frame.height * 8
        try recorder.wait(for: copies[slot])
        lock.lock()
        let existing = ring[slot]
        lock.unlock()
        let target =
            try existing.flatMap { $0.size == bytes ? $0 : nil }
            ?? VulkanBuffer(context, size: bytes, usage: [.storage, .transferDestination], memory: .device)
        let cb = try recorder.begin(slot)
        cb.copy(frame.device, to: target, bytes: bytes)
        copies[slot] = try recorder.submit(cb)
        lock.lock()
        ring[slot] = target
        held[slot] = Held(index: frame.index, width: frame.width, height: frame.height)
        lock.unlock()
    }

    /// The pacer presents frame `index` now (its thread). A failure is kept
    /// for `takeFailure`: the pacer cannot throw.
    public func present(_ index: Int) {
        let slot = index % Self.ringSize
        lock.lock()
        let frame = held[slot]
        let buffer = ring[slot]
        let failed = failure != nil
        lock.unlock()
        guard !failed, let frame, frame.index == index, let buffer else { return }
        do {
            try show(buffer, frame)
        } catch {
            lock.lock()
            if failure == nil { failure = error }
            lock.unlock()
        }
    }

    /// The first error presenting a paced frame, once.
    public func takeFailure() -> Error? {
        lock.lock()
        defer {
            failure = nil
            lock.unlock()
        }
        return failure
    }

    private func show(_ buffer: VulkanBuffer, _ frame: Held) throws {
        lock.lock()
        let size = pendingSize
        pendingSize = nil
        lock.unlock()
        if let size { presenter.resize(to: size) }
        try presenter.present(buffer, width: frame.width, height: frame.height)
        shown(frame.index)
    }
}
