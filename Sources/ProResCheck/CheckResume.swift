import Foundation
import HostSupport
import ProResCore

/// `check --resume PREVIOUS.json`: the verdicts of an earlier report that
/// still hold. A file is carried over, not decoded again, when the earlier
/// report has a pass, warn or fail under its key, that report was made with the
/// same options (`CheckRun.options`), and the file is as recorded there
/// (`"source"`): a local file's size and modification time, an http://
/// object's ETag and Last-Modified (`HTTPValidators`). An error is never
/// carried (it may have passed: a timeout, a mount that was away), nor is
/// an https:// URL (its headers are not asked for).
public struct CheckResume: Sendable {
    public let previous: ShardReport
    private let byKey: [String: (file: ShardReport.File, source: FileSource)]

    public init(_ previous: ShardReport) {
        self.previous = previous
        var byKey: [String: (ShardReport.File, FileSource)] = [:]
        for file in previous.files where file.status != .error {
            guard let object = (try? JSONSerialization.jsonObject(with: Data(file.line.utf8))) as? [String: Any],
                let source = object["source"] as? [String: Any]
            else { continue }
            let recorded = FileSource(
                size: (source["size"] as? NSNumber)?.int64Value,
                modifiedNanoseconds: (source["mtime_ns"] as? NSNumber)?.int64Value,
                etag: source["etag"] as? String, lastModified: source["last_modified"] as? String,
                length: (source["length"] as? NSNumber)?.int64Value)
            guard recorded != FileSource() else { continue }
            byKey[file.key] = (file, recorded)
        }
        self.byKey = byKey
    }

    /// The earlier verdict on `input`, its line marked `"carried":true`; nil to check it.
    public func carried(_ input: CheckInput) -> ShardReport.File? {
        guard input.problem == nil, let (file, source) = byKey[PathBytes.reportText(input.key)],
            FileSource.of(input) == source
        else { return nil }
        return file.markedCarried()
    }
}

extension ShardReport.File {
    /// The line with `"carried":true` after its status (once).
    func markedCarried() -> ShardReport.File {
        let status = ",\"status\":\"\(self.status.rawValue)\""
        let plain = line.replacingOccurrences(of: status + ",\"carried\":true", with: status)
        guard let range = plain.range(of: status) else { return self }
        return ShardReport.File(
            line: plain.replacingCharacters(in: range, with: status + ",\"carried\":true"), path: path, key: key,
            status: self.status, seconds: seconds, previewBase: previewBase)
    }
}
