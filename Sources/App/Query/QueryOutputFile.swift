import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `feedline query -o FILE`: the rows go to a temporary file beside FILE, renamed over it once
/// the query has finished, so a query that fails leaves an earlier FILE as it was.
///
/// FILE may be new or an existing regular file (replaced, as a shell's `>` would); a symbolic
/// link is followed and its target replaced. A directory, a device, FIFO or socket, the database
/// being queried (or its `-wal`, `-shm`, `-journal`) and any SQLite file are refused, as is a
/// directory that does not exist. `@unchecked Sendable`: one query writes it, on one thread.
final class QueryOutputFile: @unchecked Sendable {
    /// Why the rows could not go to the file: one readable line; `refused` is a usage error.
    struct Problem: Error, CustomStringConvertible {
        let refused: Bool
        let message: String
        var description: String { message }
    }

    /// The path as given.
    let requested: URL
    /// The file replaced: `requested` with symbolic links followed.
    let target: URL
    private let temporary: URL
    private let handle: FileHandle
    private var failure: String?
    private var done = false

    /// Checks `url` and opens a temporary file beside it.
    init(_ url: URL, database: URL) throws(Problem) {
        requested = url
        target = url.resolvingSymlinksInPath()
        try Self.check(target, shown: url.path, database: database)
        let directory = target.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw Problem(refused: true, message: "cannot write to \(url.path): the directory \(directory.path) does not exist.")
        }
        temporary = directory.appendingPathComponent(".\(target.lastPathComponent).\(UUID().uuidString.prefix(8)).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil),
              let handle = try? FileHandle(forWritingTo: temporary) else {
            throw Problem(refused: false, message: "cannot write to \(url.path): cannot create a file in \(directory.path) (\(String(cString: strerror(errno)))).")
        }
        self.handle = handle
    }

    deinit { if !done { discard() } }

    /// Appends `text` and a newline (the first failure is kept and reported by `commit`).
    func write(_ text: String) {
        guard failure == nil else { return }
        do { try handle.write(contentsOf: Data((text + "\n").utf8)) } catch {
            failure = "cannot write to \(requested.path): \(error.localizedDescription)"
        }
    }

    /// Moves the finished file into place.
    func commit(database: URL) throws(Problem) {
        done = true
        try? handle.close()
        if let failure {
            try? FileManager.default.removeItem(at: temporary)
            throw Problem(refused: false, message: failure + "; the old file, if any, is unchanged.")
        }
        do { try Self.check(target, shown: requested.path, database: database) } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
        guard rename(temporary.path, target.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw Problem(refused: false, message: "cannot write to \(requested.path): \(reason); the old file, if any, is unchanged.")
        }
    }

    /// Removes the temporary file; an earlier FILE stays as it was.
    func discard() {
        done = true
        try? handle.close()
        try? FileManager.default.removeItem(at: temporary)
    }

    /// Refuses a target that must not be replaced.
    static func check(_ target: URL, shown: String, database: URL) throws(Problem) {
        var st = stat()
        guard lstat(target.path, &st) == 0 else { return }  // a new file
        switch st.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw Problem(refused: true, message: "refusing to write to \(shown): it is a directory; give a file name.")
        default: throw Problem(refused: true, message: "refusing to write to \(shown): it is not a regular file (a device, FIFO or socket).")
        }
        for suffix in ["", "-wal", "-shm", "-journal"] {
            var db = stat()
            if stat(database.path + suffix, &db) == 0, db.st_dev == st.st_dev, db.st_ino == st.st_ino {
                throw Problem(refused: true, message: "refusing to write to \(shown): it is the database being queried (\(database.path)\(suffix)).")
            }
        }
        if case .success(let head) = ReportOutputFile.leadingBytes(of: target), head.starts(with: ReportOutputFile.sqliteHeader) || head.starts(with: [0x37, 0x7f, 0x06, 0x82]) || head.starts(with: [0x37, 0x7f, 0x06, 0x83]) {
            throw Problem(refused: true, message: "refusing to write to \(shown): it is a SQLite file; feedline never overwrites one.")
        }
    }
}
