import App
@testable import FeedCore
import Foundation
import GRDB
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Remembered file hashes: a file is read again whenever anything about it changed, a fresh file
/// is never trusted, a damaged cache is ignored, and a re-run of a replay uses what it remembered.
@Suite struct FileHashCacheTests {
    let dir: TemporaryDirectory
    init() throws { dir = try TemporaryDirectory("hashes") }

    /// A file written now, with its modification time set `secondsAgo` into the past.
    func file(_ name: String, _ text: String, secondsAgo: Int = 0) throws -> URL {
        let url = dir.path(name)
        try Data(text.utf8).write(to: url)
        if secondsAgo > 0 { try setModified(url, secondsAgo: secondsAgo) }
        return url
    }

    func setModified(_ url: URL, secondsAgo: Int) throws {
        var times = [timespec(tv_sec: time(nil) - secondsAgo, tv_nsec: 0), timespec(tv_sec: time(nil) - secondsAgo, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, url.path, &times, 0) == 0)
    }

    func identity(_ url: URL) -> FileHashCache.Identity {
        var info = stat()
        #expect(stat(url.path, &info) == 0)
        return FileHashCache.Identity(info)
    }

    func hash(_ url: URL, _ cache: FileHashCache?) throws -> String {
        try PayloadArchive.payload(forFile: url, request: nil, source: nil, operation: nil, format: .xml,
                                   fetchedAt: Date(), hashes: cache).sha256
    }

    @Test("a remembered hash is used without reading the file, also by the next process")
    func rememberedHashIsUsed() throws {
        defer { dir.remove() }
        let page = try file("page.xml", "<a>1</a>")
        let cacheDirectory = dir.path("cache")
        let cache = FileHashCache(directory: cacheDirectory)
        // A remembered value that is not the file's hash shows the file was not read.
        let stand = String(repeating: "ab", count: 32)
        cache.remember(page, identity: identity(page), sha256: stand, hashedAt: FileHashCache.now() + 5_000_000_000)
        #expect(try hash(page, cache) == stand)
        cache.save()
        #expect(try hash(page, FileHashCache(directory: cacheDirectory)) == stand)
        #expect(try hash(page, nil) == SHA256.hex(Data("<a>1</a>".utf8)))
    }

    @Test("a file hashed for the first time is remembered once it has settled, not before")
    func freshFilesAreNotTrusted() throws {
        defer { dir.remove() }
        let cacheDirectory = dir.path("cache")
        let real = SHA256.hex(Data("<a>1</a>".utf8))
        // Changed just now (its status-change time is now, whatever its modification time says):
        // hashed, remembered, but not trusted by a lookup in the same second.
        let fresh = try file("fresh.xml", "<a>1</a>", secondsAgo: 3600)
        let cache = FileHashCache(directory: cacheDirectory)
        #expect(try hash(fresh, cache) == real)
        #expect(cache.sha256(of: fresh, identity: identity(fresh)) == nil)
        cache.save()
        #expect(FileHashCache(directory: cacheDirectory).sha256(of: fresh, identity: identity(fresh)) == nil)
        // Looked up more than a second after the change, a hash taken then still is not trusted:
        // it was taken within the second of the change.
        Thread.sleep(forTimeInterval: 1.1)
        #expect(FileHashCache(directory: cacheDirectory).sha256(of: fresh, identity: identity(fresh)) == nil)
        // Hashed again now (over a second after the change), it is.
        let later = FileHashCache(directory: cacheDirectory)
        #expect(try hash(fresh, later) == real)
        later.save()
        #expect(FileHashCache(directory: cacheDirectory).sha256(of: fresh, identity: identity(fresh)) == real)
    }

    @Test("any change to the file misses: new bytes of the same size with the old modification time, a new size, another inode")
    func changesMiss() throws {
        defer { dir.remove() }
        let page = try file("page.xml", "<a>1</a>", secondsAgo: 60)
        let cache = FileHashCache(directory: dir.path("cache"))
        let before = identity(page)
        cache.remember(page, identity: before, sha256: SHA256.hex(Data("<a>1</a>".utf8)), hashedAt: FileHashCache.now() + 5_000_000_000)

        // Identities that differ in one field each never match.
        for change in [{ (i: inout FileHashCache.Identity) in i.size += 1 }, { $0.inode += 1 }, { $0.device += 1 },
                       { $0.modified += 1 }, { $0.changed += 1 }] {
            var after = before
            change(&after)
            #expect(cache.sha256(of: page, identity: after) == nil)
        }
        #expect(cache.sha256(of: page, identity: before) != nil)

        // Same size, modification time put back: the status-change time still moved.
        let handle = try FileHandle(forWritingTo: page)  // in place: same inode
        try handle.write(contentsOf: Data("<a>2</a>".utf8))
        try handle.close()
        let back = timespec(tv_sec: Int(before.modified / 1_000_000_000), tv_nsec: Int(before.modified % 1_000_000_000))
        var times = [back, back]
        #expect(utimensat(AT_FDCWD, page.path, &times, 0) == 0)
        let after = identity(page)
        #expect(after.modified == before.modified && after.size == before.size && after.inode == before.inode)
        #expect(try hash(page, cache) == SHA256.hex(Data("<a>2</a>".utf8)))
    }

    /// The cache file of `cacheDirectory` that remembers `page`'s folder.
    func cacheFile(_ cacheDirectory: URL, for page: URL) -> URL {
        FileHashCache(directory: cacheDirectory).fileURL(for: page.deletingLastPathComponent().standardizedFileURL.path)
    }

    @Test("an entry edited by hand to fit a file changed in place with its size and modification time kept is not trusted")
    func poisonedEntryMisses() throws {
        defer { dir.remove() }
        let page = try file("page.xml", "<a>1</a>", secondsAgo: 60)
        let cacheDirectory = dir.path("cache")
        let cache = FileHashCache(directory: cacheDirectory)
        let old = SHA256.hex(Data("<a>1</a>".utf8))
        cache.remember(page, identity: identity(page), sha256: old, hashedAt: FileHashCache.now() + 5_000_000_000)
        cache.save()
        #expect(FileHashCache(directory: cacheDirectory).sha256(of: page, identity: identity(page)) == old)

        // New bytes of the same size, written in place, the modification time put back.
        let before = identity(page)
        let handle = try FileHandle(forWritingTo: page)
        try handle.write(contentsOf: Data("<a>2</a>".utf8))
        try handle.close()
        let back = timespec(tv_sec: Int(before.modified / 1_000_000_000), tv_nsec: Int(before.modified % 1_000_000_000))
        var times = [back, back]
        #expect(utimensat(AT_FDCWD, page.path, &times, 0) == 0)
        let after = identity(page)
        #expect(after.size == before.size && after.modified == before.modified && after.inode == before.inode)

        // The entry poisoned: its status-change time set to the file's new one, sealed as the
        // cache seals its lines, so only the content check stands between it and the old hash.
        let stored = cacheFile(cacheDirectory, for: page)
        let folder = page.deletingLastPathComponent().standardizedFileURL.path
        var lines = try String(contentsOf: stored, encoding: .utf8).split(separator: "\n").map(String.init)
        let index = try #require(lines.firstIndex { $0.hasPrefix("page.xml\t") })
        var fields = lines[index].split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        #expect(fields.count == 10)
        fields[5] = String(after.changed)
        let poisoned = fields[0..<9].joined(separator: "\t")
        lines[index] = poisoned + "\t" + FileHashCache.seal(poisoned, folder: folder, cache: cacheDirectory)
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: stored)

        #expect(FileHashCache(directory: cacheDirectory).sha256(of: page, identity: after) == nil, "the changed file is not taken as already loaded")
        #expect(try hash(page, FileHashCache(directory: cacheDirectory)) == SHA256.hex(Data("<a>2</a>".utf8)))
    }

    @Test("the content check reads both ends of a large file: a change in its last 64 KiB misses though the entry fits every time")
    func largeFileTailChangeMisses() throws {
        defer { dir.remove() }
        let text = String(repeating: "<a>0123456789</a>\n", count: 20_000)  // 360 KB
        let page = try file("large.xml", text, secondsAgo: 60)
        let cacheDirectory = dir.path("cache")
        let cache = FileHashCache(directory: cacheDirectory)
        cache.remember(page, identity: identity(page), sha256: SHA256.hex(Data(text.utf8)), hashedAt: FileHashCache.now() + 5_000_000_000)
        cache.save()
        let before = identity(page)
        let handle = try FileHandle(forWritingTo: page)
        try handle.seek(toOffset: UInt64(text.utf8.count - 10))
        try handle.write(contentsOf: Data("9".utf8))
        try handle.close()
        let back = timespec(tv_sec: Int(before.modified / 1_000_000_000), tv_nsec: Int(before.modified % 1_000_000_000))
        var times = [back, back]
        #expect(utimensat(AT_FDCWD, page.path, &times, 0) == 0)
        let after = identity(page)
        #expect(after.size == before.size && after.modified == before.modified && after.inode == before.inode)
        // The entry fitted to the file as it is now (its status-change time), as a poisoner would.
        let stored = cacheFile(cacheDirectory, for: page)
        let folder = page.deletingLastPathComponent().standardizedFileURL.path
        var lines = try String(contentsOf: stored, encoding: .utf8).split(separator: "\n").map(String.init)
        let index = try #require(lines.firstIndex { $0.hasPrefix("large.xml\t") })
        var fields = lines[index].split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        fields[5] = String(after.changed)
        let poisoned = fields[0..<9].joined(separator: "\t")
        lines[index] = poisoned + "\t" + FileHashCache.seal(poisoned, folder: folder, cache: cacheDirectory)
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: stored)
        #expect(FileHashCache(directory: cacheDirectory).sha256(of: page, identity: after) == nil)
    }

    @Test("entries are bound to their cache: a cache file copied into another cache, or a line edited, is ignored")
    func entriesAreBoundToTheirCache() throws {
        defer { dir.remove() }
        let page = try file("page.xml", "<a>1</a>", secondsAgo: 60)
        let cacheDirectory = dir.path("cache")
        let stand = String(repeating: "ab", count: 32)
        let cache = FileHashCache(directory: cacheDirectory)
        cache.remember(page, identity: identity(page), sha256: stand, hashedAt: FileHashCache.now() + 5_000_000_000)
        cache.save()
        #expect(FileHashCache(directory: cacheDirectory).sha256(of: page, identity: identity(page)) == stand)

        let other = dir.path("other-cache")
        let copy = cacheFile(other, for: page)
        try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: cacheFile(cacheDirectory, for: page), to: copy)
        #expect(FileHashCache(directory: other).sha256(of: page, identity: identity(page)) == nil)

        // A remembered hash edited in place (the seal no longer fits) is ignored.
        let stored = cacheFile(cacheDirectory, for: page)
        let text = try String(contentsOf: stored, encoding: .utf8)
        try Data(text.replacingOccurrences(of: stand, with: String(repeating: "cd", count: 32)).utf8).write(to: stored)
        #expect(FileHashCache(directory: cacheDirectory).sha256(of: page, identity: identity(page)) == nil)
    }

    @Test("a damaged, foreign or non-regular cache file is ignored; an unwritable cache directory fails nothing")
    func damagedCacheIsIgnored() throws {
        defer { dir.remove() }
        let page = try file("page.xml", "<a>1</a>")
        let cacheDirectory = dir.path("cache")
        let cache = FileHashCache(directory: cacheDirectory)
        cache.remember(page, identity: identity(page), sha256: String(repeating: "cd", count: 32), hashedAt: FileHashCache.now() + 5_000_000_000)
        cache.save()
        let stored = try #require(try FileManager.default.contentsOfDirectory(at: cacheDirectory.appendingPathComponent("file-hashes"),
                                                                               includingPropertiesForKeys: nil).first)
        let good = try String(contentsOf: stored, encoding: .utf8)
        for damage in [good.replacingOccurrences(of: "cdcd", with: "zzzz"), good.replacingOccurrences(of: "\t", with: " "),
                       "# feedline file hashes v1\t/somewhere/else\n" + good.split(separator: "\n").dropFirst().joined(separator: "\n"),
                       "", String(good.prefix(40))] {
            try Data(damage.utf8).write(to: stored)
            #expect(FileHashCache(directory: cacheDirectory).sha256(of: page, identity: identity(page)) == nil, "\(damage)")
        }
        // A FIFO in the cache file's place is ignored (the reader takes only regular files).
        try FileManager.default.removeItem(at: stored)
        #expect(mkfifo(stored.path, 0o600) == 0)
        #expect(FileHashCache(directory: cacheDirectory).sha256(of: page, identity: identity(page)) == nil)
        // Nor is it replaced by a save.
        let again = FileHashCache(directory: cacheDirectory)
        again.remember(page, identity: identity(page), sha256: String(repeating: "cd", count: 32), hashedAt: FileHashCache.now() + 5_000_000_000)
        again.save()
        var kind = stat()
        #expect(lstat(stored.path, &kind) == 0 && kind.st_mode & S_IFMT == S_IFIFO)
        // A cache that cannot be written (its directory is a file) does not fail anything.
        let blocked = dir.path("blocked")
        try Data().write(to: blocked)
        let unwritable = FileHashCache(directory: blocked)
        #expect(try hash(page, unwritable) == SHA256.hex(Data("<a>1</a>".utf8)))
        unwritable.save()
    }

    @Test("the cache directory comes from FEEDLINE_CACHE_DIR (empty: none), XDG_CACHE_HOME, then HOME")
    func cacheDirectoryFromTheEnvironment() {
        defer { dir.remove() }
        #expect(FileHashCache.standard(variables: ["FEEDLINE_CACHE_DIR": "/c", "HOME": "/h"])?.directory.path == "/c")
        #expect(FileHashCache.standard(variables: ["FEEDLINE_CACHE_DIR": "", "HOME": "/h"]) == nil)
        #expect(FileHashCache.standard(variables: ["XDG_CACHE_HOME": "/x", "HOME": "/h"])?.directory.path == "/x/feedline")
        #expect(FileHashCache.standard(variables: ["HOME": "/h"])?.directory.path == "/h/.cache/feedline")
        #expect(FileHashCache.standard(variables: [:]) == nil)
    }

    @Test("replaying again uses the remembered hashes; a page rewritten in place with its old time is loaded again")
    func replayUsesRememberedHashes() async throws {
        var env = try TestEnvironment()
        defer { env.dir.remove(); dir.remove() }
        env.variables["FEEDLINE_CACHE_DIR"] = env.dir.path("cache").path
        let pages = env.dir.path("pages")
        try FileManager.default.createDirectory(at: pages, withIntermediateDirectories: true)
        let first = pages.appendingPathComponent("p1.xml"), second = pages.appendingPathComponent("p2.xml")
        try AirKoreaPages.xml(AirKoreaPages.items(first: 0, count: 5), pageNo: 1, numOfRows: 5, totalCount: 10).write(to: first)
        try AirKoreaPages.xml(AirKoreaPages.items(first: 5, count: 5), pageNo: 2, numOfRows: 5, totalCount: 10).write(to: second)
        try await Task.sleep(nanoseconds: 1_100_000_000)  // settled: hashes taken from now on are trusted

        func replay() async -> App.ExitStatus { await env.feedline.replay(inputs: ["pages"], sourceHint: nil, parameters: [:], paths: env.paths(), force: false) }
        #expect(await replay() == .success, "\(env.err.text)")
        let remembered = try FileManager.default.contentsOfDirectory(atPath: env.dir.path("cache/file-hashes").path)
        #expect(remembered.count == 1)
        #expect(await replay() == .success)

        // The second page rewritten in place with different bytes of the same length and its old
        // modification time: the replay reads it, finds new bytes and loads them.
        var old = stat()
        #expect(stat(second.path, &old) == 0)
        let original = try String(contentsOf: second, encoding: .utf8)
        let changed = original.replacingOccurrences(of: "<pm10Value>25<", with: "<pm10Value>35<")
        #expect(changed != original && changed.utf8.count == original.utf8.count)
        let handle = try FileHandle(forWritingTo: second)  // in place: same inode
        try handle.write(contentsOf: Data(changed.utf8))
        try handle.close()
        var times = [old.st_atim, old.st_mtim]
        #expect(utimensat(AT_FDCWD, second.path, &times, 0) == 0)
        #expect(await replay() == .success, "\(env.err.text)")

        // What the replay stages comes from the cache: a stand-in remembered for the settled first
        // page is taken as its hash (so the replay sees a payload it has not loaded).
        let cache = FileHashCache(directory: env.dir.path("cache"))
        let stand = String(repeating: "0f", count: 32)
        cache.remember(first, identity: identity(first), sha256: stand, hashedAt: FileHashCache.now())
        cache.save()
        #expect(await replay() == .success, "\(env.err.text)")

        let queue = try DatabaseQueue(path: env.database.path)
        defer { try? queue.close() }
        let runs = try await queue.read { try Row.fetchAll($0, sql: "SELECT payloads, payloads_skipped FROM run ORDER BY id") }
        #expect(runs.map { [$0["payloads"] as Int, $0["payloads_skipped"] as Int] } == [[2, 0], [0, 2], [1, 1], [1, 1]])
        let stored = try await queue.read { try String.fetchAll($0, sql: "SELECT sha256 FROM payload ORDER BY sha256") }
        let changedSHA = SHA256.hex(Data(changed.utf8))
        #expect(stored.count == 4 && stored.contains(stand) && stored.contains(changedSHA))
    }
}
