import AirKorea
import Domain
import Foundation
import Pipeline
import Testing
import TestSupport

@Suite("Golden helper")
struct GoldenHelperTests {
    @Test("a matching golden file passes; CRLF and a missing final newline do not matter")
    func match() throws {
        let directory = try TemporaryDirectory("golden")
        defer { directory.remove() }
        let file = directory.path("case.expected")
        try Data("a\r\nb".utf8).write(to: file)
        try Golden.verify("a\nb\n", against: file, environment: [:])
    }

    @Test("a mismatch throws a readable line diff naming the file and the update switch")
    func mismatch() throws {
        let directory = try TemporaryDirectory("golden")
        defer { directory.remove() }
        let file = directory.path("case.expected")
        try Data("one\ntwo\nthree\n".utf8).write(to: file)
        do {
            try Golden.verify("one\n2\nthree\nfour\n", against: file, environment: [:])
            Issue.record("expected a mismatch")
        } catch let mismatch as GoldenMismatch {
            #expect(mismatch.diff == "- 2: two\n+ 2: 2\n+ 4: four")
            #expect(mismatch.description.contains(file.path))
            #expect(mismatch.description.contains("FEEDLINE_UPDATE_GOLDEN=1"))
        }
    }

    @Test("a missing golden file is a mismatch, unless FEEDLINE_UPDATE_GOLDEN=1 writes it")
    func update() throws {
        let directory = try TemporaryDirectory("golden")
        defer { directory.remove() }
        let file = directory.path("new.expected")
        #expect(throws: GoldenMismatch.self) { try Golden.verify("x\n", against: file, environment: [:]) }
        try Golden.verify("x\ny", against: file, environment: ["FEEDLINE_UPDATE_GOLDEN": "1"])
        #expect(try String(contentsOf: file, encoding: .utf8) == "x\ny\n")
        try Golden.verify("x\ny\n", against: file, environment: [:])
    }

    @Test("rendering is deterministic: numbers in shortest form, text quoted only when needed, nil spelled out")
    func rendering() throws {
        #expect(Golden.number(35) == "35")
        #expect(Golden.number(0.085) == "0.085")
        #expect(Golden.number(-0.5) == "-0.5")
        #expect(Golden.number(nil) == "nil")
        #expect(Golden.text("종로구") == "종로구")
        #expect(Golden.text("a b") == "\"a b\"")
        #expect(Golden.text("say \"hi\"\n") == "\"say \\\"hi\\\"\\n\"")
        #expect(Golden.text("nil") == "\"nil\"")
        #expect(Golden.text("") == "\"\"")
        #expect(Golden.text(nil) == "nil")

        let slot = try #require(HourSlot(airKoreaLabel: "2023-05-13 24:00"))
        let m = HourlyMeasurement(stationName: "도봉구", slot: slot, dataTime: "2023-05-13 24:00",
                                  pm: DustPair(pm10: nil, pm25: 12), grades: PollutantValues(pm10: .good),
                                  flags: PollutantValues(pm10: .communicationFailure))
        #expect(Golden.line(m) == "measurement station=도봉구 code=nil sido=nil network=nil slot=2023-05-13T23:00+09:00 "
                + "data_time=\"2023-05-13 24:00\" pm10=nil pm25=12 pm10_24h=nil pm25_24h=nil o3=nil no2=nil co=nil so2=nil khai=nil "
                + "grades=pm10:1 grades1h=none khai_grade=nil flags=pm10:통신장애")
        let error = FeedError(.api(code: "22", name: "LIMITED"), .transient, "Quota.", context: "https://example/?serviceKey=REDACTED")
        #expect(Golden.line(error) == "error kind=api code=22 name=LIMITED retry=transient message=Quota.")
        #expect(Golden.line(PageSummary(itemCount: 3, reportedTotal: nil, pageNo: 1, numOfRows: 3)) == "page items=3 total=nil page_no=1 num_of_rows=3")
    }

    @Test("fixture paths point into this checkout")
    func paths() {
        #expect(FileManager.default.fileExists(atPath: FixturePaths.repositoryRoot.appendingPathComponent("Package.swift").path))
        #expect(FixturePaths.fixtures.path.hasSuffix("Data/fixtures"))
        #expect(FixturePaths.sharedFeeds.path.hasSuffix("shared/feeds"))
    }
}
