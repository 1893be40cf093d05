import FeedCore
import Foundation
import OpenAQ
import Pipeline
import Testing
import TestSupport

/// Recognition is positive: an OpenAQ page is one of the four calls feedline reads only when
/// its first result has the members that make that call's results; a page of any other v3
/// call (parameters, countries, providers …) is refused, naming the shapes it resembles, and
/// never read as a location.
@Suite("OpenAQ recognition")
struct RecognitionTests {
    static func page(_ result: String) -> Data {
        Data(#"{"meta":{"name":"openaq-api","website":"/","page":1,"limit":100,"found":1},"results":[\#(result)]}"#.utf8)
    }

    /// Results of the v3 calls feedline does not read (shapes from the API reference).
    static let otherCalls: [(call: String, result: String)] = [
        ("parameters", #"{"id":2,"name":"pm25","units":"µg/m³","displayName":"PM2.5","description":"Particulate matter less than 2.5 micrometers in diameter mass concentration"}"#),
        ("countries", #"{"id":112,"code":"KR","name":"South Korea","datetimeFirst":"2016-11-21T15:00:00Z","datetimeLast":"2024-03-06T05:00:00Z","parameters":[{"id":2,"name":"pm25","units":"µg/m³","displayName":"PM2.5"}]}"#),
        ("providers", #"{"id":223,"name":"AirKorea","sourceName":"airkorea","exportPrefix":"kr","datetimeAdded":"2016-11-21T15:00:00Z","datetimeFirst":"2016-11-21T15:00:00Z","datetimeLast":"2024-03-06T05:00:00Z","entitiesId":1,"parameters":[],"bbox":null}"#),
        ("owners", #"{"id":4,"name":"Unknown Governmental Organization"}"#),
        ("instruments", #"{"id":2,"name":"Government Monitor","isMonitor":true,"manufacturer":{"id":1,"name":"Unknown"}}"#),
        ("manufacturers", #"{"id":1,"name":"Unknown","instruments":[{"id":2,"name":"Government Monitor"}]}"#),
        ("licenses", #"{"id":1,"name":"CC BY 4.0","commercialUseAllowed":true,"attributionRequired":true,"shareAlikeRequired":false,"modificationAllowed":true,"redistributionAllowed":true,"sourceUrl":"https://creativecommons.org/licenses/by/4.0/"}"#),
    ]

    @Test("a page of a call feedline does not read is refused, never taken for locations", arguments: otherCalls.map(\.call))
    func otherCallsAreRefused(call: String) throws {
        let result = try #require(Self.otherCalls.first { $0.call == call }).result
        let recognition = OpenAQFeed().recognition(head: Self.page(result), format: .json)
        #expect(RecognitionSamples.isRefusal(recognition, naming: ["OpenAQ"]), "\(call): \(recognition)")
        #expect(OpenAQFeed().recognise(head: Self.page(result), format: .json) == nil)
    }

    @Test("the parameters page is refused by name, and decoding it as a bare file loads nothing")
    func parametersPageDecodesToNothing() throws {
        let result = try #require(Self.otherCalls.first { $0.call == "parameters" }).result
        let recognition = OpenAQFeed().recognition(head: Self.page(result), format: .json)
        #expect(RecognitionSamples.isRefusal(recognition, naming: ["locations", "resemble"]), "\(recognition)")

        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("parameters.json")
        try Self.page(result).write(to: file)
        let bare = OpenAQFixtures.decode(file, request: nil)
        #expect(bare.sink.records.isEmpty)
        #expect(bare.feedError?.kind == .unrecognised)
    }

    @Test("a page of a call feedline reads is recognised by its own results' members")
    func ownCallsAreRecognised() {
        let cases: [(String, String)] = [
            // /v3/sensors/{id}: a sensor whose `latest` carries coordinates of its own.
            (#"{"id":7770101,"name":"pm10 µg/m³","parameter":{"id":1,"name":"pm10","units":"µg/m³","displayName":"PM10"},"datetimeFirst":null,"datetimeLast":null,"coverage":{},"latest":{"datetime":{"utc":"2024-03-06T05:00:00Z"},"value":43,"coordinates":{"latitude":37.5,"longitude":127.0}},"summary":{}}"#,
             "location-sensors"),
            // /v3/sensors/{id}/measurements: raw periods, read as hours (and skipped as not hourly).
            (#"{"value":41,"flagInfo":{"hasFlags":false},"parameter":{"id":1,"name":"pm10","units":"µg/m³","displayName":"PM10"},"period":{"label":"raw","interval":"01:00:00"},"coordinates":null,"summary":null,"coverage":{}}"#,
             "sensor-hours"),
            (#"{"datetime":{"utc":"2024-03-06T05:00:00Z","local":"2024-03-06T14:00:00+09:00"},"value":0.0,"coordinates":{"latitude":37.5,"longitude":127.0},"sensorsId":1,"locationsId":2}"#,
             "location-latest"),
            (#"{"id":2,"name":"종로구","locality":null,"timezone":"Asia/Seoul","country":{"id":112,"code":"KR","name":"South Korea"},"sensors":[{"id":1,"name":"pm10","parameter":{"id":1,"name":"pm10","units":"µg/m³"}}],"coordinates":{"latitude":37.5,"longitude":127.0}}"#,
             "locations"),
        ]
        for (result, operation) in cases {
            #expect(OpenAQFeed().recognition(head: Self.page(result), format: .json) == .shape(operation), "\(operation)")
        }
        #expect(OpenAQFeed().recognition(head: Self.page(""), format: .json) == .shape("locations"))
    }

    @Test("a result that has the members of two calls is refused as several shapes")
    func twoShapesAreRefused() {
        let both = #"{"id":1,"value":3,"period":{"label":"1hour"},"parameter":{"id":1},"sensorsId":1,"locationsId":2,"coordinates":null}"#
        #expect(RecognitionSamples.isNoShape(OpenAQFeed().recognition(head: Self.page(both), format: .json)))
    }

    @Test("no fixture of another feed is taken for an OpenAQ page", arguments: RecognitionSamples.fixtures(except: "openaq"))
    func otherFeedsFixtures(path: String) throws {
        let recognition = OpenAQFeed().recognition(head: try RecognitionSamples.head(path), format: RecognitionSamples.format(path))
        #expect(recognition.operation == nil, "\(path): \(recognition)")
    }
}
