import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Every file feedline writes — reports, JUnit XML, snapshots, query rows, the files of a new
/// home, generated docs, metrics — is checked and written here, so each command gets the same rule.
///
/// A symbolic link is followed and its target checked like any other path. The file goes to a
/// new path, or over a regular file that feedline wrote itself (its kind's mark:
/// a report's generator meta, a JUnit file's `feedline check` suite, a snapshot's header, a
/// metrics file's first HELP line), or,
/// with `force`, over any other regular file. A directory, a device, FIFO or socket, the database
/// the command uses (or its `-wal`, `-shm`, `-journal`) and any SQLite file (by its header, or a
/// `-wal`/`-shm`/`-journal` file beside one) are always refused, `force` or not. A missing parent
/// directory is created only with `makeDirectories`. The bytes go to a temporary file in the same
/// directory that is renamed over the target, so a failed write leaves the old file as it was.
/// Every refusal or failure is one readable line (`Problem`), never a Foundation error dump.
public struct OutputFile: Sendable {
    /// Why the file was not written: one readable line.
    public struct Problem: Error, CustomStringConvertible {
        public enum Kind: Sendable { case refused, failed }
        /// `.refused`: the path given is not one feedline writes to (a usage error);
        /// `.failed`: the file system said no (permissions, space).
        public let kind: Kind
        public let message: String
        public var description: String { message }
        public var refused: Bool { kind == .refused }

        /// `message` with its control characters escaped, so a hostile path stays on one line.
        init(kind: Kind, message: String) {
            self.kind = kind
            self.message = OutputFile.oneLine(message)
        }

        static func refused(_ message: String) -> Problem { Problem(kind: .refused, message: message) }
        static func failed(_ message: String) -> Problem { Problem(kind: .failed, message: message) }
    }

    /// `text` with each control character (a newline in a file name) as an escape (`\n`,
    /// `\u{1b}`): the same escaping as a table cell of `feedline query` (`TableWriter.visible`).
    static func oneLine(_ text: String) -> String { TableWriter.visible(text) }

    /// What is written, named in messages, and how an earlier file of the same kind is told
    /// from any other file.
    public struct Kind: Sendable {
        /// `the report`, `the JUnit report`: what `refusing to write … to` names.
        var noun: String
        /// `a feedline report`: what an existing file is not, when it is refused.
        var recognisedAs: String
        /// A file name to suggest when a directory is given (`report.html`).
        var exampleName: String
        /// The option that takes the path (`-o`, `--junit`), for the hint.
        var option: String
        /// How many leading bytes of an existing file `recognises` is given.
        var window: Int
        /// True when an existing file's leading bytes are what feedline writes for this kind.
        var recognises: @Sendable (Data) -> Bool
        /// What to do about an existing file that is not of this kind, when the command has no
        /// `--force` (nil: `pass --force to replace it`).
        var refusalAdvice: String? = nil

        /// An HTML report: `ReportHTML`'s generator meta in its first KiB.
        public static let report = Kind(noun: "the report", recognisedAs: "a feedline report", exampleName: "report.html", option: "-o",
                                 window: 1024, recognises: { $0.range(of: reportMarker) != nil })

        /// `check --junit`: the `<testsuites name="feedline check"` line `JUnitReport` writes.
        public static let junit = Kind(noun: "the JUnit report", recognisedAs: "a JUnit report feedline wrote", exampleName: "feedline-checks.xml",
                                option: "--junit", window: 1024, recognises: { $0.range(of: junitMarker) != nil })

        /// `query -o`: rows carry no mark of their own, so only a new file, or `force`.
        public static let queryRows = Kind(noun: "the rows", recognisedAs: "", exampleName: "rows.csv", option: "-o",
                                    window: 0, recognises: { _ in false })

        /// A systemd unit `crontab --systemd --output-dir` writes: its own are recognised by
        /// their first line (`CrontabRenderer.unitMarker`); any other file only with `--force`.
        public static let systemdUnit = Kind(noun: "the unit file", recognisedAs: "a unit file feedline wrote", exampleName: "feedline-NAME.timer",
                                             option: "--output-dir", window: 256,
                                             recognises: { $0.starts(with: Data(CrontabRenderer.unitMarker.utf8)) })
        /// `--metrics-file`: metrics in the Prometheus text format, which start with the HELP
        /// line of a `feedline_` family; an empty file (made ready with `touch`) is taken too.
        /// Rewritten after every run, so there is no `--force`.
        public static let metrics = Kind(noun: "the metrics", recognisedAs: "a metrics file feedline wrote", exampleName: "feedline.prom",
                                         option: "--metrics-file", window: 64, recognises: { $0.isEmpty || $0.starts(with: metricsMarker) },
                                         refusalAdvice: "remove it, or choose another --metrics-file path (feedline replaces only a metrics file it wrote)")

        /// A file of a new home (`init`) or of the generated docs: replaced only with `force`.
        public static func projectFile(_ noun: String) -> Kind {
            Kind(noun: noun, recognisedAs: "", exampleName: "file", option: "", window: 0, recognises: { _ in false })
        }
    }

    /// Text every report carries in its first bytes (`ReportHTML`'s generator meta).
    static let reportMarker = Data("<meta name=\"generator\" content=\"feedline ".utf8)
    /// The root element every `check --junit` file starts with.
    static let junitMarker = Data("<testsuites name=\"feedline check\"".utf8)
    /// The first bytes of every metrics file (`MetricsExposition`: the HELP line of its first family).
    static let metricsMarker = Data("# HELP feedline_".utf8)

    /// The leading bytes of the files SQLite writes: a database, a WAL (two byte orders), a
    /// rollback journal, a shared-memory index (version 3007000, little-endian).
    static let sqliteMagics: [Data] = [
        Data("SQLite format 3\u{0}".utf8), Data([0x37, 0x7f, 0x06, 0x82]), Data([0x37, 0x7f, 0x06, 0x83]),
        Data([0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7]), Data([0x18, 0xe2, 0x2d, 0x00]),
    ]
    /// The bytes read from an existing file to tell what it is.
    static let sniffWindow = 64 << 10

    /// The database a command uses, and how messages name it.
    public struct Database: Sendable {
        public var url: URL
        /// `the database feedline reads`, `the database being queried`.
        public var role: String
        public init(_ url: URL, role: String = "the database feedline reads") { self.url = url; self.role = role }
    }

    /// The path as given.
    public let requested: URL
    /// The file actually written: `requested` with symbolic links followed.
    public let target: URL
    let kind: Kind
    let database: Database?
    let force: Bool
    /// Permission bits of the file being replaced (kept on the new one); nil for a new file.
    let replacedMode: mode_t?

    /// Checks `url` as a place to write a file of `kind`, following symbolic links, and creates
    /// the missing parent directories when `makeDirectories` is set.
    public static func prepare(_ url: URL, kind: Kind, database: Database?, force: Bool, makeDirectories: Bool) throws(Problem) -> OutputFile {
        let target = try followLinks(url, kind: kind)
        let directory = target.deletingLastPathComponent()
        var st = stat()
        if stat(directory.path, &st) != 0 {
            let code = errno
            guard code == ENOENT else {
                throw .failed("cannot write \(kind.noun) to \(url.path): \(directory.path): \(describe(code)).")
            }
            guard makeDirectories else {
                throw .refused("cannot write \(kind.noun) to \(url.path): the directory \(directory.path) does not exist (pass --mkdir to create it).")
            }
            try createDirectories(directory)
        } else if st.st_mode & S_IFMT != S_IFDIR {
            throw .refused("cannot write \(kind.noun) to \(url.path): \(directory.path) is not a directory.")
        }
        let mode = try check(target, requested: url, kind: kind, database: database, force: force)
        return OutputFile(requested: url, target: target, kind: kind, database: database, force: force, replacedMode: mode)
    }

    /// Writes `data` whole: to a temporary file beside the target, then renamed over it.
    public func write(_ data: Data) throws(Problem) {
        let stream = try open()
        stream.append(data)
        try stream.commit()
    }

    /// A temporary file beside the target, to be filled and then committed or discarded.
    func open() throws(Problem) -> Stream {
        let directory = target.deletingLastPathComponent()
        var temporary = ""
        var fd: Int32 = -1
        for _ in 0..<16 {
            let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
            temporary = directory.appendingPathComponent(".\(target.lastPathComponent).\(suffix).tmp").path
            fd = Glibc.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o666)
            if fd >= 0 || errno != EEXIST { break }
        }
        guard fd >= 0 else {
            throw .failed("cannot write \(kind.noun) to \(requested.path): cannot create a file in \(directory.path): \(Self.describe(errno)).")
        }
        return Stream(file: self, temporary: temporary, fd: fd)
    }

    /// An output file being written: appended to, then moved into place by `commit()` or
    /// removed by `discard()` (also when it is dropped uncommitted). `@unchecked Sendable`: one
    /// command writes it, on one thread at a time.
    final class Stream: @unchecked Sendable {
        let file: OutputFile
        private let temporary: String
        private var fd: Int32
        private var failure: Int32 = 0
        private var finished = false

        fileprivate init(file: OutputFile, temporary: String, fd: Int32) {
            self.file = file; self.temporary = temporary; self.fd = fd
        }

        deinit { if !finished { discard() } }

        /// Appends `data` (the first failure is kept and reported by `commit`).
        func append(_ data: Data) {
            guard failure == 0, !finished else { return }
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
        }

        /// Appends `text` and a newline.
        func appendLine(_ text: String) { append(Data((text + "\n").utf8)) }

        /// Moves the finished file into place, after checking the target once more (it may have
        /// changed while the file was written).
        func commit() throws(Problem) {
            guard !finished else { return }
            finished = true
            let f = file
            if failure == 0, let mode = f.replacedMode, fchmod(fd, mode & 0o777) != 0 { failure = errno }
            if failure == 0, fsync(fd) != 0 { failure = errno }
            if close(fd) != 0, failure == 0 { failure = errno }
            fd = -1
            guard failure == 0 else {
                unlink(temporary)
                throw .failed("cannot write \(f.kind.noun) to \(f.requested.path): \(OutputFile.describe(failure)); the old file, if any, is unchanged.")
            }
            do {
                _ = try OutputFile.check(f.target, requested: f.requested, kind: f.kind, database: f.database, force: f.force)
            } catch {
                unlink(temporary)
                throw error
            }
            guard rename(temporary, f.target.path) == 0 else {
                let code = errno
                unlink(temporary)
                throw .failed("cannot write \(f.kind.noun) to \(f.requested.path): \(OutputFile.describe(code)); the old file, if any, is unchanged.")
            }
        }

        /// Removes the temporary file; an earlier file stays as it was.
        func discard() {
            guard !finished else { return }
            finished = true
            if fd >= 0 { close(fd); fd = -1 }
            unlink(temporary)
        }
    }

    // MARK: Checks

    /// `url` with symbolic links followed (a dangling link gives the path it points to).
    static func followLinks(_ url: URL, kind: Kind) throws(Problem) -> URL {
        var current = url
        for _ in 0..<40 {
            var st = stat()
            guard lstat(current.path, &st) == 0, st.st_mode & S_IFMT == S_IFLNK else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(current.path, &buffer, buffer.count - 1)
            guard n >= 0 else {
                throw .failed("cannot write \(kind.noun) to \(url.path): cannot read the link \(current.path): \(describe(errno)).")
            }
            let destination = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = destination.hasPrefix("/") ? URL(fileURLWithPath: destination)
                : current.deletingLastPathComponent().appendingPathComponent(destination)
        }
        throw .refused("cannot write \(kind.noun) to \(url.path): too many levels of symbolic links.")
    }

    /// True when `head` starts as a file SQLite writes.
    static func isSQLite(_ head: Data) -> Bool { sqliteMagics.contains { head.starts(with: $0) } }

    /// Refuses a target feedline must not replace; returns the permission bits of an existing
    /// file it may replace, nil when there is none.
    static func check(_ target: URL, requested: URL, kind: Kind, database: Database?, force: Bool) throws(Problem) -> mode_t? {
        let shown = target.path == requested.path ? requested.path : "\(requested.path) (→ \(target.path))"
        let refusing = "refusing to write \(kind.noun) to \(shown)"
        var st = stat()
        guard lstat(target.path, &st) == 0 else {
            let code = errno
            if code == ENOENT { return nil }
            throw .failed("cannot write \(kind.noun) to \(shown): \(describe(code)).")
        }
        switch st.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR:
            throw .refused("\(refusing): it is a directory; give a file name, e.g. \(requested.appendingPathComponent(kind.exampleName).path).")
        default:
            throw .refused("\(refusing): it is not a regular file (a device, FIFO or socket).")
        }
        if let database {
            for suffix in ["", "-wal", "-shm", "-journal"] {
                var db = stat()
                if stat(database.url.path + suffix, &db) == 0, db.st_dev == st.st_dev, db.st_ino == st.st_ino {
                    throw .refused("\(refusing): it is \(database.role) (\(database.url.path)\(suffix)).")
                }
            }
        }
        let never = "it is a SQLite file; feedline never overwrites one (not even with --force)."
        for suffix in ["-wal", "-shm", "-journal"] where target.path.hasSuffix(suffix) {
            let main = String(target.path.dropLast(suffix.count))
            if case .success(let head) = leadingBytes(of: URL(fileURLWithPath: main), count: 16), isSQLite(head) {
                throw .refused("\(refusing): \(never)")
            }
        }
        let head: Data
        switch leadingBytes(of: target, count: max(sniffWindow, kind.window)) {
        case .success(let bytes): head = bytes
        case .failure(let error):
            throw .refused("\(refusing): it exists and cannot be read to check what it is (\(describe(error.code))).")
        }
        if isSQLite(head) { throw .refused("\(refusing): \(never)") }
        if !force && !kind.recognises(head.prefix(kind.window)) {
            let other = kind.option.isEmpty ? "" : ", or choose another \(kind.option) path"
            let what = kind.window == 0 ? "it exists" : "it exists and is not \(kind.recognisedAs)"
            throw .refused("\(refusing): \(what); \(kind.refusalAdvice ?? "pass --force to replace it\(other)").")
        }
        return st.st_mode
    }

    /// An `errno` value as an error.
    struct SystemError: Error { let code: Int32 }

    /// Up to `count` leading bytes of a regular file (never following a link, never waiting on
    /// a FIFO put in its place).
    static func leadingBytes(of url: URL, count: Int) -> Result<Data, SystemError> {
        let fd = Glibc.open(url.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return .failure(SystemError(code: errno)) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .failure(SystemError(code: errno)) }
        guard st.st_mode & S_IFMT == S_IFREG else { return .success(Data()) }
        var buffer = [UInt8](repeating: 0, count: count)
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
