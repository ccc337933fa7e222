import Foundation
import GPUKit
import ProResCore

/// A Vulkan device ready for decoding: its context and the kernels compiled
/// on it. Made once and shared by every run on that device (`check`'s files
/// in flight), so that each file pays neither device creation nor pipeline
/// builds.
// @unchecked: both members are themselves thread-safe (the context
// serialises submissions, the cache makes each kernel under its lock).
public final class GPUDevice: @unchecked Sendable, Equatable {
    public let context: VulkanContext
    public let kernels: KernelCache
    /// Where its sessions' threads run: the CPUs of its NUMA node on a
    /// host of several, else wherever the scheduler puts them.
    public let placement: ThreadPlacement

    private let lock = NSCondition()
    /// Decoders whose session ended cleanly, by `GPUDecodeSession.reuseKey`:
    /// the next file of the same geometry takes one with its buffers and
    /// pinned staging memory already made (a 4K batch of 16 frames is over
    /// half a GB, allocated and pinned in tens of milliseconds: more than a
    /// short file takes to decode).
    private var idle: [String: [GPUProResDecoder]] = [:]
    /// Keys whose decoder `prepare` is making now: a session of that key
    /// waits for it rather than making a second one beside it.
    private var preparing: Set<String> = []
    private var takenPrepared = 0
    /// Decoders `prepare` made that a session then took.
    public var preparedDecodersTaken: Int {
        lock.lock()
        defer { lock.unlock() }
        return takenPrepared
    }
    private var prepared: Set<ObjectIdentifier> = []

    public init(context: VulkanContext) throws {
        self.context = context
        kernels = KernelCache(context: context, compiler: try ShaderCompiler())
        placement = ThreadPlacement.forDevice(at: context.info.pciAddress)
    }

    func takeDecoder(_ key: String) -> GPUProResDecoder? {
        lock.lock()
        defer { lock.unlock() }
        while preparing.contains(key) { lock.wait() }
        guard let decoder = idle[key]?.popLast() else { return nil }
        if prepared.remove(ObjectIdentifier(decoder)) != nil { takenPrepared += 1 }
        return decoder
    }

    /// Makes a decoder for `key` with `make` and keeps it for the first
    /// session of that key, unless one is kept or being made already.
    /// Returns whether it made one.
    func prepare(_ key: String, make: () throws -> GPUProResDecoder) rethrows -> Bool {
        lock.lock()
        guard idle[key, default: []].isEmpty, !preparing.contains(key) else { lock.unlock(); return false }
        preparing.insert(key)
        lock.unlock()
        defer {
            lock.lock()
            preparing.remove(key)
            lock.broadcast()
            lock.unlock()
        }
        let decoder = try make()
        lock.lock()
        idle[key, default: []].append(decoder)
        prepared.insert(ObjectIdentifier(decoder))
        lock.unlock()
        return true
    }

    /// Keeps at most as many as run at once (`check --jobs`), two by default.
    func keep(_ decoder: GPUProResDecoder, key: String, limit: Int = 4) {
        lock.lock()
        defer { lock.unlock() }
        if idle[key, default: []].count < limit { idle[key, default: []].append(decoder) }
    }

    public static func == (a: GPUDevice, b: GPUDevice) -> Bool { a === b }
}
