import Domain
import FeedCore
import Foundation
import Pipeline

/// What a decoder knows about the page besides its items.
struct CareerNetPage: Sendable {
    /// The `gubun` list the page belongs to, when the request (or the file name) says so.
    var list: String?
    /// The pipeline's `gubun`, used only when neither the request nor the items tell.
    var fallbackList: String?
}

// MARK: - SCHOOL

/// Turns `svcCode=SCHOOL` items into `School`s (one per campus).
enum SchoolItemMapping {
    /// The item fields read, as on the wire (`adres`, `estType`, `collegeinfourl` sic).
    static let schema = FieldSchema([
        "seq", "schoolName", "campusName", "schoolGubun", "schoolType", "estType", "region", "adres", "link",
        "collegeinfourl", "totalCount", "message", "code",
    ])

    static func map(_ item: ItemFields, page: CareerNetPage) -> ItemOutcome {
        let name = WireValue.careerNet.text(item["schoolName"])
        var notes = ItemDiagnostics(position: item.position, subject: name)
        guard let name else {
            return notes.skip(.missingValue, field: "schoolName", value: item["schoolName"],
                              "The school item has no schoolName; it is skipped.")
        }
        let campus = WireValue.careerNet.text(item["campusName"])
        let region = WireValue.careerNet.text(item["region"])
        let key: String
        if let seq = WireValue.careerNet.text(item["seq"]) {
            key = seq
        } else {
            key = "name:" + [region ?? "", name, campus ?? ""].joined(separator: "/")
            notes.note(.derivedKey, field: "seq", value: item["seq"],
                       "The school item has no seq; it is keyed by region, name and campus as \(key).")
        }
        // Only university lists carry campusName, so its presence (even empty) marks one.
        let list = page.list ?? (item["campusName"] != nil ? "univ_list" : page.fallbackList)
        let school = School(
            key: key, list: list, name: name, campus: campus,
            category: WireValue.careerNet.text(item["schoolGubun"]),
            kind: WireValue.careerNet.text(item["schoolType"]),
            establishment: WireValue.careerNet.text(item["estType"]),
            region: region,
            address: WireValue.careerNet.text(item["adres"]),
            homepage: WireValue.careerNet.text(item["link"]),
            collegeInfoURL: WireValue.careerNet.text(item["collegeinfourl"]))
        return notes.keep(FeedRecord(school))
    }
}

// MARK: - MAJOR

/// Turns `svcCode=MAJOR` items into `Major`s, splitting `facilName` into departments.
enum MajorItemMapping {
    static let schema = FieldSchema(["majorSeq", "lClass", "mClass", "facilName", "totalCount", "message", "code"], prose: ["facilName"])

    static func map(_ item: ItemFields, page: CareerNetPage) -> ItemOutcome {
        let name = WireValue.careerNet.text(item["mClass"])
        var notes = ItemDiagnostics(position: item.position, subject: name)
        guard let seq = WireValue.careerNet.text(item["majorSeq"]) else {
            return notes.skip(.missingValue, field: "majorSeq", value: item["majorSeq"],
                              "The major item has no majorSeq, its only key; it is skipped.")
        }
        let departments = WireValue.careerNet.list(item["facilName"], droppingRepeats: true)
        let major = Major(seq: seq, field: WireValue.careerNet.text(item["lClass"]), name: name, departments: departments)
        return notes.keep(FeedRecord(major))
    }
}

// MARK: - JOB

/// Turns `svcCode=JOB` (`job_dic_list`) items into `JobInfo`s; the API's `salery` becomes `salary`.
enum JobItemMapping {
    static let schema = FieldSchema([
        "jobdicSeq", "job", "profession", "similarJob", "summary", "equalemployment", "possibility", "prospect",
        "salery", "salary", "job_code", "job_ctg_code", "aptd_type_code", "totalCount", "message", "code",
    ], prose: ["profession", "similarJob", "summary", "equalemployment", "possibility", "prospect"])

    static func map(_ item: ItemFields, page: CareerNetPage) -> ItemOutcome {
        let name = WireValue.careerNet.text(item["job"])
        var notes = ItemDiagnostics(position: item.position, subject: name)
        guard let seq = WireValue.careerNet.text(item["jobdicSeq"]) else {
            return notes.skip(.missingValue, field: "jobdicSeq", value: item["jobdicSeq"],
                              "The job item has no jobdicSeq, its only key; it is skipped.")
        }
        let job = JobInfo(
            seq: seq, name: name,
            profession: WireValue.careerNet.text(item["profession"]),
            similarJobs: WireValue.careerNet.text(item["similarJob"]),
            summary: WireValue.careerNet.prose(item["summary"]),
            equalEmployment: WireValue.careerNet.text(item["equalemployment"]),
            possibility: WireValue.careerNet.prose(item["possibility"]),
            prospect: WireValue.careerNet.prose(item["prospect"]),
            salary: WireValue.careerNet.text(item["salery"]) ?? WireValue.careerNet.text(item["salary"]),
            jobCode: WireValue.careerNet.text(item["job_code"]),
            categoryCode: WireValue.careerNet.text(item["job_ctg_code"]),
            aptitudeTypeCode: WireValue.careerNet.text(item["aptd_type_code"]))
        return notes.keep(FeedRecord(job))
    }
}

// MARK: - Raw strings and diagnostic codes

extension WireValue {
    /// The raw-string rules of CareerNet: every value is a string; `""` and the string `"null"`
    /// mean "missing" (nil, never an empty value or 0).
    static let careerNet = WireValue()
}

/// The diagnostic codes only CareerNet items raise.
extension DiagnosticCode {
    /// A school item has no `seq`; it is keyed by region, name and campus (`derived-key`).
    public static let derivedKey = DiagnosticCode("derived-key")
}
