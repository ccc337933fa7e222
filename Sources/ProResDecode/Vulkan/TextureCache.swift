import CVulkan
import Foundation

/// Hands pooled surfaces to Vulkan (CVMetalTextureCache): each surface's
/// memory is imported once as a VkBuffer with VK_EXT_external_memory_host and
/// the binding is kept for reuse, so a decoded frame reaches the GPU without
/// a CPU copy. Where the driver cannot import host memory, each surface gets
/// a host-visible twin and the frame is copied into it (counted in `copies`).
final class TextureCache {
    private struct Entry {
        let buffer: VulkanBuffer
        /// Keeps the surface's memory alive as long as Vulkan may use it.
        let pool: PixelBufferPool
        let imported: Bool
    }

    private let context: VulkanContext
    private var entries: [ObjectIdentifier: Entry] = [:]
    private(set) var copies = 0

    init(context: VulkanContext) { self.context = context }

    var canImport: Bool { context.info.hostMemoryImport && context.minImportedHostPointerAlignment > 0 }

    /// The buffer bound to `surface`'s bytes, ready for the GPU to read.
    func buffer(for surface: PixelBuffer) throws -> VulkanBuffer {
        let key = ObjectIdentifier(surface)
        let usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT.rawValue | VK_BUFFER_USAGE_TRANSFER_SRC_BIT.rawValue | VK_BUFFER_USAGE_TRANSFER_DST_BIT.rawValue
        let entry: Entry
        if let existing = entries[key] {
            entry = existing
        } else {
            let alignment = context.minImportedHostPointerAlignment
            let size = surface.allocationSize
            if canImport, Int(bitPattern: surface.baseAddress) % alignment == 0, size % alignment == 0 {
                entry = Entry(buffer: try VulkanBuffer(context, importing: surface.baseAddress, size: size, usage: usage),
                              pool: surface.pool, imported: true)
            } else {
                entry = Entry(buffer: try VulkanBuffer(context, size: size, usage: usage,
                                                       required: VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT.rawValue | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT.rawValue),
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

    var importedCount: Int { entries.values.filter(\.imported).count }
}
