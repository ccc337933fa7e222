/// The colours every chart uses: Okabe and Ito's palette ("Color Universal
/// Design", 2008), eight colours told apart by people with any common form
/// of colour blindness. Series take them in `series` order; marker bands
/// have fixed colours so a "damaged" band looks the same on every chart.
public enum ChartPalette {
    public static let black = "#000000"
    public static let orange = "#E69F00"
    public static let skyBlue = "#56B4E9"
    public static let bluishGreen = "#009E73"
    public static let yellow = "#F0E442"
    public static let blue = "#0072B2"
    public static let vermillion = "#D55E00"
    public static let reddishPurple = "#CC79A7"

    /// Line and area colours in the order series are given them: the
    /// darker, most distinct ones first (yellow is hard to see on white, so last).
    public static let series = [blue, orange, bluishGreen, reddishPurple, skyBlue, vermillion, black, yellow]

    /// The i-th series colour, wrapping around.
    public static func series(_ i: Int) -> String { series[((i % series.count) + series.count) % series.count] }

    /// Fixed colours of the frame markers, each also named in its own lane
    /// (frozen and dropped share a colour but never a chart: one is a check's,
    /// the other a timing log's).
    public static let damaged = vermillion
    public static let failed = reddishPurple
    public static let missing = yellow
    public static let blackFrames = black
    public static let frozen = skyBlue
    public static let late = orange
    public static let dropped = skyBlue
}
