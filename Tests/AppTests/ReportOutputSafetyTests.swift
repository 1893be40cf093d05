@testable import App
import Foundation
import Testing
import TestSupport

/// `feedline report -o`: what it may replace (a new file, an earlier report, or with --force a
/// plain file), what it always refuses (the database, any SQLite file, devices, directories),
/// symbolic links followed, --mkdir, and errors as one readable line.
@Suite struct ReportOutputSafetyTests {
    /// A test environment whose database holds the 종로구 fixture rows.
    func loadedEnvironment() async throws -> TestEnvironment {
        let env = try TestEnvironment()
        let status = await env.feedline.run(names: ["airkorea-jongno"], source: .fixtures, paths: env.paths())
        #expect(status == .success, "\(env.err.text)")
        return env
    }

    func report(_ env: TestEnvironment, to output: String, force: Bool = false, mkdir: Bool = false) -> App.ExitStatus {
        env.feedline.report(ReportRequest(subject: .station("종로구"), output: output, force: force, makeDirectories: mkdir), paths: env.paths())
    }

    func bytes(_ url: URL) throws -> Data { try Data(contentsOf: url) }

    func fileType(_ path: String) throws -> FileAttributeType? {
        try FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType
    }

    /// The error lines printed since `mark` characters of standard error.
    func errors(_ env: TestEnvironment, since mark: Int) -> [Substring] {
        env.err.text.dropFirst(mark).split(separator: "\n")
    }

    @Test func theOpenDatabaseAndAnyOtherSQLiteFileAreRefusedEvenWithForce() async throws {
        let env = try await loadedEnvironment()
        defer { env.dir.remove() }
        let before = try bytes(env.database)

        var mark = env.err.text.count
        #expect(report(env, to: env.database.path) == .usage)
        #expect(report(env, to: "feedline.sqlite", force: true) == .usage)
        let lines = errors(env, since: mark)
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.allSatisfy { $0.hasPrefix("error: refusing to write the report to") && $0.contains("database feedline reads") })
        #expect(try bytes(env.database) == before)

        // Another SQLite file: refused even with --force, by its header.
        let other = env.dir.path("other.sqlite")
        try before.write(to: other)
        mark = env.err.text.count
        #expect(report(env, to: "other.sqlite", force: true) == .usage)
        #expect(errors(env, since: mark) == ["error: refusing to write the report to \(other.path): it is a SQLite file; feedline never overwrites one (not even with --force)."])
        #expect(try bytes(other) == before)
    }

    @Test func devicesAndDirectoriesAreRefusedAndLeftAsTheyWere() async throws {
        let env = try await loadedEnvironment()
        defer { env.dir.remove() }

        let mark = env.err.text.count
        #expect(report(env, to: "/dev/null", force: true) == .usage)
        #expect(try fileType("/dev/null") == .typeCharacterSpecial)

        let directory = env.dir.path("reports")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        #expect(report(env, to: "reports", force: true) == .usage)
        #expect(try fileType(directory.path) == .typeDirectory)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)

        let lines = errors(env, since: mark)
        #expect(lines == [
            "error: refusing to write the report to /dev/null: it is not a regular file (a device, FIFO or socket).",
            "error: refusing to write the report to \(directory.path): it is a directory; give a file name, e.g. \(directory.path)/report.html.",
        ])
    }

    @Test func anExistingFileIsReplacedOnlyWhenItIsAFeedlineReportOrWithForce() async throws {
        let env = try await loadedEnvironment()
        defer { env.dir.remove() }
        let notes = env.dir.path("notes.html")
        try Data("<html>my own notes</html>".utf8).write(to: notes)

        let mark = env.err.text.count
        #expect(report(env, to: "notes.html") == .usage)
        #expect(errors(env, since: mark) == ["error: refusing to write the report to \(notes.path): it exists and is not a feedline report; pass --force to replace it, or choose another -o path."])
        #expect(try String(contentsOf: notes, encoding: .utf8) == "<html>my own notes</html>")

        // An empty file is not a report either.
        let empty = env.dir.path("empty.html")
        #expect(FileManager.default.createFile(atPath: empty.path, contents: Data()))
        #expect(report(env, to: "empty.html") == .usage)
        #expect(try bytes(empty).isEmpty)

        // With --force a plain file is replaced, and its permissions kept.
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: notes.path)
        #expect(report(env, to: "notes.html", force: true) == .success, "\(env.err.text)")
        let html = try String(contentsOf: notes, encoding: .utf8)
        #expect(html.contains("<meta name=\"generator\" content=\"feedline "))
        #expect(try FileManager.default.attributesOfItem(atPath: notes.path)[.posixPermissions] as? Int == 0o640)

        // Now it is a feedline report: writing it again needs no --force.
        #expect(report(env, to: "notes.html") == .success, "\(env.err.text)")
        // No temporary files are left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: env.dir.url.path).filter { $0.hasSuffix(".tmp") }.isEmpty)
    }

    @Test func aSymbolicLinkIsFollowedAndItsTargetCheckedLikeAnyPath() async throws {
        let env = try await loadedEnvironment()
        defer { env.dir.remove() }
        let fm = FileManager.default
        let before = try bytes(env.database)

        // A link to the database: refused; the link and the database stay.
        let toDatabase = env.dir.path("db-link.html")
        try fm.createSymbolicLink(atPath: toDatabase.path, withDestinationPath: "feedline.sqlite")
        let mark = env.err.text.count
        #expect(report(env, to: "db-link.html", force: true) == .usage)
        #expect(errors(env, since: mark).count == 1)
        #expect(env.err.text.contains("db-link.html (→ \(env.database.path)): it is the database feedline reads"))
        #expect(try fileType(toDatabase.path) == .typeSymbolicLink)
        #expect(try bytes(env.database) == before)

        // A link to an earlier report: the target is rewritten and the link stays a link.
        #expect(report(env, to: "first.html") == .success, "\(env.err.text)")
        let target = env.dir.path("first.html")
        try Data(try String(contentsOf: target, encoding: .utf8).replacingOccurrences(of: "</html>", with: "<!-- old --></html>").utf8).write(to: target)
        let toReport = env.dir.path("latest.html")
        try fm.createSymbolicLink(atPath: toReport.path, withDestinationPath: "first.html")
        #expect(report(env, to: "latest.html") == .success, "\(env.err.text)")
        #expect(try fileType(toReport.path) == .typeSymbolicLink)
        #expect(try fm.destinationOfSymbolicLink(atPath: toReport.path) == "first.html")
        #expect(try !String(contentsOf: target, encoding: .utf8).contains("<!-- old -->"))

        // A link to a device: refused, the device untouched.
        let toDevice = env.dir.path("null.html")
        try fm.createSymbolicLink(atPath: toDevice.path, withDestinationPath: "/dev/null")
        #expect(report(env, to: "null.html", force: true) == .usage)
        #expect(try fileType("/dev/null") == .typeCharacterSpecial)
    }

    @Test func aMissingDirectoryIsCreatedOnlyWithMkdir() async throws {
        let env = try await loadedEnvironment()
        defer { env.dir.remove() }
        let missing = env.dir.path("out/2024")

        let mark = env.err.text.count
        #expect(report(env, to: "out/2024/jongno.html") == .usage)
        #expect(errors(env, since: mark) == ["error: cannot write the report to \(missing.path)/jongno.html: the directory \(missing.path) does not exist (pass --mkdir to create it)."])
        #expect(!FileManager.default.fileExists(atPath: env.dir.path("out").path))

        #expect(report(env, to: "out/2024/jongno.html", mkdir: true) == .success, "\(env.err.text)")
        #expect(FileManager.default.fileExists(atPath: missing.appendingPathComponent("jongno.html").path))
    }

    @Test func fileSystemErrorsAreOneReadableLine() async throws {
        let env = try await loadedEnvironment()
        defer { env.dir.remove() }
        try Data("plain".utf8).write(to: env.dir.path("plain.txt"))

        var mark = env.err.text.count
        #expect(report(env, to: "plain.txt/report.html", mkdir: true) == .usage)
        let plain = env.dir.path("plain.txt").path
        #expect(errors(env, since: mark) == ["error: cannot write the report to \(plain)/report.html: \(plain) is not a directory."])

        mark = env.err.text.count
        let long = String(repeating: "a", count: 300) + ".html"
        #expect(report(env, to: long) == .failure)
        let lines = errors(env, since: mark)
        #expect(lines == ["error: cannot write the report to \(env.dir.path(long).path): File name too long."])
        #expect(!env.err.text.contains("NSCocoaErrorDomain") && !env.err.text.contains("Error Domain"))
    }

    @Test func theMarkerIsInTheFirstBytesOfEveryReport() async throws {
        let env = try await loadedEnvironment()
        defer { env.dir.remove() }
        #expect(report(env, to: "r.html") == .success)
        let head = try bytes(env.dir.path("r.html")).prefix(App.OutputFile.Kind.report.window)
        #expect(head.range(of: App.OutputFile.reportMarker) != nil)
    }
}
