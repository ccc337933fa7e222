import GPUKit
import HostSupport
import ProResCore
import ProResFFmpeg
import ProResGPU

/// The JUnit XML report of a check run, as CI systems (Jenkins, GitLab,
/// GitHub test reporters) read it: one `<testsuite name="prores-decode check">`,
/// one `<testcase>` per file, named by its path; a failed file carries a
/// `<failure>`, a file that could not be checked an `<error>`, each with the
/// first reason as `message` and every reason in the body. A file that
/// passed with warnings (WARN) is a passing testcase with the properties
/// `verdict` = `warn` and `warnings` = their count, and each warning a
/// `warning: ` line of its `<system-out>`.
public enum JUnitReport {
    public static let suiteName = "prores-decode check"

    /// One testcase: a file's path as the report writes it, its verdict and why.
    public struct Case: Sendable {
        public let name: String
        public let status: FileCheckResult.Status
        public let problems: [String]
        public let seconds: Double
        /// Where the file's frame description changes mid-clip (`<system-out>`).
        public let descriptionChangeNotes: [String]
        /// `FileCheckResult.warnings` (`<system-out>`, each after "warning: ").
        public let warnings: [String]

        public init(
            name: String, status: FileCheckResult.Status, problems: [String], seconds: Double,
            descriptionChangeNotes: [String] = [], warnings: [String] = []
        ) {
            self.name = name
            self.status = status
            self.problems = problems
            self.seconds = seconds
            self.descriptionChangeNotes = descriptionChangeNotes
            self.warnings = warnings
        }
    }

    public static func xml(_ results: [FileCheckResult], summary: CheckSummary) -> String {
        xml(
            results.map {
                Case(
                    name: PathBytes.reportText($0.input.path), status: $0.status, problems: $0.problems,
                    seconds: $0.seconds,
                    descriptionChangeNotes: $0.descriptionChangeNotes, warnings: $0.warnings)
            },
            failed: summary.failed, errors: summary.errors, seconds: summary.seconds)
    }

    public static func xml(_ cases: [Case], failed: Int, errors: Int, seconds: Double) -> String {
        var lines = [
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
            "<testsuite name=\"\(XMLText.escape(suiteName))\" tests=\"\(cases.count)\" failures=\"\(failed)\""
                + " errors=\"\(errors)\" skipped=\"0\" time=\"\(JSON.number(seconds, digits: 3))\">",
        ]
        for r in cases {
            let open =
                "  <testcase classname=\"\(XMLText.escape(suiteName))\" name=\"\(XMLText.escape(r.name))\""
                + " time=\"\(JSON.number(r.seconds, digits: 3))\""
            let element: String
            // A description change or a warning is a finding on any file, passed or not.
            let findings = r.warnings.map { "warning: " + $0 } + r.descriptionChangeNotes
            let notes =
                findings.isEmpty
                ? nil
                : "    <system-out>" + XMLText.escape(findings.joined(separator: "\n")) + "</system-out>"
            switch r.status {
            case .pass, .warn:
                // A WARN passes: CI keeps it green unless it asks otherwise
                // (`--on-warning`); the warnings are a property and the output.
                if r.status == .warn {
                    lines += [
                        open + ">", "    <properties>",
                        "      <property name=\"verdict\" value=\"warn\"/>",
                        "      <property name=\"warnings\" value=\"\(r.warnings.count)\"/>", "    </properties>",
                    ]
                    lines += [notes, "  </testcase>"].compactMap { $0 }
                    continue
                }
                if let notes {
                    lines += [open + ">", notes, "  </testcase>"]
                } else {
                    lines.append(open + "/>")
                }
                continue
            case .fail: element = "failure"
            case .error: element = "error"
            }
            let problems = r.problems
            lines.append(open + ">")
            lines.append(
                "    <\(element) type=\"\(r.status.rawValue)\" message=\"\(XMLText.escape(problems.first ?? r.status.rawValue))\">"
                    + XMLText.escape(problems.joined(separator: "\n")) + "</\(element)>")
            if let notes { lines.append(notes) }
            lines.append("  </testcase>")
        }
        lines.append("</testsuite>")
        return lines.joined(separator: "\n") + "\n"
    }
}
