#if PostgreSQL
import Domain
import Foundation
import Pipeline

// MARK: - Run locks: session advisory locks

extension PostgresStore {
    /// The advisory-lock key of a pipeline (the same on every host).
    public static func runLockKey(_ pipeline: String) -> Int64 { advisoryKey("feedline run lock:" + pipeline) }

    /// Takes `pipeline`'s advisory lock on a connection of its own, held until release (or until
    /// this process dies: PostgreSQL then releases it). Staleness needs no heartbeat timeout
    /// here: a lock whose session is gone is free. The `run_lock` row records who holds it.
    public func acquireRunLock(pipeline: String, holder: String, pid: Int32, now: Date, staleness: RunLockStaleness) throws -> RunLockOutcome {
        let key = Self.runLockKey(pipeline)
        let lockLink = try PostgresLink(address, password: password, applicationName: "feedline lock \(pipeline)")
        guard try lockLink.run("SELECT pg_try_advisory_lock($1)", [.integer(key)]).scalar == .integer(1) else {
            lockLink.close()
            // The holder writes its row just after taking the lock: give it a moment.
            for _ in 0..<20 {
                if let current = try lockRow(pipeline) { return .held(by: current) }
                Thread.sleep(forTimeInterval: 0.05)
            }
            return .held(by: RunLockHolder(pipeline: pipeline, holder: "unknown", pid: 0, host: "another host", acquiredAt: now, heartbeatAt: now))
        }
        do {
            let previous = try lockRow(pipeline)
            let stamp = iso8601UTC(now)
            try link.transaction {
                try link.run("""
                    INSERT INTO run_lock (pipeline, holder, pid, host, acquired_at, heartbeat_at) VALUES ($1, $2, $3, $4, $5::timestamptz, $5::timestamptz)
                    ON CONFLICT (pipeline) DO UPDATE SET holder = EXCLUDED.holder, pid = EXCLUDED.pid, host = EXCLUDED.host,
                        acquired_at = EXCLUDED.acquired_at, heartbeat_at = EXCLUDED.heartbeat_at
                    """, [.text(pipeline), .text(holder), .integer(Int64(pid)), .text(host), .text(stamp)])
                // Whoever held the lock before is gone: its unfinished runs will never finish.
                try link.run("""
                    UPDATE run SET status = 'abandoned', abandoned_at = $1::timestamptz,
                        error = 'The run did not finish: its process ' || coalesce('(pid ' || pid || ' on ' || host || ') ', '')
                            || 'stopped or lost its run lock before the end.'
                    WHERE pipeline = $2 AND status = 'running'
                    """, [.text(stamp), .text(pipeline)])
            }
            setLockLink(lockLink, for: pipeline)
            return .acquired(tookOverFrom: previous.flatMap { $0.holder == holder ? nil : $0 })
        } catch {
            _ = try? lockLink.run("SELECT pg_advisory_unlock($1)", [.integer(key)])
            lockLink.close()
            throw error
        }
    }

    /// Refreshes the row's heartbeat; false when this process no longer holds the lock (its
    /// connection was lost, so PostgreSQL released it).
    public func heartbeatRunLock(pipeline: String, holder: String, now: Date) throws -> Bool {
        guard let lockLink = lockLink(for: pipeline) else { return false }
        let held = (try? lockLink.run("""
            SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted
                           AND classid = (($1::bigint >> 32) & 4294967295)::oid AND objid = ($1::bigint & 4294967295)::oid AND objsubid = 1)
            """, [.integer(Self.runLockKey(pipeline))]).scalar) == .integer(1)
        guard held else { return false }
        return try link.run("UPDATE run_lock SET heartbeat_at = $1::timestamptz WHERE pipeline = $2 AND holder = $3",
                            [.text(iso8601UTC(now)), .text(pipeline), .text(holder)]).changed == 1
    }

    public func releaseRunLock(pipeline: String, holder: String) throws {
        try link.run("DELETE FROM run_lock WHERE pipeline = $1 AND holder = $2", [.text(pipeline), .text(holder)])
        if let lockLink = removeLockLink(for: pipeline) {
            _ = try? lockLink.run("SELECT pg_advisory_unlock($1)", [.integer(Self.runLockKey(pipeline))])
            lockLink.close()
        }
    }

    public func claimSlot(pipeline: String, mode: RunMode, slot: Date, host: String, now: Date) throws -> Bool {
        try link.run("""
            INSERT INTO schedule_slot (pipeline, mode, slot, host, claimed_at) VALUES ($1, $2, $3::timestamptz, $4, $5::timestamptz)
            ON CONFLICT (pipeline, mode, slot) DO NOTHING RETURNING 1
            """, [.text(pipeline), .text(mode.rawValue), .text(iso8601UTC(slot)), .text(host), .text(iso8601UTC(now))]).rows.count == 1
    }

    /// The locks held now: `run_lock` rows whose advisory lock some session holds.
    public func runLocks() throws -> [RunLockHolder] {
        let held = Set(try link.run("""
            SELECT ((classid::bigint << 32) | objid::bigint) FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1
            """).rows.compactMap { row -> Int64? in if case .integer(let k) = row[0] { k } else { nil } })
        return try link.run("SELECT pipeline, holder, pid, host, acquired_at, heartbeat_at FROM run_lock ORDER BY pipeline").rows
            .compactMap(Self.holder).filter { held.contains(Self.runLockKey($0.pipeline)) }
    }

    private func lockRow(_ pipeline: String) throws -> RunLockHolder? {
        try link.run("SELECT pipeline, holder, pid, host, acquired_at, heartbeat_at FROM run_lock WHERE pipeline = $1", [.text(pipeline)])
            .rows.first.flatMap(Self.holder)
    }

    private static func holder(_ row: [StoreValue]) -> RunLockHolder? {
        guard row.count == 6, case .text(let pipeline) = row[0], case .text(let holder) = row[1], case .integer(let pid) = row[2],
              case .text(let host) = row[3], let acquired = parseUTC(row[4]), let heartbeat = parseUTC(row[5]) else { return nil }
        return RunLockHolder(pipeline: pipeline, holder: holder, pid: Int32(truncatingIfNeeded: pid), host: host,
                             acquiredAt: acquired, heartbeatAt: heartbeat)
    }

    private func setLockLink(_ lockLink: PostgresLink, for pipeline: String) {
        locksLock.withLock { lockLinks[pipeline]?.close(); lockLinks[pipeline] = lockLink }
    }
    private func lockLink(for pipeline: String) -> PostgresLink? { locksLock.withLock { lockLinks[pipeline] } }
    private func removeLockLink(for pipeline: String) -> PostgresLink? { locksLock.withLock { lockLinks.removeValue(forKey: pipeline) } }
}

// MARK: - Quota: counters shared by every host

extension PostgresStore {
    public func callsMade(_ scope: QuotaScope, on day: LocalDate) throws -> Int {
        try callsMade([scope], on: day)[scope] ?? 0
    }

    /// One statement: concurrent hosts sharing a key never count past the limit together (the
    /// conflicting insert waits for the other's row lock, then re-checks the limit).
    public func reserveCall(_ scope: QuotaScope, on day: LocalDate, limit: Int?) throws -> Bool {
        let limitValue = StoreValue(limit)
        return try !link.run("""
            INSERT INTO api_call AS a (source, api, credential_variable, key_fingerprint, kst_date, calls)
            SELECT $1, $2, $3, $4, $5::date, 1 WHERE $6::bigint IS NULL OR $6::bigint > 0
            ON CONFLICT (source, api, credential_variable, key_fingerprint, kst_date)
            DO UPDATE SET calls = a.calls + 1 WHERE $6::bigint IS NULL OR a.calls < $6::bigint
            RETURNING calls
            """, Self.key(scope, day) + [limitValue]).rows.isEmpty
    }

    public func markExhausted(_ scope: QuotaScope, on day: LocalDate, limit: Int) throws {
        try link.run("""
            INSERT INTO api_call AS a (source, api, credential_variable, key_fingerprint, kst_date, calls)
            VALUES ($1, $2, $3, $4, $5::date, $6)
            ON CONFLICT (source, api, credential_variable, key_fingerprint, kst_date)
            DO UPDATE SET calls = greatest(a.calls, EXCLUDED.calls)
            """, Self.key(scope, day) + [.integer(Int64(max(0, limit)))])
    }

    public func callsMade(_ scopes: [QuotaScope], on day: LocalDate) throws -> [QuotaScope: Int] {
        var out: [QuotaScope: Int] = [:]
        for scope in scopes {
            let value = try link.run("""
                SELECT calls FROM api_call WHERE source = $1 AND api = $2 AND credential_variable = $3 AND key_fingerprint = $4 AND kst_date = $5::date
                """, Self.key(scope, day)).scalar
            if case .integer(let n) = value { out[scope] = Int(n) } else { out[scope] = 0 }
        }
        return out
    }

    private static func key(_ scope: QuotaScope, _ day: LocalDate) -> [StoreValue] {
        [.text(scope.source), .text(scope.api), .text(scope.credentialVariable), .text(scope.keyFingerprint), .text(day.description)]
    }
}

// MARK: - Reads for status, the scheduler, dry runs, backfill and intake

extension PostgresStore {
    static func parseUTC(_ value: StoreValue?) -> Date? {
        guard case .text(let text)? = value else { return nil }
        return ISO8601DateFormatter().date(from: text)
    }

    private func text(_ value: StoreValue) -> String? { if case .text(let t) = value { t } else { nil } }
    private func int(_ value: StoreValue) -> Int { if case .integer(let n) = value { Int(n) } else { 0 } }
    private func double(_ value: StoreValue) -> Double? {
        switch value { case .real(let d): d; case .integer(let n): Double(n); default: nil }
    }

    public func lastRunStarts(mode: RunMode?) throws -> [String: Date] {
        let rows = try mode.map { try link.run("SELECT pipeline, max(started_at) FROM run WHERE mode = $1 GROUP BY pipeline", [.text($0.rawValue)]) }
            ?? link.run("SELECT pipeline, max(started_at) FROM run GROUP BY pipeline")
        var starts: [String: Date] = [:]
        for row in rows.rows { if let name = text(row[0]), let date = Self.parseUTC(row[1]) { starts[name] = date } }
        return starts
    }

    public func pipelineRunSummaries() throws -> [PipelineRunSummary] {
        try link.run("""
            SELECT r.pipeline, r.id, r.mode, r.started_at, r.finished_at, r.status, r.rows_inserted, r.rows_updated, r.rows_unchanged,
                r.diagnostics, r.error,
                (SELECT max(finished_at) FROM run s WHERE s.pipeline = r.pipeline AND s.status = 'succeeded') AS last_success,
                (SELECT value FROM bookmark b WHERE b.pipeline = r.pipeline AND b.name = 'newest_observed_at') AS newest_observed
            FROM run r
            WHERE r.id = (SELECT max(id) FROM run t WHERE t.pipeline = r.pipeline)
            ORDER BY r.pipeline
            """).rows.map { row in
            PipelineRunSummary(pipeline: text(row[0]) ?? "", run: RunID(Int64(int(row[1]))), mode: text(row[2]).flatMap(RunMode.init(rawValue:)),
                               startedAt: Self.parseUTC(row[3]), finishedAt: Self.parseUTC(row[4]), status: text(row[5]) ?? "",
                               rowsInserted: int(row[6]), rowsUpdated: int(row[7]), rowsUnchanged: int(row[8]), diagnostics: int(row[9]),
                               error: text(row[10]), lastSuccessAt: Self.parseUTC(row[11]), newestObservedAt: Self.parseUTC(row[12]))
        }
    }

    public func quotaUsage(on day: LocalDate) throws -> [QuotaUsage] {
        try link.run("""
            SELECT source, api, credential_variable, sum(calls)::bigint FROM api_call
            WHERE kst_date = $1::date GROUP BY source, api, credential_variable ORDER BY source, api
            """, [.text(day.description)]).rows.map {
            QuotaUsage(source: text($0[0]) ?? "", api: text($0[1]) ?? "", credentialVariable: text($0[2]) ?? "", calls: int($0[3]))
        }
    }

    public func bookmarks(pipeline: String) throws -> [String: String] {
        var out: [String: String] = [:]
        for row in try link.run("SELECT name, value FROM bookmark WHERE pipeline = $1", [.text(pipeline)]).rows {
            if let name = text(row[0]), let value = text(row[1]) { out[name] = value }
        }
        return out
    }

    public func allBookmarks() throws -> [String: [String: String]] {
        var out: [String: [String: String]] = [:]
        for row in try link.run("SELECT pipeline, name, value FROM bookmark ORDER BY pipeline, name").rows {
            if let pipeline = text(row[0]), let name = text(row[1]), let value = text(row[2]) { out[pipeline, default: [:]][name] = value }
        }
        return out
    }

    public func ledgerPipelines() throws -> Set<String> {
        Set(try link.run("SELECT DISTINCT pipeline FROM run UNION SELECT DISTINCT pipeline FROM bookmark").rows.compactMap { text($0[0]) })
    }

    public func replaceBookmarks(_ bookmarks: [String: [String: String]], at: Date) throws {
        try link.transaction {
            for (pipeline, values) in bookmarks.sorted(by: { $0.key < $1.key }) {
                try link.run("DELETE FROM bookmark WHERE pipeline = $1", [.text(pipeline)])
                let id = try link.run("""
                    INSERT INTO run (pipeline, mode, started_at, finished_at, status, host, pid)
                    VALUES ($1, 'replay', $2::timestamptz, $2::timestamptz, 'succeeded', $3, $4) RETURNING id
                    """, [.text(stateImportRunName(pipeline)), .text(iso8601UTC(at)), .text(host), .integer(Int64(pid))]).scalar
                guard case .integer(let run) = id else { throw PostgresStoreError("the run ledger returned no id") }
                for (name, value) in values.sorted(by: { $0.key < $1.key }) {
                    try link.run("INSERT INTO bookmark (pipeline, name, value, run_id) VALUES ($1, $2, $3, $4)",
                                 [.text(pipeline), .text(name), .text(value), .integer(run)])
                }
            }
        }
    }

    public func clearBookmarks(pipeline: String) throws -> Int {
        try link.transaction {
            let count = try link.run("SELECT count(*) FROM bookmark WHERE pipeline = $1", [.text(pipeline)]).scalar
            try link.run("DELETE FROM bookmark WHERE pipeline = $1", [.text(pipeline)])
            if case .integer(let n) = count { return Int(n) }
            return 0
        }
    }

    public func hasTable(_ name: String) throws -> Bool {
        try link.run("SELECT to_regclass($1) IS NOT NULL", [.text("\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"")]).scalar == .integer(1)
    }

    public func checkResults(run: RunID) throws -> [CheckResult] {
        try link.run("""
            SELECT check_name, kind, table_name, severity, on_failure, status, failing_rows, message FROM check_result WHERE run_id = $1 ORDER BY ordinal
            """, [.integer(run.rawValue)]).rows.map { row in
            CheckResult(name: text(row[0]) ?? "", kind: text(row[1]) ?? "", table: text(row[2]),
                        severity: CheckSeverity(rawValue: text(row[3]) ?? "") ?? .error,
                        onFailure: CheckFailureAction(rawValue: text(row[4]) ?? "") ?? .rollback,
                        status: CheckResult.Status(rawValue: text(row[5]) ?? "") ?? .error,
                        failingRows: row[6] == .null ? nil : int(row[6]), message: text(row[7]) ?? "")
        }
    }
}
#endif
