@testable import App
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// The one rule for every file feedline writes (`App.OutputFile`), through each command that
/// writes one: `check --junit`, `snapshot`, `query -o`, `init --force`. `report -o` has its own
/// suite (`ReportOutputSafetyTests`).
@Suite(.serialized) struct OutputFileRuleTests {
    /// The first bytes of a SQLite database, and some more.
    static let sqliteBytes = Data("SQLite format 3\u{0}".utf8) + Data(repeating: 7, count: 200)

    func paths(_ env: TestEnvironment, fixtures: URL = FixturePaths.fixtures) -> Paths {
        Paths(environment: env.environment, database: env.database.path,
              pipelines: FixturePaths.repositoryRoot.appendingPathComponent("Pipelines").path, fixtures: fixtures.path)
    }

    func fileType(_ url: URL) -> mode_t? {
        var st = stat()
        guard lstat(url.path, &st) == 0 else { return nil }
        return st.st_mode & S_IFMT
    }

    /// A character device 1,3 (what /dev/null is) at `url`; false when not root.
    func makeNullDevice(_ url: URL) -> Bool {
        guard getuid() == 0 else { return false }
        return mknod(url.path, S_IFCHR | 0o666, dev_t((1 << 8) | 3)) == 0
    }

    func errorLines(_ env: TestEnvironment, since mark: Int) -> [Substring] {
        env.err.text.dropFirst(mark).split(separator: "\n")
    }

    func junit(_ env: TestEnvironment, _ path: String, force: Bool = false, mkdir: Bool = false) async -> App.ExitStatus {
        await env.feedline.check(names: ["airkorea-nearby"], paths: paths(env), junit: path, force: force, makeDirectories: mkdir)
    }

    @Test("check --junit never replaces the database, a SQLite file, a device, a FIFO or a directory, even with --force")
    func junitRefusesWhatIsNotItsOwn() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        try Self.sqliteBytes.write(to: env.database)
        let other = env.dir.path("other.sqlite")
        try Self.sqliteBytes.write(to: other)
        let fifo = env.dir.path("pipe.xml")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let directory = env.dir.path("reports")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let device = env.dir.path("null")
        let haveDevice = makeNullDevice(device)

        var mark = env.err.text.count
        #expect(await junit(env, env.database.path, force: true) == .usage)
        #expect(errorLines(env, since: mark) == ["error: refusing to write the JUnit report to \(env.database.path): it is the database feedline reads (\(env.database.path))."])
        #expect(try Data(contentsOf: env.database) == Self.sqliteBytes)

        mark = env.err.text.count
        #expect(await junit(env, other.path, force: true) == .usage)
        #expect(errorLines(env, since: mark) == ["error: refusing to write the JUnit report to \(other.path): it is a SQLite file; feedline never overwrites one (not even with --force)."])
        #expect(try Data(contentsOf: other) == Self.sqliteBytes)

        mark = env.err.text.count
        #expect(await junit(env, fifo.path, force: true) == .usage)
        #expect(fileType(fifo) == S_IFIFO)
        #expect(await junit(env, directory.path, force: true) == .usage)
        #expect(fileType(directory) == S_IFDIR)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        let lines = errorLines(env, since: mark)
        #expect(lines.count == 2 && lines[0].contains("it is not a regular file") && lines[1].contains("it is a directory"), "\(lines)")

        if haveDevice {
            #expect(await junit(env, device.path, force: true) == .usage)
            #expect(fileType(device) == S_IFCHR, "the device node is still a character device")
        }
        #expect(!env.err.text.contains("NSCocoaErrorDomain") && !env.err.text.contains("Error Domain"))
        #expect(env.out.text.isEmpty, "nothing was checked: the path is refused first")
    }

    @Test("check --junit replaces an earlier JUnit report, another file only with --force, and creates directories only with --mkdir")
    func junitReplacesItsOwnFileAndMakesDirectoriesOnRequest() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let notes = env.dir.path("notes.xml")
        try Data("<notes>mine</notes>\n".utf8).write(to: notes)
        var mark = env.err.text.count
        #expect(await junit(env, notes.path) == .usage)
        #expect(errorLines(env, since: mark) == ["error: refusing to write the JUnit report to \(notes.path): it exists and is not a JUnit report feedline wrote; pass --force to replace it, or choose another --junit path."])
        #expect(try String(contentsOf: notes, encoding: .utf8) == "<notes>mine</notes>\n")

        let missing = env.dir.path("build")
        mark = env.err.text.count
        #expect(await junit(env, missing.appendingPathComponent("checks.xml").path) == .usage)
        #expect(errorLines(env, since: mark) == ["error: cannot write the JUnit report to \(missing.path)/checks.xml: the directory \(missing.path) does not exist (pass --mkdir to create it)."])
        #expect(fileType(missing) == nil, "the directory was not created unasked")

        #expect(await junit(env, missing.appendingPathComponent("checks.xml").path, mkdir: true) == .success, "\(env.err.text)")
        let written = try String(contentsOf: missing.appendingPathComponent("checks.xml"), encoding: .utf8)
        #expect(written.contains("<testsuites name=\"feedline check\""))
        // The file it wrote is its own: replaced without --force; a file of notes with it.
        #expect(await junit(env, missing.appendingPathComponent("checks.xml").path) == .success, "\(env.err.text)")
        #expect(await junit(env, notes.path, force: true) == .success, "\(env.err.text)")
        #expect(try String(contentsOf: notes, encoding: .utf8).contains("<testsuites name=\"feedline check\""))
        #expect(try FileManager.default.contentsOfDirectory(atPath: env.dir.url.path).filter { $0.hasSuffix(".tmp") }.isEmpty)
    }

    @Test("snapshot never turns a SQLite file, a FIFO or another file into a snapshot, and says nothing was created")
    func snapshotRefusesWhatIsNotASnapshot() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let fixtures = env.dir.path("fixtures")
        try FileManager.default.copyItem(at: FixturePaths.fixtures, to: fixtures)
        let file = fixtures.appendingPathComponent("airkorea/snapshots/airkorea-nearby.nearby_station.csv")
        let recorded = try Data(contentsOf: file)

        try FileManager.default.removeItem(at: file)
        try Self.sqliteBytes.write(to: file)
        var mark = env.err.text.count
        #expect(await env.feedline.snapshot(names: ["airkorea-nearby"], paths: paths(env, fixtures: fixtures), force: true) == .usage)
        #expect(try Data(contentsOf: file) == Self.sqliteBytes)
        #expect(!env.out.text.contains("created"), "\(env.out.text)")
        #expect(errorLines(env, since: mark).contains { $0.contains("it is a SQLite file; feedline never overwrites one") }, "\(env.err.text)")

        try FileManager.default.removeItem(at: file)
        try Data("my own notes\n".utf8).write(to: file)
        mark = env.err.text.count
        #expect(await env.feedline.snapshot(names: ["airkorea-nearby"], paths: paths(env, fixtures: fixtures)) == .usage)
        #expect(try String(contentsOf: file, encoding: .utf8) == "my own notes\n")
        #expect(errorLines(env, since: mark).contains { $0.contains("it exists and is not a snapshot file feedline wrote; pass --force") }, "\(env.err.text)")
        #expect(await env.feedline.snapshot(names: ["airkorea-nearby"], paths: paths(env, fixtures: fixtures), force: true) == .success, "\(env.err.text)")
        #expect(try Data(contentsOf: file) == recorded)

        try FileManager.default.removeItem(at: file)
        #expect(mkfifo(file.path, 0o600) == 0)
        #expect(await env.feedline.snapshot(names: ["airkorea-nearby"], paths: paths(env, fixtures: fixtures), force: true) == .usage)
        #expect(fileType(file) == S_IFIFO)
        // check does not wait on the FIFO either: it says the file is not a regular file.
        #expect(await env.feedline.check(names: ["airkorea-nearby"], paths: paths(env, fixtures: fixtures)) == .failure)
        #expect(env.out.text.contains("is not a regular file"), "\(env.out.text)")
    }

    @Test("query -o replaces an existing file only with --force, never a device, FIFO or SQLite file, and makes directories only with --mkdir")
    func queryOutputFollowsTheRule() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        func query(_ output: URL, force: Bool = false, mkdir: Bool = false) -> App.ExitStatus {
            var request = QueryRequest(source: .sql("SELECT 1 AS n"), format: .csv, savedQueries: env.dir.path("queries"), output: output)
            request.force = force
            request.makeDirectories = mkdir
            return env.feedline.query(request, paths: paths(env))
        }
        #expect(await env.feedline.run(names: ["airkorea-jongno"], source: .fixtures, paths: paths(env)) == .success, "\(env.err.text)")
        let notes = env.dir.path("notes.txt")
        try Data("keep me\n".utf8).write(to: notes)
        #expect(query(notes) == .usage)
        #expect(env.err.text.contains("error: refusing to write the rows to \(notes.path): it exists; pass --force to replace it, or choose another -o path."), "\(env.err.text)")
        #expect(try String(contentsOf: notes, encoding: .utf8) == "keep me\n")
        #expect(query(notes, force: true) == .success, "\(env.err.text)")
        #expect(try String(contentsOf: notes, encoding: .utf8) == "n\n1\n")

        let fifo = env.dir.path("pipe.csv")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        #expect(query(fifo, force: true) == .usage)
        #expect(fileType(fifo) == S_IFIFO)
        let device = env.dir.path("null")
        if makeNullDevice(device) {
            #expect(query(device, force: true) == .usage)
            #expect(fileType(device) == S_IFCHR)
        }
        let other = env.dir.path("other.db")
        try Self.sqliteBytes.write(to: other)
        #expect(query(other, force: true) == .usage)
        #expect(try Data(contentsOf: other) == Self.sqliteBytes)

        let nested = env.dir.path("out/rows.csv")
        #expect(query(nested) == .usage)
        #expect(fileType(env.dir.path("out")) == nil)
        #expect(query(nested, mkdir: true) == .success, "\(env.err.text)")
        #expect(try String(contentsOf: nested, encoding: .utf8) == "n\n1\n")
    }

    @Test("init --force replaces the home's files but never a FIFO, device or SQLite file put in their place")
    func initForceFollowsTheRule() throws {
        let dir = try TemporaryDirectory("init-rule")
        defer { dir.remove() }
        let home = dir.path("air")
        _ = try Scaffold.create(at: home, overwrite: false)
        let pipeline = home.appendingPathComponent("Pipelines/airkorea-jongno.yaml")
        try FileManager.default.removeItem(at: pipeline)
        #expect(mkfifo(pipeline.path, 0o600) == 0)
        #expect(throws: FeedlineHome.Problem.self) { try Scaffold.create(at: home, overwrite: true) }
        #expect(fileType(pipeline) == S_IFIFO)

        try FileManager.default.removeItem(at: pipeline)
        try Self.sqliteBytes.write(to: pipeline)
        do {
            _ = try Scaffold.create(at: home, overwrite: true)
            Issue.record("a SQLite file was replaced")
        } catch {
            #expect("\(error)".contains("it is a SQLite file"), "\(error)")
        }
        #expect(try Data(contentsOf: pipeline) == Self.sqliteBytes)

        try FileManager.default.removeItem(at: pipeline)
        try Data("description: mine\n".utf8).write(to: pipeline)
        let report = try Scaffold.create(at: home, overwrite: true)
        #expect(report.written.contains("Pipelines/airkorea-jongno.yaml"))
        #expect(try String(contentsOf: pipeline, encoding: .utf8).contains("source: airkorea"))
    }

    @Test("a write that cannot finish leaves the old file whole and no temporary file behind")
    func aFailedWriteLeavesTheOldFile() throws {
        let dir = try TemporaryDirectory("output-rule")
        defer { dir.remove() }
        let target = dir.path("checks.xml")
        let old = Data("<testsuites name=\"feedline check\" tests=\"0\">\n</testsuites>\n".utf8)
        try old.write(to: target)
        let file = try App.OutputFile.prepare(target, kind: .junit, database: nil, force: false, makeDirectories: false)
        let stream = try file.open()
        stream.append(Data("<partial".utf8))
        stream.discard()
        #expect(try Data(contentsOf: target) == old)
        // The target turned into a FIFO while the file was written: refused at the rename.
        let second = try file.open()
        second.append(Data("<new/>".utf8))
        try FileManager.default.removeItem(at: target)
        #expect(mkfifo(target.path, 0o600) == 0)
        #expect(throws: App.OutputFile.Problem.self) { try second.commit() }
        #expect(fileType(target) == S_IFIFO)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path) == ["checks.xml"])
    }

    @Test("hostile names and whatever stands at the path: a refusal is one line, only a new path, feedline's own file or --force is written, nothing is left behind")
    func hostileNamesAndTargets() throws {
        let dir = try TemporaryDirectory("hostile-output")
        defer { dir.remove() }
        let outside = try TemporaryDirectory("hostile-outside")
        defer { outside.remove() }
        let database = dir.path("feedline.sqlite")
        try Self.sqliteBytes.write(to: database)
        let pieces = ["\n", "\r", "\t", "\u{1b}[31m", "\u{0}", "'", "\"", "$(touch PWNED)", "`id`", "..", "-", "--force", " ", "é", "서울", "😀",
                      "\u{FEFF}", "%s", "*", "?", "\\", "a", ".xml", "-wal", "-shm", "-journal", ".sqlite", String(repeating: "n", count: 120)]
        let junit = Data("<?xml version=\"1.0\"?>\n<testsuites name=\"feedline check\" tests=\"0\">\n</testsuites>\n".utf8)
        let foreign = Data("someone else's\n".utf8)
        var seed: UInt64 = 0x5eed_f11e
        func next(_ n: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(n))
        }
        enum Setup: CaseIterable { case none, foreign, junit, sqlite, fifo, directory, linkOut, linkToDatabase }
        for round in 0..<300 {
            var name = (0...next(5)).map { _ in pieces[next(pieces.count)] }.joined().replacingOccurrences(of: "\u{0}", with: "0")
            while name.utf8.count > 200 { name.removeLast() }
            if name.isEmpty || name == "." || name == ".." { name = "n\(round)" }
            name = "\(round)-" + name
            let url = dir.url.appendingPathComponent(name)
            let setup = Setup.allCases[next(Setup.allCases.count)]
            let force = next(2) == 1
            let outsideFile = outside.path("target-\(round)")
            switch setup {
            case .none: break
            case .foreign: try foreign.write(to: url)
            case .junit: try junit.write(to: url)
            case .sqlite: try Self.sqliteBytes.write(to: url)
            case .fifo: #expect(mkfifo(url.path, 0o600) == 0)
            case .directory: try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
            case .linkOut:
                try foreign.write(to: outsideFile)
                try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: outsideFile.path)
            case .linkToDatabase: try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: database.path)
            }
            let written = Data("<testsuites name=\"feedline check\" tests=\"\(round)\"/>\n".utf8)
            var refusal: App.OutputFile.Problem?
            do {
                try App.OutputFile.prepare(url, kind: .junit, database: .init(database), force: force, makeDirectories: false).write(written)
            } catch {
                refusal = error
            }
            let expectWritten: Bool = switch setup {
            case .none, .junit: true
            case .foreign, .linkOut: force
            case .sqlite, .fifo, .directory, .linkToDatabase: false
            }
            let label = "\(round) \(setup) force=\(force) \(name.debugDescription)"
            if let refusal {
                #expect(!expectWritten, "\(label): \(refusal)")
                #expect(refusal.refused, "\(label): \(refusal)")
                #expect(!refusal.message.unicodeScalars.contains { $0.properties.generalCategory == .control }, "\(label): one line")
            } else {
                #expect(expectWritten, "\(label)")
            }
            let landed = setup == .linkOut ? outsideFile : url
            switch setup {
            case .fifo: #expect(fileType(url) == S_IFIFO, "\(label)")
            case .directory: #expect(fileType(url) == S_IFDIR, "\(label)")
            case .sqlite: #expect(try Data(contentsOf: url) == Self.sqliteBytes, "\(label)")
            case .linkToDatabase: #expect(try Data(contentsOf: database) == Self.sqliteBytes, "\(label)")
            default:
                let expected = expectWritten ? written : setup == .junit ? junit : foreign
                #expect(try Data(contentsOf: landed) == expected, "\(label)")
            }
        }
        #expect(try Data(contentsOf: database) == Self.sqliteBytes)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.url.path) + FileManager.default.contentsOfDirectory(atPath: outside.url.path)
        #expect(leftovers.filter { $0.hasSuffix(".tmp") }.isEmpty, "\(leftovers)")
    }
}
