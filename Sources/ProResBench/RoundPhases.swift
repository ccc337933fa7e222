import Foundation
import HostSupport
import ProResCore

/// One whole process's phases (`bench --whole-process --phases`): the
/// report its `--phases` wrote, with what only the outside sees: the time
/// from the spawn to main's first statement (exec, the dynamic loader, the
/// runtime starting) and from the report to the reaped exit (`_exit` and
/// the kernel taking the process's memory back). With them the rows add up
/// to the round's wall time, each millisecond once.
public struct RoundPhases: Sendable {
    /// In order: `before_main`, the report's phases, `unattributed`,
    /// `after_report`; milliseconds.
    public let rows: [(name: String, milliseconds: Double)]

    struct Unreadable: Error, CustomStringConvertible {
        let description: String
    }

    init(reportAt path: String, spawned: UInt64, reaped: UInt64) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let report = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let start = (report["start_monotonic_ns"] as? NSNumber)?.uint64Value,
            let end = (report["end_monotonic_ns"] as? NSNumber)?.uint64Value,
            let phases = report["phases"] as? [[String: Any]],
            let unattributed = (report["unattributed_ms"] as? NSNumber)?.doubleValue
        else {
            throw Unreadable(description: "\(path) is not a phase report")
        }
        // One monotonic clock for every process: the report lies inside the run.
        guard spawned <= start, start <= end, end <= reaped else {
            throw Unreadable(description: "its times (\(start)...\(end)) lie outside the run (\(spawned)...\(reaped))")
        }
        let named = try phases.map { phase -> (String, Double) in
            guard let name = phase["name"] as? String, let value = (phase["ms"] as? NSNumber)?.doubleValue else {
                throw Unreadable(description: "a phase without a name or milliseconds")
            }
            return (name, value)
        }
        rows =
            [("before_main", Double(start - spawned) / 1e6)] + named
            + [("unattributed", unattributed), ("after_report", Double(reaped - end) / 1e6)]
    }

    var json: String { JSON.object(rows.map { ($0.name, JSON.number($0.milliseconds, digits: 3)) }) }

    /// Each row's median over the rounds, and its share of the median round.
    static func table(_ rounds: [RoundPhases], label: String) -> String {
        guard let first = rounds.first else { return "" }
        func median(_ values: [Double]) -> Double {
            let sorted = values.sorted()
            let middle = sorted.count / 2
            return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        }
        let whole = median(rounds.map { $0.rows.reduce(0) { $0 + $1.milliseconds } })
        var text =
            "\(label)'s phases, median ms of \(rounds.count) round\(rounds.count == 1 ? "" : "s") (each millisecond counted once; "
            + "before_main and after_report measured from outside):\n"
        for (index, row) in first.rows.enumerated() {
            let value = median(rounds.map { $0.rows[index].milliseconds })
            let share = whole > 0 ? JSON.number(100 * value / whole, digits: 1) + "%" : ""
            text +=
                "  " + row.name.padding(20)
                + JSON.number(value, digits: 1).leftPadding(10) + share.leftPadding(8) + "\n"
        }
        return text + "  " + "whole process".padding(20) + JSON.number(whole, digits: 1).leftPadding(10) + "\n"
    }
}
