/// "Did you mean": the known word nearest a mistyped one, as git and cargo
/// offer it. Near means at most two edits (insert, delete, replace or swap
/// two neighbours), and fewer than half the word's letters; a tie between
/// two candidates suggests neither.
package enum Suggestion {
    package static func closest(to typed: String, among candidates: [String]) -> String? {
        let word = Array(typed.lowercased())
        let limit = min(2, max(1, word.count / 2 - (word.count > 3 ? 0 : 1)))
        var best: (name: String, distance: Int)?
        var tied = false
        for candidate in Set(candidates) {
            let distance = editDistance(word, Array(candidate.lowercased()))
            guard distance > 0, distance <= limit else { continue }
            if let current = best, distance >= current.distance {
                if distance == current.distance { tied = true }
                continue
            }
            best = (candidate, distance)
            tied = false
        }
        return tied ? nil : best?.name
    }

    /// Optimal string alignment distance (Damerau–Levenshtein without
    /// repeated edits of one substring).
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { rows[i][0] = i }
        for j in 0...b.count { rows[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1)
                }
            }
        }
        return rows[a.count][b.count]
    }
}
