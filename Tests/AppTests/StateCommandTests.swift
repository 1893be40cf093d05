@testable import App
import Foundation
import Testing
import TestSupport

/// `feedline state`: show, export, import and reset the bookmarks, on every store.
@Suite(.serialized) struct StateCommandTests {
    /// Bookmarks whose text a careless import or export would bend: Korean, quotes, a backslash,
    /// a line break, an emoji, leading and trailing spaces, a number-like string.
    static let hostile: [String: [String: String]] = [
        "openaq-hours": ["sensor_7_hours_through": "1709704800", "sensor_12_hours_through": "0001709704800"],
        "saramin-postings": ["newest_modified_at": " 서울 \"종로\" \\ 😀\nline two\t "],
    ]

    static func document(_ pipelines: [String: [String: Any]], version: Any = 1) -> String {
        let data = try! JSONSerialization.data(withJSONObject: ["feedline_state": version, "pipelines": pipelines], options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    /// A store with the Seoul fixtures loaded (its `newest_observed_at` bookmark) and the hostile bookmarks imported.
    static func seeded(_ store: TestStore) async throws -> TestEnvironment {
        let env = try TestEnvironment(store: store)
        #expect(await env.feedline.run(names: ["airkorea-seoul"], source: .fixtures, paths: env.paths()) == .success, "\(env.err.text)")
        try Self.document(Self.hostile).write(to: env.dir.path("seed.json"), atomically: true, encoding: .utf8)
        #expect(env.feedline.importState(file: "seed.json", paths: env.paths()) == .success, "\(env.err.text)")
        env.out.clear(); env.err.clear()
        return env
    }

    /// `state export`'s document, parsed back.
    static func exported(_ env: TestEnvironment) throws -> (text: String, pipelines: [String: [String: String]]) {
        env.out.clear()
        #expect(env.feedline.showState(pipeline: nil, json: true, paths: env.paths()) == .success, "\(env.err.text)")
        let text = env.out.text
        env.out.clear()
        let document = try StateDocument(data: Data(text.utf8), label: "export")
        return (text, document.pipelines)
    }

    @Test(arguments: TestStore.all)
    func showExportImportAndReset(store: TestStore) async throws {
        let env = try await Self.seeded(store)
        defer { env.dir.remove() }
        let (text, pipelines) = try Self.exported(env)
        // Every bookmark, the run's and the imported ones, exactly.
        #expect(pipelines["openaq-hours"] == Self.hostile["openaq-hours"])
        #expect(pipelines["saramin-postings"] == Self.hostile["saramin-postings"])
        let seoul = try #require(pipelines["airkorea-seoul"])
        #expect(seoul["newest_observed_at"] != nil, "\(seoul)")
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(parsed["feedline_state"] as? Int == 1)

        #expect(env.feedline.showState(pipeline: nil, json: false, paths: env.paths()) == .success)
        let table = env.out.text
        #expect(table.hasPrefix("pipeline "))
        #expect(table.contains("openaq-hours") && table.contains("sensor_7_hours_through") && table.contains("1709704800"))
        #expect(table.contains("airkorea-seoul") && table.contains("newest_observed_at"))
        #expect(table.contains("line two"))
        #expect(!table.contains("\nline two"), "a line break in a value is shown escaped: \(table)")
        env.out.clear()

        #expect(env.feedline.showState(pipeline: "openaq-hours", json: true, paths: env.paths()) == .success)
        #expect(try StateDocument(data: Data(env.out.text.utf8), label: "x").pipelines == ["openaq-hours": Self.hostile["openaq-hours"]!])
        env.out.clear()

        // Reset without --yes: refused, says what it would clear, clears nothing.
        #expect(env.feedline.resetState(pipeline: "openaq-hours", confirmed: false, paths: env.paths()) == .usage)
        #expect(env.err.text.contains("would clear 2 bookmarks of openaq-hours") && env.err.text.contains("sensor_7_hours_through=1709704800")
                && env.err.text.contains("--yes"), "\(env.err.text)")
        #expect(try Self.exported(env).pipelines == pipelines)
        #expect(env.feedline.resetState(pipeline: "openaq-hours", confirmed: true, paths: env.paths()) == .success)
        #expect(env.out.text.contains("cleared 2 bookmarks of openaq-hours"), "\(env.out.text)")
        var expected = pipelines
        expected["openaq-hours"] = nil
        #expect(try Self.exported(env).pipelines == expected)
        #expect(env.feedline.showState(pipeline: "openaq-hours", json: false, paths: env.paths()) == .success)
        #expect(env.out.text.contains("openaq-hours has no bookmarks"))
        env.out.clear()

        // An import replaces the bookmarks of the pipelines it names and leaves the others.
        try Self.document(["airkorea-seoul": ["newest_observed_at": "2024-01-01T00:00:00Z"], "saramin-postings": [:]])
            .write(to: env.dir.path("move.json"), atomically: true, encoding: .utf8)
        #expect(env.feedline.importState(file: "move.json", paths: env.paths()) == .success, "\(env.err.text)")
        #expect(try Self.exported(env).pipelines == ["airkorea-seoul": ["newest_observed_at": "2024-01-01T00:00:00Z"]])
        #expect(try env.db.integer("SELECT count(*) FROM run WHERE pipeline = 'airkorea-seoul:state-import' AND status = 'succeeded'") == 1)
        // The import's ledger rows are no pipeline runs: status and metrics leave them out.
        let report = try StatusReport.read(env.environment, paths: env.paths(), ledgerFigures: true)
        #expect(!report.rows.contains { $0.pipeline.hasSuffix(":state-import") }, "\(report.rows.map(\.pipeline))")
        #expect(report.rows.contains { $0.pipeline == "airkorea-seoul" && $0.lastRun != nil })
    }

    @Test(arguments: TestStore.all)
    func refusedImportsChangeNothing(store: TestStore) async throws {
        let env = try await Self.seeded(store)
        defer { env.dir.remove() }
        let before = try Self.exported(env).text
        let runs = try env.db.integer("SELECT count(*) FROM run")
        let cases: [(file: String, text: String, status: App.ExitStatus, says: String)] = [
            ("unknown.json", Self.document(["airkorea-seoul": ["a": "b"], "no-such-pipeline": ["a": "b"]]), .configuration,
             "unknown.json: field 'pipelines.no-such-pipeline' names no pipeline"),
            ("v2.json", Self.document(["airkorea-seoul": ["a": "b"]], version: 2), .failure,
             "v2.json: field 'feedline_state' is the number 2; this feedline reads version 1."),
            ("number.json", Self.document(["airkorea-seoul": ["a": "b"], "openaq-hours": ["sensor_7_hours_through": 1709704800]]), .failure,
             "number.json: field 'pipelines.openaq-hours.sensor_7_hours_through' must be text (a JSON string), not the number 1709704800."),
            ("bool.json", Self.document(["openaq-hours": ["x": true]]), .failure, "bool.json: field 'pipelines.openaq-hours.x' must be text (a JSON string), not a boolean."),
            ("null.json", Self.document(["openaq-hours": ["x": NSNull()]]), .failure, "field 'pipelines.openaq-hours.x' must be text (a JSON string), not null."),
            ("invalid.json", "{\"feedline_state\": 1, \"pipelines\": {\"airkorea-seoul\": {\"a\": \"b\"}", .failure, "invalid.json: is not valid JSON"),
            ("array.json", "[1, 2]", .failure, "array.json: must be a JSON object"),
            ("extra.json", "{\"feedline_state\": 1, \"pipelines\": {}, \"bookmarks\": {}}", .failure, "extra.json: field 'bookmarks' is not known"),
            ("noversion.json", "{\"pipelines\": {}}", .failure, "noversion.json: field 'feedline_state' is missing"),
            ("shape.json", "{\"feedline_state\": 1, \"pipelines\": {\"airkorea-seoul\": [\"a\"]}}", .failure,
             "shape.json: field 'pipelines.airkorea-seoul' must be an object of bookmark name → text, not an array."),
        ]
        for refusal in cases {
            try refusal.text.write(to: env.dir.path(refusal.file), atomically: true, encoding: .utf8)
            env.err.clear()
            #expect(env.feedline.importState(file: refusal.file, paths: env.paths()) == refusal.status, "\(refusal.file): \(env.err.text)")
            #expect(env.err.text.hasPrefix("error: ") && env.err.text.contains(refusal.says), "\(refusal.file): \(env.err.text)")
            #expect(env.err.text.split(separator: "\n").count == 1, "one error line: \(env.err.text)")
            #expect(env.err.text.contains("Nothing was imported"), "\(env.err.text)")
            #expect(try Self.exported(env).text == before, "\(refusal.file) changed the bookmarks")
            #expect(try env.db.integer("SELECT count(*) FROM run") == runs, "\(refusal.file) wrote a ledger row")
        }
        // No database: reset and show refuse (78) and create nothing.
        if store == .sqlite {
            var missing = env.paths()
            missing.database = env.dir.path("absent.sqlite")
            #expect(env.feedline.resetState(pipeline: "airkorea-seoul", confirmed: true, paths: missing) == .configuration, "\(env.err.text)")
            #expect(env.feedline.showState(pipeline: nil, json: true, paths: missing) == .configuration)
            #expect(!FileManager.default.fileExists(atPath: missing.database.path))
        }
        // A missing file.
        env.err.clear()
        #expect(env.feedline.importState(file: "absent.json", paths: env.paths()) != .success)
        #expect(env.err.text.contains("absent.json"))
    }

    @Test("a pipeline in the target's ledger, or NAME:backfill of a known NAME, may be imported without a pipeline file")
    func knownFromTheLedger() async throws {
        let env = try await Self.seeded(.sqlite)
        defer { env.dir.remove() }
        let empty = env.dir.path("NoPipelines")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        var paths = env.paths()
        paths.pipelines = empty
        try Self.document(["airkorea-seoul": ["x": "1"], "airkorea-seoul:backfill": ["y": "2"]]).write(to: env.dir.path("l.json"), atomically: true, encoding: .utf8)
        #expect(env.feedline.importState(file: "l.json", paths: paths) == .success, "\(env.err.text)")
        try Self.document(["elsewhere": ["x": "1"]]).write(to: env.dir.path("e.json"), atomically: true, encoding: .utf8)
        #expect(env.feedline.importState(file: "e.json", paths: paths) == .configuration)
    }

    @Test("export → import round-trips between stores: SQLite → PostgreSQL (SQLite without the trait) → SQLite gives identical bookmarks")
    func roundTripBetweenStores() async throws {
        let source = try await Self.seeded(.sqlite)
        defer { source.dir.remove() }
        let (text, original) = try Self.exported(source)
        let middle = try TestEnvironment(store: TestStore.all.last!)
        defer { middle.dir.remove() }
        try text.write(to: middle.dir.path("state.json"), atomically: true, encoding: .utf8)
        #expect(middle.feedline.importState(file: "state.json", paths: middle.paths()) == .success, "\(middle.err.text)")
        let (middleText, middleState) = try Self.exported(middle)
        #expect(middleState == original)
        #expect(middleText == text)
        let back = try TestEnvironment(store: .sqlite)
        defer { back.dir.remove() }
        try middleText.write(to: back.dir.path("state.json"), atomically: true, encoding: .utf8)
        #expect(back.feedline.importState(file: "state.json", paths: back.paths()) == .success, "\(back.err.text)")
        let (backText, backState) = try Self.exported(back)
        #expect(backState == original)
        #expect(backText == text)
        #expect(try back.db.rows("SELECT pipeline, name, value FROM bookmark ORDER BY pipeline, name")
                == source.db.rows("SELECT pipeline, name, value FROM bookmark ORDER BY pipeline, name"))
    }
}
