@testable import App
import FeedCore
import Foundation
import Testing
import TestSupport

/// A pipeline of one's own without fixtures: `pipelines` warns, a fixture `run` skips it with a
/// line, and `fixtures add` turns a payload its live run archived into a fixture that `check`
/// passes.
@Suite(.serialized) struct FixturesAddTests {
    /// Seoul's 7 stations on one page, observed at 2024-03-06 13:00 KST.
    static func server() throws -> LoopbackServer {
        try LoopbackServer { _ in
            .respond(status: 200, contentType: "text/xml",
                     body: AirKoreaPages.xml(AirKoreaPages.items(first: 0, count: 7, dataTime: "2024-03-06 13:00"), pageNo: 1, numOfRows: 100, totalCount: 7))
        }
    }

    static let mine = """
        # My own pipeline: Seoul's stations, live.
        source: airkorea
        operation: realtime-by-province
        parameters:
          sidoName: 서울
          ver: "1.3"
        format: xml
        page_size: 100
        target: measurement
        checks:
          - check: row_count
            table: measurement
            min: 7
            max: 7
        """

    /// `env`'s paths with `pipelines` and a fixtures directory of the test's own.
    static func paths(_ env: TestEnvironment, pipelines: URL) throws -> Paths {
        var paths = env.paths(pipelines: pipelines)
        paths.fixtures = env.dir.path("fixtures")
        try FileManager.default.createDirectory(at: paths.fixtures, withIntermediateDirectories: true)
        return paths
    }

    @Test func pipelinesWarnsOfAPipelineWithoutFixtures() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let pipelines = try env.writePipeline("mine", Self.mine)
        _ = try env.writePipeline("airkorea-seoul", String(contentsOf: FixturePaths.repositoryRoot.appendingPathComponent("Pipelines/airkorea-seoul.yaml"), encoding: .utf8))
        #expect(env.feedline.listPipelines(paths: env.paths(pipelines: pipelines)) == .success)
        #expect(env.out.text.contains("2 valid, 0 invalid"), "\(env.out.text)")
        let warnings = env.err.text.split(separator: "\n").filter { $0.hasPrefix("warning:") }
        #expect(warnings.count == 1, "\(env.err.text)")
        #expect(warnings.first?.contains("mine.yaml: field 'fixtures': none listed") == true, "\(env.err.text)")
        #expect(warnings.first?.contains("feedline fixtures add mine ARCHIVED_FILE") == true)
    }

    @Test func aFixtureRunSkipsAPipelineWithoutFixturesWithALineAndRunsTheRest() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let pipelines = try env.writePipeline("mine", Self.mine)
        _ = try env.writePipeline("airkorea-seoul", String(contentsOf: FixturePaths.repositoryRoot.appendingPathComponent("Pipelines/airkorea-seoul.yaml"), encoding: .utf8))
        let status = await env.feedline.run(names: [], source: .fixtures, paths: env.paths(pipelines: pipelines))
        #expect(status == .success, "\(env.out.text)\n\(env.err.text)")
        #expect(env.out.text.contains("mine: skipped: ") && env.out.text.contains("lists no fixtures"), "\(env.out.text)")
        #expect(env.out.text.contains("airkorea-seoul") && env.out.text.contains("total: 1 run"), "\(env.out.text)")
        #expect(try env.db.integer("SELECT count(*) FROM measurement") > 0)
        #expect(try env.db.strings("SELECT pipeline FROM run") == ["airkorea-seoul"])
        // Named alone, nothing runs: a configuration error, with the same line.
        let before = env.out.text.count
        #expect(await env.feedline.run(names: ["mine"], source: .fixtures, paths: env.paths(pipelines: pipelines)) == .configuration)
        #expect(String(env.out.text.dropFirst(before)).contains("mine: skipped: "))
    }

    /// The one payload file under `directory` (an archive).
    static func archived(under directory: URL) throws -> URL {
        let files = Console.payloadFiles(under: directory)
        #expect(files.count == 1, "\(files)")
        return try #require(files.first)
    }

    @Test func aLivePayloadBecomesAFixtureThatCheckPasses() async throws {
        let server = try Self.server()
        defer { server.stop() }
        var env = try TestEnvironment()
        defer { env.dir.remove() }
        env.variables["AIRKOREA_SERVICE_KEY"] = LiveRunTests.sentinelKey
        env.airKoreaBase = server.baseURL
        let pipelines = try env.writePipeline("mine", Self.mine)
        let paths = try Self.paths(env, pipelines: pipelines)
        #expect(await env.feedline.run(names: ["mine"], source: .live, paths: paths) == .success, "\(env.err.text)")
        #expect(await env.feedline.check(names: ["mine"], paths: paths) == .failure, "no fixtures yet")
        let payload = try Self.archived(under: paths.archive)

        let start = env.out.text.count
        #expect(await env.feedline.addFixture(pipeline: "mine", archived: payload.path, paths: paths) == .success, "\(env.err.text)")
        let said = String(env.out.text.dropFirst(start))
        let sha = payload.deletingPathExtension().lastPathComponent
        let entry = "airkorea/mine-20240306T0600-\(sha.prefix(10)).xml"
        #expect(said.contains("copied") && said.contains(entry) && said.contains("created"), "\(said)")
        // The payload and its metadata, byte for byte, with no key.
        let copy = paths.fixtures.appendingPathComponent(entry)
        #expect(try Data(contentsOf: copy) == Data(contentsOf: payload))
        #expect(FileManager.default.fileExists(atPath: copy.deletingPathExtension().appendingPathExtension("meta.json").path))
        #expect(allBytes(under: paths.fixtures).range(of: Data(LiveRunTests.sentinelKey.utf8)) == nil)
        // The pipeline file: one line under a new fixtures list, a snapshots list; the rest as written.
        let text = try String(contentsOf: pipelines.appendingPathComponent("mine.yaml"), encoding: .utf8)
        #expect(text == Self.mine + "\nfixtures:\n  - \(entry)\nsnapshots:\n  - table: measurement\n", "\(text)")
        #expect(FileManager.default.fileExists(atPath: paths.fixtures.appendingPathComponent("airkorea/snapshots/mine.measurement.csv").path))

        // Now the pipeline is tested on its fixture, and a fixture run runs it.
        let checked = env.out.text.count
        #expect(await env.feedline.check(names: ["mine"], paths: paths) == .success, "\(env.out.text.dropFirst(checked))\n\(env.err.text)")
        #expect(await env.feedline.run(names: ["mine"], source: .fixtures, paths: paths) == .success, "\(env.err.text)")
        // Adding it again changes nothing.
        let again = env.out.text.count
        #expect(await env.feedline.addFixture(pipeline: "mine", archived: payload.path, paths: paths) == .success, "\(env.err.text)")
        #expect(String(env.out.text.dropFirst(again)).contains("already among its fixtures"))
        #expect(try String(contentsOf: pipelines.appendingPathComponent("mine.yaml"), encoding: .utf8) == text)
    }

    @Test func aFileThatIsNotAnArchivedPayloadOfThePipelineIsRefusedAndNothingIsWritten() async throws {
        let server = try Self.server()
        defer { server.stop() }
        var env = try TestEnvironment()
        defer { env.dir.remove() }
        env.variables["AIRKOREA_SERVICE_KEY"] = LiveRunTests.sentinelKey
        env.airKoreaBase = server.baseURL
        let pipelines = try env.writePipeline("mine", Self.mine)
        _ = try env.writePipeline("jongno", """
            source: airkorea
            operation: realtime-by-station
            parameters:
              stationName: 종로구
              dataTerm: DAILY
            format: xml
            """)
        let paths = try Self.paths(env, pipelines: pipelines)
        #expect(await env.feedline.run(names: ["mine"], source: .live, paths: paths) == .success, "\(env.err.text)")
        let payload = try Self.archived(under: paths.archive)

        func refused(_ pipeline: String, _ file: URL, _ reason: String) async {
            let before = env.err.text.count
            #expect(await env.feedline.addFixture(pipeline: pipeline, archived: file.path, paths: paths) == .usage)
            let said = String(env.err.text.dropFirst(before))
            #expect(said.contains(reason), "\(said)")
        }
        // Another operation's pipeline.
        await refused("jongno", payload, "not of jongno's airkorea/realtime-by-station")
        // A copy without its metadata.
        let bare = env.dir.path("bare.xml")
        try FileManager.default.copyItem(at: payload, to: bare)
        await refused("mine", bare, "is not an archived payload")
        // Bytes changed since they were archived.
        let directory = payload.deletingLastPathComponent()
        let original = try Data(contentsOf: payload)
        try (original + Data("\n".utf8)).write(to: payload)
        await refused("mine", payload, "changed since it was archived")
        try original.write(to: payload)
        // An archived payload that holds the key (as a scrubbed archive never does).
        var leaked = original
        leaked.append(Data("<!-- \(LiveRunTests.sentinelKey) -->".utf8))
        let sha = SHA256.hex(leaked)
        try leaked.write(to: directory.appendingPathComponent("\(sha).xml"))
        var meta = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent(
            "\(payload.deletingPathExtension().lastPathComponent).meta.json"))) as? [String: Any])
        meta["sha256"] = sha
        try JSONSerialization.data(withJSONObject: meta).write(to: directory.appendingPathComponent("\(sha).meta.json"))
        await refused("mine", directory.appendingPathComponent("\(sha).xml"), "holds the key in AIRKOREA_SERVICE_KEY")

        // Nothing reached the fixtures or the pipeline files.
        #expect(try FileManager.default.contentsOfDirectory(atPath: paths.fixtures.path).isEmpty)
        #expect(try String(contentsOf: pipelines.appendingPathComponent("mine.yaml"), encoding: .utf8) == Self.mine)
    }

    @Test func theFixturesListIsExtendedByOneLineOrNotAtAll() {
        let block = "source: airkorea\nfixtures:\n  - airkorea/a.xml   # the first\n\n  # more below\n  - airkorea/b.xml\nchecks: []\n"
        #expect(PipelineFileEdit.appendingFixture("airkorea/c.xml", to: block)
                == "source: airkorea\nfixtures:\n  - airkorea/a.xml   # the first\n\n  # more below\n  - airkorea/b.xml\n  - airkorea/c.xml\nchecks: []\n")
        #expect(PipelineFileEdit.appendingFixture("x/c.json", to: "source: s\nfixtures:\n- a.json\n") == "source: s\nfixtures:\n- a.json\n- x/c.json\n")
        #expect(PipelineFileEdit.appendingFixture("x/c.json", to: "source: s\nfixtures: # none yet\nformat: json") == "source: s\nfixtures: # none yet\n  - x/c.json\nformat: json")
        #expect(PipelineFileEdit.appendingFixture("x/c.json", to: "source: s") == "source: s\nfixtures:\n  - x/c.json\n")
        // Flow lists, anchors, odd indentation, a repeated key, an entry that needs quoting: not edited.
        #expect(PipelineFileEdit.appendingFixture("x/c.json", to: "fixtures: [a.json]\n") == nil)
        #expect(PipelineFileEdit.appendingFixture("x/c.json", to: "fixtures: []\n") == nil)
        #expect(PipelineFileEdit.appendingFixture("x/c.json", to: "fixtures: &f\n  - a.json\n") == nil)
        #expect(PipelineFileEdit.appendingFixture("x/c.json", to: "fixtures:\n  - a.json\n    - b.json\n") == nil)
        #expect(PipelineFileEdit.appendingFixture("x/c.json", to: "fixtures:\n  - *a\n") == nil)
        #expect(PipelineFileEdit.appendingFixture("x/c.json", to: "fixtures:\n  - a\nfixtures:\n  - b\n") == nil)
        #expect(PipelineFileEdit.appendingFixture("x/c d.json", to: "source: s\n") == nil)
        #expect(PipelineFileEdit.appendingFixture("x/c.json", to: "fixtures:\r\n  - a.json\r\n") == nil)
        #expect(PipelineFileEdit.appendingSnapshot(table: "measurement", to: "snapshots:\n  - table: station\n") == nil)
    }
}
