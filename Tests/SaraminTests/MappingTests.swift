import Domain
import Foundation
import Pipeline
import Saramin
import Testing
import TestSupport

/// Given/when/then examples for the Saramin quirks, on the fixture payloads.
@Suite("Saramin mapping")
struct MappingTests {
    @Test("timestamps are Unix-second strings stored as UTC instants; total is a string, start the page", arguments: ["json", "xml"])
    func timestampsAndEnvelope(format: String) throws {
        let result = try SaraminFixtures.decode("job-search-sample.\(format)")
        #expect(result.summary == PageSummary(itemCount: 5, reportedTotal: 28327, pageNo: 0, numOfRows: 110))
        let first = try #require(result.sink.postings.first)
        #expect(first.id == "41232704")
        #expect(first.postedAt.map(iso8601UTC) == "2021-09-27T09:17:21Z")
        #expect(first.expiresAt.map(iso8601UTC) == "2021-10-27T14:59:59Z")  // 2021-10-27 23:59:59 KST
        #expect(first.openEnded == false)
        #expect(first.experience == ExperienceLevel(code: 2, minYears: 10, maxYears: 17, name: "경력 10~17년"))
        #expect(first.company == "(주)헬로서치")
        #expect(first.companyURL?.hasPrefix("http://www.saramin.co.kr/zf_user/company-info/view?csn=2208749985") == true)
    }

    @Test("far-future 2033 expirations mean no deadline: NULL plus the close type", arguments: ["json", "xml"])
    func sentinelDeadlines(format: String) throws {
        let postings = try SaraminFixtures.decode("job-search-sample.\(format)").sink.postings
        let byID = Dictionary(uniqueKeysWithValues: postings.map { ($0.id, $0) })
        #expect(byID["41232680"]?.expiresAt == nil && byID["41232680"]?.openEnded == true)
        #expect(byID["41232680"]?.closeType == CodeName(code: "2", name: "채용시"))
        #expect(byID["41232511"]?.expiresAt == nil && byID["41232511"]?.closeType == CodeName(code: "3", name: "상시채용"))
    }

    @Test("multi-valued fields are lists, paired only when their counts agree", arguments: ["json", "xml"])
    func multiValuedFields(format: String) throws {
        let postings = try SaraminFixtures.decode("job-search-sample.\(format)").sink.postings
        let last = try #require(postings.last)
        #expect(last.jobTypes.entries == [CodedEntry(code: "2", name: "계약직"), CodedEntry(code: "5", name: "아르바이트"),
                                          CodedEntry(code: "9", name: "프리랜서")])
        #expect(last.jobCodes.codes == ["405", "1600"])
        #expect(last.jobCodes.names == ["상하수도", "폐수처리", "환경", "사무보조", "일러스트"])
        #expect(!last.jobCodes.isPaired)
        #expect(last.jobCodes.entries.filter { $0.code != nil && $0.name != nil }.isEmpty, "never zipped")
        #expect(last.jobCategories.isEmpty)
        #expect(last.keywords == ["상하수도", "폐수처리", "환경"])
        #expect(last.salary == CodeName(code: "101", name: nil))
    }

    @Test("quirks: &gt; unescaped, several locations, salary without a name, absent job-category, 신입/경력", arguments: ["json", "xml"])
    func quirks(format: String) throws {
        let result = try SaraminFixtures.decode("quirks.\(format)")
        let byID = Dictionary(uniqueKeysWithValues: result.sink.postings.map { ($0.id, $0) })
        let first = try #require(byID["90000001"])
        #expect(first.title == "백엔드 & 데이터 엔지니어")
        #expect(first.locations.names == ["서울 > 강남구", "서울 > 서초구", "경기 > 경기전체"])
        #expect(first.locations.codes == ["101010", "101150", "102000"])
        #expect(first.experience?.code == 1)
        #expect(byID["90000002"]?.salary == CodeName(code: "104", name: nil))
        #expect(byID["90000002"]?.jobCategories.isEmpty == true)
        #expect(byID["90000002"]?.company == "(주)헬로서치")
        #expect(byID["90000003"]?.openEnded == true && byID["90000003"]?.expiresAt == nil)
        #expect(byID["90000005"]?.active == false)
        #expect(byID["90000006"]?.postedAt == nil && byID["90000006"]?.opensAt == nil)
        #expect(byID["90000008"]?.active == nil && byID["90000008"]?.experience?.code == nil)
        #expect(byID.count == 7, "the job without an id is skipped")
        let codes = result.sink.diagnostics.map(\.code.rawValue)
        #expect(codes == ["missing-value", "open-ended-deadline", "unpaired-codes", "unparsable-timestamp", "implausible-timestamp",
                          "missing-value", "unparsable-flag", "unparsable-number"])
        #expect(JobPosting.province(ofLocation: "서울 > 강남구") == "서울")
        #expect(JobPosting.province(ofLocation: "전국") == "전국")
    }

    @Test("error answers are typed: a bad key is terminal, a call limit transient; neither is an empty success", arguments: ["json", "xml"])
    func errors(format: String) throws {
        let key = try SaraminFixtures.decode("error-invalid-key.\(format)")
        #expect(key.feedError?.kind == .api(code: "3", name: "INVALID_ACCESS_KEY"))
        #expect(key.feedError?.retryability == .terminal)
        #expect(key.feedError?.message.contains("SARAMIN_ACCESS_KEY") == true)
        #expect(key.summary == nil)
        let limit = try SaraminFixtures.decode("error-call-limit.\(format)")
        #expect(limit.feedError?.kind == .api(code: "4", name: "CALL_LIMIT_EXCEEDED"))
        #expect(limit.feedError?.retryability == .transient)
    }

    @Test("an empty result is not an error", arguments: ["json", "xml"])
    func empty(format: String) throws {
        let result = try SaraminFixtures.decode("empty.\(format)")
        #expect(result.error == nil)
        #expect(result.summary == PageSummary(itemCount: 0, reportedTotal: 0, pageNo: 0, numOfRows: 0))
    }

    @Test("truncated downloads are malformed and terminal", arguments: ["truncated-json.json", "truncated-xml.xml"])
    func truncated(file: String) throws {
        let result = try SaraminFixtures.decode(file)
        #expect(result.feedError?.kind == .malformed && result.feedError?.retryability == .terminal)
    }

    @Test("a DOCTYPE is refused rather than expanded")
    func doctypeRefused() throws {
        let (file, directory) = try temporaryPayload("""
            <?xml version="1.0"?>
            <!DOCTYPE job-search [<!ENTITY boom "boom">]>
            <job-search><jobs count="0" start="0" total="0"></jobs></job-search>
            """, name: "doctype.xml")
        defer { directory.remove() }
        let result = SaraminFixtures.decode(file, request: nil)
        #expect(result.feedError?.kind == .malformed)
        #expect(result.feedError?.message.contains("DOCTYPE") == true)
    }

    @Test("a DOCTYPE after the first 4 KiB is refused too")
    func lateDoctypeRefused() throws {
        let padding = "<!--" + String(repeating: " padding", count: 1_000) + " -->\n"  // 8 KiB before the DOCTYPE
        let (file, directory) = try temporaryPayload("""
            <?xml version="1.0"?>
            \(padding)<!DOCTYPE job-search [<!ENTITY boom "boom">]>
            <job-search><jobs count="1" start="0" total="1"><job><id>&boom;</id></job></jobs></job-search>
            """, name: "late-doctype.xml")
        defer { directory.remove() }
        let result = SaraminFixtures.decode(file, request: nil)
        #expect(result.feedError?.kind == .malformed)
        #expect(result.feedError?.message.contains("DOCTYPE") == true, "\(String(describing: result.error))")
        #expect(result.sink.records.isEmpty)
    }

    @Test("an entity declared nowhere is not expanded: the document is malformed")
    func undeclaredEntityRefused() throws {
        let (file, directory) = try temporaryPayload("""
            <job-search><jobs count="1" start="0" total="1"><job><id>&boom;</id></job></jobs></job-search>
            """, name: "entity.xml")
        defer { directory.remove() }
        let result = SaraminFixtures.decode(file, request: nil)
        #expect(result.feedError?.kind == .malformed)
        #expect(result.sink.records.isEmpty)
    }

    @Test("a cut-off JSON page delivers none of its complete jobs")
    func truncatedJSONDeliversNothing() throws {
        let result = try SaraminFixtures.decode("truncated-json.json")
        #expect(result.feedError?.kind == .malformed)
        #expect(result.sink.records.isEmpty && result.sink.diagnostics.isEmpty)
    }
}
