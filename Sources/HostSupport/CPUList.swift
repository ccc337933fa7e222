/// The kernel's CPU list format (`cpulist` files, `taskset -c`): ranges and
/// single numbers separated by commas, "0-15,32-47" or "3" or "" (a node
/// without CPUs, such as one of memory only).
package enum CPUList {
    /// The CPUs `text` lists, ascending without repeats; nil when it is not a CPU list.
    package static func parse(_ text: String) -> [Int]? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return [] }
        var cpus = Set<Int>()
        for part in trimmed.split(separator: ",", omittingEmptySubsequences: false) {
            let bounds = part.split(separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(bounds.count), let first = Int(bounds[0]), first >= 0,
                let last = bounds.count == 2 ? Int(bounds[1]) : first, last >= first
            else { return nil }
            cpus.formUnion(first...last)
        }
        return cpus.sorted()
    }

    /// `cpus` written back as ranges ("0-15,32-47"), for messages.
    package static func format(_ cpus: [Int]) -> String {
        var ranges: [String] = []
        var index = 0
        let sorted = Array(Set(cpus)).sorted()
        while index < sorted.count {
            var end = index
            while end + 1 < sorted.count && sorted[end + 1] == sorted[end] + 1 { end += 1 }
            ranges.append(end == index ? "\(sorted[index])" : "\(sorted[index])-\(sorted[end])")
            index = end + 1
        }
        return ranges.joined(separator: ",")
    }
}
