import AirKorea
import Foundation
import Pipeline
import Testing
import TestSupport

/// Golden tests over every payload in `Data/fixtures/airkorea`: each `<case>.xml` / `<case>.json`
/// decodes to exactly the lines in `<case>.expected` (records and diagnostics in order, then the
/// page summary or the typed error). Set `FEEDLINE_UPDATE_GOLDEN=1` to rewrite the files.
@Suite("AirKorea fixtures")
struct FixtureGoldenTests {
    @Test("the fixture directory holds the expected cases, each described and with a golden file")
    func inventory() throws {
        let files = AirKoreaFixtures.files
        #expect(files.count >= 30, "found only \(files.count) fixture payloads in \(AirKoreaFixtures.directory.path)")
        for file in files {
            let name = AirKoreaFixtures.caseName(of: file)
            #expect(AirKoreaFixtures.cases[name] != nil, "\(file) has no entry in AirKoreaFixtures.cases")
            let expected = AirKoreaFixtures.directory.appendingPathComponent(name + ".expected")
            #expect(FileManager.default.fileExists(atPath: expected.path) || ProcessInfo.processInfo.environment["FEEDLINE_UPDATE_GOLDEN"] == "1",
                    "\(file) has no golden file \(expected.lastPathComponent)")
        }
        for name in AirKoreaFixtures.cases.keys {
            #expect(files.contains(name + ".xml") || files.contains(name + ".json"), "case \(name) has no payload file")
        }
    }

    @Test("each fixture decodes to its golden lines", arguments: AirKoreaFixtures.files)
    func golden(file: String) throws {
        let result = try AirKoreaFixtures.decode(file)
        let expected = AirKoreaFixtures.directory.appendingPathComponent(AirKoreaFixtures.caseName(of: file) + ".expected")
        try Golden.verify(result.golden, against: expected)
    }

    @Test("the XML and JSON fixtures of a case give identical records, diagnostics and outcome",
          arguments: AirKoreaFixtures.pairedCases)
    func xmlAndJSONAgree(caseName: String) throws {
        let xml = try AirKoreaFixtures.decode(caseName + ".xml")
        let json = try AirKoreaFixtures.decode(caseName + ".json")
        #expect(xml.sink.records == json.sink.records)
        #expect(xml.sink.diagnostics == json.sink.diagnostics)
        #expect(xml.summary == json.summary)
        // The errors' context differs (the request asked for xml or json); kind, retryability and sentence must not.
        #expect(xml.feedError?.kind == json.feedError?.kind)
        #expect(xml.feedError?.retryability == json.feedError?.retryability)
        #expect(xml.feedError?.message == json.feedError?.message)
        #expect(xml.error == nil ? !xml.sink.records.isEmpty || xml.summary?.itemCount == 0 : true,
                "a successful case should produce records unless it is an empty page")
    }

    @Test("recognition names every fixture's operation from its first bytes", arguments: AirKoreaFixtures.files)
    func recognition(file: String) throws {
        let c = try #require(AirKoreaFixtures.cases[AirKoreaFixtures.caseName(of: file)])
        let head = try AirKoreaFixtures.head(AirKoreaFixtures.url(file))
        #expect(AirKoreaFixtures.feed.recognise(head: head, format: AirKoreaFixtures.format(of: file)) == c.recognisedAs)
        // Small heads still work as long as the first item is in them.
        let small = try AirKoreaFixtures.head(AirKoreaFixtures.url(file), count: 2048)
        #expect(AirKoreaFixtures.feed.recognise(head: small, format: AirKoreaFixtures.format(of: file)) == c.recognisedAs)
    }

    @Test("decoding without request or operation (a replayed file) relies on recognition and gives the same outcome",
          arguments: AirKoreaFixtures.files.filter { !$0.hasPrefix("realtime-station-v10") && !$0.hasPrefix("nearby-stations") })
    func replayWithoutRequest(file: String) throws {
        let withRequest = try AirKoreaFixtures.decode(file)
        let bare = AirKoreaFixtures.decode(AirKoreaFixtures.url(file))
        #expect(bare.sink.records.count == withRequest.sink.records.count)
        #expect(bare.feedError?.kind == withRequest.feedError?.kind)
        #expect(bare.summary == withRequest.summary)
    }
}
