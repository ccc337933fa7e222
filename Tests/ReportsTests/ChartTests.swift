import Foundation
import XCTest

@testable import ProResCore
@testable import ProResPipeline
@testable import ProResReports
@testable import TestSupport

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The SVG chart writer: scales and ticks against values worked out by
/// hand, every chart well-formed XML (Foundation's parser), text escaped and
/// read back unchanged, long series thinned without losing a spike.
final class ChartTests: XCTestCase {
    func testTickStepsAreOneTwoOrFiveTimesAPowerOfTen() {
        XCTAssertEqual(ChartScale.tickStep(span: 10, count: 5), 2)  // 10/5 = 2
        XCTAssertEqual(ChartScale.tickStep(span: 1234, count: 5), 500)  // 246.8 → 5 × 100
        XCTAssertEqual(ChartScale.tickStep(span: 0.9, count: 5), 0.2, accuracy: 1e-12)  // 0.18 → 2 × 0.1
        XCTAssertEqual(ChartScale.tickStep(span: 1023, count: 5), 500)  // 204.6 → 5 × 100
        XCTAssertEqual(ChartScale.tickStep(span: 7, count: 7), 1)
        let nice = ChartScale.niceDomain(lower: 3, upper: 97, count: 5)  // step 20 (18.8 → 2 × 10)
        XCTAssertEqual([nice.lower, nice.upper, nice.step], [0, 100, 20])
        let scale = ChartScale(lower: 0, upper: 100, from: 200, to: 0)
        XCTAssertEqual(scale(25), 150)
        XCTAssertEqual(scale.ticks(step: 20), [0, 20, 40, 60, 80, 100])
        XCTAssertEqual(ChartScale.label(0.25, step: 0.05), "0.25")
        XCTAssertEqual(ChartScale.label(1500, step: 500), "1500")
    }

    func testPaletteIsOkabeIto() {
        XCTAssertEqual(Set(ChartPalette.series).count, 8)
        XCTAssertEqual(
            Set(ChartPalette.series),
            ["#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7"])
        XCTAssertEqual(ChartPalette.series(8), ChartPalette.series(0), "wraps around")
    }

    func testLineChartIsWellFormedAndKeepsItsTextAsText() throws {
        let hostile = "a<b>&\"c'\nd"
        let chart = LineChart(
            title: hostile, x: ChartAxis("frame", unit: "index"), y: ChartAxis("luma", unit: "code <value>"),
            series: [
                ChartSeries(hostile, colour: ChartPalette.blue, x: [0, 1, 2, 4], y: [1, 5, 3, 2], breakAbove: 1),
                ChartSeries("area", colour: ChartPalette.orange, x: [0, 1], y: [2, 2], lower: [1, 1], style: .area),
            ],
            bands: [ChartBand("damaged", colour: ChartPalette.damaged, runs: [3...3])],
            rules: [ChartRule("p99 & more", colour: ChartPalette.vermillion, value: 4)])
        let xml = try SVGShape(chart.svg)
        XCTAssertEqual(xml.root, "svg")
        XCTAssertTrue(xml.texts.contains(hostile), "the title reads back unchanged: \(xml.texts)")
        XCTAssertTrue(xml.texts.contains("luma (code <value>)"))
        XCTAssertTrue(xml.texts.contains("p99 & more"))
        XCTAssertTrue(xml.texts.contains("damaged"))
        XCTAssertEqual(xml.count("polyline"), 1, "frames 0–2 joined; frame 4 after a gap stands alone")
        XCTAssertEqual(xml.count("circle"), 1)
        XCTAssertEqual(xml.count("polygon"), 1)
    }

    func testLongSeriesAreThinnedWithoutLosingASpike() throws {
        var y = Array(repeating: 10.0, count: 100_000)
        y[54_321] = 900
        let chart = LineChart(
            title: "long", x: ChartAxis("frame", unit: "index"), y: ChartAxis("µs", unit: ""),
            series: [ChartSeries("latency", colour: ChartPalette.black, x: y.indices.map(Double.init), y: y)],
            bands: [
                ChartBand("late", colour: ChartPalette.late, runs: (0..<5000).map { Double($0 * 2)...Double($0 * 2) })
            ])
        let svg = chart.svg
        XCTAssertLessThan(svg.utf8.count, 120_000, "a hundred thousand frames draw into a small file")
        let xml = try SVGShape(svg)
        let points = try XCTUnwrap(xml.polylinePoints.first)
        XCTAssertLessThanOrEqual(points.count, 2 * (720 - 64 - 16) + 2)
        let plotTop = points.map(\.1).min()!
        XCTAssertLessThan(plotTop, points.map(\.1).max()! - 100, "the spike is still drawn")
        XCTAssertLessThan(xml.count("rect"), 200, "10,000 frames apart by one merge into a few spans a pixel")
    }

    func testBarChartLabelsEveryBar() throws {
        let chart = BarChart(
            title: "fps", axis: ChartAxis("decoded", unit: "frames per second"), seriesNames: ["cpu", "gpu"],
            groups: [("hq.mov", [120, 5800.5])])
        let xml = try SVGShape(chart.svg)
        XCTAssertTrue(xml.texts.contains("120") && xml.texts.contains("5800.5"), "\(xml.texts)")
        XCTAssertTrue(xml.texts.contains("decoded (frames per second)"))
    }
}

/// An SVG read with Foundation's XMLParser: element counts, texts, polyline points.
private final class SVGShape: NSObject, XMLParserDelegate {
    private(set) var root: String?
    private(set) var counts: [String: Int] = [:]
    private(set) var texts: [String] = []
    private(set) var polylinePoints: [[(Double, Double)]] = []
    private var text: String?

    init(_ svg: String) throws {
        super.init()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = self
        guard parser.parse() else { throw parser.parserError ?? NSError(domain: "SVGShape", code: 1) }
    }

    func count(_ name: String) -> Int { counts[name] ?? 0 }

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        if root == nil { root = name }
        counts[name, default: 0] += 1
        if name == "text" || name == "title" { text = "" }
        if name == "polyline", let points = attributes["points"] {
            polylinePoints.append(
                points.split(separator: " ").map { pair in
                    let xy = pair.split(separator: ",").compactMap { Double($0) }
                    return (xy[0], xy[1])
                })
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text? += string }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "text" || name == "title", let done = text {
            texts.append(done)
            text = nil
        }
    }
}
