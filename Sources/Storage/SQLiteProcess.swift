import CSQLiteTuning

/// SQLite settings that hold for a whole process and must be made before SQLite is first used.
public enum SQLiteProcess {
    /// Called once by the executable first thing, while it has one thread: turns SQLite's memory
    /// statistics off, which feedline never reads and which cost every SQLite allocation a global
    /// mutex (about 2 % of a load's CPU). Returns whether the setting took (false when SQLite was
    /// already in use; nothing else changes then).
    @discardableResult
    public static func prepare() -> Bool { feedline_sqlite_memstatus_off() == 0 }
}
