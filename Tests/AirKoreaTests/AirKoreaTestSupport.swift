import AirKorea
import Domain
import Foundation
import Pipeline
import TestSupport

// MARK: - Golden lines of the statistics and alert records

extension StationDailyStatistics: GoldenRenderable {
    /// `station_daily_stats station=… date=… pm10=… pm25=… o3=… no2=… co=… so2=…`.
    public var goldenLine: String {
        (["station_daily_stats", "station=\(Golden.text(stationName))", "date=\(date)"] + averagesGolden(averages)).joined(separator: " ")
    }
}

extension StationMonthlyStatistics: GoldenRenderable {
    /// `station_monthly_stats station=… month=… pm10=… …`.
    public var goldenLine: String {
        (["station_monthly_stats", "station=\(Golden.text(stationName))", "month=\(month)"] + averagesGolden(averages)).joined(separator: " ")
    }
}

func averagesGolden(_ v: PollutantValues<Double>) -> [String] {
    ["pm10=\(Golden.number(v.pm10))", "pm25=\(Golden.number(v.pm25))", "o3=\(Golden.number(v.o3))", "no2=\(Golden.number(v.no2))",
     "co=\(Golden.number(v.co))", "so2=\(Golden.number(v.so2))"]
}

extension PMAlert: GoldenRenderable {
    /// `pm_alert district=… area=… pollutant=… level=… issued=… issued_at=… issue_value=… cleared=… …`.
    public var goldenLine: String {
        let pairs: [(String, String)] = [
            ("district", Golden.text(district)), ("area", Golden.text(area)), ("pollutant", pollutant.rawValue), ("level", level.rawValue),
            ("issued", Golden.text(issued.label)), ("issued_at", iso8601UTC(issued.instant)), ("issue_value", Golden.number(issueValue)),
            ("cleared", Golden.text(cleared?.label)), ("cleared_at", cleared.map { iso8601UTC($0.instant) } ?? "nil"),
            ("clear_value", Golden.number(clearValue)), ("data_date", Golden.text(dataDate)), ("sn", Golden.text(serial)),
        ]
        return (["pm_alert"] + pairs.map { "\($0.0)=\($0.1)" }).joined(separator: " ")
    }
}

enum AirKoreaFixtures {
    static let feed = AirKoreaFeed()
    static let directory = FixturePaths.fixtures.appendingPathComponent("airkorea", isDirectory: true)
    static let publishedExpectations = directory.appendingPathComponent("published", isDirectory: true)

    /// How each fixture case was requested: the operation (alias, as a pipeline writes it), the
    /// parameters, the page size and page, and the format that was asked for when the bytes are
    /// not in it (data.go.kr answers errors in XML to JSON requests). `recognisedAs` is the
    /// operation recognition must name from the bytes alone.
    struct Case: Sendable {
        var operation: String
        var parameters: [(String, String)]
        var pageSize = 10
        var page = 1
        var askedFormat: PayloadFormat? = nil
        var recognisedAs: String

        init(_ operation: String, _ parameters: [(String, String)], pageSize: Int = 10, page: Int = 1,
             askedFormat: PayloadFormat? = nil, recognisedAs: String) {
            self.operation = operation; self.parameters = parameters; self.pageSize = pageSize; self.page = page
            self.askedFormat = askedFormat; self.recognisedAs = recognisedAs
        }
    }

    static let byStation = "getMsrstnAcctoRltmMesureDnsty"
    static let byProvince = "getCtprvnRltmMesureDnsty"
    static let forecast = "getMinuDustFrcstDspth"
    static let stationList = "getMsrstnList"
    static let nearby = "getNearbyMsrstnList"
    static let tm = "getTMStdrCrdnt"
    static let dailyStats = "getMsrstnAcctoRDyrg"
    static let monthlyStats = "getMsrstnAcctoRMmrg"
    static let alerts = "getUlfptcaAlarmInfo"

    static let seoul: [(String, String)] = [("sidoName", "서울"), ("ver", "1.3")]

    /// Every fixture case in `Data/fixtures/airkorea`, by case name.
    static let cases: [String: Case] = [
        "realtime-station-v10": Case("realtime-by-station", [("stationName", "종로구"), ("dataTerm", "DAILY"), ("ver", "1.0")], pageSize: 5, recognisedAs: byStation),
        "realtime-station-v14": Case("realtime-by-station", [("stationName", "종로구"), ("dataTerm", "DAILY"), ("ver", "1.4")], pageSize: 3, recognisedAs: byStation),
        "realtime-province-seoul": Case("realtime-by-province", seoul, pageSize: 100, recognisedAs: byProvince),
        "realtime-province-quirks": Case("realtime-by-province", [("sidoName", "경기"), ("ver", "1.3")], recognisedAs: byProvince),
        "realtime-province-page1": Case("realtime-by-province", [("sidoName", "제주"), ("ver", "1.3")], pageSize: 3, recognisedAs: byProvince),
        "realtime-province-page2": Case("realtime-by-province", [("sidoName", "제주"), ("ver", "1.3")], pageSize: 3, page: 2, recognisedAs: byProvince),
        "realtime-province-legacy": Case("getCtprvnRltmMesureDnsty", seoul, recognisedAs: byProvince),
        "station-list": Case("stations", [("addr", "서울")], recognisedAs: stationList),
        "nearby-stations": Case("nearby-stations", [("tmX", "198245.054"), ("tmY", "451586.498"), ("ver", "1.1")], recognisedAs: nearby),
        "tm-coordinates": Case("tm-coordinates", [("umdName", "신사동")], recognisedAs: tm),
        "forecast": Case("forecast", [("searchDate", "2023-06-03")], recognisedAs: forecast),
        "forecast-legacy": Case("forecast", [("searchDate", "2016-04-01")], recognisedAs: forecast),
        "empty-result": Case("realtime-by-station", [("stationName", "없는측정소"), ("dataTerm", "DAILY"), ("ver", "1.3")], recognisedAs: byProvince),
        "error-gateway-30": Case("realtime-by-province", seoul, recognisedAs: byProvince),
        "error-gateway-01": Case("realtime-by-province", seoul, recognisedAs: byProvince),
        "error-gateway-22-json-request": Case("realtime-by-province", seoul, askedFormat: .json, recognisedAs: byProvince),
        "error-provider-22": Case("realtime-by-province", seoul, recognisedAs: byProvince),
        "error-provider-10": Case("forecast", [("searchDate", "2023-06-03")], recognisedAs: byProvince),
        "error-provider-code-1": Case("stations", [], recognisedAs: byProvince),
        "malformed-xml": Case("realtime-by-province", seoul, pageSize: 100, recognisedAs: byProvince),
        "truncated-xml": Case("realtime-by-province", seoul, pageSize: 100, recognisedAs: byProvince),
        "malformed-json": Case("realtime-by-province", seoul, pageSize: 100, recognisedAs: byProvince),
        "stats-daily": Case("station-daily-stats", marchDays, pageSize: 100, recognisedAs: dailyStats),
        "stats-daily-quirks": Case("station-daily-stats", [("inqBginDt", "2024-03-01"), ("inqEndDt", "2024-03-02")], pageSize: 100,
                                   recognisedAs: dailyStats),
        "stats-daily-empty": Case("station-daily-stats", marchDays + [("msrstnName", "없는측정소")], pageSize: 100, recognisedAs: byProvince),
        "stats-daily-error-gateway-20": Case("station-daily-stats", marchDays, pageSize: 100, recognisedAs: byProvince),
        "stats-monthly": Case("station-monthly-stats", [("inqBginMm", "202402"), ("inqEndMm", "202402")], pageSize: 1000,
                              recognisedAs: monthlyStats),
        "stats-monthly-range": Case("station-monthly-stats", [("inqBginMm", "202312"), ("inqEndMm", "202312")], pageSize: 1000,
                                    recognisedAs: byProvince),
        "pm-alerts-issued": Case("pm-alerts", [("year", "2024")], pageSize: 100, recognisedAs: alerts),
        "pm-alerts-cleared": Case("pm-alerts", [("year", "2024")], pageSize: 100, recognisedAs: alerts),
        "pm-alerts-quirks": Case("pm-alerts", [("year", "2024")], pageSize: 100, recognisedAs: alerts),
        "pm-alerts-empty": Case("pm-alerts", [("year", "2025")], pageSize: 100, recognisedAs: byProvince),
        "pm-alerts-error-provider-11": Case("pm-alerts", [("year", "2024")], recognisedAs: byProvince),
        // Payloads of services feedline does not read, as if a realtime pipeline had received them.
        "unsupported-cai": Case("realtime-by-province", seoul, recognisedAs: "getMsrstnKhaiRltmDnsty"),
        "unsupported-sido-average": Case("realtime-by-province", seoul, recognisedAs: "getCtprvnMesureLIst"),
    ]

    static let marchDays: [(String, String)] = [("inqBginDt", "20240301"), ("inqEndDt", "20240302")]

    /// Every payload file (`.xml`, `.json`) in the fixture directory, sorted.
    static let files: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".xml") || $0.hasSuffix(".json") }.sorted()
    }()

    /// Case names that have both an XML and a JSON fixture.
    static let pairedCases: [String] = {
        let stems = files.map { ($0 as NSString).deletingPathExtension }
        return Set(stems.filter { stem in files.contains(stem + ".xml") && files.contains(stem + ".json") }).sorted()
    }()

    static func caseName(of file: String) -> String { (file as NSString).deletingPathExtension }

    static func url(_ file: String) -> URL { directory.appendingPathComponent(file) }

    static func format(of file: String) -> PayloadFormat { file.hasSuffix(".json") ? .json : .xml }

    /// The request a pipeline would have made for `fixture`'s case.
    static func request(for fixture: String) throws -> FeedRequest {
        let name = caseName(of: fixture)
        guard let c = cases[name] else { throw FixtureError.noCase(name) }
        let spec = SourceSpec(operation: c.operation, parameters: c.parameters.map { ($0.0, [$0.1]) },
                              format: c.askedFormat ?? format(of: fixture), pageSize: c.pageSize, maxPages: 10)
        guard let first = try feed.requests(for: spec).first, let request = feed.request(first, page: c.page) else {
            throw FixtureError.noRequest(name)
        }
        return request
    }

    /// Decodes a fixture the way the runner does: with its request as payload request and context.
    static func decode(_ fixture: String) throws -> DecodeResult {
        let request = try request(for: fixture)
        return decode(url(fixture), request: request, context: DecodeContext(request: request))
    }

    /// When the fixtures count as fetched: after every time they hold (data timed more than a
    /// day after its fetch is refused as impossible).
    static let fetchedAt = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z

    /// Decodes any file; errors are captured in the result.
    static func decode(_ file: URL, request: FeedRequest? = nil, operation: String? = nil,
                       format: PayloadFormat? = nil, context: DecodeContext = DecodeContext(request: nil)) -> DecodeResult {
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
        let payload = RawPayload(file: file, request: request, source: "airkorea", operation: operation ?? request?.operation,
                                 format: format ?? request?.format ?? (file.pathExtension == "json" ? .json : .xml),
                                 fetchedAt: Self.fetchedAt, sha256: "", byteCount: size)
        var sink = CollectingSink()
        do {
            let summary = try feed.decode(payload, context: context, into: &sink)
            return DecodeResult(sink: sink, summary: summary, error: nil)
        } catch {
            return DecodeResult(sink: sink, summary: nil, error: error)
        }
    }

    /// The first `count` bytes of a file.
    static func head(_ file: URL, count: Int = 16 * 1024) throws -> Data {
        let data = try Data(contentsOf: file)
        return data.prefix(count)
    }

    enum FixtureError: Error, CustomStringConvertible {
        case noCase(String)
        case noRequest(String)

        var description: String {
            switch self {
            case .noCase(let name): "The fixture case \(name) has no entry in AirKoreaFixtures.cases; add how it was requested."
            case .noRequest(let name): "No request could be built for the fixture case \(name)."
            }
        }
    }
}

/// A scratch file for payloads built inside a test (wrapped fragments, completed samples).
func temporaryPayload(_ text: String, name: String) throws -> (URL, TemporaryDirectory) {
    let directory = try TemporaryDirectory("airkorea-test")
    let url = directory.path(name)
    try Data(text.utf8).write(to: url)
    return (url, directory)
}
