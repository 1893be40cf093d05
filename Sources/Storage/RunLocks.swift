import Domain
import Foundation
import GRDB
import Pipeline

// MARK: - Run locks

extension SQLiteStore {
    /// Takes the run lock of `pipeline` for `holder`, unless a live holder has it.
    ///
    /// One statement decides: `INSERT … ON CONFLICT (pipeline) DO UPDATE … WHERE` the existing
    /// row is stale — its heartbeat is older than the timeout, or it is exactly the holder that
    /// was just seen with a dead pid on this host. If two processes race for a stale lock, the
    /// second one's `WHERE` no longer matches (the holder changed), so exactly one wins. The
    /// same statement works unchanged on PostgreSQL.
    ///
    /// In the same transaction, runs of the pipeline still `running` in the ledger are marked
    /// `abandoned`: with the lock taken, no other process may be running them.
    public func acquireRunLock(pipeline: String, holder: String, pid: Int32, now: Date,
                               staleness: RunLockStaleness) throws -> RunLockOutcome {
        try reportingBusy { try pool.writeWithoutTransaction { db in
            var outcome = RunLockOutcome.acquired(tookOverFrom: nil)
            try db.inTransaction(.immediate) {
                let existing = try Self.lockRow(db, pipeline: pipeline)
                let deadHolder = existing.flatMap { staleness.isStale($0, now: now) ? $0.holder : nil }
                let stamp = iso8601UTC(now)
                try db.execute(sql: """
                    INSERT INTO run_lock (pipeline, holder, pid, host, acquired_at, heartbeat_at) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (pipeline) DO UPDATE SET holder = excluded.holder, pid = excluded.pid, host = excluded.host,
                        acquired_at = excluded.acquired_at, heartbeat_at = excluded.heartbeat_at
                    WHERE run_lock.heartbeat_at < ? OR run_lock.holder = ?
                    """, arguments: [pipeline, holder, pid, staleness.host, stamp, stamp,
                                     iso8601UTC(now.addingTimeInterval(-staleness.heartbeatTimeout)), deadHolder])
                if db.changesCount == 1 {
                    outcome = .acquired(tookOverFrom: existing)
                    try Self.abandonRunningRuns(db, pipeline: pipeline, noticedAt: now)
                } else if let current = try Self.lockRow(db, pipeline: pipeline) {
                    outcome = .held(by: current)
                }
                return .commit
            }
            return outcome
        } }
    }

    /// Refreshes the heartbeat; false if the lock is no longer ours (it was taken over).
    @discardableResult
    public func heartbeatRunLock(pipeline: String, holder: String, now: Date) throws -> Bool {
        try pool.write { db in
            try db.execute(sql: "UPDATE run_lock SET heartbeat_at = ? WHERE pipeline = ? AND holder = ?",
                           arguments: [iso8601UTC(now), pipeline, holder])
            return db.changesCount == 1
        }
    }

    /// Releases the lock if `holder` still has it.
    public func releaseRunLock(pipeline: String, holder: String) throws {
        try pool.write { db in
            try db.execute(sql: "DELETE FROM run_lock WHERE pipeline = ? AND holder = ?", arguments: [pipeline, holder])
        }
    }

    public func claimSlot(pipeline: String, mode: RunMode, slot: Date, host: String, now: Date) throws -> Bool {
        try reportingBusy { try pool.write { db in
            try db.execute(sql: """
                INSERT INTO schedule_slot (pipeline, mode, slot, host, claimed_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (pipeline, mode, slot) DO NOTHING
                """, arguments: [pipeline, mode.rawValue, iso8601UTC(slot), host, iso8601UTC(now)])
            return db.changesCount == 1
        } }
    }

    /// Every lock currently recorded, by pipeline.
    public func runLocks() throws -> [RunLockHolder] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM run_lock ORDER BY pipeline").compactMap(Self.holder(from:))
        }
    }

    static func lockRow(_ db: Database, pipeline: String) throws -> RunLockHolder? {
        try Row.fetchOne(db, sql: "SELECT * FROM run_lock WHERE pipeline = ?", arguments: [pipeline]).flatMap(holder(from:))
    }

    static func holder(from row: Row) -> RunLockHolder? {
        guard let acquired = parseUTC(row["acquired_at"]), let heartbeat = parseUTC(row["heartbeat_at"]) else { return nil }
        return RunLockHolder(pipeline: row["pipeline"], holder: row["holder"], pid: row["pid"], host: row["host"],
                             acquiredAt: acquired, heartbeatAt: heartbeat)
    }
}

// MARK: - Ledger reads for the scheduler and `feedline status`

extension SQLiteStore {
    /// When each pipeline's newest run started, optionally only runs of one mode.
    public func lastRunStarts(mode: RunMode? = nil) throws -> [String: Date] {
        try pool.read { db in
            let rows: [Row]
            if let mode {
                rows = try Row.fetchAll(db, sql: "SELECT pipeline, max(started_at) AS started FROM run WHERE mode = ? GROUP BY pipeline",
                                        arguments: [mode.rawValue])
            } else {
                rows = try Row.fetchAll(db, sql: "SELECT pipeline, max(started_at) AS started FROM run GROUP BY pipeline")
            }
            var starts: [String: Date] = [:]
            for row in rows { if let date = Self.parseUTC(row["started"]) { starts[row["pipeline"]] = date } }
            return starts
        }
    }

    /// The newest run of every pipeline in the ledger.
    public func pipelineRunSummaries() throws -> [PipelineRunSummary] {
        try pool.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT r.*,
                    (SELECT max(finished_at) FROM run s WHERE s.pipeline = r.pipeline AND s.status = 'succeeded') AS last_success,
                    (SELECT value FROM bookmark b WHERE b.pipeline = r.pipeline AND b.name = 'newest_observed_at') AS newest_observed
                FROM run r
                WHERE r.id = (SELECT max(id) FROM run t WHERE t.pipeline = r.pipeline)
                ORDER BY r.pipeline
                """)
            return rows.map { row in
                PipelineRunSummary(
                    pipeline: row["pipeline"], run: RunID(row["id"]), mode: RunMode(rawValue: row["mode"] ?? ""),
                    startedAt: Self.parseUTC(row["started_at"]), finishedAt: Self.parseUTC(row["finished_at"]),
                    status: row["status"], rowsInserted: row["rows_inserted"], rowsUpdated: row["rows_updated"],
                    rowsUnchanged: row["rows_unchanged"], diagnostics: row["diagnostics"], error: row["error"],
                    lastSuccessAt: Self.parseUTC(row["last_success"]), newestObservedAt: Self.parseUTC(row["newest_observed"]))
            }
        }
    }

    /// Parses `YYYY-MM-DDTHH:MM:SSZ` (as written by `iso8601UTC`).
    static func parseUTC(_ text: String?) -> Date? {
        guard let text, text.count == 20, text.hasSuffix("Z"), let date = LocalDate(iso: text.prefix(10)) else { return nil }
        let t = text.dropFirst(11).prefix(8).split(separator: ":").compactMap { Int($0) }
        guard t.count == 3 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(date.daysSinceEpoch * 86400 + t[0] * 3600 + t[1] * 60 + t[2]))
    }
}
