@testable import AirKorea
import Domain
import FeedCore
import Foundation
import Pipeline
import Testing
import TestSupport

/// The statistics (`ArpltnStatsSvc`) and PM-alert (`UlfptcaAlarmInqireSvc`) operations:
/// requests, the details of their mapping the golden files do not spell out, and the refusal of
/// payloads from AirKorea services feedline does not read.
@Suite("AirKorea statistics and PM alerts")
struct StatisticsAndAlertTests {
    let feed = AirKoreaFeed()

    func spec(_ operation: String, _ parameters: [(String, [String])], format: PayloadFormat = .xml) -> SourceSpec {
        SourceSpec(operation: operation, parameters: parameters, format: format, pageSize: 1000, maxPages: 20)
    }

    func refusal(_ operation: String, _ parameters: [(String, [String])]) -> FeedError? {
        do {
            _ = try feed.requests(for: spec(operation, parameters))
            return nil
        } catch {
            return error as? FeedError
        }
    }

    // MARK: - Requests

    @Test("aliases, canonical names and paths name the three operations", arguments: [
        ("station-daily-stats", "getMsrstnAcctoRDyrg"),
        ("ArpltnStatsSvc/getMsrstnAcctoRDyrg", "getMsrstnAcctoRDyrg"),
        ("station-monthly-stats", "getMsrstnAcctoRMmrg"),
        ("getmsrstnacctormmrg", "getMsrstnAcctoRMmrg"),
        ("pm-alerts", "getUlfptcaAlarmInfo"),
        ("UlfptcaAlarmInqireSvc/getUlfptcaAlarmInfo", "getUlfptcaAlarmInfo"),
    ])
    func names(name: String, canonical: String) {
        #expect(feed.canonicalOperation(name) == canonical)
    }

    @Test("daily statistics: days sent YYYYMMDD (YYYY-MM-DD accepted), under ArpltnStatsSvc")
    func dailyRequest() throws {
        let requests = try feed.requests(for: spec("station-daily-stats", [("inqBginDt", ["2024-03-05"]), ("inqEndDt", ["20240306"]),
                                                                           ("msrstnName", ["종로구"])]))
        let request = try #require(requests.first)
        #expect(requests.count == 1)
        #expect(request.baseURL.absoluteString == "https://apis.data.go.kr/B552584/ArpltnStatsSvc/getMsrstnAcctoRDyrg")
        #expect(request.query == [QueryItem("returnType", "xml"), QueryItem("numOfRows", "1000"), QueryItem("pageNo", "1"),
                                  QueryItem("inqBginDt", "20240305"), QueryItem("inqEndDt", "20240306"), QueryItem("msrstnName", "종로구")])
        #expect(request.displayURL.contains("serviceKey=REDACTED"))
    }

    @Test("monthly statistics: a range is asked one month per request (the service answers a range with no items)")
    func monthlyRequests() throws {
        let requests = try feed.requests(for: spec("station-monthly-stats", [("inqBginMm", ["2023-11"]), ("inqEndMm", ["202402"])]))
        #expect(requests.map { "\($0.parameter("inqBginMm") ?? "")-\($0.parameter("inqEndMm") ?? "")" }
                == ["202311-202311", "202312-202312", "202401-202401", "202402-202402"])
        #expect(requests.allSatisfy { $0.baseURL.path.hasSuffix("/ArpltnStatsSvc/getMsrstnAcctoRMmrg") })
        // A day stands for its month, so {yesterday} on the 1st names the month that just ended.
        let single = try feed.requests(for: spec("station-monthly-stats", [("inqBginMm", ["2024-02-29"]), ("inqEndMm", ["2024-02-29"])]))
        #expect(single.map { $0.parameter("inqBginMm") } == ["202402"])
    }

    @Test("alerts: the year (a day stands for its year) and an optional pollutant; identical requests are sent once")
    func alertRequests() throws {
        let sameYear = try feed.requests(for: spec("pm-alerts", [("year", ["2024-03-05", "2024-03-06"])]))
        #expect(sameYear.map { $0.parameter("year") } == ["2024"])
        let newYear = try feed.requests(for: spec("pm-alerts", [("year", ["2023-12-31", "2024-01-01"]), ("itemCode", ["PM2.5"])]))
        #expect(newYear.map { $0.parameter("year") } == ["2023", "2024"])
        #expect(newYear.allSatisfy { $0.parameter("itemCode") == "PM25" })
        #expect(newYear[0].baseURL.absoluteString == "https://apis.data.go.kr/B552584/UlfptcaAlarmInqireSvc/getUlfptcaAlarmInfo")
    }

    @Test("bad statistics and alert specs are refused naming the parameter", arguments: [
        ("station-daily-stats", [("inqBginDt", ["2024/03/05"]), ("inqEndDt", ["20240305"])], "inqBginDt"),
        ("station-daily-stats", [("inqBginDt", ["20240230"]), ("inqEndDt", ["20240305"])], "inqBginDt"),
        ("station-daily-stats", [("inqBginDt", ["20240305"])], "inqEndDt is required"),
        ("station-daily-stats", [("inqBginDt", ["20240306"]), ("inqEndDt", ["20240305"])], "inqBginDt must not be after inqEndDt"),
        ("station-daily-stats", [("inqBginDt", ["20240305"]), ("inqEndDt", ["20240305"]), ("stationName", ["종로구"])], "stationName is not accepted"),
        ("station-monthly-stats", [("inqBginMm", ["202413"]), ("inqEndMm", ["202402"])], "inqBginMm"),
        ("station-monthly-stats", [("inqBginMm", ["202403"]), ("inqEndMm", ["202402"])], "inqBginMm must not be after inqEndMm"),
        ("station-monthly-stats", [("inqBginMm", ["202001"]), ("inqEndMm", ["202402"])], "spans 50 months"),
        ("pm-alerts", [], "year is required"),
        ("pm-alerts", [("year", ["24"])], "year"),
        ("pm-alerts", [("year", ["1850"])], "year"),
        ("pm-alerts", [("year", ["2024"]), ("itemCode", ["O3"])], "must be PM10 or PM25"),
    ] as [(String, [(String, [String])], String)])
    func refusals(operation: String, parameters: [(String, [String])], mentions: String) throws {
        let error = try #require(refusal(operation, parameters))
        #expect(error.kind == .invalidRequest)
        #expect(error.retryability == .terminal)
        #expect(error.message.contains(mentions), "\(error.message)")
    }

    @Test("a pipeline naming an unsupported AirKorea operation is refused by its service's name")
    func unsupportedOperationInAPipeline() throws {
        let error = try #require(refusal("getMsrstnKhaiRltmDnsty", [("stationName", ["종로구"])]))
        #expect(error.kind == .invalidRequest)
        #expect(error.message.hasPrefix("Unsupported AirKorea service RltmKhaiInfoSvc/getMsrstnKhaiRltmDnsty"))
        #expect(error.message.contains("pm-alerts (getUlfptcaAlarmInfo)"))
        let unknown = try #require(refusal("getSomethingElse", []))
        #expect(unknown.message.contains("has no operation named “getSomethingElse”"))
    }

    // MARK: - Mapping details

    func statisticsItem(_ fields: [StatisticsField: String?]) -> ItemFields {
        var item = ItemFields(schema: StatisticsField.schema, position: 0)
        for (field, value) in fields { item.values[field.rawValue] = value }
        return item
    }

    @Test("statistics values: a decimal without its leading zero is read; missing is NULL with a diagnostic, never 0", arguments: [
        (".0082", 0.0082, nil), ("0.0082", 0.0082, nil), ("-.5", nil, "implausible-value"), (".", nil, "unparsable-number"),
        ("-", nil, "missing-value"), ("", nil, "missing-value"), (nil, nil, "missing-value"), ("0", 0, nil), ("1e-3", nil, "unparsable-number"),
    ] as [(String?, Double?, String?)])
    func averages(raw: String?, value: Double?, code: String?) throws {
        let item = statisticsItem([.msurDt: "2024-03-01", .msrstnName: "종로구", .no2Value: raw, .pm10Value: "41", .pm25Value: "27",
                                   .o3Value: ".03", .coValue: ".4", .so2Value: ".003"])
        let outcome = StatisticsItemMapping.mapDaily(item, page: PageContext(DecodeContext(request: nil)))
        let record = try #require(outcome.record?.as(StationDailyStatistics.self))
        #expect(record.averages.no2 == value)
        #expect(outcome.diagnostics.map(\.code.rawValue) == (code.map { [$0] } ?? []))
        #expect(outcome.diagnostics.allSatisfy { $0.location == "item 0 (종로구 2024-03-01) no2Value" })
    }

    @Test("statistics items fall back on the request's msrstnName; a day or month after the fetch is refused")
    func statisticsFallbackAndFuture() throws {
        let item = statisticsItem([.msurDt: "2024-03-01", .pm10Value: "41"])
        let named = StatisticsItemMapping.mapDaily(item, page: PageContext(DecodeContext(request: nil, fallbackParameters: ["msrstnName": "종로구"])))
        #expect(named.record?.as(StationDailyStatistics.self)?.stationName == "종로구")

        let fetched = KSTMinute(date: "2024-02-28", time: "12:00")!.instant
        let page = PageContext(DecodeContext(request: nil, fallbackParameters: ["msrstnName": "종로구"]), fetchedAt: fetched)
        #expect(StatisticsItemMapping.mapDaily(statisticsItem([.msurDt: "2024-02-29"]), page: page).record != nil)
        let future = StatisticsItemMapping.mapDaily(statisticsItem([.msurDt: "2024-03-01"]), page: page)
        #expect(future.record == nil && future.diagnostics.map(\.code) == [.futureTime])
        #expect(StatisticsItemMapping.mapMonthly(statisticsItem([.msurMm: "2024-02"]), page: page).record != nil)
        #expect(StatisticsItemMapping.mapMonthly(statisticsItem([.msurMm: "2024-03"]), page: page).diagnostics.map(\.code) == [.futureTime])
        // A monthly item dated YYYYMM is read too; one dated with a day is not a month.
        #expect(StatisticsItemMapping.mapMonthly(statisticsItem([.msurMm: "202402"]), page: page).record?
            .as(StationMonthlyStatistics.self)?.month == YearMonth(year: 2024, month: 2))
        #expect(StatisticsItemMapping.mapMonthly(statisticsItem([.msurMm: "2024-02-01"]), page: page).diagnostics.map(\.code) == [.badStatisticsDate])
    }

    func alertItem(_ fields: [PMAlertField: String?]) -> ItemFields {
        var base: [PMAlertField: String?] = [.districtName: "서울", .moveName: "도심권", .itemCode: "PM10", .issueGbn: "주의보",
                                             .issueDate: "2024-03-05", .issueTime: "14:00", .issueVal: "168"]
        base.merge(fields) { _, new in new }
        var item = ItemFields(schema: PMAlertField.schema, position: 0)
        for (field, value) in base { item.values[field.rawValue] = value }
        return item
    }

    @Test("an alert in force has no clear; its clear, when it comes, keeps the same key")
    func alertIssueAndClear() throws {
        let page = PageContext(DecodeContext(request: nil))
        let issued = try #require(PMAlertItemMapping.map(alertItem([.clearDate: "", .clearTime: "", .clearVal: ""]), page: page).record?.as(PMAlert.self))
        #expect(issued.cleared == nil && issued.clearValue == nil)
        let cleared = try #require(PMAlertItemMapping.map(alertItem([.clearDate: "2024-03-06", .clearTime: "07:00", .clearVal: "79"]), page: page)
            .record?.as(PMAlert.self))
        #expect(cleared.cleared?.label == "2024-03-06 07:00")
        #expect(iso8601UTC(cleared.cleared!.instant) == "2024-03-05T22:00:00Z")
        #expect(cleared.clearValue == 79)
        // What the table keys on is the same in both.
        let key = { (a: PMAlert) in [a.district, a.area ?? "", a.pollutant.rawValue, a.level.rawValue, iso8601UTC(a.issued.instant)] }
        #expect(key(issued) == key(cleared))
        #expect(AirKoreaTables.alertRow(issued, payload: nil).values.prefix(5) == AirKoreaTables.alertRow(cleared, payload: nil).values.prefix(5))
    }

    @Test("an alert issued more than a day after the fetch is refused; a clear after it is not stored")
    func alertFuture() {
        let fetched = KSTMinute(date: "2024-03-05", time: "12:00")!.instant
        let page = PageContext(DecodeContext(request: nil), fetchedAt: fetched)
        let late = PMAlertItemMapping.map(alertItem([.issueDate: "2024-03-07", .issueTime: "01:00"]), page: page)
        #expect(late.record == nil && late.diagnostics.map(\.code) == [.futureTime])
        let lateClear = PMAlertItemMapping.map(alertItem([.clearDate: "2024-03-09", .clearTime: "01:00", .clearVal: "50"]), page: page)
        #expect(lateClear.record?.as(PMAlert.self)?.cleared == nil)
        #expect(lateClear.diagnostics.map(\.code) == [.futureTime, .clearWithoutTime])
    }

    // MARK: - Unsupported services

    static let unsupportedFixtures = ["unsupported-cai.json", "unsupported-sido-average.xml"]

    @Test("a payload of an unsupported AirKorea service is refused by name, with or without a declared operation, and leaves nothing",
          arguments: unsupportedFixtures)
    func unsupportedPayloads(file: String) throws {
        let declared = try AirKoreaFixtures.decode(file)
        let bare = AirKoreaFixtures.decode(AirKoreaFixtures.url(file))
        for result in [declared, bare] {
            let error = try #require(result.feedError)
            #expect(error.kind == .unrecognised && error.retryability == .terminal)
            #expect(error.message.hasPrefix("Unsupported AirKorea service "), "\(error.message)")
            #expect(result.sink.entries.isEmpty, "an unsupported payload delivers no records and no diagnostics")
        }
        // Whatever operation the request named: a statistics or alert request gets the same refusal.
        for operation in ["pm-alerts", "station-daily-stats", "forecast"] {
            let result = AirKoreaFixtures.decode(AirKoreaFixtures.url(file), operation: operation)
            #expect(result.feedError?.message == declared.feedError?.message)
        }
    }

    @Test("recognition names the service of each unsupported payload it knows by its fields", arguments: [
        (#"{"response":{"body":{"items":[{"conectDe":"2024-03-05","conectOprtinNm":"getCtprvnRltmMesureDnsty","conectCo":"143"}],"totalCount":1},"header":{"resultCode":"00"}}}"#,
         "getSvckeyDalyStats"),
        (#"{"response":{"body":{"items":[{"frcstOneDt":"2024-03-07","frcstOneCn":"서울 : 낮음","presnatnDt":"2024-03-05"}],"totalCount":1},"header":{"resultCode":"00"}}}"#,
         "getMinuDustWeekFrcstDspth"),
        (#"{"response":{"body":{"items":[],"totalCount":0},"header":{"resultCode":"200","resultMsg":"NORMAL_CODE"}}}"#,
         "getMsrstnKhaiRltmDnsty"),
    ])
    func unsupportedRecognition(json: String, operation: String) throws {
        #expect(feed.recognise(head: Data(json.utf8), format: .json) == operation)
        let (url, directory) = try temporaryPayload(json, name: "payload.json")
        defer { directory.remove() }
        let result = AirKoreaFixtures.decode(url)
        #expect(result.feedError?.message.contains("Unsupported AirKorea service") == true)
        #expect(result.feedError?.message.contains(operation) == true)
    }

    @Test("items of no known operation are never mapped item by skipped item: unclaimed, and refused when an operation is declared")
    func unknownItems() throws {
        let json = #"{"response":{"body":{"items":[{"fooValue":"1","barName":"x"},{"fooValue":"2","barName":"y"}],"totalCount":2,"pageNo":1,"numOfRows":10},"header":{"resultMsg":"NORMAL_CODE","resultCode":"00"}}}"#
        #expect(feed.recognise(head: Data(json.utf8), format: .json) == nil)
        let (url, directory) = try temporaryPayload(json, name: "payload.json")
        defer { directory.remove() }
        #expect(AirKoreaFixtures.decode(url).feedError?.kind == .unrecognised)
        for operation in ["realtime-by-province", "station-daily-stats", "pm-alerts"] {
            let result = AirKoreaFixtures.decode(url, operation: operation)
            let error = try #require(result.feedError, "\(operation)")
            #expect(error.kind == .unrecognised)
            #expect(error.message.contains("carry none of the fields"), "\(error.message)")
            #expect(result.sink.entries.isEmpty)
        }
        // An empty success page is still anyone's: it decodes to nothing.
        let empty = #"{"response":{"body":{"items":[],"totalCount":0},"header":{"resultCode":"00","resultMsg":"NORMAL_CODE"}}}"#
        #expect(feed.recognise(head: Data(empty.utf8), format: .json) == "getCtprvnRltmMesureDnsty")
    }

    @Test("an empty item among real ones is still mapped (and skipped) in its place")
    func emptyItemAmongRealOnes() throws {
        let json = #"{"response":{"body":{"items":[{},{"msurDt":"2024-03-01","msrstnName":"종로구","pm10Value":"41","pm25Value":"27","o3Value":".03","no2Value":".02","coValue":".4","so2Value":".003"}],"totalCount":2},"header":{"resultCode":"00"}}}"#
        let (url, directory) = try temporaryPayload(json, name: "payload.json")
        defer { directory.remove() }
        let result = AirKoreaFixtures.decode(url, operation: "station-daily-stats")
        #expect(result.error == nil)
        #expect(result.sink.records.count == 1)
        #expect(result.sink.diagnostics.map(\.location) == ["item 0 msurDt"])
    }
}
