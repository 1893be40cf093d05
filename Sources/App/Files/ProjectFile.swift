import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Every file feedline reads from a project — pipeline files, fixtures, snapshot files, saved
/// queries — is found and read here, so each command gets the same rule.
///
/// A file is named relative to its directory and must stay inside it: no absolute path, no `..`,
/// and once symbolic links are followed its real path must still lie inside the directory's real
/// path (or inside one of the `alsoInside` directories the caller names, such as the home that
/// holds the directory). It must be a regular file — never a device, FIFO, socket or `/proc`
/// file reached through a link — and is read up to a size bound, without waiting on anything
/// put in its place. What a bad file holds is shown only as a short, bounded `excerpt`.
enum ProjectFile {
    /// Why a project file was not read: one readable line.
    struct Problem: Error, CustomStringConvertible, Equatable {
        enum Kind: Equatable { case missing, refused, unreadable }
        let kind: Kind
        let message: String
        var description: String { message }

        /// `message` with its control characters escaped (`OutputFile.oneLine`).
        init(kind: Kind, message: String) {
            self.kind = kind
            self.message = OutputFile.oneLine(message)
        }
    }

    /// The default bound on a file's size: 64 MiB.
    static let defaultLimit = 64 << 20
    /// How many characters of a file's text `excerpt` shows at most.
    static let excerptLength = 40

    /// `relative` inside `directory`, with symbolic links followed: refused when it is absolute,
    /// holds `..`, or resolves outside `directory` (and outside every `alsoInside` directory);
    /// `.missing` when nothing is there. `what` names the file in messages (`snapshot file`).
    /// The file must be a regular file (not a directory, device, FIFO or socket).
    static func resolve(_ relative: String, in directory: URL, alsoInside: [URL] = [], what: String) throws(Problem) -> URL {
        let file = try contained(path(relative, in: directory, what: what), in: directory, alsoInside: alsoInside, what: what)
        var st = stat()
        guard stat(file.path, &st) == 0 else {
            throw Problem(kind: .unreadable, message: "the \(what) \(file.path) cannot be read (\(describe(errno))).")
        }
        guard st.st_mode & S_IFMT == S_IFREG else {
            throw Problem(kind: .refused, message: "the \(what) \(directory.appendingPathComponent(relative).path) is not a regular file; it is not read.")
        }
        return file
    }

    /// `relative` appended to `directory` (links not followed), refused when it is absolute or
    /// holds `..`.
    static func path(_ relative: String, in directory: URL, what: String) throws(Problem) -> URL {
        let components = relative.split(separator: "/", omittingEmptySubsequences: true)
        guard !relative.hasPrefix("/"), !relative.hasPrefix("~"), !components.isEmpty, !components.contains("..") else {
            throw Problem(kind: .refused, message: "the \(what) '\(excerpt(relative))' must be a path inside \(directory.path) (relative, no '..').")
        }
        return directory.appendingPathComponent(relative)
    }

    /// `file` with symbolic links followed, refused unless it lies inside `directory` (or one of
    /// `alsoInside`) once both are resolved.
    static func contained(_ file: URL, in directory: URL, alsoInside: [URL] = [], what: String) throws(Problem) -> URL {
        guard let real = realPath(file.path) else {
            var st = stat()
            if lstat(file.path, &st) == 0 {
                throw Problem(kind: .missing, message: "the \(what) \(file.path) is a link to nothing that exists.")
            }
            throw Problem(kind: .missing, message: "the \(what) \(file.path) does not exist.")
        }
        let roots = ([directory] + alsoInside).compactMap { realPath($0.path) }
        guard roots.contains(where: { real == $0 || real.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") }) else {
            throw Problem(kind: .refused, message: "the \(what) \(file.path) resolves to \(real), outside \(directory.path); it is not read.")
        }
        return URL(fileURLWithPath: real)
    }

    /// The bytes of the regular file at `url` (already resolved), at most `limit` of them.
    static func read(_ url: URL, limit: Int = defaultLimit, what: String) throws(Problem) -> Data {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else {
            let code = errno
            throw Problem(kind: code == ENOENT ? .missing : .unreadable, message: "the \(what) \(url.path) cannot be read (\(describe(code))).")
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw Problem(kind: .unreadable, message: "the \(what) \(url.path) cannot be read (\(describe(errno))).") }
        guard st.st_mode & S_IFMT == S_IFREG else {
            throw Problem(kind: .refused, message: "the \(what) \(url.path) is not a regular file; it is not read.")
        }
        guard Int(st.st_size) <= limit else {
            throw Problem(kind: .refused, message: "the \(what) \(url.path) is \(st.st_size) bytes; the limit is \(limit) bytes.")
        }
        // Read up to one byte past the bound: a file whose size says little (a /proc file) is cut there.
        var buffer = [UInt8](repeating: 0, count: Swift.min(Int(st.st_size), limit) + 1)
        var total = 0
        while true {
            if total == buffer.count {
                guard total <= limit else { break }
                buffer += [UInt8](repeating: 0, count: Swift.min(Swift.max(buffer.count, 4096), limit + 1 - buffer.count))
            }
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + total, $0.count - total) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw Problem(kind: .unreadable, message: "the \(what) \(url.path) cannot be read (\(describe(errno))).") }
            if n == 0 { break }
            total += n
        }
        guard total <= limit else {
            throw Problem(kind: .refused, message: "the \(what) \(url.path) is larger than the limit of \(limit) bytes.")
        }
        return Data(buffer[..<total])
    }

    /// `relative` resolved inside `directory` and read (see `resolve` and `read`).
    static func read(_ relative: String, in directory: URL, alsoInside: [URL] = [], limit: Int = defaultLimit, what: String) throws(Problem) -> Data {
        try read(resolve(relative, in: directory, alsoInside: alsoInside, what: what), limit: limit, what: what)
    }

    /// A short piece of a file's text for a message: at most `length` characters, control
    /// characters shown as `?`, `…` when cut.
    static func excerpt(_ text: some StringProtocol, length: Int = excerptLength) -> String {
        var out = ""
        var count = 0
        for character in text {
            if count == length { return out + "…" }
            out.append(character.unicodeScalars.allSatisfy { $0.properties.generalCategory != .control && $0.properties.generalCategory != .format } ? character : "?")
            count += 1
        }
        return out
    }

    /// `path` with every symbolic link resolved; nil when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}
