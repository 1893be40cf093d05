import Domain
import FeedCore
import Foundation
import Pipeline
import Saramin
import TestSupport

/// Career records received.
extension CollectingSink {

    /// The postings received.
    var postings: [JobPosting] {
        records.compactMap { $0.as(JobPosting.self) }
    }
}


/// The Saramin fixture cases in `Data/fixtures/saramin`.
enum SaraminFixtures {
    static let feed = SaraminFeed()
    static let directory = FixturePaths.fixtures.appendingPathComponent("saramin", isDirectory: true)

    /// What recognition must name from the bytes, and the formats a case comes in.
    struct Case: Sendable {
        var recognised: Bool
        var formats: [PayloadFormat] = [.json, .xml]
    }

    static let cases: [String: Case] = [
        "job-search-sample": Case(recognised: true),
        "quirks": Case(recognised: true),
        "job-search-updated": Case(recognised: true),
        "empty": Case(recognised: true),
        "error-invalid-key": Case(recognised: false),
        "error-call-limit": Case(recognised: false),
        "truncated-json": Case(recognised: true, formats: [.json]),
        "truncated-xml": Case(recognised: true, formats: [.xml]),
    ]

    /// Every payload file (`*.xml`, `*.json`), sorted.
    static var files: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".xml") || $0.hasSuffix(".json") }.sorted()
    }

    /// Case names that have both an XML and a JSON payload.
    static var pairedCases: [String] {
        cases.keys.filter { files.contains($0 + ".xml") && files.contains($0 + ".json") }.sorted()
    }

    static func url(_ file: String) -> URL { directory.appendingPathComponent(file) }

    static func caseName(of file: String) -> String { URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent }

    static func format(of file: String) -> PayloadFormat { file.hasSuffix(".xml") ? .xml : .json }

    /// The first-page request the fixtures stand for (`job_mid_cd=2,15`, 110 per page).
    static func request(format: PayloadFormat) throws -> FeedRequest {
        let spec = SourceSpec(operation: "job-search", parameters: [("job_mid_cd", ["2,15"])], format: format, pageSize: 110, maxPages: 10)
        guard let request = try feed.requests(for: spec).first else { throw FixtureError.noRequest }
        return request
    }

    /// Decodes fixture `file` as fetched by the standard request.
    static func decode(_ file: String) throws -> DecodeResult {
        decode(url(file), request: try request(format: format(of: file)))
    }

    /// Decodes any file, with or without the request that fetched it.
    static func decode(_ file: URL, request: FeedRequest?) -> DecodeResult {
        var sink = CollectingSink()
        do {
            let payload = try PayloadArchive.payload(forFile: file, request: request, source: "saramin", operation: request?.operation,
                                                     format: nil, fetchedAt: Date(timeIntervalSince1970: 1_700_000_000))
            let summary = try feed.decode(payload, context: DecodeContext(request: request), into: &sink)
            return DecodeResult(sink: sink, summary: summary, error: nil)
        } catch {
            return DecodeResult(sink: sink, summary: nil, error: error)
        }
    }

    enum FixtureError: Error {
        case noRequest
    }
}

/// A scratch file for payloads built inside a test.
func temporaryPayload(_ text: String, name: String) throws -> (URL, TemporaryDirectory) {
    let directory = try TemporaryDirectory("saramin-test")
    let url = directory.path(name)
    try Data(text.utf8).write(to: url)
    return (url, directory)
}

/// `2021-09-27T09:17:21Z` for Unix seconds.
func utc(_ seconds: TimeInterval) -> String { iso8601UTC(Date(timeIntervalSince1970: seconds)) }
