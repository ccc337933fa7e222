/// How a device selector that matches no device reads, shared by
/// `VulkanError.noMatchingDevice` and `HardwareShortfall.noMatchingDevice`
/// so both read alike.
public enum DeviceSelectorWords {
    public static func noMatch(selector: String, candidates: [String]) -> String {
        "the device selector '\(selector)' matches none of: " + candidates.joined(separator: ", ")
    }
}
