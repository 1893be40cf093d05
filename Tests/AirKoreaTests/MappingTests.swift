@testable import AirKorea
import Domain
import FeedCore
import Foundation
import Pipeline
import PropertyBased
import Testing

@Suite("AirKorea item mapping")
struct MappingTests {
    func realtimeItem(_ fields: [RealtimeField: String?], position: Int = 0) -> ItemFields {
        var item = ItemFields(schema: RealtimeField.schema, position: position)
        for (field, value) in fields { item.values[field.rawValue] = value }
        return item
    }

    func measurement(_ outcome: ItemOutcome) -> HourlyMeasurement? {
        if let m = outcome.record?.as(HourlyMeasurement.self) { return m }
        return nil
    }

    @Test("missing markers become nil, never 0", arguments: ["-", "", "null", "*", " - ", "NULL"])
    func missingMarkers(raw: String) throws {
        let outcome = RealtimeItemMapping.map(realtimeItem([.dataTime: "2023-05-13 15:00", .stationName: "종로구",
                                                            .pm10Value: raw, .pm10Grade: raw, .pm10Flag: raw]),
                                              fallbackStation: nil, fallbackProvince: nil)
        let m = try #require(measurement(outcome))
        #expect(m.pm.pm10 == nil)
        #expect(m.grades.pm10 == nil)
        #expect(m.flags.pm10 == nil)
        #expect(outcome.diagnostics.isEmpty)
    }

    @Test("numbers: padded values parse; junk is unparsable; out-of-range is implausible", arguments: [
        ("35", 35.0, nil), (" 35 ", 35.0, nil), ("0", 0.0, nil), ("2000", 2000.0, nil), ("12.5", 12.5, nil),
        ("12O", nil, "unparsable-number"), ("nan", nil, "unparsable-number"), ("inf", nil, "unparsable-number"),
        ("1,234", nil, "unparsable-number"), ("-1", nil, "implausible-value"), ("2000.5", nil, "implausible-value"),
        ("99999", nil, "implausible-value"),
    ] as [(String, Double?, String?)])
    func numbers(raw: String, value: Double?, code: String?) throws {
        let outcome = RealtimeItemMapping.map(realtimeItem([.dataTime: "2023-05-13 15:00", .stationName: "종로구", .pm10Value: raw]),
                                              fallbackStation: nil, fallbackProvince: nil)
        let m = try #require(measurement(outcome))
        #expect(m.pm.pm10 == value)
        #expect(outcome.diagnostics.map(\.code.rawValue) == (code.map { [$0] } ?? []))
        if let diagnostic = outcome.diagnostics.first {
            #expect(diagnostic.location == "item 0 (종로구 2023-05-13 15:00) pm10Value")
            #expect(diagnostic.value == raw)
        }
    }

    @Test("numbers and grades read from the raw bytes in place agree with the long way (trim, missing markers, plain decimal, range)")
    func inPlaceReadsAgree() {
        // Short strings over the characters that matter: digits, sign, point, padding (ASCII and
        // U+3000), missing markers and junk.
        let raw = Gen.element(of: ["0", "1", "2", "4", "5", "9", ".", "-", "+", " ", "\t", "*", "a", "\u{3000}", "null"])
            .map { $0 ?? "" }.array(of: 0...6).map { $0.joined() }
        seededPropertyCheck(count: 2000, input: raw) { raw in
            var diagnostics = ItemDiagnostics(position: 0)
            let number = diagnostics.number(raw, RealtimeField.pm10Value, range: PlausibleRange.particulate, unit: "µg/m³")
            let text = WireValue.airKorea.present(raw)
            let expected = text.flatMap(ItemDiagnostics.plainDecimal).flatMap { PlausibleRange.particulate.contains($0) ? $0 : nil }
            #expect(number == expected, "number of \(raw.debugDescription)")
            let grade = diagnostics.grade(raw, RealtimeField.pm10Grade)
            let expectedGrade = text.flatMap { $0.count == 1 ? Int($0) : nil }.flatMap(AirKoreaGrade.init(rawValue:))
            #expect(grade == expectedGrade, "grade of \(raw.debugDescription)")
            // A present value that is neither is noted, once per read.
            let noted = (text != nil && expected == nil ? 1 : 0) + (text != nil && expectedGrade == nil ? 1 : 0)
            #expect(diagnostics.diagnostics.count == noted, "diagnostics of \(raw.debugDescription)")
        }
    }

    @Test("gases above 10 ppm and CAI above 500 are implausible")
    func gasLimits() throws {
        let outcome = RealtimeItemMapping.map(realtimeItem([.dataTime: "2023-05-13 15:00", .stationName: "종로구",
                                                            .coValue: "10.5", .o3Value: "0.1", .khaiValue: "501"]),
                                              fallbackStation: nil, fallbackProvince: nil)
        let m = try #require(measurement(outcome))
        #expect(m.coppm == nil && m.khai == nil)
        #expect(m.o3ppm == 0.1)
        #expect(outcome.diagnostics.map(\.code.rawValue) == ["implausible-value", "implausible-value"])
    }

    @Test("flags are kept per pollutant, with or without spaces")
    func flags() throws {
        let outcome = RealtimeItemMapping.map(realtimeItem([.dataTime: "2023-05-13 15:00", .stationName: "양천구",
                                                            .pm10Flag: "점검 및 교정", .pm25Flag: "점검및교정", .coFlag: "장비점검",
                                                            .o3Flag: "자료이상", .no2Flag: "통신장애", .so2Flag: "새로운상태"]),
                                              fallbackStation: nil, fallbackProvince: nil)
        let m = try #require(measurement(outcome))
        #expect(m.flags.pm10 == .calibration && m.flags.pm25 == .calibration)
        #expect(m.flags.co == .equipmentInspection && m.flags.o3 == .abnormalData && m.flags.no2 == .communicationFailure)
        #expect(m.flags.so2 == .other("새로운상태"))
    }

    @Test("24:00 is the last slot of its day; bad labels skip the item with a diagnostic", arguments: [
        ("2023-05-13 24:00", "2023-05-13", 23), ("2023-05-14 01:00", "2023-05-14", 0),
        ("2023-05-13 00:00", nil, nil), ("2023-05-13 25:00", nil, nil), ("2023-05-13", nil, nil),
        ("2023-02-30 10:00", nil, nil), ("", nil, nil), ("13:00", nil, nil),
    ] as [(String, String?, Int?)])
    func dataTime(label: String, date: String?, hour: Int?) {
        let outcome = RealtimeItemMapping.map(realtimeItem([.dataTime: label, .stationName: "종로구"]),
                                              fallbackStation: nil, fallbackProvince: nil)
        if let date, let hour {
            #expect(measurement(outcome)?.slot == HourSlot(date: LocalDate(iso: date)!, hour: hour))
            #expect(measurement(outcome)?.dataTime == label)
        } else {
            #expect(outcome.record == nil)
            #expect(outcome.diagnostics.map(\.code.rawValue) == ["bad-data-time"])
        }
    }

    @Test("by-station items without stationName take it from the request, else are skipped")
    func stationFallback() throws {
        let item = realtimeItem([.dataTime: "2023-05-21 10:00", .pm10Value: "48"])
        let named = try #require(measurement(RealtimeItemMapping.map(item, fallbackStation: "종로구", fallbackProvince: nil)))
        #expect(named.stationName == "종로구")
        let skipped = RealtimeItemMapping.map(item, fallbackStation: nil, fallbackProvince: nil)
        #expect(skipped.record == nil)
        #expect(skipped.diagnostics.map(\.code.rawValue) == ["missing-station"])
    }

    @Test("the by-station page context takes stationName from the request or the fallback parameters")
    func pageContext() {
        #expect(PageContext(DecodeContext(request: nil, fallbackParameters: ["stationName": " 종로구 "])).stationName == "종로구")
        #expect(PageContext(DecodeContext(request: nil, fallbackParameters: ["sidoName": "전국"])).sidoName == nil)
        let point = PageContext(DecodeContext(request: nil, fallbackParameters: ["tmX": "244148.5", "tmY": "412423.7"])).queryPoint
        #expect(point?.x == 244148.5 && point?.y == 412423.7)
        #expect(PageContext(DecodeContext(request: nil, fallbackParameters: ["tmX": "abc", "tmY": "1"])).queryPoint == nil)
    }

    @Test("station coordinates are assigned by range, whichever field holds which", arguments: [
        ("37.57", "127.0", 37.57, 127.0, 0), ("127.0", "37.57", 37.57, 127.0, 0), ("", "", nil, nil, 0),
        ("37.5", "0", 37.5, nil, 1), ("200", "37.5", 37.5, nil, 1), ("abc", "127", nil, 127.0, 1),
        ("37.5", "37.6", 37.5, nil, 1),
    ] as [(String, String, Double?, Double?, Int)])
    func coordinates(dmX: String, dmY: String, latitude: Double?, longitude: Double?, diagnostics: Int) throws {
        var item = ItemFields(schema: StationField.schema, position: 0)
        item.values[StationField.stationName.rawValue] = "종로구"
        item.values[StationField.dmX.rawValue] = dmX
        item.values[StationField.dmY.rawValue] = dmY
        let outcome = StationItemMapping.map(item)
        guard let station = outcome.record?.as(Station.self) else { Issue.record("no station"); return }
        #expect(station.latitude == latitude)
        #expect(station.longitude == longitude)
        #expect(outcome.diagnostics.count == diagnostics)
    }

    @Test("forecast release labels", arguments: [
        ("2023-06-03 23시 발표", "2023-06-03", 23), ("2023-06-03 05시 발표", "2023-06-03", 5), ("2023-06-03 5시발표", "2023-06-03", 5),
        (" 2016-04-01 11시 발표 ", "2016-04-01", 11),
        ("2023-06-03 23:00", nil, nil), ("2023-06-03 24시 발표", nil, nil), ("2023-06-03", nil, nil), ("발표", nil, nil),
    ] as [(String, String?, Int?)])
    func release(label: String, date: String?, hour: Int?) {
        let parsed = ForecastItemMapping.parseRelease(label)
        #expect(parsed?.date.description == date)
        #expect(parsed?.hour == hour)
    }

    @Test("informGrade splits into region rows, tolerating whitespace; empty gives none")
    func regionGrades() {
        var reader = ItemDiagnostics(position: 0)
        let grades = ForecastItemMapping.regionGrades("서울: 좋음 , 제주 :보통,, 인천 : 매우나쁨,세종 : 예보없음", reader: &reader)
        #expect(grades.map(\.region) == ["서울", "제주", "인천", "세종"])
        #expect(grades.map(\.grade) == [.good, .moderate, .veryBad, nil])
        #expect(grades.last?.gradeText == "예보없음")
        #expect(reader.diagnostics.isEmpty)
        #expect(ForecastItemMapping.regionGrades("", reader: &reader).isEmpty)
        #expect(ForecastItemMapping.regionGrades(nil, reader: &reader).isEmpty)
        _ = ForecastItemMapping.regionGrades("서울 보통,제주 : 좋음", reader: &reader)
        #expect(reader.diagnostics.map(\.code.rawValue) == ["bad-region-grade"])
    }

    @Test("image URLs: null, empty and legacy empty atch_id become nil", arguments: [
        (nil, nil), ("", nil), ("-", nil), ("http://www.airkorea.or.kr/file/viewImage/?atch_id=", nil),
        ("http://www.airkorea.or.kr/file/viewImage/?atch_id=31959", "http://www.airkorea.or.kr/file/viewImage/?atch_id=31959"),
    ] as [(String?, String?)])
    func images(raw: String?, url: String?) {
        #expect(ForecastItemMapping.imageURL(raw) == url)
    }

    @Test("JSON objects or arrays where a string belongs are reported and treated as missing")
    func jsonTypeMismatch() throws {
        let text = #"{"response":{"body":{"totalCount":1,"items":[{"stationName":"종로구","dataTime":"2023-05-13 15:00","pm10Value":{"v":"35"},"pm25Value":"19"}, 7],"pageNo":1,"numOfRows":10},"header":{"resultMsg":"NORMAL_CODE","resultCode":"00"}}}"#
        let (url, directory) = try temporaryPayload(text, name: "mismatch.json")
        defer { directory.remove() }
        let result = AirKoreaFixtures.decode(url, operation: "getCtprvnRltmMesureDnsty")
        #expect(result.error == nil)
        #expect(result.summary?.itemCount == 2)
        #expect(result.sink.diagnostics.map(\.code.rawValue) == ["type-mismatch", "type-mismatch"])
        guard let m = result.sink.records.first?.as(HourlyMeasurement.self) else { Issue.record("no record"); return }
        #expect(m.pm.pm10 == nil && m.pm.pm25 == 19)
    }

    @Test("legacy echo fields are never read: a leaked serviceKey appears in no record or diagnostic")
    func echoesIgnored() throws {
        let text = #"{"list":[{"_returnType":"json","serviceKey":"SECRET-LOOKING-VALUE","stationName":"중구","dataTime":"2018-01-04 09:00","pm10Value":"31","numOfRows":"10","resultCode":"","sidoName":""}],"parm":{"serviceKey":"SECRET-LOOKING-VALUE","numOfRows":"10","pageNo":"1"},"totalCount":1}"#
        let (url, directory) = try temporaryPayload(text, name: "legacy.json")
        defer { directory.remove() }
        let result = AirKoreaFixtures.decode(url)
        #expect(result.error == nil)
        #expect(result.sink.records.count == 1)
        #expect(!result.golden.contains("SECRET"))
        #expect(result.summary == PageSummary(itemCount: 1, reportedTotal: 1, pageNo: 1, numOfRows: 10))
    }

    @Test("items given as {\"item\": [...]} or a single {\"item\": {...}} are read too")
    func itemWrapper() throws {
        for items in [#"{"item":[{"stationName":"중구","dataTime":"2023-05-13 15:00"}]}"#, #"{"item":{"stationName":"중구","dataTime":"2023-05-13 15:00"}}"#] {
            let text = #"{"response":{"body":{"items":"# + items + #","numOfRows":10},"header":{"resultCode":"00"}}}"#
            let (url, directory) = try temporaryPayload(text, name: "wrapped.json")
            defer { directory.remove() }
            let result = AirKoreaFixtures.decode(url, operation: "realtime-by-province")
            #expect(result.sink.records.count == 1)
        }
    }
}
