import CareerNet
import Domain
import Foundation
import Pipeline
import Testing
import TestSupport

/// Given/when/then examples for the CareerNet quirks, on the fixture payloads.
@Suite("CareerNet mapping")
struct MappingTests {
    @Test("campuses of one university are separate schools keyed by their opaque seq", arguments: ["json", "xml"])
    func campusesAreSeparateRows(format: String) throws {
        let result = try CareerNetFixtures.decode("school-univ_list.\(format)")
        let gachon = result.sink.schools.filter { $0.name == "가천대학교" }
        #expect(gachon.map(\.campus) == ["메디컬캠퍼스", "본교"])
        #expect(gachon.map(\.key) == ["21005.0", "900001.0"])
        #expect(result.sink.schools.allSatisfy { $0.list == "univ_list" })
        #expect(result.summary?.reportedTotal == 444)
    }

    @Test("\"\" and the string \"null\" are missing values, never stored as text", arguments: ["json", "xml"])
    func emptyAndNullAreMissing(format: String) throws {
        let result = try CareerNetFixtures.decode("school-univ_list.\(format)")
        let kyunghee = try #require(result.sink.schools.first { $0.name == "경희대학교" })
        #expect(kyunghee.category == nil && kyunghee.kind == nil && kyunghee.establishment == nil && kyunghee.address == nil)
        let gachonMain = try #require(result.sink.schools.first { $0.key == "900001.0" })
        #expect(gachonMain.homepage == nil && gachonMain.address == nil && gachonMain.collegeInfoURL == nil)
        let padded = try #require(result.sink.schools.first { $0.key == "900002.0" })
        #expect(padded.homepage == "http://www.example.ac.kr")
        #expect(padded.address == "서울특별시 종로구 예시로 1")
    }

    @Test("a school without seq gets a derived key and a diagnostic; one without a name is skipped with a diagnostic")
    func missingKeyAndName() throws {
        let result = try CareerNetFixtures.decode("school-high_list.json")
        #expect(result.sink.schools.map(\.key) == ["800001", "name:부산광역시/시범고등학교/"])
        #expect(result.sink.schools.allSatisfy { $0.list == "high_list" && $0.campus == nil })
        #expect(result.sink.diagnostics.map(\.code.rawValue) == ["derived-key", "missing-value"])
        #expect(result.summary?.itemCount == 3)
    }

    @Test("facilName becomes an ordered list of departments without repeats; parentheses keep their commas", arguments: ["json", "xml"])
    func departments(format: String) throws {
        let result = try CareerNetFixtures.decode("major-univ_list.\(format)")
        let majors = Dictionary(uniqueKeysWithValues: result.sink.majors.map { ($0.seq, $0) })
        #expect(majors["10001"]?.departments == ["컴퓨터공학과", "소프트웨어학과", "컴퓨터소프트웨어공학과"])
        #expect(majors["10002"]?.departments == ["국어국문학과", "한국어문학과(국어학,문학)"])
        #expect(majors["10003"]?.departments == [])
        #expect(majors.count == 3)
        #expect(result.sink.diagnostics.map(\.code.rawValue) == ["missing-value"])
    }

    @Test("the JOB list's `salery` (sic) becomes salary; \"null\" salaries are missing; CRLF folds to LF", arguments: ["json", "xml"])
    func jobSalary(format: String) throws {
        let result = try CareerNetFixtures.decode("job-job_dic_list.\(format)")
        let jobs = Dictionary(uniqueKeysWithValues: result.sink.jobs.map { ($0.seq, $0) })
        #expect(jobs["375"]?.salary == "4000 만원 이상")
        #expect(jobs["375"]?.summary == "컴퓨터 프로그램을 설계하고 개발한다.\n사용자의 요구를 분석한다.")
        #expect(jobs["375"]?.prospect == nil)
        #expect(jobs["212"]?.salary == nil)
        #expect(jobs["212"]?.similarJobs == nil)
        #expect(jobs.count == 2)
    }

    @Test("an error message inside content is a typed terminal error for a bad key, transient for traffic limits",
          arguments: ["json", "xml"])
    func errorAnswers(format: String) throws {
        let key = try CareerNetFixtures.decode("error-invalid-key.\(format)")
        let keyError = try #require(key.feedError)
        #expect(keyError.kind == .api(code: "message", name: "INVALID_API_KEY"))
        #expect(keyError.retryability == .terminal)
        #expect(keyError.message.contains("인증키가 유효하지 않습니다."))
        #expect(key.sink.records.isEmpty && key.summary == nil)

        let traffic = try CareerNetFixtures.decode("error-traffic-exceeded.\(format)")
        #expect(traffic.feedError?.kind == .api(code: "message", name: "TRAFFIC_LIMIT_EXCEEDED"))
        #expect(traffic.feedError?.retryability == .transient)
    }

    @Test("an error answer after good items still fails the page instead of loading part of it")
    func errorAfterItems() throws {
        let (file, directory) = try temporaryPayload("""
            {"dataSearch":{"content":[{"schoolName":"예시초등학교","seq":"1"},{"message":"서버 점검 중입니다."}]}}
            """, name: "mixed.json")
        defer { directory.remove() }
        let result = CareerNetFixtures.decode(file, request: try CareerNetFixtures.request(
            for: CareerNetFixtures.Case(operation: "schools", gubun: "elem_list", recognisedAs: "SCHOOL"), format: .json))
        #expect(result.feedError?.retryability == .transient)
        #expect(result.sink.records.isEmpty)
    }

    @Test("a document that is not a CareerNet list is malformed, not an empty success")
    func foreignDocument() throws {
        let (file, directory) = try temporaryPayload(#"{"result":"ok"}"#, name: "other.json")
        defer { directory.remove() }
        let result = CareerNetFixtures.decode(file, request: try CareerNetFixtures.request(
            for: CareerNetFixtures.Case(operation: "jobs", gubun: nil, recognisedAs: "JOB"), format: .json))
        #expect(result.feedError?.kind == .malformed)
        #expect(result.summary == nil)
    }

    @Test("truncated downloads are malformed and terminal", arguments: ["truncated-json.json", "truncated-xml.xml"])
    func truncated(file: String) throws {
        let result = try CareerNetFixtures.decode(file)
        #expect(result.feedError?.kind == .malformed)
        #expect(result.feedError?.retryability == .terminal)
    }
}
