import CareerNet
import Domain
import FeedCore
import Foundation
import Pipeline
import TestSupport

/// Career records received.
extension CollectingSink {

    /// The career records received.
    var careerRecords: [CareerRecord] { records.compactMap { record -> CareerRecord? in
        if let s = record.as(School.self) { return .school(s) }
        if let m = record.as(Major.self) { return .major(m) }
        return record.as(JobInfo.self).map(CareerRecord.jobInfo)
    } }
    var schools: [School] { careerRecords.compactMap { if case .school(let s) = $0 { s } else { nil } } }
    var majors: [Major] { careerRecords.compactMap { if case .major(let m) = $0 { m } else { nil } } }
    var jobs: [JobInfo] { careerRecords.compactMap { if case .jobInfo(let j) = $0 { j } else { nil } } }
}


/// The CareerNet fixture cases in `Data/fixtures/careernet` and how each was requested.
enum CareerNetFixtures {
    static let feed = CareerNetFeed()
    static let directory = FixturePaths.fixtures.appendingPathComponent("careernet", isDirectory: true)

    /// How a case was requested (operation alias and `gubun`), what recognition must name, and
    /// the formats it comes in (a truncated XML page delivers items before failing, a truncated
    /// JSON page none, so those two are separate cases).
    struct Case: Sendable {
        var operation: String
        var gubun: String?
        var recognisedAs: String
        var formats: [PayloadFormat] = [.json, .xml]
    }

    static let cases: [String: Case] = [
        "school-univ_list": Case(operation: "schools", gubun: "univ_list", recognisedAs: "SCHOOL"),
        "school-high_list": Case(operation: "schools", gubun: "high_list", recognisedAs: "SCHOOL"),
        "school-elem_list": Case(operation: "schools", gubun: "elem_list", recognisedAs: "SCHOOL"),
        "school-midd_list": Case(operation: "schools", gubun: "midd_list", recognisedAs: "SCHOOL"),
        "school-seet_list": Case(operation: "schools", gubun: "seet_list", recognisedAs: "SCHOOL"),
        "school-alte_list": Case(operation: "schools", gubun: "alte_list", recognisedAs: "SCHOOL"),
        "major-univ_list": Case(operation: "majors", gubun: nil, recognisedAs: "MAJOR"),
        "job-job_dic_list": Case(operation: "jobs", gubun: nil, recognisedAs: "JOB"),
        "error-invalid-key": Case(operation: "schools", gubun: "univ_list", recognisedAs: "SCHOOL"),
        "error-traffic-exceeded": Case(operation: "schools", gubun: "high_list", recognisedAs: "SCHOOL"),
        "empty": Case(operation: "schools", gubun: "univ_list", recognisedAs: "SCHOOL"),
        "truncated-json": Case(operation: "schools", gubun: "elem_list", recognisedAs: "SCHOOL", formats: [.json]),
        "truncated-xml": Case(operation: "schools", gubun: "elem_list", recognisedAs: "SCHOOL", formats: [.xml]),
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

    /// The first-page request of a case, in `format`.
    static func request(for c: Case, format: PayloadFormat, pageSize: Int = 10) throws -> FeedRequest {
        let parameters: [(name: String, values: [String])] = c.gubun.map { [("gubun", [$0])] } ?? []
        let spec = SourceSpec(operation: c.operation, parameters: parameters, format: format, pageSize: pageSize, maxPages: 10)
        guard let request = try feed.requests(for: spec).first else { throw FixtureError.noRequest(c.operation) }
        return request
    }

    /// Decodes fixture `file` as its case was requested.
    static func decode(_ file: String) throws -> DecodeResult {
        guard let c = cases[caseName(of: file)] else { throw FixtureError.noCase(caseName(of: file)) }
        let request = try request(for: c, format: format(of: file))
        return decode(url(file), request: request)
    }

    /// Decodes any file, with or without the request that fetched it.
    static func decode(_ file: URL, request: FeedRequest?, feed: CareerNetFeed = feed) -> DecodeResult {
        var sink = CollectingSink()
        do {
            let payload = try PayloadArchive.payload(forFile: file, request: request, source: "careernet", operation: request?.operation,
                                                     format: nil, fetchedAt: Date(timeIntervalSince1970: 1_700_000_000))
            let summary = try feed.decode(payload, context: DecodeContext(request: request), into: &sink)
            return DecodeResult(sink: sink, summary: summary, error: nil)
        } catch {
            return DecodeResult(sink: sink, summary: nil, error: error)
        }
    }

    enum FixtureError: Error, CustomStringConvertible {
        case noCase(String)
        case noRequest(String)

        var description: String {
            switch self {
            case .noCase(let name): "The fixture case \(name) has no entry in CareerNetFixtures.cases; add how it was requested."
            case .noRequest(let name): "No request could be built for the operation \(name)."
            }
        }
    }
}

/// A scratch file for payloads built inside a test.
func temporaryPayload(_ text: String, name: String) throws -> (URL, TemporaryDirectory) {
    let directory = try TemporaryDirectory("careernet-test")
    let url = directory.path(name)
    try Data(text.utf8).write(to: url)
    return (url, directory)
}
