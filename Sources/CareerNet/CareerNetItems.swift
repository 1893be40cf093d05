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
        "collegeinfourl", "totalCount", "message",
    ])

    static func map(_ item: ItemFields, page: CareerNetPage) -> CareerNetOutcome {
        let name = CareerNetText.value(item["schoolName"])
        var notes = CareerNetItemNotes(position: item.position, subject: name)
        guard let name else {
            return notes.skip(.missingValue, field: "schoolName", value: item["schoolName"],
                              "The school item has no schoolName; it is skipped.")
        }
        let campus = CareerNetText.value(item["campusName"])
        let region = CareerNetText.value(item["region"])
        let key: String
        if let seq = CareerNetText.value(item["seq"]) {
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
            category: CareerNetText.value(item["schoolGubun"]),
            kind: CareerNetText.value(item["schoolType"]),
            establishment: CareerNetText.value(item["estType"]),
            region: region,
            address: CareerNetText.value(item["adres"]),
            homepage: CareerNetText.value(item["link"]),
            collegeInfoURL: CareerNetText.value(item["collegeinfourl"]))
        return notes.keep(.career(.school(school)))
    }
}

// MARK: - MAJOR

/// Turns `svcCode=MAJOR` items into `Major`s, splitting `facilName` into departments.
enum MajorItemMapping {
    static let schema = FieldSchema(["majorSeq", "lClass", "mClass", "facilName", "totalCount", "message"], prose: ["facilName"])

    static func map(_ item: ItemFields, page: CareerNetPage) -> CareerNetOutcome {
        let name = CareerNetText.value(item["mClass"])
        var notes = CareerNetItemNotes(position: item.position, subject: name)
        guard let seq = CareerNetText.value(item["majorSeq"]) else {
            return notes.skip(.missingValue, field: "majorSeq", value: item["majorSeq"],
                              "The major item has no majorSeq, its only key; it is skipped.")
        }
        let departments = CareerNetText.list(item["facilName"])
        let major = Major(seq: seq, field: CareerNetText.value(item["lClass"]), name: name, departments: departments)
        return notes.keep(.career(.major(major)))
    }
}

// MARK: - JOB

/// Turns `svcCode=JOB` (`job_dic_list`) items into `JobInfo`s; the API's `salery` becomes `salary`.
enum JobItemMapping {
    static let schema = FieldSchema([
        "jobdicSeq", "job", "profession", "similarJob", "summary", "equalemployment", "possibility", "prospect",
        "salery", "salary", "job_code", "job_ctg_code", "aptd_type_code", "totalCount", "message",
    ], prose: ["profession", "similarJob", "summary", "equalemployment", "possibility", "prospect"])

    static func map(_ item: ItemFields, page: CareerNetPage) -> CareerNetOutcome {
        let name = CareerNetText.value(item["job"])
        var notes = CareerNetItemNotes(position: item.position, subject: name)
        guard let seq = CareerNetText.value(item["jobdicSeq"]) else {
            return notes.skip(.missingValue, field: "jobdicSeq", value: item["jobdicSeq"],
                              "The job item has no jobdicSeq, its only key; it is skipped.")
        }
        let job = JobInfo(
            seq: seq, name: name,
            profession: CareerNetText.value(item["profession"]),
            similarJobs: CareerNetText.value(item["similarJob"]),
            summary: CareerNetText.prose(item["summary"]),
            equalEmployment: CareerNetText.value(item["equalemployment"]),
            possibility: CareerNetText.prose(item["possibility"]),
            prospect: CareerNetText.prose(item["prospect"]),
            salary: CareerNetText.value(item["salery"]) ?? CareerNetText.value(item["salary"]),
            jobCode: CareerNetText.value(item["job_code"]),
            categoryCode: CareerNetText.value(item["job_ctg_code"]),
            aptitudeTypeCode: CareerNetText.value(item["aptd_type_code"]))
        return notes.keep(.career(.jobInfo(job)))
    }
}

// MARK: - Diagnostic codes

/// The diagnostic codes only CareerNet items raise.
extension DiagnosticCode {
    /// A school item has no `seq`; it is keyed by region, name and campus (`derived-key`).
    public static let derivedKey = DiagnosticCode("derived-key")
}
