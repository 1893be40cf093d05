import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a path given to (or found by) `feedline replay` is, as `lstat`/`stat` say, so that
/// only regular files are ever opened: opening a FIFO waits for a writer forever, and a device
/// can stream without end.
enum ReplayPathKind: Equatable {
    case regular
    case directory
    /// A FIFO, socket or device: skipped with a note. The text names it ("a FIFO").
    case special(String)
    /// A symbolic link whose target does not exist.
    case danglingLink(target: String)
    /// A symbolic link that leads back to itself.
    case linkLoop
    /// Nothing at that path.
    case missing
    /// It exists but cannot be looked at (the system's reason, e.g. "Permission denied").
    case inaccessible(String)

    /// What the path is, following symbolic links (and saying so when they lead nowhere).
    static func of(_ path: String) -> ReplayPathKind {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            let code = errno
            return code == ENOENT ? .missing : .inaccessible(ReplayFileError.reason(code))
        }
        if info.st_mode & S_IFMT == S_IFLNK {
            guard stat(path, &info) == 0 else {
                let code = errno
                switch code {
                case ELOOP: return .linkLoop
                case ENOENT, ENOTDIR: return .danglingLink(target: linkTarget(path))
                default: return .inaccessible(ReplayFileError.reason(code))
                }
            }
        }
        return kind(of: info.st_mode)
    }

    static func kind(of mode: mode_t) -> ReplayPathKind {
        switch mode & S_IFMT {
        case S_IFREG: .regular
        case S_IFDIR: .directory
        case S_IFIFO: .special("a FIFO")
        case S_IFSOCK: .special("a socket")
        case S_IFCHR: .special("a character device")
        case S_IFBLK: .special("a block device")
        default: .special("not a regular file")
        }
    }

    static func linkTarget(_ path: String) -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"
    }

    /// The one-line explanation for a path that cannot be replayed; nil for files and directories.
    var problem: String? {
        switch self {
        case .regular, .directory: nil
        case .special(let what): "not a regular file (\(what))"
        case .danglingLink(let target): "dangling symbolic link (its target \(target) does not exist)"
        case .linkLoop: "symbolic link loop (the link leads back to itself)"
        case .missing: "no such file or directory"
        case .inaccessible(let reason): "cannot be read: \(reason)"
        }
    }
}

/// A replay file that could not be read, as one sentence.
struct ReplayFileError: Error, CustomStringConvertible {
    let description: String

    /// `problem` ("cannot be read: Permission denied") as a sentence.
    init(problem: String) { description = problem.prefix(1).uppercased() + problem.dropFirst() + "." }

    static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }
}

/// Reads replay files, never blocking on one that is not a regular file.
enum ReplayFile {
    static func reason(_ code: Int32) -> String { ReplayFileError.reason(code) }

    /// The first `count` bytes of the regular file at `path`. Opened without blocking and
    /// checked with `fstat`, so a file swapped for a FIFO after it was listed still cannot hang
    /// the replay; a file that cannot be opened says why ("Permission denied").
    static func head(of path: String, count: Int) throws -> Data {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            let kind = ReplayPathKind.of(path)
            switch kind {
            case .danglingLink, .linkLoop, .missing, .special: throw ReplayFileError(problem: kind.problem ?? "")
            default: throw ReplayFileError(problem: ReplayPathKind.inaccessible(reason(code)).problem ?? "")
            }
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw ReplayFileError(problem: ReplayPathKind.inaccessible(reason(errno)).problem ?? "") }
        let kind = ReplayPathKind.kind(of: info.st_mode)
        guard kind == .regular else { throw ReplayFileError(problem: kind.problem ?? "") }
        var buffer = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, count - filled) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ReplayFileError(problem: ReplayPathKind.inaccessible(reason(errno)).problem ?? "")
            }
            if n == 0 { break }
            filled += n
        }
        return Data(buffer.prefix(filled))
    }
}
