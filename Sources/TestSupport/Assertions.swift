import GRDB
import Storage

/// Opens a database file for assertions: read-only, with a busy timeout, so a check never
/// races a store that is still closing its connections.
public func openForAssertions(_ path: String) throws -> DatabaseQueue {
    try HotJournal.rollBack(path: path, busyTimeout: 10)
    var config = Configuration()
    config.readonly = true
    config.busyMode = .timeout(10)
    return try DatabaseQueue(path: path, configuration: config)
}
