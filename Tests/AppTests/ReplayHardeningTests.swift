import App
import Foundation
import GRDB
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `feedline replay` over directories holding more than payloads: special files, broken links,
/// unreadable files, nothing loadable at all, and a database someone else holds.
@Suite struct ReplayHardeningTests {
    /// A directory `pages` in the test's temporary directory with one good page in it.
    func pagesWithOneGoodPage(_ env: TestEnvironment) throws -> URL {
        let pages = env.dir.path("pages")
        try FileManager.default.createDirectory(at: pages, withIntermediateDirectories: true)
        try AirKoreaPages.xml(AirKoreaPages.items(first: 0, count: 5), pageNo: 1, numOfRows: 5, totalCount: 5)
            .write(to: pages.appendingPathComponent("p1.xml"))
        return pages
    }

    func ledger(_ env: TestEnvironment) throws -> [Row] {
        let queue = try DatabaseQueue(path: env.database.path)
        defer { try? queue.close() }
        return try queue.read { try Row.fetchAll($0, sql: "SELECT status, error FROM run ORDER BY id") }
    }

    @Test("a FIFO in a replay directory is skipped with a one-line note; the replay finishes")
    func fifoIsSkippedNotOpened() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let pages = try pagesWithOneGoodPage(env)
        let fifo = pages.appendingPathComponent("pipe.xml")
        #expect(mkfifo(fifo.path, 0o600) == 0)

        // Watchdog: opening a FIFO waits for a writer forever. A writer's non-blocking open
        // succeeds only while a reader has the FIFO open (or is waiting in open), so the watchdog
        // tries one every 20 ms until the replay returns: if one succeeds, the replay opened the
        // FIFO — the defect — and that writer ends its wait. How long the replay takes on a busy
        // machine does not matter; the ten-minute limit is only a backstop against another hang.
        let feedline = env.feedline, paths = env.paths()
        let outcome = Outcome()
        Task.detached { outcome.finish(await feedline.replay(inputs: ["pages"], sourceHint: nil, parameters: [:], paths: paths, force: false)) }
        let watched = await outcome.watchOffPool(seconds: 600, every: 0.02) {
            let fd = open(fifo.path, O_WRONLY | O_NONBLOCK)
            guard fd >= 0 else { return false }
            close(fd)
            return true
        }
        switch watched {
        case .finished: break
        case .stopped:
            Issue.record("replay opened the FIFO \(fifo.path)")
            _ = await outcome.waitOffPool(seconds: 60)
            return
        case .timedOut:
            Issue.record("replay did not return within ten minutes (the FIFO \(fifo.path) was never opened)")
            return
        }
        #expect(outcome.status == .success, "\(env.err.text)")
        let notes = env.err.text.split(separator: "\n").filter { $0.contains("pipe.xml") }
        #expect(notes == ["note: skipping \(fifo.path): not a regular file (a FIFO)."])
        #expect(try ledger(env).map { $0["status"] as String } == ["succeeded"])
    }

    @Test("dangling symbolic links and link loops are reported as what they are, not as empty files")
    func brokenLinksAreNamed() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let pages = try pagesWithOneGoodPage(env)
        try FileManager.default.createSymbolicLink(atPath: pages.appendingPathComponent("gone.xml").path, withDestinationPath: "nowhere.xml")
        try FileManager.default.createSymbolicLink(atPath: pages.appendingPathComponent("loop.xml").path, withDestinationPath: "loop.xml")
        // A link to a real page loads like the page itself.
        try FileManager.default.createSymbolicLink(atPath: pages.appendingPathComponent("p1-link.xml").path, withDestinationPath: "p1.xml")

        let status = await env.feedline.replay(inputs: ["pages"], sourceHint: nil, parameters: [:], paths: env.paths(), force: false)
        #expect(status == .partial)
        let err = env.err.text
        #expect(err.contains("error: \(pages.path)/gone.xml: Dangling symbolic link (its target nowhere.xml does not exist)."))
        #expect(err.contains("error: \(pages.path)/loop.xml: Symbolic link loop (the link leads back to itself)."))
        #expect(!err.contains("The file is empty"))
        #expect(!err.contains("p1-link.xml"), "\(err)")
        #expect(env.out.text.contains("payloads 1 (+1 already loaded)"))
    }

    @Test("a file that cannot be read says why", .enabled(if: getuid() != 0, "root reads files whatever their mode"))
    func unreadableFileSaysWhy() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let pages = try pagesWithOneGoodPage(env)
        let locked = pages.appendingPathComponent("locked.xml")
        try Data("<response/>".utf8).write(to: locked)
        #expect(chmod(locked.path, 0) == 0)

        #expect(await env.feedline.replay(inputs: ["pages"], sourceHint: nil, parameters: [:], paths: env.paths(), force: false) == .partial)
        #expect(env.err.text.contains("error: \(locked.path): Cannot be read: Permission denied."))
        #expect(!env.err.text.contains("The file is empty"))
    }

    @Test("a replay in which every file fails says FAILED, exits 1 and is recorded as failed")
    func everyFileFailingFailsTheRun() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let bad = env.dir.path("bad")
        try FileManager.default.createDirectory(at: bad, withIntermediateDirectories: true)
        try Data("hello".utf8).write(to: bad.appendingPathComponent("a.xml"))
        try Data("{\"x\": 1}".utf8).write(to: bad.appendingPathComponent("b.json"))

        let status = await env.feedline.replay(inputs: ["bad"], sourceHint: nil, parameters: [:], paths: env.paths(), force: false)
        #expect(status == .failure)
        #expect(env.out.text.contains("FAILED"))
        #expect(!env.out.text.contains("partial"))
        let runs = try ledger(env)
        #expect(runs.map { $0["status"] as String } == ["failed"])
        #expect((runs.first?["error"] as String?)?.hasPrefix("None of the 2 files could be loaded") == true)
    }

    @Test("another process holding the write lock past the busy timeout is exit 75: database is busy")
    func busyDatabaseIsATemporaryFailure() async throws {
        var env = try TestEnvironment()
        defer { env.dir.remove() }
        env.variables["FEEDLINE_BUSY_TIMEOUT_MS"] = "50"
        _ = try pagesWithOneGoodPage(env)
        #expect(await env.feedline.replay(inputs: ["pages"], sourceHint: nil, parameters: [:], paths: env.paths(), force: false) == .success)

        var config = Configuration()
        config.allowsUnsafeTransactions = true
        let holder = try DatabaseQueue(path: env.database.path, configuration: config)
        try holder.inDatabase { try $0.execute(sql: "BEGIN IMMEDIATE") }
        defer { try? holder.inDatabase { try $0.execute(sql: "ROLLBACK") } }

        let status = await env.feedline.replay(inputs: ["pages"], sourceHint: nil, parameters: [:], paths: env.paths(), force: true)
        #expect(status == .temporaryFailure, "\(env.err.text)\n\(env.out.text)")
        #expect((env.err.text + env.out.text).contains("database is busy (held by another process)"))
    }
}

/// The exit status of a use case run on another thread, waited for with a limit.
final class Outcome: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var value: App.ExitStatus?

    func finish(_ status: App.ExitStatus) {
        lock.withLock { value = status }
        done.signal()
    }

    /// False if nothing finished within `seconds`.
    func wait(seconds: Double) -> Bool { done.wait(timeout: .now() + seconds) == .success }

    var status: App.ExitStatus? { lock.withLock { value } }

    /// How `watchOffPool` ended.
    enum Watch { case finished, stopped, timedOut }

    /// Waits on a dispatch thread for the outcome, calling `stop` every `every` seconds: `.stopped`
    /// as soon as `stop` returns true, `.timedOut` when nothing finished within `seconds`.
    func watchOffPool(seconds: Double, every: Double, stop: @escaping @Sendable () -> Bool) async -> Watch {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let deadline = DispatchTime.now() + seconds
                while DispatchTime.now() < deadline {
                    if self.done.wait(timeout: .now() + every) == .success {
                        self.done.signal()  // `wait` and `waitOffPool` still see it finished
                        return continuation.resume(returning: .finished)
                    }
                    if stop() { return continuation.resume(returning: .stopped) }
                }
                continuation.resume(returning: .timedOut)
            }
        }
    }

    /// `wait(seconds:)` on a dispatch thread, so the calling task's thread stays free.
    func waitOffPool(seconds: Double) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.wait(seconds: seconds)) }
        }
    }
}
