import Foundation
import GRDB
import Pipeline
import PropertyBased
@testable import Storage
import Testing

/// Encoded rows are inserted `GRDBLoadSession.insertBatch` at a time; whatever the rows, the
/// table and the counts must come out as when every row is upserted on its own.
@Suite("Batched inserts of encoded rows")
struct BatchedUpsertTests {
    /// A kept column with an insert fallback, a counted revision, and a fact table the fallback reads.
    static let spec = UpsertTable(table: "t", columns: ["k", "v", "note"], key: ["k"], keepKnown: ["note"],
                                  insertFallbacks: ["note": "(SELECT label FROM fact WHERE k = {k})"])
    static let schema = """
        CREATE TABLE t (k TEXT NOT NULL, v INTEGER CHECK (v >= 0), note TEXT, revision INTEGER NOT NULL DEFAULT 0, UNIQUE (k));
        CREATE TABLE fact (k TEXT PRIMARY KEY, label TEXT);
        INSERT INTO fact VALUES ('k1', 'one'), ('k7', 'seven');
        INSERT INTO t (k, v, note) VALUES ('k0', 1, NULL), ('k1', 2, 'kept'), ('k2', NULL, NULL);
        """

    /// 0 to 100 rows over 12 keys (so keys repeat within a batch and across batches), values
    /// often equal to what is stored.
    static func rows(_ rng: inout Xoshiro) -> [[StoreValue]] {
        (0..<Int.random(in: 0...100, using: &rng)).map { _ in
            let v: StoreValue = Int.random(in: 0...3, using: &rng) == 0 ? .null : .integer(Int64.random(in: 0...2, using: &rng))
            let note: StoreValue = Bool.random(using: &rng) ? .null : .text(["a", "b"].randomElement(using: &rng)!)
            return [.text("k\(Int.random(in: 0...11, using: &rng))"), v, note]
        }
    }

    static func contents(_ queue: DatabaseQueue) throws -> [[String?]] {
        try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT k, v, note, revision FROM t ORDER BY k").map { row in
                (0..<4).map { (row[$0] as DatabaseValue).description }
            }
        }
    }

    @Test("the table and the inserted / updated / unchanged counts equal a row-by-row upsert's")
    func sameAsRowByRow() throws {
        var rng = Xoshiro(seed: (0x6261_7463_6865_6400, 0x7570_7365_7274_0001, 0x726F_7773_0000_0002, 0x0000_0000_0000_0020))
        var batchesSeen = 0
        for _ in 0..<150 {
            let rows = Self.rows(&rng)
            let batched = try DatabaseQueue(), rowwise = try DatabaseQueue()
            for queue in [batched, rowwise] { try queue.write { try $0.execute(sql: Self.schema) } }
            var encoded = EncodedRows()
            for row in rows { encoded.append(Self.spec, counted: true) { for value in row { $0.append(value) } } }
            let batchedCounts = try batched.write { db in
                try GRDBLoadSession(db: db, run: RunID(1), writers: [:]).write(encoded, in: nil)
            }
            let rowwiseCounts = try rowwise.write { db in
                let session = GRDBLoadSession(db: db, run: RunID(1), writers: [:])
                var counts = LoadCounts()
                for row in rows { counts.count(try session.upsert(Self.spec, RowValues(row))) }
                return counts
            }
            #expect(try Self.contents(batched) == Self.contents(rowwise), "rows: \(rows)")
            #expect(batchedCounts.inserted == rowwiseCounts.inserted && batchedCounts.updated == rowwiseCounts.updated
                    && batchedCounts.unchanged == rowwiseCounts.unchanged, "\(batchedCounts) vs \(rowwiseCounts)")
            if rows.count >= GRDBLoadSession.insertBatch { batchesSeen += 1 }
        }
        #expect(batchesSeen > 30)  // the batched path ran, not only the row-by-row tail
    }

    @Test("a row that breaks a constraint inside a batch fails the write with the one-row statement's error")
    func failingRowInBatch() throws {
        let queue = try DatabaseQueue()
        try queue.write { try $0.execute(sql: Self.schema) }
        var encoded = EncodedRows()
        for i in 0..<GRDBLoadSession.insertBatch {
            encoded.append(Self.spec, counted: true) { $0.append("n\(i)"); $0.append(i == 20 ? -1 : i); $0.append(nil as String?) }
        }
        do {
            _ = try queue.write { db in try GRDBLoadSession(db: db, run: RunID(1), writers: [:]).write(encoded, in: nil) }
            Issue.record("the write succeeded")
        } catch let error as DatabaseError {
            #expect(error.resultCode == .SQLITE_CONSTRAINT)
            #expect(error.message?.contains("CHECK constraint failed") == true)
            #expect(error.sql?.contains("VALUES (?1, ?2,") == true && error.sql?.contains("?4") == false, "\(error.sql ?? "")")
        }
        // The failed write's transaction is rolled back: nothing of the batch stays.
        #expect(try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t WHERE k LIKE 'n%'") } == 0)
    }
}
