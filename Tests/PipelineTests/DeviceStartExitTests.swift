import Foundation
import XCTest

@testable import GPUKit
@testable import ProResCore
@testable import ProResGPU
@testable import ProResPipeline
@testable import TestSupport

/// The end of a job while the GPU decoder's device is still being made:
/// the device is left to the process's exit, and kernels not begun by then
/// are never built (their build writes the caches, so it is waited for).
final class DeviceStartExitTests: XCTestCase {
    func testAJobEndedBeforeTheDeviceLeavesItAndBuildsNoKernels() throws {
        let (format, _) = try fixtureSamples("hq.mov")
        let plan = DecoderPlan(startingDeviceFor: DecoderSelection(choice: .gpu, validation: true)) { _ in }
        plan.prepareKernels(for: format, converting: false)
        // lavapipe's instance and device take tens of milliseconds: the plan has only begun.
        XCTAssertTrue(plan.endDeviceStart(), "the device is still being made, and the job does not wait for it")
        let device = try XCTUnwrap(plan.device, "the device is made all the same")
        try plan.earlyKernels?.get()
        XCTAssertEqual(device.kernels.builtCount, 0, "no kernel is built for a job that has ended")
        XCTAssertFalse(plan.endDeviceStart(), "once made, nothing is left running")
    }

    func testKernelsOfAJobStillRunningAreBuilt() throws {
        let (format, _) = try fixtureSamples("hq.mov")
        let plan = DecoderPlan(startingDeviceFor: DecoderSelection(choice: .gpu, validation: true)) { _ in }
        plan.prepareKernels(for: format, converting: false)
        let device = try XCTUnwrap(plan.device)
        try plan.earlyKernels?.get()
        XCTAssertGreaterThan(device.kernels.builtCount, 0, "the decoder's kernels are built early")
        XCTAssertFalse(plan.endDeviceStart())
    }
}
