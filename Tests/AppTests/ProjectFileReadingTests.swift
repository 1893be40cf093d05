@testable import App
import Foundation
import Pipeline
import Testing
import TestSupport

/// The one rule for files feedline reads from a project (`ProjectFile`): snapshot and fixture
/// files stay inside the fixtures directory, pipeline files inside their home, bad files are
/// quoted only in short excerpts, and saved queries come built in when there is no home.
@Suite(.serialized) struct ProjectFileReadingTests {
    static let secret = "sk-live-5ecret-Project-File-0123456789"

    func paths(_ env: TestEnvironment, fixtures: URL, pipelines: URL? = nil) -> Paths {
        Paths(environment: env.environment, database: env.database.path,
              pipelines: (pipelines ?? FixturePaths.repositoryRoot.appendingPathComponent("Pipelines")).path, fixtures: fixtures.path)
    }

    @Test("a snapshot file that is a link out of the fixtures directory is not read, shown or put in the JUnit file")
    func aSnapshotLinkOutOfTheFixturesIsNotRead() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let fixtures = env.dir.path("fixtures")
        try FileManager.default.copyItem(at: FixturePaths.fixtures, to: fixtures)
        let outside = try TemporaryDirectory("outside")
        defer { outside.remove() }
        let secretFile = outside.path("environ")
        try Data("API_KEY=\(Self.secret)\nOTHER=\(Self.secret)\n".utf8).write(to: secretFile)
        let snapshot = fixtures.appendingPathComponent("airkorea/snapshots/airkorea-nearby.nearby_station.csv")
        try FileManager.default.removeItem(at: snapshot)
        try FileManager.default.createSymbolicLink(at: snapshot, withDestinationURL: secretFile)

        let junit = env.dir.path("j.xml")
        #expect(await env.feedline.check(names: ["airkorea-nearby"], paths: paths(env, fixtures: fixtures), junit: junit.path) == .failure)
        #expect(env.out.text.contains("resolves to \(secretFile.resolvingSymlinksInPath().path), outside \(fixtures.path); it is not read"), "\(env.out.text)")
        let xml = try String(contentsOf: junit, encoding: .utf8)
        for text in [env.out.text, env.err.text, xml] {
            #expect(!text.contains(Self.secret) && !text.contains("API_KEY"), "\(text)")
        }
        // snapshot does not write through the link either.
        #expect(await env.feedline.snapshot(names: ["airkorea-nearby"], paths: paths(env, fixtures: fixtures), force: true) == .usage)
        #expect(try String(contentsOf: secretFile, encoding: .utf8).hasPrefix("API_KEY="))
        #expect(!env.out.text.contains(Self.secret) && !env.err.text.contains(Self.secret))
    }

    @Test("a snapshot file's own column names are shown only as short excerpts")
    func snapshotColumnNamesAreExcerpts() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let fixtures = env.dir.path("fixtures")
        try FileManager.default.copyItem(at: FixturePaths.fixtures, to: fixtures)
        let long = "LONG" + String(repeating: "x", count: 300) + Self.secret
        let snapshot = fixtures.appendingPathComponent("airkorea/snapshots/airkorea-nearby.nearby_station.csv")
        try Data("tm_x,\(long)\n1,2\n".utf8).write(to: snapshot)
        #expect(await env.feedline.check(names: ["airkorea-nearby"], paths: paths(env, fixtures: fixtures)) == .failure)
        #expect(env.out.text.contains("columns removed: LONGxxx"), "\(env.out.text)")
        #expect(!env.out.text.contains(Self.secret) && !env.out.text.contains(String(repeating: "x", count: 100)), "\(env.out.text)")
    }

    @Test("a snapshot linked to /proc/self/environ does not print the environment (process)", .enabled(if: FeedlineExecutable.url != nil))
    func procEnvironIsNotPrinted() throws {
        let dir = try TemporaryDirectory("environ")
        defer { dir.remove() }
        _ = try FeedlineProcess.run(["init", "home"], in: dir.url)
        let home = dir.path("home")
        let snapshot = home.appendingPathComponent("Data/fixtures/airkorea/snapshots/airkorea-nearby.nearby_station.csv")
        try FileManager.default.removeItem(at: snapshot)
        try FileManager.default.createSymbolicLink(atPath: snapshot.path, withDestinationPath: "/proc/self/environ")
        let checked = try FeedlineProcess.run(["check", "airkorea-nearby", "--junit", "j.xml"], in: home,
                                              extra: ["OPENAQ_TEST_API_KEY": Self.secret])
        let xml = (try? String(contentsOf: home.appendingPathComponent("j.xml"), encoding: .utf8)) ?? ""
        #expect(checked.status == 1 && xml.contains("<testsuites"), "\(checked)")
        #expect(checked.out.contains("outside"), "\(checked.out)")
        for text in [checked.out, checked.err, xml] {
            #expect(!text.contains(Self.secret) && !text.contains("OPENAQ_TEST_API_KEY") && !text.contains("PATH="), "\(text)")
        }
    }

    @Test("a fixture named with '..' or linked out of the fixtures directory is refused, not loaded")
    func fixturesStayInsideTheirDirectory() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let fixtures = env.dir.path("fixtures")
        let outside = env.dir.path("outside")
        try FileManager.default.createDirectory(at: fixtures, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: FixturePaths.fixtures.appendingPathComponent("airkorea/realtime-station-v14.xml"),
                                         to: outside.appendingPathComponent("realtime.xml"))
        try FileManager.default.createSymbolicLink(atPath: fixtures.appendingPathComponent("linked.xml").path, withDestinationPath: "../outside/realtime.xml")
        func pipeline(_ fixture: String) -> String {
            """
            source: airkorea
            operation: realtime-by-station
            parameters:
              stationName: 종로구
              dataTerm: DAILY
              ver: "1.4"
            format: xml
            fixtures:
              - \(fixture)
            """
        }
        _ = try env.writePipeline("dotdot", pipeline("../outside/realtime.xml"))
        let pipelines = try env.writePipeline("linked", pipeline("linked.xml"))
        for name in ["dotdot", "linked"] {
            let mark = env.err.text.count + env.out.text.count
            let status = await env.feedline.run(names: [name], source: .fixtures, paths: paths(env, fixtures: fixtures, pipelines: pipelines))
            #expect(status != .success, "\(name): \(env.out.text)")
            let said = env.err.text + env.out.text
            #expect(said.count > mark)
            #expect(said.contains(name == "dotdot" ? "must be a path inside" : "outside \(fixtures.path); it is not read"), "\(said)")
        }
        if FileManager.default.fileExists(atPath: env.database.path) {
            #expect(try env.db.rows("SELECT count(*) FROM measurement") == [["0"]])
        }
    }

    @Test("a pipeline file linked out of its home is refused, and a bad file's field names are quoted only in short excerpts")
    func pipelineFilesOutsideTheHomeAreNotQuoted() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let elsewhere = try TemporaryDirectory("etc")
        defer { elsewhere.remove() }
        let shadow = elsewhere.path("shadow")
        try Data("root:$6$secretsalt$\(Self.secret):19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n".utf8).write(to: shadow)
        let pipelines = try env.writePipeline("ok", "source: airkorea\noperation: realtime-by-station\nparameters:\n  stationName: 종로구\n")
        try FileManager.default.createSymbolicLink(at: pipelines.appendingPathComponent("leak.yaml"), withDestinationURL: shadow)
        // The same lines inside the home: read, but each field name is cut short.
        let long = "x" + String(repeating: "y", count: 200) + Self.secret
        try Data("\(long):::\nsource: airkorea\n".utf8).write(to: pipelines.appendingPathComponent("long.yaml"))

        let catalog = PipelineCatalog(directory: pipelines, feeds: env.environment.feeds, workingDirectory: env.dir.url)
        let (_, problems) = catalog.loadAll()
        let text = problems.map(\.description).joined(separator: "\n")
        #expect(!text.contains(Self.secret) && !text.contains("secretsalt") && !text.contains("daemon"), "\(text)")
        #expect(problems.contains { $0.file.hasSuffix("leak.yaml") && $0.message.contains("outside") }, "\(text)")
        let longField = try #require(problems.first { $0.file.hasSuffix("long.yaml") && $0.field?.hasPrefix("xyy") == true })
        #expect((longField.field?.count ?? 0) <= ProjectFile.excerptLength + 1, "\(longField)")
    }

    @Test("outside a home, `query diagnostics` runs the saved query built into feedline")
    func savedQueriesAreBuiltIn() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        #expect(await env.feedline.run(names: ["airkorea-jongno"], source: .fixtures, paths: paths(env, fixtures: FixturePaths.fixtures)) == .success,
                "\(env.err.text)")
        let missing = env.dir.path("no-home/Data/queries")
        let request = QueryRequest(source: .text("diagnostics"), format: .csv, parameters: ["run": "1"], savedQueries: missing)
        let mark = env.out.text.count
        #expect(env.feedline.query(request, paths: paths(env, fixtures: FixturePaths.fixtures)) == .success, "\(env.err.text)")
        #expect(env.out.text.dropFirst(mark).contains("run,pipeline,code,location,message,value"), "\(env.out.text)")
        #expect(SavedQuery.all(in: missing).map(\.name).contains("diagnostics"))
        #expect(env.feedline.listSavedQueries(directory: missing) == .success)
    }

    @Test("the built-in saved queries are the repository's Data/queries files")
    func builtInSavedQueriesMatchTheFiles() throws {
        let directory = FixturePaths.repositoryRoot.appendingPathComponent("Data/queries")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".sql") }.sorted()
        let builtIn = SavedQuery.builtIn
        #expect(builtIn.map { "\($0.name).sql" } == names, "run scripts/gen-scaffold")
        for query in builtIn {
            #expect(query.sql == (try String(contentsOf: directory.appendingPathComponent("\(query.name).sql"), encoding: .utf8)), "\(query.name): run scripts/gen-scaffold")
        }
    }

    @Test("a project file is read only as a bounded regular file inside its directory")
    func theRuleItself() throws {
        let dir = try TemporaryDirectory("project-file")
        defer { dir.remove() }
        let inside = dir.path("data")
        try FileManager.default.createDirectory(at: inside, withIntermediateDirectories: true)
        try Data("a,b\n1,2\n".utf8).write(to: inside.appendingPathComponent("ok.csv"))
        try Data(repeating: 65, count: 100).write(to: inside.appendingPathComponent("big.csv"))
        #expect(mkfifo(inside.appendingPathComponent("pipe.csv").path, 0o600) == 0)
        try FileManager.default.createSymbolicLink(atPath: inside.appendingPathComponent("environ.csv").path, withDestinationPath: "/proc/self/environ")
        #expect(try ProjectFile.read("ok.csv", in: inside, what: "file") == Data("a,b\n1,2\n".utf8))
        func kind(_ name: String, limit: Int = 1000) -> ProjectFile.Problem.Kind? {
            do { _ = try ProjectFile.read(name, in: inside, limit: limit, what: "file"); return nil } catch { return error.kind }
        }
        #expect(kind("big.csv", limit: 99) == .refused)
        #expect(kind("pipe.csv") == .refused)
        #expect(kind("environ.csv") == .refused)
        #expect(kind("../data/ok.csv") == .refused)
        #expect(kind("/etc/passwd") == .refused)
        #expect(kind("none.csv") == .missing)
        // A file whose size says nothing (/proc) is cut at the bound.
        let proc = URL(fileURLWithPath: "/proc/self/status")
        #expect(throws: ProjectFile.Problem.self) { try ProjectFile.read(proc, limit: 10, what: "file") }
        #expect(ProjectFile.excerpt(String(repeating: "z", count: 100)) == String(repeating: "z", count: ProjectFile.excerptLength) + "…")
        #expect(ProjectFile.excerpt("a\u{0}b\nc") == "a?b?c")
    }
}
