import App
import Domain
import Foundation
import GRDB
@testable import Storage
import Testing
import TestSupport

/// Which commands write the database and which only read it, as the user sees it: exit codes
/// and one-line reasons for missing, foreign and newer databases.
@Suite struct DatabaseAccessCommandTests {
    func writePage(_ env: TestEnvironment) throws {
        let pages = env.dir.path("pages")
        try FileManager.default.createDirectory(at: pages, withIntermediateDirectories: true)
        try AirKoreaPages.xml(AirKoreaPages.items(first: 0, count: 5), pageNo: 1, numOfRows: 5, totalCount: 5)
            .write(to: pages.appendingPathComponent("p1.xml"))
    }

    /// Runs `sql` on the database at `path` (rollback journal, as another program would).
    func execute(_ path: URL, _ sql: String) throws {
        let queue = try DatabaseQueue(path: path.path)
        try queue.write { try $0.execute(sql: sql) }
        try queue.close()
    }

    func migrations(_ path: URL) throws -> [String] {
        let queue = try DatabaseQueue(path: path.path)
        defer { try? queue.close() }
        return try queue.read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid") }
    }

    @Test("status on a missing database is exit 78, like query, and creates neither the file nor its directory")
    func statusOnMissingDatabase() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let pipelines = try env.writeScheduledPipelines()
        var paths = env.paths(pipelines: pipelines)
        paths.database = env.dir.path("nowhere/feedline.sqlite")
        #expect(env.feedline.status(paths: paths, json: false) == .configuration)
        #expect(env.err.text.contains("No database at \(paths.database.path)"))
        #expect(!FileManager.default.fileExists(atPath: env.dir.path("nowhere").path))
        #expect(!env.out.text.contains("STALE"))
    }

    @Test("status reads an older database as it is: no migration, no write")
    func statusDoesNotMigrate() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let queue = try DatabaseQueue(path: env.database.path)
        try FeedlineMigrations.migrator.migrate(queue, upTo: "v3-derived-indices-and-exposure")
        try queue.write { db in
            try db.execute(sql: "INSERT INTO run (pipeline, mode, started_at, finished_at, status) VALUES ('sched-seoul', 'fixtures', '2024-03-06T05:00:00Z', '2024-03-06T05:00:03Z', 'succeeded')")
        }
        try queue.close()
        let before = try Data(contentsOf: env.database)
        let pipelines = try env.writeScheduledPipelines()

        #expect(env.feedline.status(paths: env.paths(pipelines: pipelines), json: false) == .success, "\(env.err.text)")
        #expect(env.out.text.contains("succeeded (fixtures)"))
        #expect(try migrations(env.database).last == "v3-derived-indices-and-exposure")
        #expect(try Data(contentsOf: env.database) == before)
    }

    @Test("a newer feedline's database: replay refuses with exit 78 and writes nothing; status and intake still read it")
    func newerDatabase() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        try writePage(env)
        #expect(await env.feedline.replay(inputs: ["pages"], sourceHint: nil, parameters: [:], paths: env.paths(), force: false) == .success)
        let queue = try DatabaseQueue(path: env.database.path)
        try await queue.write { try $0.execute(sql: "INSERT INTO grdb_migrations VALUES ('v99-later')") }
        try queue.close()
        let runs = try await DatabaseQueue(path: env.database.path).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM run") }

        #expect(await env.feedline.replay(inputs: ["pages"], sourceHint: nil, parameters: [:], paths: env.paths(), force: true) == .configuration)
        #expect(env.err.text.contains("error: this database was written by a newer feedline (migration v99-later); upgrade feedline"))
        #expect(try await DatabaseQueue(path: env.database.path).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM run") } == runs)

        let pipelines = try env.writeScheduledPipelines()
        #expect(env.feedline.status(paths: env.paths(pipelines: pipelines), json: true) == .success, "\(env.err.text)")
        let request = IntakeRequest(station: "S0", date: LocalDate(iso: "2024-03-06")!, activity: .moderate,
                                    metresPerHour: 4000, speed: 4, hours: [8], legacy: false)
        #expect(env.feedline.intake(request, paths: env.paths()) == .success, "\(env.err.text)")
    }

    @Test("--db naming another application's SQLite file: refused with a hint, exit 78, the file unchanged")
    func foreignDatabase() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        try writePage(env)
        let file = env.dir.path("photos.db")
        try execute(file, "CREATE TABLE album (id INTEGER PRIMARY KEY, title TEXT); INSERT INTO album (title) VALUES ('summer')")
        let before = try Data(contentsOf: file)
        var paths = env.paths()
        paths.database = file

        #expect(await env.feedline.replay(inputs: ["pages"], sourceHint: nil, parameters: [:], paths: paths, force: false) == .configuration)
        #expect(await env.feedline.run(names: ["airkorea-seoul"], source: .fixtures, paths: paths) == .configuration)
        let lines = env.err.text.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { $0.hasPrefix("error: \(file.path) is not a feedline database") && $0.contains("(album)") })
        #expect(try Data(contentsOf: file) == before)
        #expect(!FileManager.default.fileExists(atPath: file.path + "-wal"))
    }
}
