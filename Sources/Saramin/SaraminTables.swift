import Domain
import Foundation
import Pipeline

/// How Saramin's postings are written to the tables `SaraminSchema` declares: `job_posting`,
/// its child tables (locations, job types, job codes …, each replaced when its ordered contents
/// differ), and the status history.
public enum SaraminTables {
    /// The declarations and writer, registered with the feed.
    public static let schema = FeedSchema(declarations: SaraminSchema.declarations, writers: [
        RecordWriter(JobPosting.self) { p, payload, tables in try writePosting(p, payload: payload, to: tables) },
    ])

    static let posting = UpsertTable(
        table: "job_posting",
        columns: ["posting_id", "url", "active", "company", "company_url", "title", "industry_code", "industry_name",
                  "experience_code", "experience_min_years", "experience_max_years", "experience_name",
                  "education_code", "education_name", "salary_code", "salary_name",
                  "posted_at", "modified_at", "opens_at", "expires_at", "open_ended", "close_type_code", "close_type_name",
                  "payload_sha256"],
        key: ["posting_id"])

    static let locations = ChildTable(table: "job_posting_location", parentColumns: ["posting_id"], columns: ["code", "name", "province"])
    static let codedLists = ["job_posting_job_type", "job_posting_job_mid_code", "job_posting_job_code", "job_posting_job_category"]
        .map { ChildTable(table: $0, parentColumns: ["posting_id"], columns: ["code", "name"]) }
    static let keywords = ChildTable(table: "job_posting_keyword", parentColumns: ["posting_id"], columns: ["keyword"])

    static let statusTable = "job_posting_status_history"
    static let statusColumns = ["active", "close_type_code", "close_type_name", "expires_at", "open_ended"]

    static func writePosting(_ p: JobPosting, payload: RawPayload?, to tables: any TableWriting) throws -> WriteOutcome {
        let id = StoreValue.text(p.id)
        var result = try tables.upsert(posting, RowValues([
            id, StoreValue(p.url), StoreValue(p.active), StoreValue(p.company), StoreValue(p.companyURL), StoreValue(p.title),
            StoreValue(p.industry?.code), StoreValue(p.industry?.name),
            StoreValue(p.experience?.code), StoreValue(p.experience?.minYears), StoreValue(p.experience?.maxYears),
            StoreValue(p.experience?.name), StoreValue(p.education?.code), StoreValue(p.education?.name),
            StoreValue(p.salary?.code), StoreValue(p.salary?.name),
            StoreValue(p.postedAt.map(iso8601UTC)), StoreValue(p.modifiedAt.map(iso8601UTC)), StoreValue(p.opensAt.map(iso8601UTC)),
            StoreValue(p.expiresAt.map(iso8601UTC)), StoreValue(p.openEnded), StoreValue(p.closeType?.code),
            StoreValue(p.closeType?.name), StoreValue(payload?.sha256),
        ]))

        var childrenChanged = try tables.replaceChildren(locations, parent: [id], rows: p.locations.entries.map { entry in
            RowValues([StoreValue(entry.code), StoreValue(entry.name), StoreValue(entry.name.flatMap(JobPosting.province(ofLocation:)))])
        })
        for (table, list) in zip(codedLists, [p.jobTypes, p.jobMidCodes, p.jobCodes, p.jobCategories]) {
            let rows = list.entries.map { RowValues([StoreValue($0.code), StoreValue($0.name)]) }
            childrenChanged = try tables.replaceChildren(table, parent: [id], rows: rows) || childrenChanged
        }
        childrenChanged = try tables.replaceChildren(keywords, parent: [id], rows: p.keywords.map { RowValues([.text($0)]) }) || childrenChanged
        if childrenChanged && result == .unchanged { result = .updated }

        try appendStatus(p, to: tables)
        if let modified = p.modifiedAt {
            try tables.raiseBookmark(SaraminFeed.modificationBookmark, toAtLeast: Int64(modified.timeIntervalSince1970.rounded(.down)))
        }
        return result
    }

    /// Appends a status row when the posting is new or its active flag, close type or
    /// expiration differ from the newest status recorded.
    static func appendStatus(_ p: JobPosting, to tables: any TableWriting) throws {
        let incoming: [StoreValue] = [StoreValue(p.active), StoreValue(p.closeType?.code), StoreValue(p.closeType?.name),
                                      StoreValue(p.expiresAt.map(iso8601UTC)), StoreValue(p.openEnded)]
        let latest = try tables.newestRow(in: statusTable, columns: statusColumns, matching: [("posting_id", .text(p.id))])
        if latest == incoming { return }
        try tables.insert(into: statusTable, columns: ["posting_id", "run_id", "modified_at"] + statusColumns,
                          RowValues([.text(p.id), .integer(tables.runID.rawValue), StoreValue(p.modifiedAt.map(iso8601UTC))] + incoming))
    }
}
