import Foundation
import Pipeline
import Saramin
import Testing
import TestSupport

/// Golden tests over every payload in `Data/fixtures/saramin`: each `<case>.xml` / `<case>.json`
/// decodes to exactly the lines in `<case>.expected` (records and diagnostics in order, then the
/// page summary or the typed error). Set `FEEDLINE_UPDATE_GOLDEN=1` to rewrite the files.
@Suite("Saramin fixtures")
struct FixtureGoldenTests {
    @Test("the fixture directory holds every case in its formats, each with a golden file")
    func inventory() throws {
        let files = SaraminFixtures.files
        let expectedFiles = SaraminFixtures.cases.flatMap { name, c in c.formats.map { "\(name).\($0.fileExtension)" } }.sorted()
        #expect(files == expectedFiles, "found \(files.count) payloads in \(SaraminFixtures.directory.path)")
        for name in SaraminFixtures.cases.keys {
            let expected = SaraminFixtures.directory.appendingPathComponent(name + ".expected")
            #expect(FileManager.default.fileExists(atPath: expected.path) || ProcessInfo.processInfo.environment["FEEDLINE_UPDATE_GOLDEN"] == "1",
                    "\(name) has no golden file")
        }
    }

    @Test("each fixture decodes to its golden lines", arguments: SaraminFixtures.files)
    func golden(file: String) throws {
        let result = try SaraminFixtures.decode(file)
        let expected = SaraminFixtures.directory.appendingPathComponent(SaraminFixtures.caseName(of: file) + ".expected")
        try Golden.verify(result.golden, against: expected)
    }

    @Test("the XML and JSON fixtures of a case give identical records, diagnostics and outcome", arguments: SaraminFixtures.pairedCases)
    func xmlAndJSONAgree(caseName: String) throws {
        let xml = try SaraminFixtures.decode(caseName + ".xml")
        let json = try SaraminFixtures.decode(caseName + ".json")
        #expect(xml.sink.records == json.sink.records)
        #expect(xml.sink.diagnostics == json.sink.diagnostics)
        #expect(xml.summary == json.summary)
        #expect(xml.feedError?.kind == json.feedError?.kind)
        #expect(xml.feedError?.retryability == json.feedError?.retryability)
        #expect(xml.error != nil || !xml.sink.records.isEmpty || xml.summary?.itemCount == 0)
    }

    @Test("recognition names job-search for Saramin answers only", arguments: SaraminFixtures.files)
    func recognition(file: String) throws {
        let c = try #require(SaraminFixtures.cases[SaraminFixtures.caseName(of: file)])
        let head = try Data(contentsOf: SaraminFixtures.url(file)).prefix(4096)
        let recognised = SaraminFixtures.feed.recognise(head: head, format: SaraminFixtures.format(of: file))
        if c.recognised {
            #expect(recognised == "job-search")
        } else {
            // Error answers may not look like Saramin at all; decoding them still gives the typed error.
            #expect(recognised == nil || recognised == "job-search")
            #expect(try SaraminFixtures.decode(file).feedError?.kind != nil)
        }
    }

    @Test("payloads of other feeds are not taken for Saramin answers")
    func foreignPayloadsAreNotRecognised() {
        let careerNet = Data(#"{"dataSearch":{"content":[{"schoolName":"예시초등학교","seq":"1"}]}}"#.utf8)
        let airKorea = Data("<response><header><resultCode>00</resultCode></header><body><items><item><stationName>종로구</stationName></item></items></body></response>".utf8)
        #expect(SaraminFixtures.feed.recognise(head: careerNet, format: .json) == nil)
        #expect(SaraminFixtures.feed.recognise(head: airKorea, format: .xml) == nil)
    }

    @Test("a replayed file (no request) decodes like the fetched one", arguments: SaraminFixtures.files)
    func replayWithoutRequest(file: String) throws {
        let withRequest = try SaraminFixtures.decode(file)
        let bare = SaraminFixtures.decode(SaraminFixtures.url(file), request: nil)
        #expect(bare.sink.records == withRequest.sink.records)
        #expect(bare.summary == withRequest.summary)
        #expect(bare.feedError?.kind == withRequest.feedError?.kind)
    }
}
