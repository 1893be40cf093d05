import AirKorea
import Domain
import FeedCore
import Foundation
import Pipeline
import Testing
import TestSupport

@Suite("AirKorea paging")
struct PagingTests {
    let feed = AirKoreaFeed()

    @Test("two pages of 제주 (numOfRows=3): a full first page, then a short last page", arguments: [PayloadFormat.xml, .json])
    func twoPages(format: PayloadFormat) throws {
        let spec = SourceSpec(operation: "realtime-by-province", parameters: [("sidoName", ["제주"]), ("ver", ["1.3"])],
                              format: format, pageSize: 3, maxPages: 10)
        let first = try #require(try feed.requests(for: spec).first)

        let page1 = AirKoreaFixtures.decode(AirKoreaFixtures.url("realtime-province-page1.\(format.rawValue)"), request: first,
                                            context: DecodeContext(request: first))
        let summary1 = try #require(page1.summary)
        #expect(summary1 == PageSummary(itemCount: 3, reportedTotal: 4, pageNo: 1, numOfRows: 3))
        #expect(!feed.isLastPage(summary1, of: first))

        let second = try #require(feed.request(first, page: 2))
        #expect(second.parameter("pageNo") == "2")
        let page2 = AirKoreaFixtures.decode(AirKoreaFixtures.url("realtime-province-page2.\(format.rawValue)"), request: second,
                                            context: DecodeContext(request: second))
        let summary2 = try #require(page2.summary)
        #expect(summary2 == PageSummary(itemCount: 1, reportedTotal: 4, pageNo: 2, numOfRows: 3))
        #expect(feed.isLastPage(summary2, of: second))

        let stations = (page1.sink.records + page2.sink.records).compactMap { record -> String? in
            if let m = record.as(HourlyMeasurement.self) { return m.stationName }
            return nil
        }
        #expect(stations == ["이도동", "연동", "노형로", "동홍동"])
    }

    /// The whole live path against a loopback server: the feed's requests, the real fetcher
    /// (which adds the key), the archive, and the decoder, paging until the short page.
    @Test("live paging over loopback: the key is sent but never archived or shown; paging stops at the short page")
    func loopback() async throws {
        let fakeKey = "test-key-for-loopback"
        let pages = [
            1: try Data(contentsOf: AirKoreaFixtures.url("realtime-province-page1.xml")),
            2: try Data(contentsOf: AirKoreaFixtures.url("realtime-province-page2.xml")),
        ]
        let server = try LoopbackServer { request in
            let page = Int(request.query["pageNo"] ?? "") ?? 0
            guard request.path == "/ArpltnInforInqireSvc/getCtprvnRltmMesureDnsty", request.query["serviceKey"] == "test-key-for-loopback",
                  let body = pages[page] else {
                return .respond(status: 404, contentType: "text/plain", body: Data("no".utf8))
            }
            return .respond(status: 200, contentType: "text/xml;charset=UTF-8", body: body)
        }
        defer { server.stop() }
        let archiveDirectory = try TemporaryDirectory("airkorea-archive")
        defer { archiveDirectory.remove() }

        let feed = AirKoreaFeed(baseURL: server.baseURL)
        let fetcher = LiveFetcher(transport: CurlTransport(timeout: 10), environment: ["AIRKOREA_SERVICE_KEY": fakeKey],
                                  archive: PayloadArchive(root: archiveDirectory.url), clock: { Date(timeIntervalSince1970: 1_684_000_000) })
        let spec = SourceSpec(operation: "realtime-by-province", parameters: [("sidoName", ["제주"])], format: .xml, pageSize: 3, maxPages: 5)
        let first = try #require(try feed.requests(for: spec).first)

        var records: [FeedRecord] = []
        var page = 1
        while page <= spec.maxPages {
            let request = try #require(feed.request(first, page: page))
            let payload = try await fetcher.fetch(request)
            var sink = CollectingSink()
            let summary = try feed.decode(payload, context: DecodeContext(request: request), into: &sink)
            records += sink.records
            #expect(!payload.file.path.contains(fakeKey))
            #expect(!(request.displayURL.contains(fakeKey)))
            if feed.isLastPage(summary, of: request) { break }
            page += 1
        }
        #expect(page == 2)
        #expect(records.count == 4)
        #expect(server.requests.map { $0.query["pageNo"] } == ["1", "2"])
        #expect(server.requests.allSatisfy { $0.query["numOfRows"] == "3" && $0.query["returnType"] == "xml" && $0.query["sidoName"] == "제주" })
    }
}
