import Foundation
import GPUKit
import ProResCore

/// Hands pooled surfaces to Vulkan (CVMetalTextureCache): each surface's
/// memory is imported once as a VkBuffer with VK_EXT_external_memory_host and
/// the binding is kept for reuse, so a decoded frame reaches the GPU without
/// a CPU copy. Where the driver cannot import host memory, each surface gets
/// a host-visible twin and the frame is copied into it (counted in `copies`).
public final class TextureCache {
    private struct Entry {
        let buffer: VulkanBuffer
        /// Keeps the surface's memory alive as long as Vulkan may use it.
        let pool: PixelBufferPool
        let imported: Bool
    }

    private let context: VulkanContext
    private var entries: [ObjectIdentifier: Entry] = [:]
    package private(set) var copies = 0

    package init(context: VulkanContext) { self.context = context }

    package var canImport: Bool { context.info.hostMemoryImport && context.minImportedHostPointerAlignment > 0 }

    /// The buffer bound to `surface`'s bytes, ready for the GPU to read.
    package func buffer(for surface: PixelBuffer) throws -> VulkanBuffer {
        let key = ObjectIdentifier(surface)
        let usage: BufferUsage = [.storage, .transferSource, .transferDestination]
        let entry: Entry
        if let existing = entries[key] {
            entry = existing
        } else {
            let alignment = context.minImportedHostPointerAlignment
            let size = surface.allocationSize
            if canImport, Int(bitPattern: surface.baseAddress) % alignment == 0, size % alignment == 0 {
                entry = Entry(
                    buffer: try VulkanBuffer(context, importing: surface.baseAddress, size: size, usage: usage),
                    pool: surface.pool, imported: true)
            } else {
                entry = Entry(
                    buffer: try VulkanBuffer(context, size: size, usage: usage, memory: .host),
                    pool: surface.pool, imported: false)
            }
            entries[key] = entry
        }
        if !entry.imported {
            entry.buffer.mapped!.copyMemory(from: surface.baseAddress, byteCount: surface.layout.byteCount)
            copies += 1
        }
        return entry.buffer
    }

    package var importedCount: Int { entries.values.filter(\.imported).count }
}
