import Domain
import Foundation
import GRDB
import Pipeline

/// Writes CareerNet and Saramin records inside the open load transaction (tables of migration
/// `v2-careers`). Parent rows are upserted with `RETURNING revision` (inserted / updated /
/// unchanged in one statement); child rows (departments, locations, job codes …) are replaced
/// only when their ordered contents differ, which then counts the record as updated.
extension GRDBLoadSession {
    /// Writes CareerNet and Saramin records.
    func writeCareer(_ record: CareerRecord, payload: RawPayload?) throws -> WriteOutcome {
        switch record {
        case .school(let school): return try writeSchool(school, payload: payload)
        case .major(let major): return try writeMajor(major, payload: payload)
        case .jobInfo(let job): return try writeJobInfo(job, payload: payload)
        case .jobPosting(let posting): return try writeJobPosting(posting, payload: payload)
        }
    }

    // MARK: - CareerNet

    private func writeSchool(_ s: School, payload: RawPayload?) throws -> WriteOutcome {
        try upsert(CareerSQL.schoolUpsert, [s.key, s.list, s.name, s.campus, s.category, s.kind, s.establishment, s.region,
                                            s.address, s.homepage, s.collegeInfoURL, payload?.sha256])
    }

    private func writeMajor(_ m: Major, payload: RawPayload?) throws -> WriteOutcome {
        let result = try upsert(CareerSQL.majorUpsert, [m.seq, m.field, m.name, payload?.sha256])
        let departments = m.departments.map { [$0.databaseValue] }
        let changed = try replaceChildren(table: "major_department", parentColumn: "major_seq", parent: m.seq,
                                          columns: ["name"], rows: departments)
        return changed && result == .unchanged ? .updated : result
    }

    private func writeJobInfo(_ j: JobInfo, payload: RawPayload?) throws -> WriteOutcome {
        try upsert(CareerSQL.jobInfoUpsert, [j.seq, j.name, j.profession, j.similarJobs, j.summary, j.equalEmployment,
                                             j.possibility, j.prospect, j.salary, j.jobCode, j.categoryCode,
                                             j.aptitudeTypeCode, payload?.sha256])
    }

    // MARK: - Saramin

    private func writeJobPosting(_ p: JobPosting, payload: RawPayload?) throws -> WriteOutcome {
        let active: Int? = p.active.map { $0 ? 1 : 0 }
        let values: [(any DatabaseValueConvertible)?] = [
            p.id, p.url, active, p.company, p.companyURL, p.title, p.industry?.code, p.industry?.name,
            p.experience?.code, p.experience?.minYears, p.experience?.maxYears, p.experience?.name,
            p.education?.code, p.education?.name, p.salary?.code, p.salary?.name,
            p.postedAt.map(iso8601UTC), p.modifiedAt.map(iso8601UTC), p.opensAt.map(iso8601UTC), p.expiresAt.map(iso8601UTC),
            p.openEnded ? 1 : 0, p.closeType?.code, p.closeType?.name, payload?.sha256,
        ]
        var result = try upsert(CareerSQL.jobPostingUpsert, StatementArguments(values))

        var childrenChanged = false
        let locations = p.locations.entries.map { entry -> [DatabaseValue] in
            [entry.code.databaseValue, entry.name.databaseValue, entry.name.flatMap(JobPosting.province(ofLocation:)).databaseValue]
        }
        childrenChanged = try replaceChildren(table: "job_posting_location", parentColumn: "posting_id", parent: p.id,
                                              columns: ["code", "name", "province"], rows: locations) || childrenChanged
        for (table, list) in [("job_posting_job_type", p.jobTypes), ("job_posting_job_mid_code", p.jobMidCodes),
                              ("job_posting_job_code", p.jobCodes), ("job_posting_job_category", p.jobCategories)] {
            let rows = list.entries.map { [$0.code.databaseValue, $0.name.databaseValue] }
            childrenChanged = try replaceChildren(table: table, parentColumn: "posting_id", parent: p.id,
                                                  columns: ["code", "name"], rows: rows) || childrenChanged
        }
        childrenChanged = try replaceChildren(table: "job_posting_keyword", parentColumn: "posting_id", parent: p.id,
                                              columns: ["keyword"], rows: p.keywords.map { [$0.databaseValue] }) || childrenChanged
        if childrenChanged && result == .unchanged { result = .updated }

        try appendStatusHistory(p)
        if let modified = p.modifiedAt {
            try raiseBookmark(CareerSQL.modificationBookmark, toUnixSeconds: Int64(modified.timeIntervalSince1970.rounded(.down)))
        }
        return result
    }

    /// Appends a status row when the posting is new or its active flag, close type or expiration
    /// differ from the newest status recorded.
    private func appendStatusHistory(_ p: JobPosting) throws {
        let incoming: [DatabaseValue] = [
            p.active.map { $0 ? 1 : 0 }.databaseValue, p.closeType?.code.databaseValue ?? .null,
            p.closeType?.name.databaseValue ?? .null, p.expiresAt.map(iso8601UTC).databaseValue, (p.openEnded ? 1 : 0).databaseValue,
        ]
        let latest = try Row.fetchOne(db, sql: """
            SELECT active, close_type_code, close_type_name, expires_at, open_ended FROM job_posting_status_history
            WHERE posting_id = ? ORDER BY id DESC LIMIT 1
            """, arguments: [p.id])
        if let latest, Array(latest.databaseValues) == incoming { return }
        try db.execute(sql: """
            INSERT INTO job_posting_status_history (posting_id, run_id, modified_at, active, close_type_code, close_type_name,
                                                    expires_at, open_ended)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: StatementArguments([p.id.databaseValue, run.rawValue.databaseValue,
                                                p.modifiedAt.map(iso8601UTC).databaseValue] + incoming))
    }

    /// Sets the run's pipeline bookmark `name` to `seconds` unless it already holds a later time.
    private func raiseBookmark(_ name: String, toUnixSeconds seconds: Int64) throws {
        try db.execute(sql: """
            INSERT INTO bookmark (pipeline, name, value, run_id)
            SELECT pipeline, ?, ?, id FROM run WHERE id = ?
            ON CONFLICT (pipeline, name) DO UPDATE SET value = excluded.value, run_id = excluded.run_id
            WHERE CAST(excluded.value AS INTEGER) > CAST(bookmark.value AS INTEGER)
            """, arguments: [name, String(seconds), run.rawValue])
    }

    // MARK: - Helpers

    /// Replaces the ordered child rows of `parent` when they differ from `rows`; returns whether
    /// anything changed. `ordinal` is numbered from 1 in the given order.
    private func replaceChildren(table: String, parentColumn: String, parent: String, columns: [String],
                                 rows: [[DatabaseValue]]) throws -> Bool {
        let existing = try Row.fetchAll(db, sql: """
            SELECT \(columns.joined(separator: ", ")) FROM \(table) WHERE \(parentColumn) = ? ORDER BY ordinal
            """, arguments: [parent]).map { Array($0.databaseValues) }
        if existing == rows { return false }
        try db.execute(sql: "DELETE FROM \(table) WHERE \(parentColumn) = ?", arguments: [parent])
        let insert = try db.cachedStatement(sql: """
            INSERT INTO \(table) (\(parentColumn), ordinal, \(columns.joined(separator: ", ")))
            VALUES (?, ?\(String(repeating: ", ?", count: columns.count)))
            """)
        for (index, row) in rows.enumerated() {
            try insert.execute(arguments: StatementArguments([parent.databaseValue, (index + 1).databaseValue] + row))
        }
        return true
    }
}

/// The SQL of the career upserts, built once.
enum CareerSQL {
    /// The bookmark holding the newest Saramin `modification-timestamp` loaded (Unix seconds),
    /// to be sent back as `updated_min` by incremental runs.
    static let modificationBookmark = "newest_modification_timestamp"

    static let schoolUpsert = UpsertSQL(
        table: "school",
        columns: ["school_key", "list", "name", "campus", "category", "kind", "establishment", "region", "address",
                  "homepage", "college_info_url", "payload_sha256"],
        key: ["school_key"], keepKnown: ["list"])

    static let majorUpsert = UpsertSQL(table: "major", columns: ["major_seq", "field", "name", "payload_sha256"], key: ["major_seq"])

    static let jobInfoUpsert = UpsertSQL(
        table: "job_info",
        columns: ["job_seq", "name", "profession", "similar_jobs", "summary", "equal_employment", "possibility", "prospect",
                  "salary", "job_code", "category_code", "aptitude_type_code", "payload_sha256"],
        key: ["job_seq"])

    static let jobPostingUpsert = UpsertSQL(
        table: "job_posting",
        columns: ["posting_id", "url", "active", "company", "company_url", "title", "industry_code", "industry_name",
                  "experience_code", "experience_min_years", "experience_max_years", "experience_name",
                  "education_code", "education_name", "salary_code", "salary_name",
                  "posted_at", "modified_at", "opens_at", "expires_at", "open_ended", "close_type_code", "close_type_name",
                  "payload_sha256"],
        key: ["posting_id"])

}
