import Foundation
import XCTest
@testable import ProResCore
@testable import ProResFFmpeg

/// `check --jobs N` opens files on N threads at once: each error must quote
/// what FFmpeg said about its own file, never another thread's.
final class FFmpegLogTests: XCTestCase {
    func testEachOpenQuotesItsOwnFilesError() throws {
        let moovLess = Repo.fixture("bad/text.mov")     // FFmpeg: "moov atom not found"
        let noise = Repo.fixture("bad/random.bin")      // FFmpeg says nothing of a moov atom
        let lock = NSLock()
        var wrong: [String] = []
        DispatchQueue.concurrentPerform(iterations: 400) { i in
            let path = i % 2 == 0 ? moovLess : noise
            do {
                _ = try openSampleSource(path)
                lock.lock(); wrong.append("\(path) opened"); lock.unlock()
            } catch {
                let text = "\(error)"
                if (path == moovLess) != text.contains("moov atom not found") {
                    lock.lock(); wrong.append(text); lock.unlock()
                }
            }
        }
        XCTAssertEqual(wrong, [], "\(wrong.count) of 400 errors quoted another file's FFmpeg message")
    }
}
