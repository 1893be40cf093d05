import Foundation
import OpenWeather
import Pipeline
import Testing
import TestSupport

/// What the feed asks OpenWeather for: one request per location, the key as a requirement
/// only, parameters checked with a sentence naming what is wrong.
@Suite("OpenWeather requests")
struct RequestTests {
    let feed = OpenWeatherFeed()

    func spec(_ operation: String, _ parameters: [(name: String, values: [String])], format: PayloadFormat = .json) -> SourceSpec {
        SourceSpec(operation: operation, parameters: parameters, format: format, pageSize: 1000, maxPages: 100)
    }

    func message(_ operation: String, _ parameters: [(name: String, values: [String])], format: PayloadFormat = .json) -> String? {
        invalidRequestMessage(feed, spec(operation, parameters, format: format))
    }

    @Test("one request per location, lat and lon first, the key never in the request")
    func requestsPerLocation() throws {
        let requests = try feed.requests(for: spec("air-pollution", [("coordinates", ["37.5665,126.9780", " 37.4979 , 127.0276 "])]))
        #expect(requests.map(\.displayURL) == [
            "https://api.openweathermap.org/data/2.5/air_pollution?appid=REDACTED&lat=37.5665&lon=126.9780",
            "https://api.openweathermap.org/data/2.5/air_pollution?appid=REDACTED&lat=37.4979&lon=127.0276",
        ])
        #expect(requests.allSatisfy { $0.credential == CredentialRequirement(environmentVariable: "OPENWEATHER_API_KEY", placement: .query("appid")) })
        #expect(requests.allSatisfy { $0.parameter("appid") == nil && $0.page == nil && $0.format == .json })
        #expect(requests.map(\.operation) == ["air-pollution", "air-pollution"])
        #expect(feed.request(requests[0], page: 2) == nil)
        #expect(feed.isLastPage(PageSummary(itemCount: 96), of: requests[0]))
    }

    @Test("lat and lon lists are paired in order, not crossed")
    func latLonPairs() throws {
        let requests = try feed.requests(for: spec("weather", [("lat", ["37.5665", "35.1796"]), ("lon", ["126.9780", "129.0756"]), ("units", ["metric"]), ("lang", ["kr"])]))
        #expect(requests.map { "\($0.parameter("lat")!),\($0.parameter("lon")!)" } == ["37.5665,126.9780", "35.1796,129.0756"])
        #expect(requests[0].displayURL == "https://api.openweathermap.org/data/2.5/weather?appid=REDACTED&lat=37.5665&lon=126.9780&units=metric&lang=kr")
    }

    @Test("every operation has its path; aliases name the same operation")
    func operationsAndAliases() throws {
        let location: [(name: String, values: [String])] = [("lat", ["37.5665"]), ("lon", ["126.978"])]
        let history = location + [("end", ["1709704800"]), ("start", ["1709686800"])]
        #expect(try feed.requests(for: spec("air_pollution/forecast", location)).first?.baseURL.path == "/data/2.5/air_pollution/forecast")
        let h = try #require(try feed.requests(for: spec("air-pollution-history", history)).first)
        #expect(h.baseURL.path == "/data/2.5/air_pollution/history")
        #expect(h.query.map(\.name) == ["lat", "lon", "start", "end"])
        #expect(try feed.requests(for: spec("weather", location)).first?.operation == "current-weather")
        #expect(feed.operations == ["air-pollution", "air-pollution-forecast", "air-pollution-history", "current-weather", "geocode"])
        #expect(feed.canonicalOperation("AIR_POLLUTION") == "air-pollution")
    }

    @Test("bad operations, formats, locations and parameters are refused with a sentence")
    func refusals() {
        let seoul: [(name: String, values: [String])] = [("lat", ["37.5665"]), ("lon", ["126.978"])]
        #expect(message("pollen", seoul)?.contains("no operation named “pollen”") == true)
        #expect(message("weather", seoul, format: .xml)?.contains("set format: json") == true)
        #expect(message("weather", [])?.contains("needs a location") == true)
        #expect(message("weather", [("lat", ["37.5"])])?.contains("needs both lat and lon; only lat") == true)
        #expect(message("weather", [("lat", ["37.5", "35.1"]), ("lon", ["127"])])?.contains("must list as many") == true)
        #expect(message("weather", seoul + [("coordinates", ["37.5,127"])])?.contains("not both") == true)
        #expect(message("weather", [("coordinates", ["37.5;127"])])?.contains("is not “lat,lon”") == true)
        #expect(message("weather", [("coordinates", ["91,127"])])?.contains("latitude “91”") == true)
        #expect(message("weather", [("lat", ["37.5"]), ("lon", ["east"])])?.contains("longitude “east”") == true)
        #expect(message("weather", [("coordinates", ["37.5,127", "37.50,127.0"])])?.contains("listed twice") == true)
        #expect(message("weather", seoul + [("appid", ["abc"])])?.contains("comes from OPENWEATHER_API_KEY") == true)
        #expect(message("weather", seoul + [("units", ["kelvin"])])?.contains("standard (K), metric (°C) or imperial (°F)") == true)
        #expect(message("weather", seoul + [("units", ["metric", "imperial"])])?.contains("takes one value") == true)
        #expect(message("weather", seoul + [("mode", ["xml"])])?.contains("not accepted by current-weather") == true)
        #expect(message("air-pollution", seoul + [("units", ["metric"])])?.contains("not accepted by air-pollution") == true)
        #expect(message("air-pollution-history", seoul + [("start", ["1709686800"])])?.contains("end is required") == true)
        #expect(message("air-pollution-history", seoul + [("start", ["2024-03-06"]), ("end", ["1709704800"])])?.contains("must be Unix seconds") == true)
        #expect(message("air-pollution-history", seoul + [("start", ["1709704800"]), ("end", ["1709686800"])])?.contains("must come before its end") == true)
    }

    @Test("the quota: a month of calls spread over 31 days, counted per operation; the per-minute limit documented")
    func quota() throws {
        #expect(feed.dailyCallLimit == 32_258)
        let location: [(name: String, values: [String])] = [("lat", ["37.5665"]), ("lon", ["126.978"])]
        for operation in feed.operations where operation != "geocode" {  // geocode takes q, not a location (PlaceRequestTests)
            let extra: [(name: String, values: [String])] = operation == "air-pollution-history" ? [("start", ["1709686800"]), ("end", ["1709704800"])] : []
            let request = try #require(try feed.requests(for: spec(operation, location + extra)).first)
            #expect(QuotaScope.api(of: request) == operation)
        }
        #expect(OpenWeatherFeed.monthlyCallLimit == 1_000_000 && OpenWeatherFeed.perMinuteCallLimit == 60)
        #expect(feed.credentialVariable == "OPENWEATHER_API_KEY")
    }

    @Test("the tables are declared by the feed, with a writer per record type")
    func schema() {
        #expect(feed.schema.declarations.tables.map(\.name).allSatisfy { $0.hasPrefix("openweather_") || $0 == "place" })
        #expect(feed.schema.declarations.views.map(\.name) == ["openweather_air_pollution_hourly"])
        #expect(feed.schema.writers.count == 3)
    }
}
