import Foundation
import GRDB
@testable import Storage
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `feedline status` on a database file the user may read but not write, run as the built
/// executable by a user other than root (root writes whatever the file mode says): as root the
/// test drops to `nobody` with `setpriv`.
@Suite struct ReadOnlyStatusTests {
    static let binary = FeedlineBinary.url
    static let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static var canRunAsReader: Bool { binary != nil && (getuid() != 0 || setpriv != nil) }

    @Test("status reads a read-only database file, even one an older feedline wrote, without writing it",
          .enabled(if: canRunAsReader, "needs the built executable, and setpriv when run as root"))
    func statusOnReadOnlyFile() throws {
        let binary = try #require(Self.binary)
        let dir = try TemporaryDirectory("read-only")
        defer { dir.remove() }
        #expect(chmod(dir.url.path, 0o777) == 0)  // SQLite's WAL index beside the file may be created there
        let database = dir.path("feedline.sqlite")
        // A database from the feedline before the current one: opening it for writing would migrate.
        let queue = try DatabaseQueue(path: database.path)
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        try FeedlineMigrations.migrator.migrate(queue, upTo: "v7-measurement-rowid-layout")
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO run (pipeline, mode, started_at, finished_at, status) VALUES ('ro-seoul', 'fixtures', '2024-03-06T05:00:00Z', '2024-03-06T05:00:03Z', 'succeeded');
                """)
        }
        try queue.close()
        let before = try Data(contentsOf: database)
        #expect(chmod(database.path, 0o444) == 0)
        let pipelines = dir.path("Pipelines")
        try FileManager.default.createDirectory(at: pipelines, withIntermediateDirectories: true)
        try "source: airkorea\noperation: realtime-by-province\nparameters:\n  sidoName: 서울\nschedule: \"20 * * * *\"\n"
            .write(to: pipelines.appendingPathComponent("ro-seoul.yaml"), atomically: true, encoding: .utf8)

        let process = Process()
        let arguments = ["status", "--db", database.path, "--pipelines-dir", pipelines.path]
        if getuid() == 0, let setpriv = Self.setpriv {
            process.executableURL = URL(fileURLWithPath: setpriv)
            process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", binary.path] + arguments
        } else {
            process.executableURL = binary
            process.arguments = arguments
        }
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FEEDLINE_") }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()

        #expect(process.terminationStatus == 0, "\(errors)")
        #expect(printed.contains("ro-seoul"))
        #expect(printed.contains("succeeded (fixtures)"), "\(printed)")
        #expect(try Data(contentsOf: database) == before)
    }
}
