import Domain
import Foundation
import GRDB
import Pipeline

// MARK: - Quota ledger

/// The `api_call` table as a `QuotaLedger`: one row per feed API, key (variable + fingerprint)
/// and KST day, counted with single statements so concurrent processes sharing a key never
/// count past the limit together. The SQL is plain `INSERT … ON CONFLICT … RETURNING`, which
/// PostgreSQL runs unchanged.
extension SQLiteStore: QuotaLedger {
    public func callsMade(_ scope: QuotaScope, on day: LocalDate) throws -> Int {
        try pool.read { db in try Self.calls(db, scope, day) }
    }

    public func reserveCall(_ scope: QuotaScope, on day: LocalDate, limit: Int?) throws -> Bool {
        try pool.write { db in
            // The SELECT's WHERE keeps a limit of 0 from inserting; the UPDATE's WHERE stops at the
            // limit. RETURNING yields a row only when a call was counted.
            // Cached: a live run counts every page it fetches.
            let statement = try db.cachedStatement(sql: """
                INSERT INTO api_call (source, api, credential_variable, key_fingerprint, kst_date, calls)
                SELECT ?, ?, ?, ?, ?, 1 WHERE ? IS NULL OR ? > 0
                ON CONFLICT (source, api, credential_variable, key_fingerprint, kst_date)
                DO UPDATE SET calls = api_call.calls + 1 WHERE ? IS NULL OR api_call.calls < ?
                RETURNING calls
                """)
            let counted = try Int.fetchOne(statement, arguments: StatementArguments(Self.key(scope, day) + [limit, limit, limit, limit]))
            return counted != nil
        }
    }

    public func markExhausted(_ scope: QuotaScope, on day: LocalDate, limit: Int) throws {
        try pool.write { db in
            try db.execute(sql: """
                INSERT INTO api_call (source, api, credential_variable, key_fingerprint, kst_date, calls)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (source, api, credential_variable, key_fingerprint, kst_date)
                DO UPDATE SET calls = max(api_call.calls, excluded.calls)
                """, arguments: StatementArguments(Self.key(scope, day) + [max(0, limit)]))
        }
    }

    /// Calls counted per scope on `day`, for `scopes`.
    public func callsMade(_ scopes: [QuotaScope], on day: LocalDate) throws -> [QuotaScope: Int] {
        try pool.read { db in try Self.calls(db, scopes, day) }
    }

    static func calls(_ db: Database, _ scopes: [QuotaScope], _ day: LocalDate) throws -> [QuotaScope: Int] {
        var out: [QuotaScope: Int] = [:]
        for scope in scopes { out[scope] = try calls(db, scope, day) }
        return out
    }

    static func calls(_ db: Database, _ scope: QuotaScope, _ day: LocalDate) throws -> Int {
        try Int.fetchOne(db, sql: """
            SELECT calls FROM api_call
            WHERE source = ? AND api = ? AND credential_variable = ? AND key_fingerprint = ? AND kst_date = ?
            """, arguments: StatementArguments(key(scope, day))) ?? 0
    }

    private static func key(_ scope: QuotaScope, _ day: LocalDate) -> [DatabaseValueConvertible?] {
        [scope.source, scope.api, scope.credentialVariable, scope.keyFingerprint, day.description]
    }
}

extension SQLiteStore {
    /// Every quota scope with calls on `day` (KST), summed over key fingerprints.
    public func quotaUsage(on day: LocalDate) throws -> [QuotaUsage] {
        try pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT source, api, credential_variable, sum(calls) AS calls FROM api_call
                WHERE kst_date = ? GROUP BY source, api, credential_variable ORDER BY source, api
                """, arguments: [day.description]).map {
                QuotaUsage(source: $0["source"], api: $0["api"], credentialVariable: $0["credential_variable"], calls: $0["calls"])
            }
        }
    }
}
