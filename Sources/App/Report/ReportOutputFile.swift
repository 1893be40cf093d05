import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where `feedline report` may write its HTML, checked before anything is written, and the
/// atomic write itself.
///
/// A symbolic link is followed and its target checked like any other path. The report goes to a
/// new file, or over a regular file that is an earlier feedline report (its first bytes carry
/// `<meta name="generator" content="feedline …">`), or, with `force`, over any other regular
/// file. A directory, a device, FIFO or socket, the database being read (or its `-wal`, `-shm`,
/// `-journal`) and any SQLite file are always refused. A missing parent directory is created only
/// with `makeDirectories`. The HTML is written to a temporary file in the same directory and
/// renamed over the target, so a failed write leaves the old file as it was.
struct ReportOutputFile {
    /// Why the report was not written: one readable line.
    struct Problem: Error, CustomStringConvertible {
        enum Kind { case refused, failed }
        /// `.refused`: the path given is not one feedline writes to (a usage error);
        /// `.failed`: the file system said no (permissions, space).
        let kind: Kind
        let message: String
        var description: String { message }

        static func refused(_ message: String) -> Problem { Problem(kind: .refused, message: message) }
        static func failed(_ message: String) -> Problem { Problem(kind: .failed, message: message) }
    }

    /// Text every report carries in its first bytes (`ReportHTML`'s generator meta).
    static let marker = Data("<meta name=\"generator\" content=\"feedline ".utf8)
    /// How many leading bytes of an existing file are searched for `marker`.
    static let markerWindow = 1024
    /// The first 16 bytes of every SQLite database file.
    static let sqliteHeader = Data("SQLite format 3\u{0}".utf8)

    /// The path as given.
    let requested: URL
    /// The file actually written: `requested` with symbolic links followed.
    let target: URL
    /// Permission bits of the file being replaced (kept on the new one); nil for a new file.
    let replacedMode: mode_t?

    /// Checks `url` as a place to write the report, following symbolic links, and creates the
    /// missing parent directories when `makeDirectories` is set.
    static func prepare(_ url: URL, database: URL, force: Bool, makeDirectories: Bool) throws(Problem) -> ReportOutputFile {
        let target = try followLinks(url)
        let directory = target.deletingLastPathComponent()
        var st = stat()
        if stat(directory.path, &st) != 0 {
            let code = errno
            guard code == ENOENT else {
                throw .failed("cannot write the report to \(url.path): \(directory.path): \(describe(code)).")
            }
            guard makeDirectories else {
                throw .refused("cannot write the report to \(url.path): the directory \(directory.path) does not exist (pass --mkdir to create it).")
            }
            try createDirectories(directory)
        } else if st.st_mode & S_IFMT != S_IFDIR {
            throw .refused("cannot write the report to \(url.path): \(directory.path) is not a directory.")
        }
        let mode = try check(target, requested: url, database: database, force: force)
        return ReportOutputFile(requested: url, target: target, replacedMode: mode)
    }

    /// Writes `data` to a temporary file beside the target, then renames it over the target
    /// (after checking the target once more).
    func write(_ data: Data, database: URL, force: Bool) throws(Problem) {
        let directory = target.deletingLastPathComponent()
        var temporary = ""
        var fd: Int32 = -1
        for _ in 0..<16 {
            let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
            temporary = directory.appendingPathComponent(".\(target.lastPathComponent).\(suffix).tmp").path
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            if fd >= 0 || errno != EEXIST { break }
        }
        guard fd >= 0 else {
            throw .failed("cannot write the report to \(requested.path): cannot create a file in \(directory.path): \(Self.describe(errno)).")
        }
        var renamed = false
        defer { if !renamed { unlink(temporary) } }
        var failure: Int32 = 0
        data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < buffer.count, let base = buffer.baseAddress {
                let n = Glibc.write(fd, base + offset, buffer.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += n
            }
        }
        if failure == 0, let mode = replacedMode, fchmod(fd, mode & 0o777) != 0 { failure = errno }
        if failure == 0, fsync(fd) != 0 { failure = errno }
        if close(fd) != 0, failure == 0 { failure = errno }
        if failure != 0 {
            throw .failed("cannot write the report to \(requested.path): \(Self.describe(failure)); the old file, if any, is unchanged.")
        }
        // The target may have changed while the report was written: check it again.
        _ = try Self.check(target, requested: requested, database: database, force: force)
        guard rename(temporary, target.path) == 0 else {
            throw .failed("cannot write the report to \(requested.path): \(Self.describe(errno)); the old file, if any, is unchanged.")
        }
        renamed = true
    }

    // MARK: Checks

    /// `url` with symbolic links followed (a dangling link gives the path it points to).
    static func followLinks(_ url: URL) throws(Problem) -> URL {
        var current = url
        for _ in 0..<40 {
            var st = stat()
            guard lstat(current.path, &st) == 0, st.st_mode & S_IFMT == S_IFLNK else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(current.path, &buffer, buffer.count - 1)
            guard n >= 0 else {
                throw .failed("cannot write the report to \(url.path): cannot read the link \(current.path): \(describe(errno)).")
            }
            let destination = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = destination.hasPrefix("/") ? URL(fileURLWithPath: destination)
                : current.deletingLastPathComponent().appendingPathComponent(destination)
        }
        throw .refused("cannot write the report to \(url.path): too many levels of symbolic links.")
    }

    /// Refuses a target feedline must not replace; returns the permission bits of an existing
    /// file it may replace, nil when there is none.
    static func check(_ target: URL, requested: URL, database: URL, force: Bool) throws(Problem) -> mode_t? {
        let shown = target.path == requested.path ? requested.path : "\(requested.path) (→ \(target.path))"
        var st = stat()
        guard lstat(target.path, &st) == 0 else {
            let code = errno
            if code == ENOENT { return nil }
            throw .failed("cannot write the report to \(shown): \(describe(code)).")
        }
        switch st.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR:
            throw .refused("refusing to write the report to \(shown): it is a directory; give a file name, e.g. \(requested.appendingPathComponent("report.html").path).")
        default:
            throw .refused("refusing to write the report to \(shown): it is not a regular file (a device, FIFO or socket).")
        }
        for suffix in ["", "-wal", "-shm", "-journal"] {
            var db = stat()
            if stat(database.path + suffix, &db) == 0, db.st_dev == st.st_dev, db.st_ino == st.st_ino {
                throw .refused("refusing to write the report to \(shown): it is the database feedline reads (\(database.path)\(suffix)).")
            }
        }
        let head: Data
        switch leadingBytes(of: target) {
        case .success(let bytes): head = bytes
        case .failure(let error):
            throw .refused("refusing to write the report to \(shown): it exists and cannot be read to check what it is (\(describe(error.code))).")
        }
        if head.starts(with: sqliteHeader) || head.starts(with: [0x37, 0x7f, 0x06, 0x82]) || head.starts(with: [0x37, 0x7f, 0x06, 0x83]) {
            throw .refused("refusing to write the report to \(shown): it is a SQLite file; feedline never overwrites one (not even with --force).")
        }
        if head.range(of: marker) == nil && !force {
            throw .refused("refusing to write the report to \(shown): it exists and is not a feedline report; pass --force to replace it, or choose another -o path.")
        }
        return st.st_mode
    }

    /// An `errno` value as an error.
    struct SystemError: Error { let code: Int32 }

    /// Up to `markerWindow` leading bytes of a regular file.
    static func leadingBytes(of url: URL) -> Result<Data, SystemError> {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return .failure(SystemError(code: errno)) }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: markerWindow)
        var total = 0
        while total < buffer.count {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + total, $0.count - total) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return .failure(SystemError(code: errno)) }
            if n == 0 { break }
            total += n
        }
        return .success(Data(buffer[..<total]))
    }

    /// `mkdir -p`, with a readable error.
    static func createDirectories(_ directory: URL) throws(Problem) {
        var missing: [URL] = []
        var current = directory
        var st = stat()
        while current.path != "/", stat(current.path, &st) != 0 {
            missing.append(current)
            current = current.deletingLastPathComponent()
        }
        if current.path != "/" && st.st_mode & S_IFMT != S_IFDIR {
            throw .refused("cannot create the directory \(directory.path): \(current.path) is not a directory.")
        }
        for url in missing.reversed() where mkdir(url.path, 0o777) != 0 && errno != EEXIST {
            throw .failed("cannot create the directory \(url.path): \(describe(errno)).")
        }
    }

    /// The C library's text for an `errno` value ("Permission denied").
    static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}
