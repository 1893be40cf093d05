import Domain
import Foundation
import GRDB
import Pipeline

/// Runs that will never finish: their process was killed (`kill -9`, a crash, a power cut)
/// between `beginRun` and the end of the run, so their ledger row stays `running`.
///
/// Such a row becomes `abandoned`, with `abandoned_at` set to when feedline noticed (its
/// `finished_at` stays NULL: the run never finished) and `error` saying why. Noticing happens
/// in two places, each inside the transaction that starts something new:
/// - taking a pipeline's run lock (`acquireRunLock`): whoever holds the lock is the only one
///   allowed to run the pipeline, so every other `running` row of that pipeline is abandoned,
///   whether the lock was taken over from a dead or silent holder or found free;
/// - beginning a run (`beginRun`): `running` rows of the same pipeline recorded by a process of
///   this host that is no longer alive. This covers `replay`, which takes no run lock.
extension SQLiteStore {
    /// Marks every `running` run of `pipeline` abandoned (the caller holds the pipeline's lock).
    /// Returns how many rows changed.
    @discardableResult
    static func abandonRunningRuns(_ db: Database, pipeline: String, noticedAt: Date) throws -> Int {
        try db.execute(sql: """
            UPDATE run SET status = 'abandoned', abandoned_at = ?,
                error = 'The run did not finish: its process ' || coalesce('(pid ' || pid || ' on ' || host || ') ', '')
                    || 'stopped or lost its run lock before the end.'
            WHERE pipeline = ? AND status = 'running'
            """, arguments: [iso8601UTC(noticedAt), pipeline])
        return db.changesCount
    }

    /// Marks abandoned the `running` runs of `pipeline` that a process of this host recorded and
    /// that is gone. Returns how many rows changed.
    @discardableResult
    static func abandonDeadRuns(_ db: Database, pipeline: String, process: RunProcess, noticedAt: Date) throws -> Int {
        let candidates = try Row.fetchAll(db, sql: """
            SELECT id, pid FROM run WHERE pipeline = ? AND status = 'running' AND host = ? AND pid IS NOT NULL AND pid <> ?
            """, arguments: [pipeline, process.host, process.pid])
        var changed = 0
        for row in candidates where !process.isAlive(row["pid"]) {
            try db.execute(sql: """
                UPDATE run SET status = 'abandoned', abandoned_at = ?,
                    error = 'The run did not finish: its process (pid ' || pid || ' on ' || host || ') is gone.'
                WHERE id = ? AND status = 'running'
                """, arguments: [iso8601UTC(noticedAt), row["id"] as Int64])
            changed += db.changesCount
        }
        return changed
    }
}
