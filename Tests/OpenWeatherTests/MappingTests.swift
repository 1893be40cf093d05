import Domain
import Foundation
import OpenWeather
import Pipeline
import Testing
import TestSupport

/// Given an answer, what the feed makes of it: typed errors for error bodies, values placed by
/// `coord` whatever its shape, missing values as missing (never 0) with a diagnostic, the kind
/// of an air pollution answer from its request or, for a bare file, from its name or entries.
@Suite("OpenWeather mapping")
struct MappingTests {
    func decode(_ json: String, name: String = "payload.json", request: FeedRequest? = nil, fallback: [String: String] = [:],
                fetchedAt: Date = OpenWeatherFixtures.fetchedAt) throws -> DecodeResult {
        let (url, dir) = try temporaryPayload(json, name: name)
        defer { dir.remove() }
        return OpenWeatherFixtures.decode(url, request: request, fallback: fallback, fetchedAt: fetchedAt)
    }

    func request(_ operation: String, _ extra: [(name: String, values: [String])] = []) throws -> FeedRequest {
        try #require(try OpenWeatherFeed().requests(for: SourceSpec(operation: operation, parameters: [("lat", ["37.5665"]), ("lon", ["126.9780"])] + extra,
                                                                     format: .json, pageSize: 1, maxPages: 1)).first)
    }

    // MARK: - Errors

    @Test("cod as a number or as a string gives the same typed error", arguments: [
        (#"{"cod":401, "message": "Invalid API key."}"#, "401", "INVALID_API_KEY", Retryability.terminal),
        (#"{"cod":"401","message":"Invalid API key."}"#, "401", "INVALID_API_KEY", .terminal),
        (#"{"cod":"404","message":"Error: Not found city"}"#, "404", "NOT_FOUND", .terminal),
        (#"{"cod":404,"message":"Not found"}"#, "404", "NOT_FOUND", .terminal),
        (#"{"cod":429,"message":"Your account is temporary blocked"}"#, "429", "RATE_LIMITED", .transient),
        (#"{"cod":"429.0","message":"too many"}"#, "429", "RATE_LIMITED", .transient),
        (#"{"cod":"400","message":"wrong latitude"}"#, "400", "BAD_REQUEST", .terminal),
        (#"{"cod":503,"message":"Service Unavailable"}"#, "503", "SERVICE_UNAVAILABLE", .transient),
        (#"{"cod":599,"message":"?"}"#, "599", "API_ERROR", .transient),
        (#"{"cod":418,"message":"?"}"#, "418", "API_ERROR", .terminal),
    ])
    func errorBodies(body: String, code: String, name: String, retry: Retryability) throws {
        for req in [nil, try request("air-pollution"), try request("weather")] {
            let result = try decode(body, request: req)
            let error = try #require(result.feedError)
            #expect(error.kind == .api(code: code, name: name))
            #expect(error.retryability == retry)
            #expect(error.exhaustsDailyQuota == false)
            #expect(result.sink.entries.isEmpty)
        }
    }

    @Test("the 401 error sentence says what to check, and its context is the redacted URL")
    func errorSentence() throws {
        let result = try decode(#"{"cod":401, "message": "Invalid API key. Please see https://openweathermap.org/faq#error401 for more info."}"#,
                                request: try request("air-pollution"))
        let error = try #require(result.feedError)
        #expect(error.message == "OpenWeather answered with error 401 (“Invalid API key. Please see https://openweathermap.org/faq#error401 for more info.”): the appid key is missing, wrong, not yet active or not allowed for this API; check OPENWEATHER_API_KEY.")
        #expect(error.context == "https://api.openweathermap.org/data/2.5/air_pollution?appid=REDACTED&lat=37.5665&lon=126.9780")
    }

    @Test("cod 200 in a weather answer is success, not an error")
    func cod200() throws {
        let body = try String(contentsOf: OpenWeatherFixtures.url("weather-seoul-metric.json"), encoding: .utf8).replacingOccurrences(of: #""cod":200"#, with: #""cod":"200""#)
        let result = try decode(body, request: try request("weather", [("units", ["metric"])]))
        #expect(result.error == nil && result.sink.weather.count == 1)
    }

    @Test("documents that are not OpenWeather answers are malformed, never an empty success", arguments: [
        ("[1,2,3]", "is not an object"),
        (#"{"coord":{"lon":1,"lat":2},"list":{"dt":1}}"#, "list is not an array"),
        (#"{"coord":{"lon":1,"lat":2}}"#, "neither a list"),
        (#"{"message":"Internal error"}"#, "Internal error"),
        ("", "not well-formed"),
    ])
    func notAnswers(body: String, says: String) throws {
        let result = try decode(body, request: try request("air-pollution"))
        #expect(result.feedError != nil && result.sink.entries.isEmpty)
        #expect(result.feedError.map { "\($0.message)".contains(says) } == true, "\(String(describing: result.error))")
    }

    @Test("an answer of the other call than requested is refused")
    func wrongAnswer() throws {
        let weather = try String(contentsOf: OpenWeatherFixtures.url("weather-seoul-metric.json"), encoding: .utf8)
        let pollution = try String(contentsOf: OpenWeatherFixtures.url("air-pollution-current-seoul.json"), encoding: .utf8)
        #expect(try decode(weather, request: try request("air-pollution")).feedError?.message.contains("holds current weather") == true)
        #expect(try decode(pollution, request: try request("weather")).feedError?.message.contains("holds an air pollution list") == true)
    }

    // MARK: - Location

    @Test("coord as an object or as [lon, lat] places the values alike")
    func coordShapes() throws {
        let entry = #"{"main":{"aqi":1},"components":{"co":1,"no":0,"no2":1,"o3":1,"so2":1,"pm2_5":1,"pm10":1,"nh3":1},"dt":1709701200}"#
        let object = try decode(#"{"coord":{"lon":126.978,"lat":37.5665},"list":[\#(entry)]}"#)
        let array = try decode(#"{"coord":[126.978,37.5665],"list":[\#(entry)]}"#)
        #expect(object.sink.readings.map { [$0.latitude, $0.longitude] } == [[37.5665, 126.978]])
        #expect(array.sink.records == object.sink.records)
        #expect(array.sink.diagnostics.isEmpty)
    }

    @Test("without a usable coord the requested location is stored, with a diagnostic; without a request it is an error")
    func missingCoord() throws {
        let entry = #"{"main":{"aqi":1},"components":{"co":1,"no":0,"no2":1,"o3":1,"so2":1,"pm2_5":1,"pm10":1,"nh3":1},"dt":1709701200}"#
        for coord in [#""coord":[126.978],"#, #""coord":{"lat":"north","lon":1},"#, #""coord":{"lat":95,"lon":1},"#, ""] {
            let body = "{\(coord)\"list\":[\(entry)]}"
            let located = try decode(body, request: try request("air-pollution"))
            #expect(located.sink.readings.map { [$0.latitude, $0.longitude] } == [[37.5665, 126.978]], "\(coord)")
            #expect(located.sink.diagnostics.map(\.code) == [.missingLocation], "\(coord)")
            let bare = try decode(body)
            #expect(bare.feedError?.kind == .malformed && bare.sink.entries.isEmpty, "\(coord)")
        }
        // An empty list needs no place.
        #expect(try decode(#"{"list":[]}"#).summary?.itemCount == 0)
    }

    @Test("a coord far from the requested point is kept, with a diagnostic")
    func farCoord() throws {
        let result = try decode(#"{"coord":{"lon":129.0756,"lat":35.1796},"list":[{"main":{"aqi":1},"components":{"co":1,"no":0,"no2":1,"o3":1,"so2":1,"pm2_5":1,"pm10":1,"nh3":1},"dt":1709701200}]}"#,
                                request: try request("air-pollution"))
        #expect(result.sink.readings.first?.latitude == 35.1796)
        #expect(result.sink.diagnostics.map(\.code) == [.locationMismatch])
    }

    // MARK: - Entries

    @Test("a missing or null component is missing, never 0, and said so; a real 0 stays 0")
    func missingComponents() throws {
        let result = try decode(#"{"coord":{"lon":1,"lat":2},"list":[{"main":{"aqi":2},"components":{"co":250.3,"no":0,"no2":null,"o3":30.8,"so2":"","pm2_5":3.2,"pm10":3.8},"dt":1709701200}]}"#)
        let reading = try #require(result.sink.readings.first)
        #expect(reading.components.no == 0)
        #expect(reading.components.no2 == nil && reading.components.so2 == nil && reading.components.nh3 == nil)
        #expect(reading.components.co == 250.3 && reading.aqi == 2)
        #expect(result.sink.diagnostics.map { "\($0.code) \($0.location)" } == [
            "missing-value entry 0 (2024-03-06T05:00:00Z) components.no2",
            "missing-value entry 0 (2024-03-06T05:00:00Z) components.so2",
            "missing-value entry 0 (2024-03-06T05:00:00Z) components.nh3",
        ])
    }

    @Test("an unsorted list is delivered in time order; a repeated time keeps its first entry")
    func unsortedAndRepeated() throws {
        func entry(_ dt: Int, _ pm: Double) -> String {
            #"{"main":{"aqi":1},"components":{"co":1,"no":0,"no2":1,"o3":1,"so2":1,"pm2_5":\#(pm),"pm10":1,"nh3":1},"dt":\#(dt)}"#
        }
        let list = [entry(1709708400, 3), entry(1709701200, 1), entry(1709704800, 2), entry(1709701200, 9)].joined(separator: ",")
        let result = try decode(#"{"coord":{"lon":126.978,"lat":37.5665},"list":[\#(list)]}"#, request: try request("air-pollution-forecast"))
        #expect(result.sink.readings.map(\.components.pm2_5) == [1, 2, 3])
        #expect(result.sink.readings.allSatisfy { $0.kind == .forecast })
        #expect(result.sink.diagnostics.map(\.code) == [.duplicateTime])
        #expect(result.summary?.itemCount == 4)
    }

    // MARK: - Kinds

    @Test("a bare file's kind: its name, else one entry is current, else forecast when an entry lies after the fetch")
    func inferredKinds() throws {
        func entries(_ times: [Int]) -> String {
            times.map { #"{"main":{"aqi":1},"components":{"co":1,"no":0,"no2":1,"o3":1,"so2":1,"pm2_5":1,"pm10":1,"nh3":1},"dt":\#($0)}"# }.joined(separator: ",")
        }
        let past = #"{"coord":{"lon":1,"lat":2},"list":[\#(entries([1709694000, 1709697600]))]}"#
        let ahead = #"{"coord":{"lon":1,"lat":2},"list":[\#(entries([1709701200, 1709704800, 1709708400]))]}"#
        let one = #"{"coord":{"lon":1,"lat":2},"list":[\#(entries([1709701200]))]}"#
        let kind = { (json: String, name: String) throws -> AirPollutionKind? in try decode(json, name: name).sink.readings.first?.kind }
        #expect(try kind(past, "saved.json") == .history)
        #expect(try kind(ahead, "saved.json") == .forecast)
        #expect(try kind(one, "saved.json") == .current)
        #expect(try kind(one, "seoul-forecast.json") == .forecast)
        #expect(try kind(ahead, "HISTORY-2024.json") == .history)
        #expect(try kind(past, "current.json") == .current)
        // A request always decides.
        #expect(try decode(one, name: "history.json", request: try request("air-pollution-forecast")).sink.readings.first?.kind == .forecast)
    }

    // MARK: - Weather units

    @Test("the same weather in standard, metric and imperial gives the same °C and m/s")
    func unitsAgree() throws {
        let metric = try OpenWeatherFixtures.decode("weather-seoul-metric.json").sink.weather.first
        let standard = try OpenWeatherFixtures.decode("weather-seoul-standard.json").sink.weather.first
        let imperial = try OpenWeatherFixtures.decode("weather-seoul-imperial.json").sink.weather.first
        let m = try #require(metric), s = try #require(standard), i = try #require(imperial)
        #expect([m.units, s.units, i.units] == [.metric, .standard, .imperial])
        #expect(m.temperature == 8.43 && s.temperature == 8.43)
        #expect([s.temperatureDelivered, m.temperatureDelivered, i.temperatureDelivered] == [281.58, 8.43, 47.17])
        for (a, b) in [(m.temperature, i.temperature), (m.feelsLike, i.feelsLike), (m.temperatureMin, i.temperatureMin), (m.temperatureMax, i.temperatureMax)] {
            #expect(abs(a! - b!) < 0.01, "°F → °C: \(a!) vs \(b!)")
        }
        #expect(abs(m.windSpeed! - i.windSpeed!) < 0.01 && abs(m.windGust! - i.windGust!) < 0.01)
        #expect(s.feelsLike == m.feelsLike && s.temperatureMin == m.temperatureMin && s.temperatureMax == m.temperatureMax)
    }

    @Test("a weather answer read in the wrong units keeps its raw value but no impossible °C")
    func wrongUnits() throws {
        // A metric answer replayed as standard (the API's default): 8.43 K is −264.72 °C.
        let body = try String(contentsOf: OpenWeatherFixtures.url("weather-seoul-metric.json"), encoding: .utf8)
        let result = try decode(body)
        let w = try #require(result.sink.weather.first)
        #expect(w.units == .standard && w.temperatureDelivered == 8.43 && w.temperature == nil && w.feelsLike == nil)
        let messages = result.sink.diagnostics.filter { $0.code == .outOfRange }.map(\.message)
        #expect(messages.first == "main.temp 8.43 K is -264.72 °C, not in −100…70 °C: is the answer in other units than standard? It is stored as missing.")
        #expect(messages.count == 4)
        // Units that are none of OpenWeather's cannot be read at all.
        #expect(try decode(body, fallback: ["units": "celsius"]).feedError?.kind == .invalidRequest)
    }

    @Test("rain and snow absent are missing, not 0; present they are kept in mm")
    func precipitation() throws {
        let dry = try OpenWeatherFixtures.decode("weather-seoul-metric.json").sink.weather.first
        let wet = try OpenWeatherFixtures.decode("weather-seoul-rain-metric.json").sink.weather.first
        #expect(dry?.rain1h == nil && dry?.rain3h == nil && dry?.snow1h == nil)
        #expect(wet?.rain1h == 0.87 && wet?.rain3h == nil)
        #expect(wet?.conditions.map(\.id) == [500, 701])
    }
}
