import Domain
import FeedCore
import Foundation
import Pipeline
import Saramin
import Testing
import TestSupport

/// Over-long Saramin values are refused (stored as missing) with a diagnostic naming the field
/// path and its length, in both formats; NULs are removed with a diagnostic.
@Suite("Saramin field limits")
struct FieldLimitTests {
    static let long = String(repeating: "x", count: 5_000)

    @Test(arguments: ["json", "xml"])
    func overLongValuesAreRefused(format: String) throws {
        let text = format == "json"
            ? #"{"jobs":{"count":1,"start":0,"total":"1","job":[{"id":"7","url":"http://e.example/7","position":{"title":"\#(Self.long)"},"keyword":"a\u0000b"}]}}"#
            : "<job-search><jobs count=\"1\" start=\"0\" total=\"1\"><job><id>7</id><url>http://e.example/7</url><position><title>\(Self.long)</title></position><keyword>ab</keyword></job></jobs></job-search>"
        let (file, directory) = try temporaryPayload(text, name: "jobs.\(format)")
        defer { directory.remove() }
        let result = SaraminFixtures.decode(file, request: try SaraminFixtures.request(format: format == "json" ? .json : .xml))
        #expect(result.error == nil, "\(String(describing: result.error))")
        let posting = try #require(result.sink.postings.first)
        #expect(posting.title == nil)
        #expect(posting.keywords == ["ab"])
        let tooLong = result.sink.diagnostics.filter { $0.code.rawValue == "field-too-long" }
        #expect(tooLong.map(\.location) == ["job 0 position/title"] && tooLong.first?.value == "5000", "\(result.sink.diagnostics)")
        if format == "json" {
            #expect(result.sink.diagnostics.contains { $0.code.rawValue == "nul-removed" && $0.location == "job 0 keyword" }, "\(result.sink.diagnostics)")
        }
    }

    @Test func loneSurrogatesBecomeReplacementCharactersWithADiagnostic() throws {
        let text = #"{"jobs":{"count":1,"start":0,"total":"1","job":[{"id":"7","position":{"title":"A\ud800B"}}]}}"#
        let (file, directory) = try temporaryPayload(text, name: "jobs.json")
        defer { directory.remove() }
        let result = SaraminFixtures.decode(file, request: try SaraminFixtures.request(format: .json))
        #expect(result.error == nil, "\(String(describing: result.error))")
        #expect(result.sink.postings.first?.title == "A\u{FFFD}B")
        #expect(result.sink.diagnostics.map { "\($0.code.rawValue) \($0.location)" } == ["lone-surrogate job 0 position/title"])
    }

    @Test func overLongAttributesAreRefused() throws {
        let text = "<job-search><jobs count=\"1\" start=\"0\" total=\"1\"><job><id>7</id><position>"
            + "<location code=\"\(Self.long)\">서울 &gt; 강남구</location></position></job></jobs></job-search>"
        let (file, directory) = try temporaryPayload(text, name: "jobs.xml")
        defer { directory.remove() }
        let result = SaraminFixtures.decode(file, request: try SaraminFixtures.request(format: .xml))
        #expect(result.error == nil, "\(String(describing: result.error))")
        let posting = try #require(result.sink.postings.first)
        #expect(posting.locations.codes.isEmpty && posting.locations.names == ["서울 > 강남구"])
        let tooLong = result.sink.diagnostics.filter { $0.code == .fieldTooLong }
        #expect(tooLong.map(\.location) == ["job 0 position/location/code"] && tooLong.first?.value == "5000", "\(result.sink.diagnostics)")
    }
}
