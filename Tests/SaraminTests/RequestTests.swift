import Domain
import FeedCore
import Foundation
import Pipeline
import Saramin
import Testing
import TestSupport

/// Requests, parameter validation, paging and incremental narrowing of the Saramin feed.
@Suite("Saramin requests and paging")
struct RequestTests {
    let feed = SaraminFeed()

    @Test("the format goes in the Accept header, paging in count/start, the key nowhere in the request")
    func request() throws {
        let spec = SourceSpec(operation: "job-search", parameters: [("job_mid_cd", ["2,15"]), ("loc_cd", ["101000", "102000"])],
                              format: .xml, pageSize: 110, maxPages: 10)
        let requests = try feed.requests(for: spec)
        #expect(requests.count == 2)
        let first = try #require(requests.first)
        #expect(first.headers["Accept"] == "application/xml")
        #expect(first.query.map(\.name) == ["count", "start", "job_mid_cd", "loc_cd"])
        #expect(first.parameter("count") == "110" && first.parameter("start") == "0")
        #expect(first.baseURL.absoluteString == "https://oapi.saramin.co.kr/job-search")
        #expect(first.credential == CredentialRequirement(environmentVariable: "SARAMIN_ACCESS_KEY", placement: .query("access-key")))
        #expect(first.displayURL.contains("access-key=REDACTED"))
        let json = try #require(try feed.requests(for: SourceSpec(operation: "job-search", parameters: [], format: .json, pageSize: 50, maxPages: 1)).first)
        #expect(json.headers["Accept"] == "application/json")
    }

    @Test("bad operations and parameters are terminal invalid-request errors that name the problem")
    func validation() {
        func message(_ operation: String, _ parameters: [(name: String, values: [String])], pageSize: Int = 110) -> String? {
            invalidRequestMessage(feed, SourceSpec(operation: operation, parameters: parameters, format: .json, pageSize: pageSize, maxPages: 1))
        }
        #expect(message("job-search", [], pageSize: 1000)?.contains("1…110") == true)
        #expect(message("job-search", [("access-key", ["x"])])?.contains("SARAMIN_ACCESS_KEY") == true)
        #expect(message("job-search", [("start", ["3"])])?.contains("set by the feed") == true)
        #expect(message("job-search", [("colour", ["red"])])?.contains("not accepted") == true)
        #expect(message("job-search", [("updated_min", ["yesterday"])])?.contains("Unix seconds") == true)
        #expect(message("company-search", [])?.contains("no operation") == true)
        #expect(message("job-search", [("keywords", ["iOS 개발"])]) == nil)
    }

    @Test("paging: start is the 0-based page; a short page, an empty page or reaching total ends it")
    func paging() throws {
        let first = try #require(try feed.requests(for: SourceSpec(operation: "job-search", parameters: [], format: .json, pageSize: 2, maxPages: 9)).first)
        let third = try #require(feed.request(first, page: 3))
        #expect(third.parameter("start") == "2" && third.page == 3)
        #expect(feed.request(first, page: 0) == nil)
        #expect(!feed.isLastPage(PageSummary(itemCount: 2, reportedTotal: 5, pageNo: 0, numOfRows: 2), of: first))
        #expect(feed.isLastPage(PageSummary(itemCount: 2, reportedTotal: 6, pageNo: 2, numOfRows: 2), of: third))
        #expect(feed.isLastPage(PageSummary(itemCount: 1, reportedTotal: 99, pageNo: 2, numOfRows: 1), of: third))
        #expect(feed.isLastPage(PageSummary(itemCount: 0), of: third))
    }

    @Test("incremental: a bookmark becomes updated_min on every request; a bookmark that is not Unix seconds, or a pipeline's own updated_min, leaves the spec alone")
    func resuming() throws {
        let spec = SourceSpec(operation: "job-search", parameters: [("job_mid_cd", ["2", "3"])], format: .json, pageSize: 110, maxPages: 9)
        let resumed = feed.resuming(spec, bookmarks: [SaraminFeed.modificationBookmark: " 1632736070 ", "other": "x"])
        let requests = try feed.requests(for: resumed)
        #expect(requests.count == 2)
        #expect(requests.allSatisfy { $0.parameter("updated_min") == "1632736070" })
        #expect(requests.map { $0.parameter("job_mid_cd") } == ["2", "3"])
        #expect(feed.resuming(spec, bookmarks: [SaraminFeed.modificationBookmark: "2021-09-27T09:47:50Z"]) == spec)
        #expect(feed.resuming(spec, bookmarks: [:]) == spec)
        var own = spec
        own.parameters.append(("updated_min", ["1600000000"]))
        #expect(feed.resuming(own, bookmarks: [SaraminFeed.modificationBookmark: "1632736070"]) == own)
        #expect(SaraminFeed.modificationBookmark == "newest_modification_timestamp")
    }

    /// The live path against a loopback server: three pages of two postings out of a total of
    /// five, with the key sent as `access-key` and the format in the Accept header.
    @Test("live paging over loopback stops at total; the key is sent but never archived")
    func loopback() async throws {
        let fakeKey = "saramin-test-key"
        func page(_ ids: [Int], start: Int) -> Data {
            let jobs = ids.map { id in
                #"{"id":"\#(id)","active":1,"position":{"title":"공고 \#(id)","location":{"code":"101010","name":"서울 &gt; 강남구"},"experience-level":{"code":1,"min":0,"max":0,"name":"신입"}},"modification-timestamp":"\#(1_632_700_000 + id)"}"#
            }
            return Data(#"{"jobs":{"count":\#(ids.count),"start":\#(start),"total":"5","job":[\#(jobs.joined(separator: ","))]}}"#.utf8)
        }
        let pages = [0: page([1, 2], start: 0), 1: page([3, 4], start: 1), 2: page([5], start: 2)]
        let server = try LoopbackServer { request in
            guard request.path == "/job-search", request.query["access-key"] == fakeKey, request.headers.contains(where: {
                $0.key.lowercased() == "accept" && $0.value == "application/json"
            }), let body = pages[Int(request.query["start"] ?? "") ?? -1] else {
                return .respond(status: 403, contentType: "text/plain", body: Data("no".utf8))
            }
            return .respond(status: 200, contentType: "application/json", body: body)
        }
        defer { server.stop() }
        let archive = try TemporaryDirectory("saramin-archive")
        defer { archive.remove() }
        let feed = SaraminFeed(baseURL: server.baseURL)
        let fetcher = LiveFetcher(transport: CurlTransport(timeout: 10), environment: ["SARAMIN_ACCESS_KEY": fakeKey],
                                  archive: PayloadArchive(root: archive.url), clock: { Date(timeIntervalSince1970: 1_700_000_000) })
        let spec = SourceSpec(operation: "job-search", parameters: [], format: .json, pageSize: 2, maxPages: 9)
        let first = try #require(try feed.requests(for: spec).first)
        var ids: [String] = []
        var page = 1
        while page <= spec.maxPages {
            let request = try #require(feed.request(first, page: page))
            let payload = try await fetcher.fetch(request)
            var sink = CollectingSink()
            let summary = try feed.decode(payload, context: DecodeContext(request: request), into: &sink)
            ids += sink.postings.map(\.id)
            #expect(try !String(contentsOf: payload.file, encoding: .utf8).contains(fakeKey))
            if feed.isLastPage(summary, of: request) { break }
            page += 1
        }
        #expect(ids == ["1", "2", "3", "4", "5"])
        #expect(server.requests.map { $0.query["start"] } == ["0", "1", "2"])
        #expect(server.requests.allSatisfy { $0.query["count"] == "2" })
    }

    @Test("live mode without the key stops at once and names SARAMIN_ACCESS_KEY")
    func missingKey() async throws {
        let archive = try TemporaryDirectory("saramin-archive")
        defer { archive.remove() }
        let fetcher = LiveFetcher(transport: CurlTransport(timeout: 1), environment: ["SARAMIN_ACCESS_KEY": "  "],
                                  archive: PayloadArchive(root: archive.url), clock: { Date() })
        let request = try #require(try feed.requests(for: SourceSpec(operation: "job-search", parameters: [], format: .json, pageSize: 10, maxPages: 1)).first)
        do {
            _ = try await fetcher.fetch(request)
            Issue.record("the fetch should have failed")
        } catch let error as FeedError {
            #expect(error.kind == .missingCredential("SARAMIN_ACCESS_KEY"))
            #expect(error.retryability == .terminal)
        }
    }
}
