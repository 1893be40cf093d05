import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The SHA-256 of files `feedline replay` has read, remembered by each file's identity, so an
/// archive that is already loaded is not read and hashed again on every re-run.
///
/// A remembered hash is used only when the file's device, inode, size, modification time and
/// status-change time (both to the nanosecond) are all what they were when it was hashed, and the
/// file had last changed more than a second before it was hashed. Any write to a file moves its
/// modification time, and the status-change time cannot be set back by anyone (`touch -d` moves
/// it too), so a changed file always misses and is hashed afresh; a file written in the second
/// before it was hashed is never trusted, because a change in the same clock tick could keep its
/// times. `feedline replay --force` hashes everything.
///
/// An entry is trusted only as written by this cache for this folder: each line carries a seal
/// over the cache directory's path, the folder and its fields, so a line copied from another
/// cache or folder, or edited, is ignored. Before a remembered hash is used, the file's first and
/// last 64 KiB are hashed again and compared with the entry (`edges`), so an entry edited to fit a
/// changed file — or a change that kept every time — still misses when those bytes moved.
///
/// One small text file per directory of payloads under `directory` (`file-hashes/<hash of the
/// directory's path>.tsv`), read when the first file of that directory is staged and rewritten
/// (atomically) only when it changed. It is a cache: one that cannot be read is ignored, one that
/// cannot be written is not written, and neither ever fails a replay.
public final class FileHashCache: @unchecked Sendable {
    /// What identifies a file's contents without reading them.
    public struct Identity: Equatable, Sendable {
        public var device: UInt64
        public var inode: UInt64
        public var size: Int64
        /// Modification and status-change times, nanoseconds since 1970.
        public var modified: Int64
        public var changed: Int64

        public init(device: UInt64, inode: UInt64, size: Int64, modified: Int64, changed: Int64) {
            self.device = device; self.inode = inode; self.size = size; self.modified = modified; self.changed = changed
        }

        public init(_ info: stat) {
            #if canImport(Darwin)
            let modified = info.st_mtimespec, changed = info.st_ctimespec
            #else
            let modified = info.st_mtim, changed = info.st_ctim
            #endif
            self.init(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                      modified: Int64(modified.tv_sec) * 1_000_000_000 + Int64(modified.tv_nsec),
                      changed: Int64(changed.tv_sec) * 1_000_000_000 + Int64(changed.tv_nsec))
        }
    }

    struct Entry: Equatable {
        var identity: Identity
        var sha256: String
        /// When the hashing began, nanoseconds since 1970.
        var hashedAt: Int64
        /// The SHA-256 of the file's size and its first and last `edgeBytes` bytes (`edges(of:identity:)`).
        var edges: String
    }

    /// The remembered hashes of one directory's files, by file name.
    final class Folder {
        var entries: [String: Entry]
        var changed = false
        init(entries: [String: Entry]) { self.entries = entries }
    }

    /// A file must have last changed this long before it was hashed for its hash to be trusted.
    static let settleTime: Int64 = 1_000_000_000
    static let header = "# feedline file hashes v2\t"
    /// How many bytes at each end of a file `edges` reads.
    static let edgeBytes = 64 << 10
    /// A folder's file larger than this is not one feedline wrote for a directory of payloads.
    static let maximumFileSize = 64 << 20

    /// Where the per-directory files go (`<directory>/file-hashes/`).
    public let directory: URL
    private let lock = NSLock()
    private var folders: [String: Folder] = [:]

    public init(directory: URL) { self.directory = directory }

    /// The cache directory from the environment: `FEEDLINE_CACHE_DIR` (empty: no cache), else
    /// `$XDG_CACHE_HOME/feedline`, else `$HOME/.cache/feedline`; nil when none is set.
    public static func standard(variables: [String: String]) -> FileHashCache? {
        if let named = variables["FEEDLINE_CACHE_DIR"] {
            return named.isEmpty ? nil : FileHashCache(directory: URL(fileURLWithPath: named))
        }
        if let xdg = variables["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return FileHashCache(directory: URL(fileURLWithPath: xdg).appendingPathComponent("feedline"))
        }
        if let home = variables["HOME"], home.hasPrefix("/") {
            return FileHashCache(directory: URL(fileURLWithPath: home).appendingPathComponent(".cache/feedline"))
        }
        return nil
    }

    /// The current time in nanoseconds since 1970, as `hashedAt` wants it.
    public static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    /// The remembered hash of `file`, if its identity is unchanged since it was hashed.
    public func sha256(of file: URL, identity: Identity) -> String? {
        let (folder, name) = split(file)
        guard let entry = lock.withLock({ self.folder(folder).entries[name] }) else { return nil }
        guard entry.identity == identity,
              max(identity.modified, identity.changed) < entry.hashedAt - Self.settleTime,
              Self.edges(of: file.path, identity: identity) == entry.edges else { return nil }
        return entry.sha256
    }

    /// Remembers `sha256` for `file` as it was (`identity`) when hashing began (`hashedAt`).
    public func remember(_ file: URL, identity: Identity, sha256: String, hashedAt: Int64) {
        let (folder, name) = split(file)
        guard Self.isStorable(name), let edges = Self.edges(of: file.path, identity: identity) else { return }
        let entry = Entry(identity: identity, sha256: sha256, hashedAt: hashedAt, edges: edges)
        lock.withLock {
            let held = self.folder(folder)
            guard held.entries[name] != entry else { return }
            held.entries[name] = entry
            held.changed = true
        }
    }

    /// Writes every directory's file that changed, leaving out entries for files that are gone.
    /// Failures are ignored: the next replay hashes those files again.
    public func save() {
        let changed = lock.withLock { folders.filter(\.value.changed) }
        for (path, folder) in changed {
            var text = Self.header + path + "\n"
            for (name, entry) in folder.entries.sorted(by: { $0.key < $1.key }) {
                var info = stat()
                guard stat(path + "/" + name, &info) == 0, UInt64(info.st_ino) == entry.identity.inode else { continue }
                let i = entry.identity
                let fields = "\(name)\t\(i.device)\t\(i.inode)\t\(i.size)\t\(i.modified)\t\(i.changed)\t\(entry.hashedAt)\t\(entry.sha256)\t\(entry.edges)"
                text += fields + "\t" + Self.seal(fields, folder: path, cache: directory) + "\n"
            }
            let target = fileURL(for: path)
            var existing = stat()
            if lstat(target.path, &existing) == 0 && existing.st_mode & S_IFMT != S_IFREG { continue }  // never over a link, FIFO or device
            do {
                try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(text.utf8).write(to: target, options: .atomic)
                lock.withLock { folder.changed = false }
            } catch {
                continue
            }
        }
    }

    // MARK: - Files

    private func split(_ file: URL) -> (folder: String, name: String) {
        let path = file.standardizedFileURL.path
        guard let slash = path.lastIndex(of: "/") else { return ("", path) }
        return (String(path[..<slash]), String(path[path.index(after: slash)...]))
    }

    /// Names that fit a line of the file (no tab, no newline).
    static func isStorable(_ name: String) -> Bool { !name.isEmpty && !name.contains(where: { $0 == "\t" || $0 == "\n" || $0 == "\r" }) }

    func fileURL(for folder: String) -> URL {
        let key = SHA256.hex(Data(folder.utf8)).prefix(32)
        return directory.appendingPathComponent("file-hashes").appendingPathComponent("\(key).tsv")
    }

    /// The folder's entries, read from its file the first time (the lock is held).
    private func folder(_ path: String) -> Folder {
        if let held = folders[path] { return held }
        let held = Folder(entries: Self.read(fileURL(for: path), folder: path, cache: directory))
        folders[path] = held
        return held
    }

    /// The entries of one folder's file; none when it is missing, for another folder or damaged.
    /// Only a regular file of a sane size is read, never a FIFO or device put in its place; a
    /// line whose seal is not this cache's for this folder is left out.
    static func read(_ file: URL, folder: String, cache: URL) -> [String: Entry] {
        var info = stat()
        guard stat(file.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size <= maximumFileSize,
              let data = try? Data(contentsOf: file), let text = String(data: data, encoding: .utf8) else { return [:] }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true)[...]
        guard let first = lines.popFirst(), first == Substring(header + folder) else { return [:] }
        var entries: [String: Entry] = [:]
        for line in lines {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            func isHash(_ text: Substring) -> Bool { text.count == 64 && text.allSatisfy { $0.isHexDigit && !$0.isUppercase } }
            guard fields.count == 10,
                  let device = UInt64(fields[1]), let inode = UInt64(fields[2]), let size = Int64(fields[3]),
                  let modified = Int64(fields[4]), let changed = Int64(fields[5]), let hashedAt = Int64(fields[6]),
                  isHash(fields[7]), isHash(fields[8]) else { return [:] }
            guard fields[9] == Substring(seal(fields[0..<9].joined(separator: "\t"), folder: folder, cache: cache)) else { continue }
            entries[String(fields[0])] = Entry(identity: Identity(device: device, inode: inode, size: size, modified: modified, changed: changed),
                                               sha256: String(fields[7]), hashedAt: hashedAt, edges: String(fields[8]))
        }
        return entries
    }

    /// What binds a line to this cache and folder: a SHA-256 over the cache directory's path, the
    /// folder and the line's fields (32 hex digits).
    static func seal(_ fields: String, folder: String, cache: URL) -> String {
        String(SHA256.hex(Data("feedline file hashes\u{0}\(cache.standardizedFileURL.path)\u{0}\(folder)\u{0}\(fields)".utf8)).prefix(32))
    }

    /// The SHA-256 of the file's size and its first and last `edgeBytes` bytes (all of it when
    /// smaller), read only while the file still has `identity`; nil when it cannot be read or
    /// no longer has that identity.
    static func edges(of path: String, identity: Identity) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, Identity(info) == identity else { return nil }
        let size = Int(info.st_size)
        var hasher = SHA256()
        hasher.update(Data("\(size)\n".utf8))
        let wanted = min(size, edgeBytes)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(wanted, 1), alignment: 16)
        defer { buffer.deallocate() }
        for start in size <= 2 * edgeBytes ? [0] : [0, size - edgeBytes] {
            let count = size <= 2 * edgeBytes ? size : edgeBytes
            var done = 0
            while done < count {
                let chunk = min(count - done, wanted)
                var total = 0
                while total < chunk {
                    let n = pread(fd, buffer.baseAddress! + total, chunk - total, off_t(start + done + total))
                    if n < 0 && errno == EINTR { continue }
                    guard n > 0 else { return nil }
                    total += n
                }
                hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<chunk]))
                done += chunk
            }
        }
        var after = stat()
        guard fstat(fd, &after) == 0, Identity(after) == identity else { return nil }
        return hasher.hexDigest()
    }
}
