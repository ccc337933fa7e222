import Foundation
import HostSupport
import XCTest

@testable import GPUKit
@testable import ProResCheck
@testable import ProResGPU
@testable import ProResPipeline
@testable import TestSupport

/// A file's `--timeout` clock holds only its own work: it stands still while
/// the file waits for work another file began (a kernel that file is
/// building), and its deadline moves by as much.
final class CheckClockTests: XCTestCase {
    func testTheClockStandsStillWhileWaitingForAnotherFilesWork() throws {
        let cancellation = CheckCancellation(timeout: 0.5)
        let waited = Date()
        SharedWaits.charging(cancellation.waits) { SharedWaits.waiting { usleep(800_000) } }
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(waited), 0.8)
        XCTAssertNil(cancellation.reason, "0.8 s waiting for another file's work is not this file's time")
        XCTAssertLessThan(cancellation.elapsed, 0.3, "the file's own time: a few milliseconds outside the wait")
        // Its own 0.5 s then run out as they would have.
        usleep(700_000)
        XCTAssertEqual(cancellation.reason, .timedOut)
        XCTAssertGreaterThan(cancellation.elapsed, 0.5)
        XCTAssertLessThan(cancellation.elapsed, 1.0)
        cancellation.finish()
    }

    func testTheDeadlineTimerFiresAfterTheFilesOwnTime() throws {
        let cancellation = CheckCancellation(timeout: 0.4)
        let started = Date()
        // On another thread the wait, as a run waits; here only the timer's work is watched.
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            SharedWaits.charging(cancellation.waits) { SharedWaits.waiting { usleep(600_000) } }
            done.signal()
        }
        done.wait()
        // The timer first fires 0.4 s in and finds the clock stood still: it is set again.
        while cancellation.reason == nil, Date().timeIntervalSince(started) < 5 { usleep(10_000) }
        let fired = Date().timeIntervalSince(started)
        XCTAssertGreaterThanOrEqual(fired, 0.95, "0.6 s of waiting and 0.4 s of the file's own")
        XCTAssertLessThan(fired, 1.5)
        cancellation.finish()
    }

    /// A thread asking for a kernel another thread is building waits for it,
    /// and that wait goes to its ledger; the build goes to the builder's,
    /// as a kernel serves every later file, not the one that asked first.
    func testWaitingForAKernelAnotherThreadBuildsIsLedgered() throws {
        let context = try VulkanContext()
        let compiler = try ShaderCompiler(cacheDirectory: nil)
        let kernels = KernelCache(context: context, compiler: compiler)
        let interface = GPUFrameConverter.kernelInterfaces(.v216, width: 192)[0]
        let builder = WaitLedger()
        let waiter = WaitLedger()
        let built = DispatchSemaphore(value: 0)
        let builderStarted = Date()
        Thread.detachNewThread {
            SharedWaits.charging(builder) { _ = try? kernels.kernel(interface) }
            built.signal()
        }
        usleep(20_000)
        let asked = Date()
        _ = try SharedWaits.charging(waiter) { try kernels.kernel(interface) }
        let waitedFor = Date().timeIntervalSince(asked)
        built.wait()
        XCTAssertEqual(compiler.compiledCount, 1, "built once, by the first thread")
        let buildTook = Date().timeIntervalSince(builderStarted)
        XCTAssertGreaterThan(buildTook, 0.02)
        XCTAssertGreaterThan(builder.nanoseconds, 0, "building a kernel is no one file's work")
        XCTAssertLessThanOrEqual(Double(builder.nanoseconds) / 1e9, buildTook + 0.001)
        let ledgered = Double(waiter.nanoseconds) / 1e9
        XCTAssertGreaterThan(ledgered, 0, "the second thread found the build under way")
        XCTAssertLessThanOrEqual(ledgered, waitedFor + 0.001)
    }
}
