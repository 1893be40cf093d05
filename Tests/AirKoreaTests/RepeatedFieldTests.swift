import Foundation
import Pipeline
import Testing
import TestSupport

/// A field given twice in one item (a duplicate JSON key, a repeated XML element) keeps its
/// last value, as before, but no longer silently: the reader records `repeated-field`.
@Suite("AirKorea repeated fields")
struct RepeatedFieldTests {
    static func page(_ name: String, replacing original: String, with doubled: String) throws -> URL {
        let text = try String(contentsOf: AirKoreaFixtures.url(name), encoding: .utf8)
        let range = try #require(text.range(of: original))
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent(name)
        try text.replacingCharacters(in: range, with: doubled).write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test("a duplicate JSON key and a repeated XML element each give one repeated-field diagnostic; the last value is kept")
    func repeatedFieldIsDiagnosed() throws {
        let json = try Self.page("realtime-province-seoul.json", replacing: #""pm10Value":"33""#, with: #""pm10Value":"999","pm10Value":"33""#)
        let xml = try Self.page("realtime-province-seoul.xml", replacing: "<pm10Value>33</pm10Value>",
                                with: "<pm10Value>999</pm10Value><pm10Value>33</pm10Value>")
        let clean = AirKoreaFixtures.decode(AirKoreaFixtures.url("realtime-province-seoul.json"),
                                            request: try AirKoreaFixtures.request(for: "realtime-province-seoul.json"))
        for file in [json, xml] {
            let result = AirKoreaFixtures.decode(file, request: try AirKoreaFixtures.request(for: "realtime-province-seoul.json"))
            let repeated = result.sink.diagnostics.filter { $0.code.rawValue == "repeated-field" }
            #expect(repeated.count == 1, "\(file.lastPathComponent): \(result.sink.diagnostics)")
            #expect(repeated.first?.location.hasPrefix("item 0") == true && repeated.first?.location.hasSuffix("pm10Value") == true,
                    "\(String(describing: repeated.first))")
            // Last wins: the records are those of the page without the extra value.
            #expect(result.sink.records == clean.sink.records, "\(file.lastPathComponent)")
        }
        #expect(!clean.sink.diagnostics.contains { $0.code.rawValue == "repeated-field" })
    }
}
