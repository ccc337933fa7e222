import XCTest

@testable import GPUKit
@testable import TestSupport

/// How a buffer's uses order themselves (`ResourceState`): a pipeline
/// barrier only inside one command buffer; a timeline wait on any earlier
/// submission the host has not seen complete, on the same queue too (a
/// barrier there would also wait for every unrelated earlier command of its
/// stages, which kept one batch's entropy pass from overlapping the previous
/// batch's transform); nothing for a submission known to be complete.
final class ResourceStateTests: XCTestCase {
    func testBarriersStayInsideOneCommandBufferAndWaitsCoverTheRest() throws {
        let context = try VulkanContext(options: .init(validation: true))
        let recorder = try CommandRecorder(context: context, count: 3)
        let state = ResourceState()

        let first = try recorder.begin(0)
        XCTAssertEqual(
            state.use(by: first.submission, at: .compute, writes: true).stages, 0, "nothing before the first write")
        let readInFirst = state.use(by: first.submission, at: .compute, writes: false)
        XCTAssertEqual(
            readInFirst.stages, PipelineStage.compute.flags, "a read after a write in one command buffer: a barrier")
        XCTAssertTrue(readInFirst.waits.isEmpty)
        let overwrite = state.use(by: first.submission, at: .transfer, writes: true)
        XCTAssertEqual(
            overwrite.stages, PipelineStage.compute.flags, "a write after a read in one command buffer: a barrier")
        let firstValue = try recorder.submit(first)

        let second = try recorder.begin(1)
        let readInSecond = state.use(by: second.submission, at: .compute, writes: false)
        XCTAssertEqual(readInSecond.stages, 0, "no barrier for another submission's write, even on the same queue")
        XCTAssertEqual(readInSecond.waits.map(\.value), [firstValue], "a wait on the submission that wrote it")
        try recorder.submit(second)

        try recorder.wait(for: recorder.submittedValue)
        let third = try recorder.begin(2)
        let afterCompletion = state.use(by: third.submission, at: .compute, writes: true)
        XCTAssertEqual(afterCompletion.stages, 0)
        XCTAssertTrue(afterCompletion.waits.isEmpty, "work the host saw complete needs no wait")
        try recorder.submit(third)
        try recorder.wait(for: recorder.submittedValue)
    }
}
