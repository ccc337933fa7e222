import ProResCheck
import ProResOptions
import ProResPipeline

extension CheckCommand {
    /// Says on stderr what was left out, so a skipped file is never a
    /// silent one; fails when nothing is left (a QC run that checked nothing
    /// must not pass).
    static func noteSkipped(_ filtered: CheckInputFilter.Outcome) throws {
        if !filtered.sidecars.isEmpty {
            let shown = filtered.sidecars.prefix(5).joined(separator: ", ")
            let more = filtered.sidecars.count > 5 ? ", +\(filtered.sidecars.count - 5) more" : ""
            Console.note(
                "check: skipped \(filtered.sidecars.count) sidecar file\(filtered.sidecars.count == 1 ? "" : "s") (not media): \(shown)\(more)"
            )
        }
        if filtered.excluded > 0 {
            Console.note(
                "check: \(filtered.excluded) file\(filtered.excluded == 1 ? "" : "s") left out by --include/--exclude")
        }
        if filtered.kept.isEmpty {
            throw UsageError("nothing to check: every file found was a sidecar or left out by --include/--exclude")
        }
    }
}
