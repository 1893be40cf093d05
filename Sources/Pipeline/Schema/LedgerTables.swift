/// feedline's own ledger: runs, the payloads they loaded, diagnostics, check results, and the
/// bookkeeping that keeps runs apart and within quota (bookmarks, run locks, API call counts,
/// claimed schedule slots), with the run views.
public enum LedgerTables {
    public static let declarations = SchemaDeclarations(
        tables: [run, payload, diagnostic, bookmark, runLock, apiCall, checkResult, scheduleSlot, fieldDrift],
        views: [runHistory, runLatest]
    )

    /// `mode IN (…)`: how a run reached its data.
    static let modeCheck = ColumnCheck.predicate("IN ('live', 'fixtures', 'replay')")

    /// The run ledger: one row per run, committed 'running' first, then finished with the load
    /// ('succeeded') or after it failed ('failed'); 'abandoned' when its process died first.
    static let run = TableDeclaration("run", "One pipeline run: recorded 'running' first, then finished with its load", columns: [
        ColumnDeclaration("id", .rowID, "Run id"),
        ColumnDeclaration("pipeline", .text, notNull: true, "Pipeline name (PIPELINE:backfill for backfills)"),
        ColumnDeclaration("mode", .text, notNull: true, check: [modeCheck], "live, fixtures or replay"),
        ColumnDeclaration("started_at", .instant, notNull: true, "Start, UTC ISO-8601"),
        ColumnDeclaration("finished_at", .instant, "End, UTC ISO-8601; NULL while running and for abandoned runs"),
        ColumnDeclaration("status", .text, notNull: true, check: [.predicate("IN ('running', 'succeeded', 'failed', 'abandoned')")],
                          "running, succeeded, failed, or abandoned (its process died first)"),
        ColumnDeclaration("payloads", .integer, notNull: true, default: "0", "Payloads loaded"),
        ColumnDeclaration("payloads_skipped", .integer, notNull: true, default: "0", "Payloads skipped because the same bytes were loaded before"),
        ColumnDeclaration("rows_inserted", .integer, notNull: true, default: "0", "Rows inserted"),
        ColumnDeclaration("rows_updated", .integer, notNull: true, default: "0", "Rows that changed"),
        ColumnDeclaration("rows_unchanged", .integer, notNull: true, default: "0", "Rows loaded again with nothing changed"),
        ColumnDeclaration("diagnostics", .integer, notNull: true, default: "0", "Diagnostics recorded (diagnostic rows)"),
        ColumnDeclaration("error", .text, "Why the run failed, one line; NULL unless failed"),
        ColumnDeclaration("host", .text, "Host of the process that began the run (NULL for runs recorded before v8)"),
        ColumnDeclaration("pid", .integer, "Process id of that process"),
        ColumnDeclaration("abandoned_at", .instant, "When a later run noticed the run was abandoned, UTC ISO-8601"),
    ], key: [], indexes: [
        IndexDeclaration("run_by_pipeline", on: ["pipeline", "started_at"]),
    ])

    /// The archive index: every payload a successful run loaded, by content hash.
    static let payload = TableDeclaration("payload", "A payload a run loaded, by content hash (the archive index)", columns: [
        ColumnDeclaration("sha256", .text, "SHA-256 of the payload bytes"),
        ColumnDeclaration("source", .text, "Feed: airkorea, careernet, saramin, openweather, openaq"),
        ColumnDeclaration("operation", .text, "Operation, e.g. realtime-by-province"),
        ColumnDeclaration("format", .text, notNull: true, "xml or json"),
        ColumnDeclaration("request_url", .text, "Request URL with the key redacted"),
        ColumnDeclaration("fetched_at", .instant, notNull: true, "Fetched, UTC ISO-8601"),
        ColumnDeclaration("http_status", .integer, "HTTP status"),
        ColumnDeclaration("content_type", .text, "HTTP Content-Type"),
        ColumnDeclaration("byte_count", .integer, notNull: true, "Size", unit: .bytes),
        ColumnDeclaration("item_count", .integer, notNull: true, "Items in the payload"),
        ColumnDeclaration("archive_path", .text, "Where the payload is archived"),
        ColumnDeclaration("run_id", .integer, notNull: true, references: ForeignKey("run", ["id"]), "The run that loaded it (run.id)"),
    ], key: ["sha256"])

    /// What was odd, where, and why: never silently dropped.
    static let diagnostic = TableDeclaration("diagnostic", "Something odd in the data: what, where and why (never silently dropped)", columns: [
        ColumnDeclaration("id", .rowID, "Row id"),
        ColumnDeclaration("run_id", .integer, notNull: true, references: ForeignKey("run", ["id"]), "The run that recorded it (run.id)"),
        ColumnDeclaration("payload_sha256", .text, "The payload it is in (payload.sha256); NULL when not from one payload"),
        ColumnDeclaration("code", .text, notNull: true, "What: grade-mismatch, field-too-long, implausible-coordinate …"),
        ColumnDeclaration("message", .text, notNull: true, "Why, one sentence"),
        ColumnDeclaration("location", .text, notNull: true, "Where: item, station and time, file …"),
        ColumnDeclaration("value", .text, "The value concerned, verbatim; NULL when none"),
    ], key: [], indexes: [
        IndexDeclaration("diagnostic_by_run", on: ["run_id"]),
    ])

    /// A pipeline's progress; the value is text: instants (ISO-8601) for some bookmarks, Unix
    /// seconds for others.
    static let bookmark = TableDeclaration("bookmark", "Per-pipeline progress (e.g. Saramin's newest modification time seen)", internal: true, columns: [
        ColumnDeclaration("pipeline", .text, notNull: true, "Pipeline name"),
        ColumnDeclaration("name", .text, notNull: true, "Bookmark name"),
        ColumnDeclaration("value", .text, notNull: true, "Bookmark value"),
        ColumnDeclaration("run_id", .integer, notNull: true, references: ForeignKey("run", ["id"]), "The run that set it (run.id)"),
    ], key: ["pipeline", "name"])

    /// One row per pipeline currently running (see RunLocks).
    static let runLock = TableDeclaration("run_lock", "The pipelines running now, one lock each (so runs never overlap)", internal: true, columns: [
        ColumnDeclaration("pipeline", .text, "Pipeline name"),
        ColumnDeclaration("holder", .text, notNull: true, "Unique per acquisition: host:pid:uuid"),
        ColumnDeclaration("pid", .integer, notNull: true, "Process id of the holder"),
        ColumnDeclaration("host", .text, notNull: true, "Host of the holder"),
        ColumnDeclaration("acquired_at", .instant, notNull: true, "Taken, UTC ISO-8601"),
        ColumnDeclaration("heartbeat_at", .instant, notNull: true, "Last refreshed, UTC ISO-8601 (a lock silent for 15 minutes is taken over)"),
    ], key: ["pipeline"])

    /// Calls made per feed API, key and day in Asia/Seoul; the key itself is never stored.
    static let apiCall = TableDeclaration("api_call", "API calls per feed API, key and KST day, for the daily quota", internal: true, columns: [
        ColumnDeclaration("source", .text, notNull: true, "Feed, e.g. airkorea"),
        ColumnDeclaration("api", .text, notNull: true, "The API (service) counted, e.g. ArpltnInforInqireSvc"),
        ColumnDeclaration("credential_variable", .text, notNull: true, "Environment variable of the key, e.g. AIRKOREA_SERVICE_KEY"),
        ColumnDeclaration("key_fingerprint", .text, notNull: true, "12 hex digits of the key's SHA-256 (the key itself is never stored)"),
        ColumnDeclaration("kst_date", .date, notNull: true, "Day in Asia/Seoul (quotas reset at midnight KST)"),
        ColumnDeclaration("calls", .integer, notNull: true, default: "0", check: [.predicate(">= 0")], "Calls made, retries included"),
    ], key: ["source", "api", "credential_variable", "key_fingerprint", "kst_date"], keyLayout: .clusteredByKey)

    /// The results of the checks a pipeline declares, one row per check per run.
    static let checkResult = TableDeclaration("check_result", "One declared check (a pipeline file's checks:) evaluated after one run's load", columns: [
        ColumnDeclaration("run_id", .integer, notNull: true, references: ForeignKey("run", ["id"]), "The run it checked (run.id)"),
        ColumnDeclaration("ordinal", .integer, notNull: true, check: [.predicate(">= 1")], "The check's place in the pipeline file, from 1"),
        ColumnDeclaration("check_name", .text, notNull: true, "The check's name, unique in its pipeline (given, or made from kind, table and columns)"),
        ColumnDeclaration("kind", .text, notNull: true, "not_null, unique, accepted_values, accepted_range, relationships, row_count, freshness, completeness or sql"),
        ColumnDeclaration("table_name", .text, "The table or view checked; NULL for sql checks"),
        ColumnDeclaration("severity", .text, notNull: true, check: [.predicate("IN ('warn', 'error')")], "warn: recorded only; error: fails the run"),
        ColumnDeclaration("on_failure", .text, notNull: true, check: [.predicate("IN ('rollback', 'keep')")],
                          "What a failing error check does: rollback (nothing kept) or keep (rows kept, run failed)"),
        ColumnDeclaration("status", .text, notNull: true, check: [.predicate("IN ('passed', 'failed', 'skipped', 'error')")],
                          "passed, failed, skipped (does not apply to this run) or error (could not be evaluated)"),
        ColumnDeclaration("failing_rows", .integer, check: [.predicate(">= 0")],
                          "Rows that break the check (duplicate groups for unique, missing station-hours for completeness); NULL for row_count and freshness"),
        ColumnDeclaration("message", .text, notNull: true, "What was found, one sentence"),
        ColumnDeclaration("sample", .text, "Up to 5 failing rows as a JSON array of {column: value} objects; NULL when none"),
    ], key: ["run_id", "ordinal"], unique: [["run_id", "check_name"]])

    /// How the fields a pipeline's payloads carried differ from what their operation declares
    /// (schema drift): one row per pipeline, operation, field and change, updated by every run
    /// that sees it again.
    static let fieldDrift = TableDeclaration("field_drift", "A field of a feed's answers that drifted from what its operation declares (added, removed, or of another kind)", columns: [
        ColumnDeclaration("pipeline", .text, notNull: true, "Pipeline name (the run's)"),
        ColumnDeclaration("source", .text, notNull: true, "Feed, e.g. airkorea"),
        ColumnDeclaration("operation", .text, notNull: true, "Operation, e.g. getCtprvnRltmMesureDnsty"),
        ColumnDeclaration("field_path", .text, notNull: true, "The item field, a member name or slash path (components/pm2_5)"),
        ColumnDeclaration("change", .text, notNull: true, "added, removed, or DECLARED-to-SEEN kinds (number-to-text, object-to-list …)"),
        ColumnDeclaration("first_seen", .instant, notNull: true, "When a load first saw it, UTC ISO-8601"),
        ColumnDeclaration("last_seen", .instant, notNull: true, "When a load last saw it, UTC ISO-8601"),
        ColumnDeclaration("payload_count", .integer, notNull: true, default: "1", check: [.predicate(">= 1")], "Payloads that showed it"),
        ColumnDeclaration("sample", .text, "A value it took, at most 80 characters (scrubbed of secrets like every payload); NULL when missing"),
    ], key: ["pipeline", "source", "operation", "field_path", "change"])

    /// Scheduled slots claimed by the scheduler that runs them: one row per pipeline, mode and
    /// fire time, so schedulers on several hosts run each slot once.
    static let scheduleSlot = TableDeclaration("schedule_slot", "Scheduled fire times already claimed by a scheduler (each slot runs once, whichever host gets it)", internal: true, columns: [
        ColumnDeclaration("pipeline", .text, notNull: true, "Pipeline name"),
        ColumnDeclaration("mode", .text, notNull: true, check: [modeCheck], "live or fixtures (the scheduler's mode)"),
        ColumnDeclaration("slot", .instant, notNull: true, "The fire time, UTC ISO-8601"),
        ColumnDeclaration("host", .text, notNull: true, "Host of the scheduler that claimed it"),
        ColumnDeclaration("claimed_at", .instant, notNull: true, "When it was claimed, UTC ISO-8601"),
    ], key: ["pipeline", "mode", "slot"])

    /// `run_history`'s columns, and `run_latest`'s (which selects every column of it).
    static let runHistoryColumns: [ColumnDeclaration] = [
        .view("id", "Run id (run.id)"),
        .view("pipeline", "Pipeline name (file name in Pipelines/ without .yaml)"),
        .view("mode", "live, fixtures or replay"),
        .view("status", "running, succeeded, failed or abandoned"),
        .view("started_at", "Start, UTC ISO-8601"),
        .view("finished_at", "End, UTC ISO-8601; NULL while running and for abandoned runs"),
        .view("duration_s", "finished_at − started_at, whole seconds", unit: .seconds),
        .view("payloads", "Payloads loaded"),
        .view("payloads_skipped", "Payloads skipped because the same bytes were loaded before"),
        .view("rows_inserted", "Rows inserted"),
        .view("rows_updated", "Rows that changed"),
        .view("rows_unchanged", "Rows loaded again with nothing changed"),
        .view("rows", "rows_inserted + rows_updated + rows_unchanged"),
        .view("diagnostics", "Diagnostics recorded (diagnostic rows)"),
        .view("error", "Why the run failed, one line; NULL unless failed"),
    ]

    /// The ledger with durations (seconds) and row totals, newest first when ordered by id DESC.
    static let runHistory = ViewDeclaration("run_history", "One run with its duration and row total", columns: runHistoryColumns, query: DialectSQL { f in """
            SELECT id, pipeline, mode, status, started_at, finished_at,
                   \(f.seconds(from: "started_at", to: "finished_at")) AS duration_s,
                   payloads, payloads_skipped, rows_inserted, rows_updated, rows_unchanged,
                   rows_inserted + rows_updated + rows_unchanged AS rows, diagnostics, error
            FROM run
        """ })

    /// The newest run of each pipeline.
    static let runLatest = ViewDeclaration("run_latest", "The newest run of each pipeline (every column of run_history)", columns: runHistoryColumns, query: DialectSQL("""
            SELECT h.* FROM run_history h
            WHERE h.id = (SELECT max(id) FROM run r WHERE r.pipeline = h.pipeline)
        """))
}
