import Pipeline

/// Saramin's tables: job postings, their multi-valued fields one row per value, and each
/// posting's open/close status over time.
public enum SaraminSchema {
    public static let declarations = SchemaDeclarations(tables: [
        posting,
        codeNameChild("job_posting_location", "One location of a posting, in published order", what: "location",
                      extra: [ColumnDeclaration("province", .text,
                                                "Province (시도) short name, the part of the name before '>': 서울; joins province_alias.name (전국 and foreign locations have none)")],
                      indexes: [IndexDeclaration("job_posting_location_by_province", on: ["province"])]),
        codeNameChild("job_posting_job_type", "One job type (정규직 …) of a posting, in published order", what: "job type"),
        codeNameChild("job_posting_job_mid_code", "One job field (상위 직무) of a posting, in published order", what: "job field"),
        codeNameChild("job_posting_job_code", "One job code (직무) of a posting, in published order", what: "job",
                      indexes: [IndexDeclaration("job_posting_job_code_by_code", on: ["code"])]),
        codeNameChild("job_posting_job_category", "One job category of a posting, in published order", what: "job category"),
        keyword,
        statusHistory,
    ])

    /// A 0/1 flag.
    static let flagCheck = ColumnCheck.predicate("IN (0, 1)")
    static let closeTypeScale = "1 접수마감일 · 2 채용시 · 3 상시 · 4 수시"

    /// A job posting, keyed by Saramin's posting number. A posting that changes is updated in
    /// place (revision + 1); expires_at is NULL when Saramin published a far-future
    /// "no deadline" sentinel (open_ended = 1), and the close type says why.
    static let posting = TableDeclaration("job_posting", "A Saramin job posting, updated in place when it changes", columns: [
        ColumnDeclaration("posting_id", .text, "Saramin posting number"),
        ColumnDeclaration("url", .text, "Posting page"),
        ColumnDeclaration("active", .smallInteger, check: [flagCheck], "1 open, 0 closed"),
        ColumnDeclaration("company", .text, "Company name"),
        ColumnDeclaration("company_url", .text, "Company page"),
        ColumnDeclaration("title", .text, "Posting title"),
        ColumnDeclaration("industry_code", .text, "Saramin industry code"),
        ColumnDeclaration("industry_name", .text, "Saramin industry name"),
        ColumnDeclaration("experience_code", .integer, check: [.predicate(">= 0")], "Experience asked for",
                          scale: "0 경력무관 · 1 신입 · 2 경력 · 3 신입/경력"),
        ColumnDeclaration("experience_min_years", .integer, check: [.predicate(">= 0")], "Fewest years of experience"),
        ColumnDeclaration("experience_max_years", .integer, check: [.predicate(">= 0")], "Most years of experience"),
        ColumnDeclaration("experience_name", .text, "Experience as published"),
        ColumnDeclaration("education_code", .text, "Saramin education code"),
        ColumnDeclaration("education_name", .text, "Education as published"),
        ColumnDeclaration("salary_code", .text, "Saramin salary code"),
        ColumnDeclaration("salary_name", .text, "Salary as published; NULL when Saramin sent only a code"),
        ColumnDeclaration("posted_at", .instant, "Posted, UTC ISO-8601"),
        ColumnDeclaration("modified_at", .instant, "Last modified, UTC ISO-8601 (scheduled runs resume from the newest)"),
        ColumnDeclaration("opens_at", .instant, "Applications open, UTC ISO-8601"),
        ColumnDeclaration("expires_at", .instant, "Applications close, UTC ISO-8601; NULL when there is no deadline"),
        ColumnDeclaration("open_ended", .smallInteger, notNull: true, default: "0", check: [flagCheck],
                          "1 when Saramin published a far-future 'no deadline' date (expires_at is then NULL)"),
        ColumnDeclaration("close_type_code", .text, "How applications close", scale: closeTypeScale),
        ColumnDeclaration("close_type_name", .text, "Close type as published"),
        .payloadSHA256,
        .revision,
    ], key: ["posting_id"], indexes: [
        IndexDeclaration("job_posting_by_modified", on: ["modified_at"]),
    ], dataTime: DataTimeColumn("modified_at", .modified, .utcInstant))

    /// A posting's child row: its parent and place in the published list.
    static let postingID = ColumnDeclaration("posting_id", .text, notNull: true,
                                             references: ForeignKey("job_posting", ["posting_id"], onDelete: .cascade),
                                             "Saramin posting number (job_posting.posting_id)")
    static let ordinal = ColumnDeclaration("ordinal", .integer, notNull: true, check: [.predicate(">= 1")], "Position in the posting's list, from 1")

    /// A multi-valued coded field, one row per value in published order. Codes and names are
    /// paired in one row only when their counts agree; otherwise codes come first (name NULL),
    /// then names (code NULL): lists of different lengths are never zipped.
    static func codeNameChild(_ table: String, _ meaning: String, what: String,
                              extra: [ColumnDeclaration] = [], indexes: [IndexDeclaration] = []) -> TableDeclaration {
        TableDeclaration(table, meaning, columns: [
            postingID,
            ordinal,
            ColumnDeclaration("code", .text, "Saramin \(what) code; NULL when only names came, or codes and names differ in number"),
            ColumnDeclaration("name", .text, "Saramin \(what) name; NULL when only codes came, or codes and names differ in number"),
        ] + extra, key: ["posting_id", "ordinal"], checks: ["code IS NOT NULL OR name IS NOT NULL"], indexes: indexes)
    }

    /// One keyword of a posting, in published order.
    static let keyword = TableDeclaration("job_posting_keyword", "One keyword of a posting, in published order", columns: [
        postingID,
        ordinal,
        ColumnDeclaration("keyword", .text, notNull: true, "Keyword"),
    ], key: ["posting_id", "ordinal"])

    /// A posting's open/close status over time: a row is appended when a posting is first seen
    /// and whenever active, close type or expiration changes (never on an unchanged re-load).
    static let statusHistory = TableDeclaration("job_posting_status_history", "A posting's open/close status when first seen and whenever it changed", columns: [
        ColumnDeclaration("id", .rowID, "Row id, in the order seen"),
        ColumnDeclaration("posting_id", .text, notNull: true, references: ForeignKey("job_posting", ["posting_id"], onDelete: .cascade), "job_posting.posting_id"),
        ColumnDeclaration("run_id", .integer, notNull: true, references: ForeignKey("run", ["id"]), "The run that saw it (run.id)"),
        ColumnDeclaration("modified_at", .instant, "The posting's modification time when seen, UTC ISO-8601"),
        ColumnDeclaration("active", .smallInteger, check: [flagCheck], "1 open, 0 closed"),
        ColumnDeclaration("close_type_code", .text, "How applications close", scale: closeTypeScale),
        ColumnDeclaration("close_type_name", .text, "Close type as published"),
        ColumnDeclaration("expires_at", .instant, "Applications close, UTC ISO-8601; NULL when there is no deadline"),
        ColumnDeclaration("open_ended", .smallInteger, notNull: true, check: [flagCheck], "1 when there was no deadline"),
    ], key: [], indexes: [
        IndexDeclaration("job_posting_status_history_by_posting", on: ["posting_id", "id"]),
    ])
}
