import Foundation
import Pipeline

extension ReadOnlyDatabase: DatabaseReading {
    /// The file's path.
    public var location: String { path }

    /// Every table and view of the file with its columns.
    public func schema() throws -> DatabaseSchema { try DatabaseSchema.read(from: self) }
}

extension SQLiteStore {
    /// Read-only SQL on this store's file, through its pool's read-only connections, with the
    /// statement checks of `ReadOnlyDatabase` (one reading statement, nothing written).
    public func reading() throws -> any DatabaseReading {
        ReadOnlyDatabase(pool: pool, path: path)
    }
}
