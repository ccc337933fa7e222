public enum ProResDecodeVersion {
    public static let string = "0.1.0"
}
