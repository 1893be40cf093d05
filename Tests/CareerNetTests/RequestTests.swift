import CareerNet
import Domain
import FeedCore
import Foundation
import Pipeline
import Testing
import TestSupport

/// Requests, parameter validation and paging of the CareerNet feed.
@Suite("CareerNet requests and paging")
struct RequestTests {
    let feed = CareerNetFeed()

    @Test("one request per gubun, with the fixed parameters first and no key in the request")
    func requestsPerList() throws {
        let spec = SourceSpec(operation: "schools", parameters: [("gubun", ["elem_list", "univ_list"]), ("region", ["100260"])],
                              format: .json, pageSize: 500, maxPages: 10)
        let requests = try feed.requests(for: spec)
        #expect(requests.count == 2)
        let first = try #require(requests.first)
        #expect(first.query.map(\.name) == ["svcType", "svcCode", "contentType", "gubun", "thisPage", "perPage", "region"])
        #expect(first.parameter("svcCode") == "SCHOOL")
        #expect(first.parameter("contentType") == "json")
        #expect(requests.map { $0.parameter("gubun") } == ["elem_list", "univ_list"])
        #expect(first.baseURL.absoluteString == "https://www.career.go.kr/cnet/openapi/getOpenApi")
        #expect(first.credential == CredentialRequirement(environmentVariable: "CAREERNET_API_KEY", placement: .query("apiKey")))
        #expect(first.displayURL.hasPrefix("https://www.career.go.kr/cnet/openapi/getOpenApi?apiKey=REDACTED&svcType=api"))
        #expect(feed.credentialVariable == "CAREERNET_API_KEY")
    }

    @Test("MAJOR and JOB default their gubun; contentType follows the format")
    func defaults() throws {
        let major = try #require(try feed.requests(for: SourceSpec(operation: "MAJOR", parameters: [], format: .xml, pageSize: 100, maxPages: 5)).first)
        #expect(major.parameter("gubun") == "univ_list" && major.parameter("contentType") == "xml")
        let job = try #require(try feed.requests(for: SourceSpec(operation: "jobs", parameters: [], format: .json, pageSize: 100, maxPages: 5)).first)
        #expect(job.parameter("gubun") == "job_dic_list" && job.parameter("svcCode") == "JOB")
    }

    @Test("bad operations and parameters are terminal invalid-request errors that name the problem")
    func validation() {
        func message(_ operation: String, _ parameters: [(name: String, values: [String])]) -> String? {
            invalidRequestMessage(feed, SourceSpec(operation: operation, parameters: parameters, format: .json, pageSize: 10, maxPages: 1))
        }
        #expect(message("schools", [])?.contains("gubun is required") == true)
        #expect(message("schools", [("gubun", ["kind_list"])])?.contains("elem_list") == true)
        #expect(message("schools", [("apiKey", ["x"])])?.contains("CAREERNET_API_KEY") == true)
        #expect(message("schools", [("gubun", ["univ_list"]), ("perPage", ["10"])])?.contains("set by the feed") == true)
        #expect(message("jobs", [("colour", ["red"])])?.contains("not accepted") == true)
        #expect(message("MAJOR_VIEW", [])?.contains("no operation") == true)
    }

    @Test("paging: thisPage advances; a short page, an empty page or reaching totalCount ends it")
    func paging() throws {
        let first = try #require(try feed.requests(for: SourceSpec(operation: "schools", parameters: [("gubun", ["univ_list"])],
                                                                  format: .json, pageSize: 3, maxPages: 5)).first)
        let second = try #require(feed.request(first, page: 2))
        #expect(second.parameter("thisPage") == "2" && second.page == 2)
        #expect(feed.request(first, page: 0) == nil)
        #expect(!feed.isLastPage(PageSummary(itemCount: 3, reportedTotal: 7), of: first))
        #expect(feed.isLastPage(PageSummary(itemCount: 2, reportedTotal: 7), of: second))
        #expect(feed.isLastPage(PageSummary(itemCount: 0), of: second))
        #expect(feed.isLastPage(PageSummary(itemCount: 3, reportedTotal: 6), of: second))
        #expect(!feed.isLastPage(PageSummary(itemCount: 3, reportedTotal: nil), of: second))
    }

    /// The whole live path against a loopback server: the runner's fetch-all, the real fetcher
    /// (which adds the key), the archive and the decoder, paging until the short page.
    @Test("live paging over loopback: the key is sent but never archived; paging stops at the short page")
    func loopback() async throws {
        let fakeKey = "careernet-test-key"
        func page(_ seqs: [Int]) -> Data {
            let items = seqs.map { #"{"seq":"\#($0)","schoolName":"학교\#($0)","region":"서울특별시","totalCount":"5"}"# }
            return Data(#"{"dataSearch":{"content":[\#(items.joined(separator: ","))]}}"#.utf8)
        }
        let pages = [1: page([1, 2, 3]), 2: page([4, 5])]
        let server = try LoopbackServer { request in
            guard request.path == "/cnet/openapi/getOpenApi", request.query["apiKey"] == fakeKey,
                  let body = pages[Int(request.query["thisPage"] ?? "") ?? 0] else {
                return .respond(status: 404, contentType: "text/plain", body: Data("no".utf8))
            }
            return .respond(status: 200, contentType: "application/json;charset=UTF-8", body: body)
        }
        defer { server.stop() }
        let archive = try TemporaryDirectory("careernet-archive")
        defer { archive.remove() }

        let feed = CareerNetFeed(baseURL: server.baseURL.appendingPathComponent("cnet/openapi/"))
        let fetcher = LiveFetcher(transport: CurlTransport(timeout: 10), environment: ["CAREERNET_API_KEY": fakeKey],
                                  archive: PayloadArchive(root: archive.url), clock: { Date(timeIntervalSince1970: 1_700_000_000) })
        let spec = SourceSpec(operation: "schools", parameters: [("gubun", ["elem_list"])], format: .json, pageSize: 3, maxPages: 5)
        var records: [FeedRecord] = []
        var page = 1
        let first = try #require(try feed.requests(for: spec).first)
        while page <= spec.maxPages {
            let request = try #require(feed.request(first, page: page))
            let payload = try await fetcher.fetch(request)
            var sink = CollectingSink()
            let summary = try feed.decode(payload, context: DecodeContext(request: request), into: &sink)
            records += sink.records
            let archived = try String(contentsOf: payload.file, encoding: .utf8)
            #expect(!archived.contains(fakeKey) && !request.displayURL.contains(fakeKey))
            if feed.isLastPage(summary, of: request) { break }
            page += 1
        }
        #expect(page == 2)
        #expect(records.count == 5)
        #expect(server.requests.map { $0.query["thisPage"] } == ["1", "2"])
        #expect(server.requests.allSatisfy { $0.query["perPage"] == "3" && $0.query["gubun"] == "elem_list" && $0.query["svcType"] == "api" })
    }

    @Test("live mode without the key stops at once and names CAREERNET_API_KEY")
    func missingKey() async throws {
        let archive = try TemporaryDirectory("careernet-archive")
        defer { archive.remove() }
        let fetcher = LiveFetcher(transport: CurlTransport(timeout: 1), environment: [:],
                                  archive: PayloadArchive(root: archive.url), clock: { Date() })
        let request = try #require(try feed.requests(for: SourceSpec(operation: "jobs", parameters: [], format: .json, pageSize: 10, maxPages: 1)).first)
        await #expect(throws: FeedError.self) { _ = try await fetcher.fetch(request) }
        do {
            _ = try await fetcher.fetch(request)
        } catch let error as FeedError {
            #expect(error.kind == .missingCredential("CAREERNET_API_KEY"))
            #expect(error.message.contains("CAREERNET_API_KEY"))
        }
    }
}
