import Domain
import FeedCore
import Foundation
import OpenWeather
import Pipeline
import TestSupport

// MARK: - Golden lines

extension AirPollutionReading: GoldenRenderable {
    /// `air_pollution lat=… lon=… at=… kind=… aqi=… co=… … nh3=…`.
    public var goldenLine: String {
        let components = AirPollutionComponents.fields.map { "\($0.name)=\(Golden.number(self.components[keyPath: $0.path]))" }
        return (["air_pollution", "lat=\(Golden.number(latitude))", "lon=\(Golden.number(longitude))", "at=\(iso8601UTC(observedAt))",
                 "kind=\(kind.rawValue)", "aqi=\(aqi.map(String.init) ?? "nil")"] + components).joined(separator: " ")
    }
}

extension CurrentWeather: GoldenRenderable {
    /// `weather lat=… lon=… at=… city=… … sunset=…`, temperatures in °C and speeds in m/s.
    public var goldenLine: String {
        let conditions = self.conditions.map { "\($0.id.map(String.init) ?? "-")/\($0.main ?? "-")/\($0.description ?? "-")/\($0.icon ?? "-")" }
        let pairs: [(String, String)] = [
            ("lat", Golden.number(latitude)), ("lon", Golden.number(longitude)), ("at", iso8601UTC(observedAt)),
            ("city", Golden.text(cityID.map(String.init))), ("name", Golden.text(cityName)), ("country", Golden.text(country)),
            ("tz", timezoneOffsetSeconds.map(String.init) ?? "nil"),
            ("conditions", conditions.isEmpty ? "none" : Golden.text(conditions.joined(separator: "|"))),
            ("units", units.rawValue), ("temp_delivered", Golden.number(temperatureDelivered)),
            ("temp_c", Golden.number(temperature)), ("feels_c", Golden.number(feelsLike)),
            ("min_c", Golden.number(temperatureMin)), ("max_c", Golden.number(temperatureMax)),
            ("hpa", Golden.number(pressure)), ("sea_hpa", Golden.number(seaLevelPressure)), ("ground_hpa", Golden.number(groundLevelPressure)),
            ("humidity", Golden.number(humidity)), ("wind_ms", Golden.number(windSpeed)), ("gust_ms", Golden.number(windGust)),
            ("deg", Golden.number(windDirection)), ("clouds", Golden.number(cloudiness)), ("visibility_m", Golden.number(visibility)),
            ("rain_1h", Golden.number(rain1h)), ("rain_3h", Golden.number(rain3h)), ("snow_1h", Golden.number(snow1h)), ("snow_3h", Golden.number(snow3h)),
            ("sunrise", sunrise.map(iso8601UTC) ?? "nil"), ("sunset", sunset.map(iso8601UTC) ?? "nil"),
        ]
        return (["weather"] + pairs.map { "\($0.0)=\($0.1)" }).joined(separator: " ")
    }
}

extension GeocodedPlace: GoldenRenderable {
    /// `place query=… name=… ko=… country=… state=… lat=… lon=… resolved=…`.
    public var goldenLine: String {
        let pairs: [(String, String)] = [
            ("query", Golden.text(query)), ("name", Golden.text(name)), ("ko", Golden.text(localNameKo)),
            ("country", Golden.text(country)), ("state", Golden.text(state)),
            ("lat", Golden.number(latitude)), ("lon", Golden.number(longitude)), ("resolved", iso8601UTC(resolvedAt)),
        ]
        return (["place"] + pairs.map { "\($0.0)=\($0.1)" }).joined(separator: " ")
    }
}

extension CollectingSink {
    var readings: [AirPollutionReading] { records.compactMap { $0.as(AirPollutionReading.self) } }
    var weather: [CurrentWeather] { records.compactMap { $0.as(CurrentWeather.self) } }
    var places: [GeocodedPlace] { records.compactMap { $0.as(GeocodedPlace.self) } }
}

// MARK: - Fixtures

/// The OpenWeather fixture cases in `Data/fixtures/openweather`.
enum OpenWeatherFixtures {
    static let feed = OpenWeatherFeed()
    static let directory = FixturePaths.fixtures.appendingPathComponent("openweather", isDirectory: true)
    /// When the fixtures are taken to have been fetched: 2024-03-06 05:30 UTC (14:30 KST).
    static let fetchedAt = Date(timeIntervalSince1970: 1_709_703_000)

    static let seoul = ("37.5665,126.9780")
    static let gangnam = ("37.4979,127.0276")

    /// The request a fixture stands for, and what recognition must name from its bytes.
    struct Case: Sendable {
        var operation: String
        var parameters: [(name: String, values: [String])]
        var recognised: String
        /// Whether the payload names its location itself (a bare file can then be decoded).
        var placesItself = true
    }

    static let cases: [String: Case] = [
        "air-pollution-current-seoul": Case(operation: "air-pollution", parameters: [("coordinates", [seoul])], recognised: "air-pollution"),
        "air-pollution-forecast-seoul": Case(operation: "air-pollution-forecast", parameters: [("coordinates", [seoul])], recognised: "air-pollution"),
        "air-pollution-history-seoul": Case(operation: "air-pollution-history",
                                            parameters: [("coordinates", [seoul]), ("start", ["1709686800"]), ("end", ["1709704800"])],
                                            recognised: "air-pollution"),
        "air-pollution-history-jongno-station": Case(operation: "air-pollution-history",
                                                     parameters: [("coordinates", ["37.5720,127.0050"]), ("start", ["1684587600"]), ("end", ["1684605600"])],
                                                     recognised: "air-pollution"),
        "air-pollution-history-empty": Case(operation: "air-pollution-history",
                                            parameters: [("coordinates", [seoul]), ("start", ["1606435200"]), ("end", ["1606438800"])],
                                            recognised: "air-pollution"),
        "air-pollution-forecast-quirks": Case(operation: "air-pollution-forecast", parameters: [("coordinates", [gangnam])], recognised: "air-pollution"),
        "error-401": Case(operation: "air-pollution", parameters: [("coordinates", [seoul])], recognised: "air-pollution"),
        "error-404": Case(operation: "current-weather", parameters: [("coordinates", [seoul])], recognised: "air-pollution"),
        "error-429": Case(operation: "air-pollution", parameters: [("coordinates", [seoul])], recognised: "air-pollution"),
        "truncated": Case(operation: "air-pollution-forecast", parameters: [("coordinates", [seoul])], recognised: "air-pollution"),
        "weather-seoul-metric": Case(operation: "current-weather", parameters: [("coordinates", [seoul]), ("units", ["metric"])], recognised: "current-weather"),
        "weather-seoul-rain-metric": Case(operation: "current-weather", parameters: [("coordinates", [seoul]), ("units", ["metric"])], recognised: "current-weather"),
        "weather-seoul-standard": Case(operation: "current-weather", parameters: [("coordinates", [seoul])], recognised: "current-weather"),
        "weather-seoul-imperial": Case(operation: "current-weather", parameters: [("coordinates", [seoul]), ("units", ["imperial"])], recognised: "current-weather"),
        "geocode-jongno-gu": Case(operation: "geocode", parameters: [("q", ["Jongno-gu,KR"])], recognised: "geocode"),
        "geocode-gangnam-gu": Case(operation: "geocode", parameters: [("q", ["Gangnam-gu,KR"])], recognised: "geocode"),
        "geocode-empty": Case(operation: "geocode", parameters: [("q", ["Atlantis,KR"])], recognised: "geocode"),
        "geocode-quirks": Case(operation: "geocode", parameters: [("q", ["Jung-gu,KR"])], recognised: "geocode"),
        "geocode-no-location": Case(operation: "geocode", parameters: [("q", ["Mapo-gu,KR"])], recognised: "geocode"),
        "geocode-error-400": Case(operation: "geocode", parameters: [("q", ["Jongno-gu,KR"])], recognised: "air-pollution"),
        "weather-quirks-metric": Case(operation: "current-weather", parameters: [("coordinates", [seoul]), ("units", ["metric"])], recognised: "current-weather",
                                      placesItself: false),
    ]

    /// Every payload file, sorted.
    static var files: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
    }

    static func url(_ file: String) -> URL { directory.appendingPathComponent(file) }
    static func caseName(of file: String) -> String { URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent }

    /// The request fixture `file` stands for.
    static func request(for file: String) throws -> FeedRequest {
        guard let c = cases[caseName(of: file)] else { throw FixtureError.unknownCase(file) }
        let spec = SourceSpec(operation: c.operation, parameters: c.parameters, format: .json, pageSize: 1000, maxPages: 1)
        guard let request = try feed.requests(for: spec).first else { throw FixtureError.unknownCase(file) }
        return request
    }

    /// Decodes fixture `file` as fetched by its request.
    static func decode(_ file: String) throws -> DecodeResult {
        decode(url(file), request: try request(for: file))
    }

    /// Decodes any file, with or without the request that fetched it (then with `fallback`
    /// parameters, as a pipeline's fixture run or `replay --param` gives them).
    static func decode(_ file: URL, request: FeedRequest?, fallback: [String: String] = [:], fetchedAt: Date = fetchedAt) -> DecodeResult {
        DecodeResult.decoding(file, with: feed, request: request, fallback: fallback, fetchedAt: fetchedAt)
    }

    enum FixtureError: Error {
        case unknownCase(String)
    }
}

/// A scratch payload file for a test.
func temporaryPayload(_ text: String, name: String = "payload.json") throws -> (URL, TemporaryDirectory) {
    let directory = try TemporaryDirectory("openweather-test")
    let url = directory.path(name)
    try Data(text.utf8).write(to: url)
    return (url, directory)
}
