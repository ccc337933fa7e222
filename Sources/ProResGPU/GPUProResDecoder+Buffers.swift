import Foundation
import GPUKit
import HostSupport
import ProResCore

/// A slot's buffers, the coefficient sets and the surfaces, made or grown
/// when a batch needs them, and the imports of the sample memory frames are
/// uploaded from.
extension GPUProResDecoder {
    /// Allocates `slot`'s buffers for a full batch of frames of up to `frameBytes`.
    func reserve(_ slot: Slot, frameBytes: Int) throws {
        let tables =
            Self.align(framesPerBatch * macroblocksPerFrame * SliceTable.sliceWords * 4)
            + Self.align(framesPerBatch * SliceTable.frameWords * 4)
        let input = Self.align(framesPerBatch * Self.paddedSize(frameBytes)) + tables
        // Uploading in place, only the tables are staged (frames of other memory grow it when they come).
        try makeStaging(slot, bytes: (upload == .fromSampleMemory ? tables : input) * 5 / 4)
        try ensureWorkBuffers(slot, input: input, status: framesPerBatch * macroblocksPerFrame * 4)
        for set in coefficientSets.indices {
            _ = try coefficientSet(set, bytes: framesPerBatch * coefficientsPerFrame * 2)
        }
    }

    /// Coefficient set `index`, grown to hold `bytes` (made for a full batch
    /// at the least, which no batch's frames can exceed: growing is a guard).
    func coefficientSet(_ index: Int, bytes: Int) throws -> VulkanBuffer {
        if let set = coefficientSets[index], set.size >= bytes { return set }
        // Unlike a slot's buffers, a set may still be read by a batch in
        // flight: let every submitted batch finish before it goes.
        if coefficientSets[index] != nil {
            for slot in slots { if let (recorder, value) = slot.completion { try recorder.wait(for: value) } }
        }
        coefficientSets[index] = nil
        let set = try VulkanBuffer(
            context, size: max(bytes, framesPerBatch * coefficientsPerFrame * 2), usage: .storage, memory: .device)
        coefficientSets[index] = set
        return set
    }

    /// Where `bytes` lie in imported sample memory (imported on first use),
    /// or nil: not memory of `SampleMemory`, or a region the device would not import.
    func importedSource(_ bytes: UnsafeRawBufferPointer) throws -> (buffer: VulkanBuffer, offset: Int)? {
        guard let base = bytes.baseAddress, let region = SampleMemory.shared.region(containing: base) else {
            return nil
        }
        let offset = base - region.base
        guard offset + bytes.count + CompressedSample.padding <= region.size else { return nil }
        return regionImports.buffer(for: region).map { ($0, offset) }
    }

    func makeStaging(_ slot: Slot, bytes: Int) throws {
        slot.staging = nil
        slot.staging = try VulkanBuffer(
            context, size: Self.align(bytes), usage: [.storage, .transferSource], memory: .host,
            sharedWithTransferQueue: uploads != nil)
    }

    /// `input`: the bytes the shaders read (bitstream and tables), which a
    /// device that does not read the staging memory in place has in its own.
    func ensureWorkBuffers(_ slot: Slot, input: Int, status: Int) throws {
        if upload != .direct, (slot.deviceInput?.size ?? 0) < input {
            slot.deviceInput = nil
            slot.deviceInput = try VulkanBuffer(
                context, size: Self.align(input * 5 / 4), usage: [.storage, .transferDestination],
                memory: .device, sharedWithTransferQueue: uploads != nil)
        }
        if (slot.status?.size ?? 0) < status {
            let bytes = Self.align(status * 2)
            slot.status = try VulkanBuffer(
                context, size: bytes, usage: [.storage, .transferDestination], memory: .device)
            slot.statusReport = try VulkanBuffer(
                context, size: bytes, usage: [.storage, .transferDestination], memory: .hostReadback)
        }
        // Frames kept inside the decoder: every slot writes the same surfaces.
        if !deliversSurfaces {
            if slot.surfaces == nil { slot.surfaces = try surfaceBatches.first ?? makeSurfaceBatch() }
            return
        }
        // A batch a consumer still reads (a frame held on the GPU) is not
        // overwritten: the slot takes another, made when none is free. Every
        // batch holds `framesPerBatch` frames, so any free one will do.
        if slot.surfaces?.inUse ?? true {
            let taken = Set(slots.compactMap { $0.surfaces.map(ObjectIdentifier.init) })
            if let free = surfaceBatches.first(where: { !$0.inUse && !taken.contains(ObjectIdentifier($0)) }) {
                slot.surfaces = free
            } else {
                slot.surfaces = try makeSurfaceBatch()
            }
        }
    }

    private func makeSurfaceBatch() throws -> DeviceSurfaceBatch {
        let made = DeviceSurfaceBatch(
            buffer: try VulkanBuffer(
                context, size: framesPerBatch * surfaceStride,
                usage: [.storage, .transferSource], memory: .device))
        surfaceBatches.append(made)
        return made
    }
}
