import Foundation
import GPUKit
import HostSupport
import ProResCore

/// The lane's four threads, from queued samples to each stream's handler.
extension GPUDecodeLane {
    /// Forms batches and parses them, one batch ahead of the submit
    /// thread: parsing (compute) then overlaps the previous batch's staging
    /// (memory bandwidth). While the GPU has work (a slot taken or a parsed
    /// batch waiting) a batch waits to be full, since small batches leave it
    /// idle later: on a lane the next stream's first samples fill the last
    /// one's partial batch. With none it waits at most `batchPatience` for
    /// the rest, then takes what has arrived, so a slow source still gets
    /// each frame soon; with no stream feeding, nothing more is coming and it
    /// takes what is there at once. Completions `wake` the input to re-ask.
    ///
    /// Why the patience: a file's first frames arrive ~0.15 ms apart, and
    /// taking them as they come splits a file's start into several small
    /// batches, each in a slot of its own whose buffers must be made for it
    /// (~18 ms a gigabyte to allocate on the H200): the first file of each
    /// kind in `check` would fill four slots with 48 frames.
    static let batchPatience = 0.008

    func runParse() {
        defer { parsed.close() }
        while true {
            let queued = input.popBatch(
                limit: decoder.framesPerBatch, patience: Self.batchPatience,
                morePending: {
                    books.lock()
                    defer { books.unlock() }
                    return feedingStreams > 0
                },
                waitForFullBatch: { [freeSlots, parsed, slotCount] in
                    freeSlots.queued < slotCount || parsed.queued > 0
                })
            if queued.isEmpty { return }
            // A stream that failed or was cancelled gets nothing more decoded.
            var live = queued
            live.removeAll { queued in
                guard queued.stream.failure != nil else { return false }
                account(queued.stream, frames: 1)
                return true
            }
            if live.isEmpty { continue }
            let streams = live.map(\.stream)
            if streams.contains(where: { $0 !== streams[0] }) {
                books.lock()
                counts.mixedBatches += 1
                books.unlock()
            }
            let samples = live.map(\.sample)
            let prepared = Trace.span("batch parsed") { decoder.prepare(samples.map(\.bytes)) }
            if !parsed.push(Batch(samples: samples, streams: streams, prepared: prepared)) { return }
        }
    }

    /// Stages each parsed batch into a free slot and submits it. With
    /// `overlapTransforms`, a batch followed by one already parsed is held
    /// (its transform goes into that next batch's command buffer) and
    /// handed to the completion thread once that is submitted; with nothing
    /// waiting, nothing is held, so a slow source still gets every frame.
    func runSubmit() {
        defer { submitted.close() }
        var held: Batch?
        while let batch = parsed.pop() {
            input.wake()  // the parse thread may be waiting for the GPU to have less work
            guard let slot = Trace.span("wait for a free slot", { freeSlots.pop() }) else { return }
            do {
                batch.slot = slot
                // A batch dropped on the way (the lane failed) gives its surfaces back.
                if batch.streams.contains(where: \.readsBack) {
                    batch.surfaces = try batch.streams.map { try $0.makeSurface() }
                }
                batch.submitted = monotonicNanoseconds()
                let hold = overlapTransforms && parsed.queued > 0
                try Trace.span("batch staged and submitted") {
                    try decoder.encode(slot: slot, batch.prepared, hostSurfaces: batch.surfaces, holdTransform: hold)
                }
                if let previous = held, !submitted.push(previous) { return }
                held = nil
                if hold { held = batch } else if !submitted.push(batch) { return }
            } catch {
                fail(error)
                return
            }
        }
        guard let held else { return }
        do {
            try decoder.releaseHeldTransform()
            _ = submitted.push(held)
        } catch {
            fail(error)
        }
    }

    func runCompletions() {
        defer { output.close() }
        while let batch = submitted.pop() {
            let outcome: (outputs: [GPUProResDecoder.Output], timing: GPUProResDecoder.BatchTiming?)
            do {
                outcome = try Trace.span("wait for batch on GPU") { try decoder.complete(slot: batch.slot) }
            } catch {
                fail(error)
                return
            }
            timingLock.lock()
            completed += 1
            if let timing = outcome.timing { timings.append(timing) }
            timingLock.unlock()
            let now = monotonicNanoseconds()
            var frames: [(frame: DecodedFrame, stream: GPUDecodeStream)] = []
            for (i, sample) in batch.samples.enumerated() {
                let frame = Self.frame(
                    sample, outcome.outputs[i], surface: batch.take(i), submitted: batch.submitted, now: now)
                frames.append((frame, batch.streams[i]))
            }
            books.lock()
            for (_, stream) in frames { stream.queuedFrames += 1 }
            books.unlock()
            // Together: the output thread sees the batch's frames queued
            // behind one another, and its consumer may group their work.
            if !output.push(contentsOf: frames) { return }
            // The batch's host surfaces are filled: the slot may take the next one.
            if !freeSlots.push(batch.slot) { return }
            input.wake()
        }
    }

    /// What the decoder said of one sample, as the frame its stream gets.
    private static func frame(
        _ sample: CompressedSample, _ result: GPUProResDecoder.Output, surface: PixelBuffer?,
        submitted: UInt64, now: UInt64
    ) -> DecodedFrame {
        var surface = surface
        let status: FrameStatus
        if let failure = result.failure {
            surface?.releaseUse()
            surface = nil
            status = .failed(failure)
        } else {
            var problems: [String] = []
            if let header = result.header, header.frameSize > sample.bytes.count {
                problems.append(
                    "truncated: the frame header says \(header.frameSize) bytes, the sample has \(sample.bytes.count)")
            }
            // A missing field's concealed slices are named by its own line;
            // the order is the CPU session's.
            if result.missingSecondField { problems.append(ProResFrameHeader.missingSecondField) }
            if result.missingAlpha { problems.append(ProResFrameHeader.missingAlpha) }
            if !result.missingSecondField && result.damagedSlices > 0 {
                problems.append("some slices could not be decoded and were concealed")
            }
            status = problems.isEmpty ? .ok : .damaged(problems.joined(separator: "; "))
        }
        let codes = result.header.map { ($0.colorPrimaries, $0.transferCharacteristic, $0.matrixCoefficients) }
        return DecodedFrame(
            index: sample.index, pts: sample.pts, status: status, pixelBuffer: surface,
            deviceSurface: result.deviceSurface, analysis: result.analysis, colorCodes: codes,
            readStart: sample.readStart,
            demuxNanoseconds: sample.demuxNanoseconds, decodeNanoseconds: now - submitted,
            decodersMayDiffer: result.decodersMayDiffer)
    }

    func runOutput() {
        while let (frame, stream) = output.pop() {
            stream.deliver(frame)
            account(stream, frames: 1)
        }
    }
}
