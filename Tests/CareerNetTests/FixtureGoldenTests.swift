import CareerNet
import Foundation
import Pipeline
import Testing
import TestSupport

/// Golden tests over every payload in `Data/fixtures/careernet`: each `<case>.xml` / `<case>.json`
/// decodes to exactly the lines in `<case>.expected` (records and diagnostics in order, then the
/// page summary or the typed error). Set `FEEDLINE_UPDATE_GOLDEN=1` to rewrite the files.
@Suite("CareerNet fixtures")
struct FixtureGoldenTests {
    @Test("the fixture directory holds every case in its formats, each with a golden file")
    func inventory() throws {
        let files = CareerNetFixtures.files
        let expectedFiles = CareerNetFixtures.cases.flatMap { name, c in c.formats.map { "\(name).\($0.fileExtension)" } }.sorted()
        #expect(files == expectedFiles, "found \(files.count) payloads in \(CareerNetFixtures.directory.path)")
        for file in files {
            let name = CareerNetFixtures.caseName(of: file)
            #expect(CareerNetFixtures.cases[name] != nil, "\(file) has no entry in CareerNetFixtures.cases")
            let expected = CareerNetFixtures.directory.appendingPathComponent(name + ".expected")
            #expect(FileManager.default.fileExists(atPath: expected.path) || ProcessInfo.processInfo.environment["FEEDLINE_UPDATE_GOLDEN"] == "1",
                    "\(file) has no golden file \(expected.lastPathComponent)")
        }
        #expect(CareerNetFixtures.pairedCases.count == CareerNetFixtures.cases.count - 2)
    }

    @Test("each fixture decodes to its golden lines", arguments: CareerNetFixtures.files)
    func golden(file: String) throws {
        let result = try CareerNetFixtures.decode(file)
        let expected = CareerNetFixtures.directory.appendingPathComponent(CareerNetFixtures.caseName(of: file) + ".expected")
        try Golden.verify(result.golden, against: expected)
    }

    @Test("the XML and JSON fixtures of a case give identical records, diagnostics and outcome",
          arguments: CareerNetFixtures.pairedCases)
    func xmlAndJSONAgree(caseName: String) throws {
        let xml = try CareerNetFixtures.decode(caseName + ".xml")
        let json = try CareerNetFixtures.decode(caseName + ".json")
        #expect(xml.sink.records == json.sink.records)
        #expect(xml.sink.diagnostics == json.sink.diagnostics)
        #expect(xml.summary == json.summary)
        #expect(xml.feedError?.kind == json.feedError?.kind)
        #expect(xml.feedError?.retryability == json.feedError?.retryability)
        #expect(xml.error != nil || !xml.sink.records.isEmpty || xml.summary?.itemCount == 0,
                "a successful case should produce records unless it is an empty page")
    }

    @Test("recognition names every fixture's list from its first bytes", arguments: CareerNetFixtures.files)
    func recognition(file: String) throws {
        let c = try #require(CareerNetFixtures.cases[CareerNetFixtures.caseName(of: file)])
        let head = try Data(contentsOf: CareerNetFixtures.url(file)).prefix(4096)
        #expect(CareerNetFixtures.feed.recognise(head: head, format: CareerNetFixtures.format(of: file)) == c.recognisedAs)
    }

    @Test("a replayed file (no request) decodes like the fetched one: same records, list and outcome",
          arguments: CareerNetFixtures.files)
    func replayWithoutRequest(file: String) throws {
        let withRequest = try CareerNetFixtures.decode(file)
        let bare = CareerNetFixtures.decode(CareerNetFixtures.url(file), request: nil)
        #expect(bare.sink.records.count == withRequest.sink.records.count)
        if withRequest.error == nil { #expect(bare.sink.records == withRequest.sink.records) }
        #expect(bare.feedError?.kind == withRequest.feedError?.kind)
        #expect(bare.summary?.itemCount == withRequest.summary?.itemCount)
    }

    @Test("payloads of other feeds are not taken for CareerNet lists")
    func foreignPayloadsAreNotRecognised() {
        let saramin = Data(#"{"jobs":{"count":1,"start":0,"total":"1","job":[{"id":"1"}]}}"#.utf8)
        let airKorea = Data("<response><header><resultCode>00</resultCode></header><body><items><item><stationName>종로구</stationName></item></items></body></response>".utf8)
        #expect(CareerNetFixtures.feed.recognise(head: saramin, format: .json) == nil)
        #expect(CareerNetFixtures.feed.recognise(head: airKorea, format: .xml) == nil)
    }
}
