import HostSupport

/// Builds SVG markup one element at a time. Every attribute value and every
/// text goes through `XMLText.escape`, so a name or title holding `<`, `&`
/// or quotes stays text; coordinates are written with one decimal.
struct SVGWriter: Sendable {
    public private(set) var markup = ""

    public init() {}

    /// A coordinate or length: one decimal, no trailing zero.
    public static func number(_ value: Double) -> String { JSON.number(value, digits: 1) }

    /// `<name a="v" ...>` (or `.../>` when `close`), attributes in order.
    public mutating func open(_ name: String, _ attributes: [(String, String)] = [], close: Bool = false) {
        markup += "<" + name
        for (key, value) in attributes { markup += " \(key)=\"\(XMLText.escape(value))\"" }
        markup += close ? "/>" : ">"
    }

    public mutating func close(_ name: String) { markup += "</\(name)>" }

    /// An empty element: `<rect .../>`.
    public mutating func element(_ name: String, _ attributes: [(String, String)]) {
        open(name, attributes, close: true)
    }

    /// An element holding text: `<text ...>escaped</text>`.
    public mutating func text(_ name: String = "text", _ attributes: [(String, String)] = [], _ content: String) {
        open(name, attributes)
        markup += XMLText.escape(content)
        close(name)
    }

    public mutating func rect(x: Double, y: Double, width: Double, height: Double, fill: String, opacity: Double? = nil)
    {
        var attributes = [
            ("x", Self.number(x)), ("y", Self.number(y)), ("width", Self.number(max(0, width))),
            ("height", Self.number(max(0, height))), ("fill", fill),
        ]
        if let opacity { attributes.append(("fill-opacity", JSON.number(opacity, digits: 2))) }
        element("rect", attributes)
    }

    public mutating func line(
        x1: Double, y1: Double, x2: Double, y2: Double, stroke: String, width: Double = 1, dashed: Bool = false
    ) {
        var attributes = [
            ("x1", Self.number(x1)), ("y1", Self.number(y1)), ("x2", Self.number(x2)), ("y2", Self.number(y2)),
            ("stroke", stroke), ("stroke-width", Self.number(width)),
        ]
        if dashed { attributes.append(("stroke-dasharray", "4 3")) }
        element("line", attributes)
    }

    /// "x,y x,y ..." for polylines and polygons.
    public static func points(_ points: [(Double, Double)]) -> String {
        points.map { number($0.0) + "," + number($0.1) }.joined(separator: " ")
    }
}

/// Several charts one above the other in one standalone SVG document (what
/// `bench --svg` writes).
public enum ChartDocument {
    /// `charts`: each chart's standalone SVG and its height.
    public static func stack(_ charts: [(svg: String, height: Int)], width: Int, title: String) -> String {
        let height = charts.reduce(0) { $0 + $1.height }
        var svg = SVGWriter()
        svg.open(
            "svg",
            [
                ("xmlns", "http://www.w3.org/2000/svg"), ("width", "\(width)"), ("height", "\(height)"),
                ("viewBox", "0 0 \(width) \(height)"), ("role", "img"),
            ])
        svg.text("title", [], title)
        svg.rect(x: 0, y: 0, width: Double(width), height: Double(height), fill: "#ffffff")
        var y = 0
        var markup = svg.markup
        for chart in charts {
            // A nested <svg> is placed by its x and y attributes.
            markup += "<g transform=\"translate(0,\(y))\">" + chart.svg + "</g>"
            y += chart.height
        }
        return markup + "</svg>\n"
    }
}
