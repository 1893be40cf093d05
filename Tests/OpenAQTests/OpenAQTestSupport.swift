import Domain
import FeedCore
import Foundation
import OpenAQ
import Pipeline
import TestSupport

// MARK: - Golden lines

extension OpenAQDatetime {
    /// `2024-03-06T05:00:00Z/2024-03-06T14:00:00+09:00`.
    var goldenText: String { "\(OpenAQTime.format(utc))/\(local ?? "nil")" }
}

func goldenTime(_ datetime: OpenAQDatetime?) -> String { datetime.map { Golden.text($0.goldenText) } ?? "nil" }

func goldenParameter(_ p: OpenAQParameter) -> [(String, String)] {
    [("parameter", p.id.map(String.init) ?? "nil"), ("name", Golden.text(p.name)), ("units", Golden.text(p.units)),
     ("display", Golden.text(p.displayName))]
}

func goldenFields(_ kind: String, _ pairs: [(String, String)]) -> String {
    ([kind] + pairs.map { "\($0.0)=\($0.1)" }).joined(separator: " ")
}

extension OpenAQLocation: GoldenRenderable {
    public var goldenLine: String {
        goldenFields("location", [
            ("id", String(id)), ("name", Golden.text(name)), ("locality", Golden.text(locality)), ("tz", Golden.text(timezone)),
            ("country", "\(countryID.map(String.init) ?? "nil")/\(Golden.text(countryCode))/\(Golden.text(countryName))"),
            ("owner", "\(ownerID.map(String.init) ?? "nil")/\(Golden.text(ownerName))"),
            ("provider", "\(providerID.map(String.init) ?? "nil")/\(Golden.text(providerName))"),
            ("mobile", isMobile.map(String.init) ?? "nil"), ("monitor", isMonitor.map(String.init) ?? "nil"),
            ("instruments", Golden.text(instruments.joined(separator: "|"))),
            ("lat", Golden.number(latitude)), ("lon", Golden.number(longitude)),
            ("first", goldenTime(datetimeFirst)), ("last", goldenTime(datetimeLast)),
        ])
    }
}

extension OpenAQSensor: GoldenRenderable {
    public var goldenLine: String {
        goldenFields("sensor", [("id", String(id)), ("location", locationID.map(String.init) ?? "nil"), ("name", Golden.text(name))]
            + goldenParameter(parameter) + [("first", goldenTime(datetimeFirst)), ("last", goldenTime(datetimeLast))])
    }
}

extension OpenAQLatest: GoldenRenderable {
    public var goldenLine: String {
        goldenFields("latest", [
            ("sensor", String(sensorID)), ("location", String(locationID)), ("at", Golden.text(datetime.goldenText)),
            ("value", Golden.number(value)), ("lat", Golden.number(latitude)), ("lon", Golden.number(longitude)),
        ])
    }
}

extension OpenAQHourly: GoldenRenderable {
    public var goldenLine: String {
        let summary = OpenAQSummary.fields.map { "\($0.name):\(Golden.number(self.summary[keyPath: $0.path]))" }.joined(separator: ",")
        let c = coverage
        let coverageText = [
            "expected:\(c.expectedCount.map(String.init) ?? "nil")/\(c.expectedInterval ?? "nil")",
            "observed:\(c.observedCount.map(String.init) ?? "nil")/\(c.observedInterval ?? "nil")",
            "complete:\(Golden.number(c.percentComplete))", "coverage:\(Golden.number(c.percentCoverage))",
            "from:\(c.datetimeFrom?.goldenText ?? "nil")", "to:\(c.datetimeTo?.goldenText ?? "nil")",
        ].joined(separator: ",")
        return goldenFields("hour", [
            ("sensor", String(sensorID)), ("from", Golden.text(periodFrom.goldenText)), ("to", Golden.text(periodTo.goldenText)),
            ("label", Golden.text(periodLabel)), ("interval", Golden.text(periodInterval)), ("value", Golden.number(value)),
        ] + goldenParameter(parameter) + [
            ("flags", hasFlags.map(String.init) ?? "nil"), ("lat", Golden.number(latitude)), ("lon", Golden.number(longitude)),
            ("summary", summary), ("coverage", coverageText),
        ])
    }
}

extension OpenAQHoursScan: GoldenRenderable {
    public var goldenLine: String {
        goldenFields("window", [("sensor", String(sensorID)), ("window", Golden.text(window.description)),
                                          ("scanned_through", OpenAQTime.format(scannedThrough))])
    }
}

extension CollectingSink {
    var locations: [OpenAQLocation] { records.compactMap { $0.as(OpenAQLocation.self) } }
    var sensors: [OpenAQSensor] { records.compactMap { $0.as(OpenAQSensor.self) } }
    var latest: [OpenAQLatest] { records.compactMap { $0.as(OpenAQLatest.self) } }
    var hours: [OpenAQHourly] { records.compactMap { $0.as(OpenAQHourly.self) } }
    var scans: [OpenAQHoursScan] { records.compactMap { $0.as(OpenAQHoursScan.self) } }
}

// MARK: - Fixtures

/// The OpenAQ fixture cases in `Data/fixtures/openaq`.
enum OpenAQFixtures {
    static let feed = OpenAQFeed()
    static let directory = FixturePaths.fixtures.appendingPathComponent("openaq", isDirectory: true)
    /// When the fixtures are taken to have been fetched: 2024-03-06 05:30 UTC (14:30 KST).
    static let fetchedAt = Date(timeIntervalSince1970: 1_709_703_000)

    /// The request a fixture stands for, and what recognition must name from its bytes.
    struct Case: Sendable {
        var operation: String
        var parameters: [(name: String, values: [String])]
        var recognised: String
    }

    static let hoursWindow: [(name: String, values: [String])] = [("datetime_from", ["2024-03-05T23:00:00Z"]), ("window_hours", ["24"])]

    static let cases: [String: Case] = [
        "locations-kr": Case(operation: "locations", parameters: [("iso", ["KR"])], recognised: "locations"),
        "locations-quirks": Case(operation: "locations", parameters: [("iso", ["KR"])], recognised: "locations"),
        "locations-empty": Case(operation: "locations", parameters: [("iso", ["KR"])], recognised: "locations"),
        "sensors-location-2623101": Case(operation: "location-sensors", parameters: [("locations_id", ["2623101"])], recognised: "location-sensors"),
        "latest-location-2623101": Case(operation: "location-latest", parameters: [("locations_id", ["2623101"])], recognised: "location-latest"),
        "latest-location-2623102": Case(operation: "location-latest", parameters: [("locations_id", ["2623102"])], recognised: "location-latest"),
        "hours-sensor-7770101": Case(operation: "sensor-hours", parameters: [("sensors_id", ["7770101"])] + hoursWindow, recognised: "sensor-hours"),
        "hours-sensor-7770102": Case(operation: "sensor-hours", parameters: [("sensors_id", ["7770102"])] + hoursWindow, recognised: "sensor-hours"),
        "hours-quirks-sensor-7770103": Case(operation: "sensor-hours", parameters: [("sensors_id", ["7770103"])] + hoursWindow, recognised: "sensor-hours"),
        "hours-empty": Case(operation: "sensor-hours", parameters: [("sensors_id", ["7770104"])] + hoursWindow, recognised: "locations"),
        "error-401-missing-key": Case(operation: "locations", parameters: [("iso", ["KR"])], recognised: "locations"),
        "error-401-invalid-key": Case(operation: "locations", parameters: [("iso", ["KR"])], recognised: "locations"),
        "error-403": Case(operation: "locations", parameters: [("iso", ["KR"])], recognised: "locations"),
        "error-404": Case(operation: "location-latest", parameters: [("locations_id", ["999999999"])], recognised: "locations"),
        "error-408": Case(operation: "sensor-hours", parameters: [("sensors_id", ["7770102"])] + hoursWindow, recognised: "locations"),
        "error-410": Case(operation: "locations", parameters: [("iso", ["KR"])], recognised: "locations"),
        "error-422": Case(operation: "locations", parameters: [("iso", ["KR"])], recognised: "locations"),
        "error-429": Case(operation: "location-latest", parameters: [("locations_id", ["2623101"])], recognised: "locations"),
        "error-500": Case(operation: "sensor-hours", parameters: [("sensors_id", ["7770102"])] + hoursWindow, recognised: "locations"),
        "truncated": Case(operation: "sensor-hours", parameters: [("sensors_id", ["7770102"])] + hoursWindow, recognised: "sensor-hours"),
    ]

    /// Every payload file, sorted.
    static var files: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
    }

    static func url(_ file: String) -> URL { directory.appendingPathComponent(file) }
    static func caseName(of file: String) -> String { URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent }

    static func spec(_ operation: String, _ parameters: [(name: String, values: [String])], pageSize: Int = 1000) -> SourceSpec {
        SourceSpec(operation: operation, parameters: parameters, format: .json, pageSize: pageSize, maxPages: 10)
    }

    /// The request fixture `file` stands for.
    static func request(for file: String) throws -> FeedRequest {
        guard let c = cases[caseName(of: file)] else { throw FixtureError.unknownCase(file) }
        guard let request = try feed.requests(for: spec(c.operation, c.parameters)).first else { throw FixtureError.unknownCase(file) }
        return request
    }

    /// Decodes fixture `file` as fetched by its request.
    static func decode(_ file: String) throws -> DecodeResult {
        decode(url(file), request: try request(for: file))
    }

    /// Decodes any file, with or without the request that fetched it (then with `fallback`
    /// parameters, as a pipeline's fixture run or `replay --param` gives them).
    static func decode(_ file: URL, request: FeedRequest?, fallback: [String: String] = [:], fetchedAt: Date = fetchedAt,
                       httpStatus: Int? = nil) -> DecodeResult {
        DecodeResult.decoding(file, with: feed, request: request, fallback: fallback, fetchedAt: fetchedAt, httpStatus: httpStatus)
    }

    enum FixtureError: Error {
        case unknownCase(String)
    }
}

/// A scratch payload file for a test.
func temporaryPayload(_ text: String, name: String = "payload.json") throws -> (URL, TemporaryDirectory) {
    let directory = try TemporaryDirectory("openaq-test")
    let url = directory.path(name)
    try Data(text.utf8).write(to: url)
    return (url, directory)
}
