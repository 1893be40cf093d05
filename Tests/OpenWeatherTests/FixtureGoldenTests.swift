import Foundation
import OpenWeather
import Pipeline
import Testing
import TestSupport

/// Golden tests over every payload in `Data/fixtures/openweather`: each `<case>.json` decodes
/// to exactly the lines in `<case>.expected` (records and diagnostics in order, then the page
/// summary or the typed error). Set `FEEDLINE_UPDATE_GOLDEN=1` to rewrite the files.
@Suite("OpenWeather fixtures")
struct FixtureGoldenTests {
    @Test("the fixture directory holds every case, each with a golden file")
    func inventory() throws {
        #expect(OpenWeatherFixtures.files == OpenWeatherFixtures.cases.keys.map { $0 + ".json" }.sorted())
        for name in OpenWeatherFixtures.cases.keys {
            let expected = OpenWeatherFixtures.directory.appendingPathComponent(name + ".expected")
            #expect(FileManager.default.fileExists(atPath: expected.path) || ProcessInfo.processInfo.environment["FEEDLINE_UPDATE_GOLDEN"] == "1",
                    "\(name) has no golden file")
        }
    }

    @Test("each fixture decodes to its golden lines", arguments: OpenWeatherFixtures.files)
    func golden(file: String) throws {
        let result = try OpenWeatherFixtures.decode(file)
        let expected = OpenWeatherFixtures.directory.appendingPathComponent(OpenWeatherFixtures.caseName(of: file) + ".expected")
        try Golden.verify(result.golden, against: expected)
    }

    @Test("recognition names the operation from the bytes", arguments: OpenWeatherFixtures.files)
    func recognition(file: String) throws {
        let c = try #require(OpenWeatherFixtures.cases[OpenWeatherFixtures.caseName(of: file)])
        let head = try Data(contentsOf: OpenWeatherFixtures.url(file)).prefix(4096)
        #expect(OpenWeatherFixtures.feed.recognise(head: head, format: .json) == c.recognised)
    }

    @Test("a file replayed without its request decodes like the fetched one", arguments: OpenWeatherFixtures.files)
    func replayWithoutRequest(file: String) throws {
        let c = try #require(OpenWeatherFixtures.cases[OpenWeatherFixtures.caseName(of: file)])
        let fetched = try OpenWeatherFixtures.decode(file)
        // The pipeline's parameters stand in for the request: its units, its q.
        let fallback = Dictionary(c.parameters.filter { ["units", "q"].contains($0.name) }.compactMap { p in p.values.first.map { (p.name, $0) } },
                                  uniquingKeysWith: { a, _ in a })
        let bare = OpenWeatherFixtures.decode(OpenWeatherFixtures.url(file), request: nil, fallback: fallback)
        if c.placesItself {
            #expect(bare.sink.records == fetched.sink.records)
            if c.operation == "geocode" {
                // An empty answer cannot be sure of its q without the request: the same code, other words.
                #expect(bare.sink.diagnostics.map { [$0.code.rawValue, $0.location] } == fetched.sink.diagnostics.map { [$0.code.rawValue, $0.location] })
            } else {
                #expect(bare.sink.diagnostics == fetched.sink.diagnostics)
            }
            #expect(bare.summary == fetched.summary)
            #expect(bare.feedError?.kind == fetched.feedError?.kind)
        } else {
            // Without coord and without a request, the values cannot be placed: an error, nothing delivered.
            #expect(bare.feedError?.kind == .malformed && bare.sink.entries.isEmpty)
            #expect(bare.feedError?.message.contains("no usable coord") == true)
        }
    }

    @Test("payloads of other feeds are not taken for OpenWeather answers")
    func foreignPayloadsAreNotRecognised() throws {
        let feed = OpenWeatherFixtures.feed
        for name in ["saramin/job-search-sample.json", "careernet/major-univ_list.json", "airkorea/forecast.json",
                     "airkorea/forecast-legacy.json", "airkorea/realtime-province-seoul.xml"] {
            let head = try Data(contentsOf: FixturePaths.fixtures.appendingPathComponent(name)).prefix(4096)
            #expect(feed.recognise(head: head, format: name.hasSuffix(".xml") ? .xml : .json) == nil, "\(name)")
        }
    }
}
