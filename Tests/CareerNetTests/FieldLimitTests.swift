import CareerNet
import Domain
import Foundation
import Pipeline
import Testing
import TestSupport

/// Over-long values are refused with a diagnostic naming the field and its length; documented
/// free text may be longer; NULs are removed with a diagnostic — in both formats.
@Suite("CareerNet field limits")
struct FieldLimitTests {
    static let long = String(repeating: "가", count: 2_000)       // 6,000 bytes: over 4 KiB
    static let prose = String(repeating: "설명", count: 5_000)    // 30,000 bytes: under 64 KiB

    func request(_ format: PayloadFormat) throws -> FeedRequest {
        let spec = SourceSpec(operation: "JOB", parameters: [("gubun", ["job_dic_list"])], format: format, pageSize: 10, maxPages: 1)
        return try #require(try CareerNetFeed().requests(for: spec).first)
    }

    @Test(arguments: ["json", "xml"])
    func longNamesAreRefusedLongProseIsKept(format: String) throws {
        let text = format == "json"
            ? #"{"dataSearch":{"content":[{"jobdicSeq":"1","job":"\#(Self.long)","summary":"\#(Self.prose)","totalCount":"1"},"#
                + #"{"jobdicSeq":"2","job":"N\u0000UL","summary":"짧은 설명","totalCount":"1"}]}}"#
            : "<dataSearch><content><jobdicSeq>1</jobdicSeq><job>\(Self.long)</job><summary>\(Self.prose)</summary><totalCount>1</totalCount></content>"
                + "<content><jobdicSeq>2</jobdicSeq><job>Short</job><summary>짧은 설명</summary><totalCount>1</totalCount></content></dataSearch>"
        let (file, directory) = try temporaryPayload(text, name: "job.\(format)")
        defer { directory.remove() }
        let result = CareerNetFixtures.decode(file, request: try request(format == "json" ? .json : .xml))
        #expect(result.error == nil, "\(String(describing: result.error))")
        let tooLong = result.sink.diagnostics.filter { $0.code.rawValue == "field-too-long" }
        #expect(tooLong.map(\.location) == ["item 0 job"] && tooLong.first?.value == "6000", "\(result.sink.diagnostics)")
        #expect(result.sink.records.count == 2)
        let jobs = result.sink.jobs
        #expect(jobs.first?.summary == Self.prose, "free text up to 64 KiB is kept")
        #expect(!jobs.contains { ($0.name?.utf8.count ?? 0) > 4096 })
        if format == "json" {
            #expect(jobs.last?.name == "NUL")
            #expect(result.sink.diagnostics.contains { $0.code.rawValue == "nul-removed" && $0.location == "item 1 job" })
        }
    }

    /// 72,000 bytes: over the 64 KiB a prose field may hold.
    static let tooLongProse = String(repeating: "설명", count: 12_000)

    @Test("a prose field over 64 KiB is refused with field-too-long, in both formats", arguments: ["json", "xml"])
    func proseOverItsLimitIsRefused(format: String) throws {
        let text = format == "json"
            ? #"{"dataSearch":{"content":[{"jobdicSeq":"1","job":"Job","summary":"\#(Self.tooLongProse)","totalCount":"1"}]}}"#
            : "<dataSearch><content><jobdicSeq>1</jobdicSeq><job>Job</job><summary>\(Self.tooLongProse)</summary><totalCount>1</totalCount></content></dataSearch>"
        let (file, directory) = try temporaryPayload(text, name: "job.\(format)")
        defer { directory.remove() }
        let result = CareerNetFixtures.decode(file, request: try request(format == "json" ? .json : .xml))
        #expect(result.error == nil, "\(String(describing: result.error))")
        let tooLong = result.sink.diagnostics.filter { $0.code.rawValue == "field-too-long" }
        #expect(tooLong.map(\.location) == ["item 0 summary"] && tooLong.first?.value == "72000", "\(result.sink.diagnostics)")
        #expect(result.sink.jobs.first?.name == "Job")
        #expect(result.sink.jobs.first?.summary == nil, "the over-long value is refused, never stored or cut")
    }

    @Test func loneSurrogatesBecomeReplacementCharactersWithADiagnostic() throws {
        let text = #"{"dataSearch":{"content":[{"jobdicSeq":"1","job":"A\udc00B","totalCount":"1"}]}}"#
        let (file, directory) = try temporaryPayload(text, name: "job.json")
        defer { directory.remove() }
        let result = CareerNetFixtures.decode(file, request: try request(.json))
        #expect(result.error == nil, "\(String(describing: result.error))")
        #expect(result.sink.jobs.first?.name == "A\u{FFFD}B")
        #expect(result.sink.diagnostics.map { "\($0.code.rawValue) \($0.location)" } == ["lone-surrogate item 0 job"])
    }
}
