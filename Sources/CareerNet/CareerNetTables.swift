import Domain
import Foundation
import Pipeline

/// How CareerNet's records are written to the tables `CareerNetSchema` declares: `school`,
/// `major` (+ `major_department`) and `job_info`.
public enum CareerNetTables {
    /// The declarations and writers, registered with the feed.
    public static let schema = FeedSchema(declarations: CareerNetSchema.declarations, writers: [
        RecordWriter(School.self) { s, payload, tables in
            try tables.upsert(school, RowValues([
                .text(s.key), StoreValue(s.list), .text(s.name), StoreValue(s.campus), StoreValue(s.category), StoreValue(s.kind),
                StoreValue(s.establishment), StoreValue(s.region), StoreValue(s.address), StoreValue(s.homepage),
                StoreValue(s.collegeInfoURL), StoreValue(payload?.sha256),
            ]))
        },
        RecordWriter(Major.self) { m, payload, tables in
            let result = try tables.upsert(major, RowValues([.text(m.seq), StoreValue(m.field), StoreValue(m.name), StoreValue(payload?.sha256)]))
            let changed = try tables.replaceChildren(majorDepartment, parent: [.text(m.seq)],
                                                     rows: m.departments.map { RowValues([.text($0)]) })
            return changed && result == .unchanged ? .updated : result
        },
        RecordWriter(JobInfo.self) { j, payload, tables in
            try tables.upsert(jobInfo, RowValues([
                .text(j.seq), StoreValue(j.name), StoreValue(j.profession), StoreValue(j.similarJobs), StoreValue(j.summary),
                StoreValue(j.equalEmployment), StoreValue(j.possibility), StoreValue(j.prospect), StoreValue(j.salary),
                StoreValue(j.jobCode), StoreValue(j.categoryCode), StoreValue(j.aptitudeTypeCode), StoreValue(payload?.sha256),
            ]))
        },
    ])

    /// A school keeps the list it was first seen in when a later item does not name one.
    static let school = UpsertTable(
        table: "school",
        columns: ["school_key", "list", "name", "campus", "category", "kind", "establishment", "region", "address",
                  "homepage", "college_info_url", "payload_sha256"],
        key: ["school_key"], keepKnown: ["list"])

    static let major = UpsertTable(table: "major", columns: ["major_seq", "field", "name", "payload_sha256"], key: ["major_seq"])

    /// A major's detailed departments, in published order.
    static let majorDepartment = ChildTable(table: "major_department", parentColumns: ["major_seq"], columns: ["name"])

    static let jobInfo = UpsertTable(
        table: "job_info",
        columns: ["job_seq", "name", "profession", "similar_jobs", "summary", "equal_employment", "possibility", "prospect",
                  "salary", "job_code", "category_code", "aptitude_type_code", "payload_sha256"],
        key: ["job_seq"])
}
