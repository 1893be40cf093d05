import Foundation
import OpenWeather
import Pipeline
import Testing
import TestSupport

/// Recognition is positive: an OpenWeather answer is air pollution, current weather or
/// geocoding only when its own top-level members make that answer; the other OpenWeather
/// answers (the 5-day weather forecast, One Call) are refused, never read as one of them.
@Suite("OpenWeather recognition")
struct RecognitionTests {
    /// `/data/2.5/forecast`: a `list` of weather entries and a `city` whose `coord` is nested.
    static let weatherForecast = #"{"cod":"200","message":0,"cnt":1,"list":[{"dt":1709690400,"main":{"temp":8.43,"pressure":1021,"humidity":45},"weather":[{"id":800,"main":"Clear","description":"clear sky","icon":"01d"}],"wind":{"speed":2.1,"deg":250},"dt_txt":"2024-03-06 03:00:00"}],"city":{"id":1835848,"name":"Seoul","coord":{"lat":37.5665,"lon":126.978},"country":"KR","timezone":32400}}"#
    /// One Call 3.0: `current` holds `dt`, `weather` (whose entries have a `main`).
    static let oneCall = #"{"lat":37.5665,"lon":126.978,"timezone":"Asia/Seoul","timezone_offset":32400,"current":{"dt":1709690400,"temp":8.43,"weather":[{"id":800,"main":"Clear","description":"clear sky","icon":"01d"}]},"hourly":[]}"#
    /// `/geo/1.0/zip`: one object, not an array of places.
    static let zip = #"{"zip":"03171","name":"Jongno-gu","lat":37.5729,"lon":126.9794,"country":"KR"}"#

    @Test("the weather forecast and One Call answers are refused, not read as air pollution or current weather")
    func otherAnswersAreRefused() {
        let feed = OpenWeatherFeed()
        for (name, body) in [("forecast", Self.weatherForecast), ("onecall", Self.oneCall)] {
            let recognition = feed.recognition(head: Data(body.utf8), format: .json)
            #expect(RecognitionSamples.isRefusal(recognition, naming: ["OpenWeather", "air-pollution"]), "\(name): \(recognition)")
            #expect(feed.recognise(head: Data(body.utf8), format: .json) == nil, "\(name)")
        }
        #expect(feed.recognition(head: Data(Self.zip.utf8), format: .json).operation == nil)
    }

    @Test("each answer feedline reads is recognised as its operation")
    func ownAnswersAreRecognised() throws {
        let feed = OpenWeatherFeed()
        let cases = [("openweather/air-pollution-current-seoul.json", "air-pollution"),
                     ("openweather/air-pollution-forecast-seoul.json", "air-pollution"),
                     ("openweather/air-pollution-history-seoul.json", "air-pollution"),
                     ("openweather/air-pollution-history-empty.json", "air-pollution"),
                     ("openweather/weather-seoul-metric.json", "current-weather"),
                     ("openweather/geocode-jongno-gu.json", "geocode"), ("openweather/geocode-empty.json", "geocode"),
                     ("openweather/error-401.json", "air-pollution")]
        for (path, operation) in cases {
            #expect(feed.recognition(head: try RecognitionSamples.head(path), format: .json) == .shape(operation), "\(path)")
        }
    }

    @Test("no fixture of another feed is taken for an OpenWeather answer", arguments: RecognitionSamples.fixtures(except: "openweather"))
    func otherFeedsFixtures(path: String) throws {
        let recognition = OpenWeatherFeed().recognition(head: try RecognitionSamples.head(path), format: RecognitionSamples.format(path))
        #expect(recognition.operation == nil, "\(path): \(recognition)")
    }
}
