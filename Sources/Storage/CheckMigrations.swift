extension FeedlineMigrations {
    /// v10: the results of the checks a pipeline declares (`checks:` in its file), one row per
    /// check per run. A run whose load was rolled back by a failing check still has its rows
    /// here (written in a transaction of their own), so `status` can say which check failed.
    static let checksV10 = """
    CREATE TABLE check_result (
        run_id          INTEGER NOT NULL REFERENCES run (id),
        ordinal         INTEGER NOT NULL CHECK (ordinal >= 1),  -- the check's place in the pipeline file
        check_name      TEXT NOT NULL,
        kind            TEXT NOT NULL,          -- not_null, unique, accepted_values, accepted_range, relationships,
                                                -- row_count, freshness, completeness, sql
        table_name      TEXT,                   -- NULL for sql checks
        severity        TEXT NOT NULL CHECK (severity IN ('warn', 'error')),
        on_failure      TEXT NOT NULL CHECK (on_failure IN ('rollback', 'keep')),
        status          TEXT NOT NULL CHECK (status IN ('passed', 'failed', 'skipped', 'error')),
        failing_rows    INTEGER CHECK (failing_rows >= 0),  -- NULL for checks on a whole (row_count, freshness)
        message         TEXT NOT NULL,
        sample          TEXT,                   -- JSON array of up to 5 failing rows, each {column: value}
        PRIMARY KEY (run_id, ordinal),
        UNIQUE (run_id, check_name)
    );
    """
}
