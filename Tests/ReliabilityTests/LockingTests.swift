import App
import Foundation
import GRDB
import Storage
import Testing
import TestSupport

/// Queries on their own connections while a big load transaction runs and commits: they never
/// wait, never see "database is locked", and see the load all at once or not at all.
@Suite struct LockingTests {
    /// Reader threads (not tasks: a blocking loop must not hold one of the few cooperative
    /// threads) querying in a loop with no busy timeout at all, so any lock would surface as an error.
    final class QueryLoop: @unchecked Sendable {
        private let lock = NSLock()
        private var running = true
        private var finishedThreads = 0
        private(set) var errors: [String] = []
        private(set) var counts: Set<Int> = []
        private(set) var iterations = 0
        let threads: Int

        init(database: URL, threads: Int = 2) {
            self.threads = threads
            for _ in 0..<threads {
                Thread { [self] in loop(database) }.start()
            }
        }

        private func loop(_ database: URL) {
            defer { lock.withLock { finishedThreads += 1 } }
            var config = Configuration()
            config.readonly = true
            // As `feedline query` opens a database: read-only, waiting up to its default busy
            // timeout (5 s). Opening can meet a writer's exclusive moment (the WAL checkpoint as
            // the loading process closes); reads themselves never wait in WAL mode.
            config.busyMode = .timeout(5)
            let queue: DatabaseQueue
            do { queue = try DatabaseQueue(path: database.path, configuration: config) } catch {
                lock.withLock { errors.append("open: \(error)") }
                return
            }
            while lock.withLock({ running }) {
                do {
                    let (rows, runs) = try queue.read { db in
                        (try Int.fetchOne(db, sql: "SELECT count(*) FROM measurement") ?? -1,
                         try Int.fetchOne(db, sql: "SELECT count(*) FROM run WHERE status = 'succeeded'") ?? -1)
                    }
                    lock.withLock {
                        counts.insert(rows)
                        iterations += 1
                        if (rows > 0) != (runs > 0) { errors.append("rows \(rows) visible with \(runs) succeeded runs") }
                    }
                } catch {
                    lock.withLock { errors.append("\(error)") }
                }
            }
        }

        /// Stops the loop and waits for the threads.
        func stop() {
            lock.withLock { running = false }
            while lock.withLock({ finishedThreads < threads }) { Thread.sleep(forTimeInterval: 0.005) }
        }

        var snapshot: (errors: [String], counts: Set<Int>, iterations: Int) { lock.withLock { (errors, counts, iterations) } }
    }

    @Test func queriesNeverSeeDatabaseIsLockedWhileABigLoadCommitsInProcess() async throws {
        try await onOwnThread {
            let env = try RelEnvironment("locking")
            defer { env.dir.remove() }
            let pages = env.dir.path("pages")
            try LoadData.write(to: pages, files: 4, items: 400)
            _ = try SQLiteStore(path: env.database.path, schema: env.environment.storeSchema)  // the run's schema in place before the readers start

            let loop = QueryLoop(database: env.database)
            while loop.snapshot.iterations < 5 { try await Task.sleep(nanoseconds: 2_000_000) }
            // The load runs on this test's own thread while the readers loop on theirs.
            let status = await env.feedline.replay(inputs: [pages.path], sourceHint: nil, parameters: [:],
                                             paths: Paths(environment: env.environment, database: env.database.path), force: false)
            let after = loop.snapshot.iterations
            while loop.snapshot.iterations < after + 5 { try await Task.sleep(nanoseconds: 2_000_000) }
            loop.stop()

            let result = loop.snapshot
            #expect(status == .success, "\(env.printed)")
            #expect(result.errors.isEmpty, "readers saw: \(result.errors.prefix(3))")
            #expect(result.counts == [0, 1600], "readers must see none or all of the load, saw \(result.counts.sorted())")
            #expect(result.iterations > 20)
        }
    }

    @Test(.enabled(if: FeedlineBinary.url != nil, "the feedline executable is not built beside the tests (swift build first)"))
    func queriesNeverSeeDatabaseIsLockedWhileAnotherProcessLoads() async throws {
        try await onOwnThread {
            let binary = try #require(FeedlineBinary.url)
            let dir = try TemporaryDirectory("locking-process")
            defer { dir.remove() }
            let pages = dir.path("pages")
            try LoadData.write(to: pages, files: 4, items: 400)
            let database = dir.path("feedline.sqlite")
            _ = try SQLiteStore(path: database.path, schema: .feedline)

            let loop = QueryLoop(database: database)
            while loop.snapshot.iterations < 5 { try await Task.sleep(nanoseconds: 2_000_000) }
            let process = try FeedlineProcess(binary, ["replay", pages.path, "--db", database.path])
            let exit = process.wait()
            let after = loop.snapshot.iterations
            while loop.snapshot.iterations < after + 5 { try await Task.sleep(nanoseconds: 2_000_000) }
            loop.stop()

            let result = loop.snapshot
            #expect(exit == 0)
            #expect(result.errors.isEmpty, "readers saw: \(result.errors.prefix(3))")
            #expect(result.counts == [0, 1600], "readers must see none or all of the load, saw \(result.counts.sorted())")
        }
    }
}
