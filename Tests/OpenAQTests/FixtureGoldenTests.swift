import Foundation
import OpenAQ
import Pipeline
import Testing
import TestSupport

/// Golden tests over every payload in `Data/fixtures/openaq`: each `<case>.json` decodes to
/// exactly the lines in `<case>.expected` (records and diagnostics in order, then the page
/// summary or the typed error). Set `FEEDLINE_UPDATE_GOLDEN=1` to rewrite the files.
@Suite("OpenAQ fixtures")
struct FixtureGoldenTests {
    @Test("the fixture directory holds every case, each with a golden file")
    func inventory() throws {
        #expect(OpenAQFixtures.files == OpenAQFixtures.cases.keys.map { $0 + ".json" }.sorted())
        for name in OpenAQFixtures.cases.keys {
            let expected = OpenAQFixtures.directory.appendingPathComponent(name + ".expected")
            #expect(FileManager.default.fileExists(atPath: expected.path) || ProcessInfo.processInfo.environment["FEEDLINE_UPDATE_GOLDEN"] == "1",
                    "\(name) has no golden file")
        }
    }

    @Test("each fixture decodes to its golden lines", arguments: OpenAQFixtures.files)
    func golden(file: String) throws {
        let result = try OpenAQFixtures.decode(file)
        let expected = OpenAQFixtures.directory.appendingPathComponent(OpenAQFixtures.caseName(of: file) + ".expected")
        try Golden.verify(result.golden, against: expected)
    }

    @Test("recognition names the operation from the bytes", arguments: OpenAQFixtures.files)
    func recognition(file: String) throws {
        let c = try #require(OpenAQFixtures.cases[OpenAQFixtures.caseName(of: file)])
        let head = try Data(contentsOf: OpenAQFixtures.url(file)).prefix(4096)
        #expect(OpenAQFixtures.feed.recognise(head: head, format: .json) == c.recognised)
    }

    /// A bare file (a fixture run, a replay without its sidecar) names its location or sensor in
    /// its file name; it decodes like the fetched one, except that only a fetched hours page
    /// records the window it asked for.
    @Test("a file replayed without its request decodes like the fetched one", arguments: OpenAQFixtures.files)
    func replayWithoutRequest(file: String) throws {
        let fetched = try OpenAQFixtures.decode(file)
        let bare = OpenAQFixtures.decode(OpenAQFixtures.url(file), request: nil)
        #expect(bare.sink.records == fetched.sink.records.filter { $0.as(OpenAQHoursScan.self) == nil })
        #expect(bare.sink.diagnostics == fetched.sink.diagnostics)
        #expect(bare.summary == fetched.summary)
        #expect(bare.feedError?.kind == fetched.feedError?.kind)
        #expect(bare.feedError?.retryability == fetched.feedError?.retryability)
    }

    @Test("payloads of other feeds are not taken for OpenAQ answers, and OpenAQ's are left to OpenAQ")
    func foreignPayloadsAreNotRecognised() throws {
        let feed = OpenAQFixtures.feed
        for name in ["saramin/job-search-sample.json", "saramin/error-invalid-key.json", "saramin/error-call-limit.json",
                     "careernet/major-univ_list.json", "careernet/error-invalid-key.json", "airkorea/forecast.json",
                     "airkorea/forecast-legacy.json", "airkorea/realtime-province-seoul.xml", "openweather/error-401.json",
                     "openweather/air-pollution-current-seoul.json", "openweather/weather-seoul-metric.json"] {
            let head = try Data(contentsOf: FixturePaths.fixtures.appendingPathComponent(name)).prefix(4096)
            #expect(feed.recognise(head: head, format: name.hasSuffix(".xml") ? .xml : .json) == nil, "\(name)")
        }
    }
}
