import Foundation
import XCTest

@testable import TestSupport

/// `--shard` and the engines' shard variables: plain decimals, N at most
/// 100,000 (merge's bound), each variable within its bounds before any sum
/// is made of it; anything else is one line and exit 2, never a trap.
final class ShardBoundsTests: XCTestCase {
    func testShardOptionsRefuseOtherSpellingsAndTooManyShards() throws {
        let clip = Repo.fixture("hq.mov")
        for value in [
            "+1/3", "1/+3", "1/100001", "1/9223372036854775807", "auto/9223372036854775807", "auto/+2", "auto/100001",
        ] {
            let result = try runTool(["check", clip, "--shard", value])
            XCTAssertEqual(result.reason, .exit, value)
            XCTAssertEqual(result.status, 2, "\(value): \(result.stderr)")
            assertSingleError(result, mentions: ["--shard", "100000"], value)
        }
        let most = try runTool(["check", clip, "--shard", "1/100000", "--report", "-"])
        XCTAssertTrue([0, 10, 11].contains(most.status), most.stderr)
    }

    /// Engine variables at the ends of Int and past their bounds: exit 2
    /// and one line naming the variable, never a signal.
    func testShardVariablesOutOfBoundsAreUsageErrors() throws {
        let clip = Repo.fixture("hq.mov")
        let max = "9223372036854775807"
        let min = "-9223372036854775808"
        let cases: [(String, [String: String], String)] = [
            ("auto", ["PRORES_DECODE_SHARD_INDEX": max], "PRORES_DECODE_SHARD_INDEX"),
            (
                "auto", ["PRORES_DECODE_SHARD_INDEX": "0", "PRORES_DECODE_SHARD_TOTAL": max],
                "PRORES_DECODE_SHARD_TOTAL"
            ),
            ("auto/3", ["JOB_COMPLETION_INDEX": max], "JOB_COMPLETION_INDEX"),
            ("auto", ["CI_NODE_INDEX": max, "CI_NODE_TOTAL": max], "CI_NODE_INDEX"),
            (
                "auto", ["SLURM_ARRAY_TASK_ID": min, "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "3"],
                "SLURM_ARRAY_TASK_ID"
            ),
            (
                "auto", ["SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": max, "SLURM_ARRAY_TASK_COUNT": "3"],
                "SLURM_ARRAY_TASK_MIN"
            ),
            (
                "auto", ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_STEP": "0", "SLURM_ARRAY_TASK_COUNT": "3"],
                "SLURM_ARRAY_TASK_STEP"
            ),
            (
                "auto", ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_STEP": min, "SLURM_ARRAY_TASK_COUNT": "3"],
                "SLURM_ARRAY_TASK_STEP"
            ),
            ("auto/2", ["AWS_BATCH_JOB_ARRAY_INDEX": "+1"], "AWS_BATCH_JOB_ARRAY_INDEX"),
        ]
        for (shard, environment, variable) in cases {
            let result = try runTool(["check", clip, "--shard", shard], environment: environment)
            XCTAssertEqual(result.reason, .exit, "\(environment): ended by a signal")
            XCTAssertEqual(result.status, 2, "\(environment): \(result.stderr)")
            assertSingleError(result, mentions: [variable], "\(environment)")
        }
    }
}
