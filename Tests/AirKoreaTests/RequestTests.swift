import AirKorea
import Foundation
import Pipeline
import Testing

@Suite("AirKorea requests and paging")
struct RequestTests {
    let feed = AirKoreaFeed()

    func spec(_ operation: String, _ parameters: [(String, [String])], format: PayloadFormat = .xml, pageSize: Int = 100) -> SourceSpec {
        SourceSpec(operation: operation, parameters: parameters, format: format, pageSize: pageSize, maxPages: 20)
    }

    @Test("the feed names itself, its nine operations and its credential")
    func identity() {
        #expect(feed.source == "airkorea")
        #expect(feed.credentialVariable == "AIRKOREA_SERVICE_KEY")
        #expect(feed.operations == ["getMsrstnAcctoRltmMesureDnsty", "getCtprvnRltmMesureDnsty", "getMinuDustFrcstDspth",
                                    "getMsrstnList", "getNearbyMsrstnList", "getTMStdrCrdnt",
                                    "getMsrstnAcctoRDyrg", "getMsrstnAcctoRMmrg", "getUlfptcaAlarmInfo"])
        #expect(feed.credential == CredentialRequirement(environmentVariable: "AIRKOREA_SERVICE_KEY", placement: .query("serviceKey")))
        #expect(feed.baseURL.absoluteString == "https://apis.data.go.kr/B552584/")
    }

    @Test("aliases, canonical names and paths all name the same operation", arguments: [
        ("realtime-by-station", "getMsrstnAcctoRltmMesureDnsty"),
        ("realtime-by-province", "getCtprvnRltmMesureDnsty"),
        ("Realtime-By-Province", "getCtprvnRltmMesureDnsty"),
        ("forecast", "getMinuDustFrcstDspth"),
        ("stations", "getMsrstnList"),
        ("nearby-stations", "getNearbyMsrstnList"),
        ("tm-coordinates", "getTMStdrCrdnt"),
        ("getCtprvnRltmMesureDnsty", "getCtprvnRltmMesureDnsty"),
        ("ArpltnInforInqireSvc/getMinuDustFrcstDspth", "getMinuDustFrcstDspth"),
        ("MsrstnInfoInqireSvc/getTMStdrCrdnt", "getTMStdrCrdnt"),
    ])
    func aliases(name: String, canonical: String) {
        #expect(feed.canonicalOperation(name) == canonical)
    }

    @Test("a by-province spec with two provinces gives two first-page requests with paging and format parameters")
    func provinceRequests() throws {
        let requests = try feed.requests(for: spec("realtime-by-province", [("sidoName", ["서울", "부산"]), ("ver", ["1.3"])], format: .json))
        try #require(requests.count == 2)
        let first = requests[0]
        #expect(first.source == "airkorea")
        #expect(first.operation == "getCtprvnRltmMesureDnsty")
        #expect(first.baseURL.absoluteString == "https://apis.data.go.kr/B552584/ArpltnInforInqireSvc/getCtprvnRltmMesureDnsty")
        #expect(first.query == [QueryItem("returnType", "json"), QueryItem("numOfRows", "100"), QueryItem("pageNo", "1"),
                                QueryItem("sidoName", "서울"), QueryItem("ver", "1.3")])
        #expect(first.format == .json)
        #expect(first.page == 1)
        #expect(first.credential?.environmentVariable == "AIRKOREA_SERVICE_KEY")
        #expect(requests[1].parameter("sidoName") == "부산")
    }

    @Test("the display URL carries a REDACTED key placeholder and never a key")
    func displayURL() throws {
        let request = try #require(try feed.requests(for: spec("realtime-by-province", [("sidoName", ["서울"])])).first)
        let shown = request.displayURL
        #expect(shown.hasPrefix("https://apis.data.go.kr/B552584/ArpltnInforInqireSvc/getCtprvnRltmMesureDnsty?serviceKey=REDACTED&"))
        #expect(shown.contains("sidoName=%EC%84%9C%EC%9A%B8"))
        #expect(!request.query.contains { $0.name == "serviceKey" })
        let keyLike = shown.range(of: #"serviceKey=[A-Za-z0-9%+/=]{20,}"#, options: .regularExpression)
        #expect(keyLike == nil)
    }

    @Test("by-station requests get dataTerm=DAILY unless the pipeline says otherwise")
    func stationDefaults() throws {
        let daily = try #require(try feed.requests(for: spec("realtime-by-station", [("stationName", ["종로구"])])).first)
        #expect(daily.parameter("dataTerm") == "DAILY")
        let month = try #require(try feed.requests(for: spec("realtime-by-station", [("stationName", ["종로구"]), ("dataTerm", ["MONTH"])])).first)
        #expect(month.parameter("dataTerm") == "MONTH")
        #expect(month.query.filter { $0.name == "dataTerm" }.count == 1)
    }

    @Test("every operation builds a request under its service path", arguments: [
        ("forecast", [("searchDate", ["2023-06-03"]), ("InformCode", ["PM10"])], "ArpltnInforInqireSvc/getMinuDustFrcstDspth"),
        ("stations", [("addr", ["서울"])], "MsrstnInfoInqireSvc/getMsrstnList"),
        ("stations", [], "MsrstnInfoInqireSvc/getMsrstnList"),
        ("nearby-stations", [("tmX", ["244148.546388"]), ("tmY", ["412423.75772"])], "MsrstnInfoInqireSvc/getNearbyMsrstnList"),
        ("tm-coordinates", [("umdName", ["혜화동"])], "MsrstnInfoInqireSvc/getTMStdrCrdnt"),
    ] as [(String, [(String, [String])], String)])
    func paths(operation: String, parameters: [(String, [String])], path: String) throws {
        let request = try #require(try feed.requests(for: spec(operation, parameters)).first)
        #expect(request.baseURL.absoluteString == "https://apis.data.go.kr/B552584/" + path)
        for (name, values) in parameters { #expect(request.parameter(name) == values[0]) }
    }

    @Test("a loopback base URL is honoured")
    func loopbackBase() throws {
        let local = AirKoreaFeed(baseURL: URL(string: "http://127.0.0.1:8123/")!)
        let request = try #require(try local.requests(for: spec("tm-coordinates", [("umdName", ["혜화동"])])).first)
        #expect(request.baseURL.absoluteString == "http://127.0.0.1:8123/MsrstnInfoInqireSvc/getTMStdrCrdnt")
    }

    @Test("bad specs are refused with a terminal invalid-request error naming the parameter", arguments: [
        ("realtime-by-province", [("sidoName", ["서울시"])], "sidoName"),
        ("realtime-by-province", [], "sidoName"),
        ("realtime-by-province", [("sidoName", [""])], "sidoName"),
        ("realtime-by-station", [], "stationName"),
        ("realtime-by-station", [("stationName", ["종로구"]), ("dataTerm", ["WEEK"])], "dataTerm"),
        ("forecast", [("searchDate", ["2023/06/03"])], "searchDate"),
        ("forecast", [("searchDate", ["2023-02-30"])], "searchDate"),
        ("forecast", [], "searchDate"),
        ("forecast", [("searchDate", ["2023-06-03"]), ("InformCode", ["PM1"])], "InformCode"),
        ("nearby-stations", [("tmX", ["abc"]), ("tmY", ["412423.7"])], "tmX"),
        ("nearby-stations", [("tmX", ["127.0"]), ("tmY", ["37.5"])], "tmX"),
        ("nearby-stations", [("tmX", ["244148.5"])], "tmY"),
        ("tm-coordinates", [], "umdName"),
        ("stations", [("serviceKey", ["abc"])], "serviceKey"),
        ("stations", [("numOfRows", ["10"])], "numOfRows"),
        ("stations", [("colour", ["blue"])], "colour"),
        ("realtime-by-province", [("sidoName", ["서울"]), ("ver", ["one"])], "ver"),
        ("weather", [], "weather"),
    ] as [(String, [(String, [String])], String)])
    func invalid(operation: String, parameters: [(String, [String])], named: String) {
        do {
            _ = try feed.requests(for: spec(operation, parameters))
            Issue.record("expected \(operation) \(parameters) to be refused")
        } catch let error as FeedError {
            #expect(error.kind == .invalidRequest)
            #expect(error.retryability == .terminal)
            #expect(error.message.contains(named), "\(error.message)")
            #expect(error.message.hasSuffix("."), "reads as a sentence: \(error.message)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test("a page size below 1 is refused")
    func pageSize() {
        #expect(throws: FeedError.self) { try feed.requests(for: spec("stations", [], pageSize: 0)) }
    }

    @Test("request(_:page:) sets pageNo and page, and refuses page 0")
    func paging() throws {
        let first = try #require(try feed.requests(for: spec("realtime-by-province", [("sidoName", ["제주"])], pageSize: 3)).first)
        let third = try #require(feed.request(first, page: 3))
        #expect(third.parameter("pageNo") == "3")
        #expect(third.page == 3)
        #expect(third.query.filter { $0.name == "pageNo" }.count == 1)
        #expect(third.parameter("sidoName") == "제주")
        #expect(feed.request(first, page: 0) == nil)
    }

    @Test("isLastPage: an empty or short page ends paging; totalCount is never trusted", arguments: [
        (0, 100, nil, 23, true),     // empty page, even though totalCount says more
        (3, 3, 3, 4, false),         // full page
        (1, 3, 3, 4, true),          // short page
        (3, 3, 3, 0, false),         // full page although totalCount says 0 (광주/전남 report)
        (10, 10, nil, 10, false),    // full page, totalCount already reached: still ask (next page is empty)
        (1000, 10000, 1000, 50000, false), // the API capped numOfRows at 1000: a full capped page
        (999, 10000, 1000, nil, true),
    ] as [(Int, Int, Int?, Int?, Bool)])
    func lastPage(items: Int, asked: Int, echoed: Int?, total: Int?, last: Bool) throws {
        let request = try #require(try feed.requests(for: spec("realtime-by-province", [("sidoName", ["서울"])], pageSize: asked)).first)
        let summary = PageSummary(itemCount: items, reportedTotal: total, pageNo: 1, numOfRows: echoed)
        #expect(feed.isLastPage(summary, of: request) == last)
    }
}
