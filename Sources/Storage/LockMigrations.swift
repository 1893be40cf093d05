extension FeedlineMigrations {
    /// Run coordination in the database (so it can move to PostgreSQL with the data): one row
    /// per pipeline currently running, taken with a single INSERT … ON CONFLICT … WHERE the
    /// holder is stale, deleted when the run ends. Times are UTC ISO-8601.
    static let locksV4 = """
    CREATE TABLE run_lock (
        pipeline        TEXT PRIMARY KEY,
        holder          TEXT NOT NULL,          -- unique per acquisition: host:pid:uuid
        pid             INTEGER NOT NULL,
        host            TEXT NOT NULL,
        acquired_at     TEXT NOT NULL,
        heartbeat_at    TEXT NOT NULL           -- refreshed while the run goes on
    );
    """
}
