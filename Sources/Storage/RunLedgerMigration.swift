import GRDB

/// v8: the run ledger learns who ran each run and that a run can be abandoned.
///
/// - `status` also allows `abandoned`: a run whose process died before it finished (see
///   `AbandonedRuns.swift`). SQLite cannot change a CHECK constraint in place, so the table is
///   rebuilt with the same columns, in the same order, and the new ones appended.
/// - `host`, `pid`: the process that began the run (NULL for runs recorded before v8), so a
///   later run on the same host can tell a killed run from one still going.
/// - `abandoned_at`: when a later run noticed the run was abandoned. `finished_at` stays NULL
///   for such a run, since it never finished.
///
/// Rows and ids are copied as they are (the tables that reference `run (id)` keep pointing at
/// the same runs), and every view, and any index or trigger a user added on `run`, is kept.
/// GRDB runs the migration with foreign keys off and checks them all before it commits.
enum RunLedgerMigration {
    static func migrate(_ db: Database) throws {
        // Views that read run would stop the table from being dropped and renamed: set them all
        // aside and put them back, in creation order, from their own SQL.
        let views = try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'view' ORDER BY rowid")
            .map { (name: $0["name"] as String, sql: $0["sql"] as String) }
        let attached = try String.fetchAll(db, sql: """
            SELECT sql FROM sqlite_master
            WHERE tbl_name = 'run' AND type IN ('index', 'trigger') AND sql IS NOT NULL AND name <> 'run_by_pipeline'
            ORDER BY type, rowid
            """)
        for view in views { try db.execute(sql: "DROP VIEW \(view.name.quotedDatabaseIdentifier)") }
        try db.execute(sql: runTable)
        try db.execute(sql: """
            INSERT INTO run_v8 (\(columns)) SELECT \(columns) FROM run ORDER BY id;
            DROP TABLE run;
            ALTER TABLE run_v8 RENAME TO run;
            CREATE INDEX run_by_pipeline ON run (pipeline, started_at);
            """)
        for sql in attached { try db.execute(sql: sql) }
        for view in views { try db.execute(sql: view.sql) }
    }

    /// The columns of `run` before v8, in order.
    static let columns = """
        id, pipeline, mode, started_at, finished_at, status, payloads, payloads_skipped, \
        rows_inserted, rows_updated, rows_unchanged, diagnostics, error
        """

    static let runTable = """
    -- The run ledger: one row per run, committed 'running' first, then finished with the load
    -- ('succeeded') or after it failed ('failed'); 'abandoned' when its process died first.
    CREATE TABLE run_v8 (
        id              INTEGER PRIMARY KEY,
        pipeline        TEXT NOT NULL,
        mode            TEXT NOT NULL CHECK (mode IN ('live', 'fixtures', 'replay')),
        started_at      TEXT NOT NULL,          -- UTC, ISO-8601
        finished_at     TEXT,                   -- NULL while running, and for abandoned runs
        status          TEXT NOT NULL CHECK (status IN ('running', 'succeeded', 'failed', 'abandoned')),
        payloads        INTEGER NOT NULL DEFAULT 0,
        payloads_skipped INTEGER NOT NULL DEFAULT 0,  -- same bytes already loaded earlier
        rows_inserted   INTEGER NOT NULL DEFAULT 0,
        rows_updated    INTEGER NOT NULL DEFAULT 0,
        rows_unchanged  INTEGER NOT NULL DEFAULT 0,
        diagnostics     INTEGER NOT NULL DEFAULT 0,
        error           TEXT,
        host            TEXT,                   -- host and pid of the process that began the run
        pid             INTEGER,                -- (NULL for runs recorded before v8)
        abandoned_at    TEXT                    -- UTC, when a later run noticed it was abandoned
    )
    """
}
