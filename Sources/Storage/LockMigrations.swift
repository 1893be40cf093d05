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

    /// Scheduled slots, claimed by the scheduler that runs them: one row per pipeline, mode and
    /// fire time, inserted with ON CONFLICT DO NOTHING before the run lock is taken (the
    /// claimant then waits for the lock), so schedulers on several hosts sharing the database
    /// run each slot once — also when they catch up on several slots of a pipeline together.
    static let scheduleSlotsV11 = """
    CREATE TABLE schedule_slot (
        pipeline        TEXT NOT NULL,
        mode            TEXT NOT NULL CHECK (mode IN ('live', 'fixtures', 'replay')),
        slot            TEXT NOT NULL,          -- the fire time, UTC ISO-8601
        host            TEXT NOT NULL,          -- the scheduler's host that claimed it
        claimed_at      TEXT NOT NULL,          -- UTC ISO-8601
        PRIMARY KEY (pipeline, mode, slot)
    );
    """
}
