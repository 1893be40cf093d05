@testable import App
import Foundation
import Pipeline
import Testing
import TestSupport

/// Schema drift on every store this build tests: payloads derived from the real ones
/// (`Data/fixtures/drift`, made by `derive.py`) that add a field, lack one, or send a value of
/// another kind are each recorded with the right field path and change — once per run as a
/// `schema-drift` diagnostic and as a `field_drift` row — while the unchanged fixtures record
/// nothing, and `on_drift: fail` rolls the whole load back.
@Suite(.serialized) struct SchemaDriftTests {
    /// One derived payload, the pipeline header that loads it, and the drift it must record.
    struct Case: Sendable, CustomTestStringConvertible {
        var fixture: String
        var header: String
        var path: String
        var change: String
        /// The sample stored ("NULL" for a missing field).
        var sample: String
        var testDescription: String { fixture }
    }

    static let airKoreaSeoul = """
        source: airkorea
        operation: realtime-by-province
        parameters:
          sidoName: 서울
          ver: "1.3"
        """
    static let airKoreaNearby = """
        source: airkorea
        operation: nearby-stations
        parameters:
          tmX: "198245.054"
          tmY: "451586.498"
        """
    static let openWeather = """
        source: openweather
        operation: air-pollution
        format: json
        parameters:
          coordinates: "37.5665,126.9780"
        """
    static let openAQ = """
        source: openaq
        operation: location-latest
        format: json
        parameters:
          locations_id: "2623101"
        """
    static let careerNet = """
        source: careernet
        operation: jobs
        format: json
        parameters:
          gubun: job_dic_list
        """
    static let saramin = """
        source: saramin
        operation: job-search
        format: json
        page_size: 110
        parameters:
          job_mid_cd: "2,15"
        """

    /// For every feed: a field added, one removed, and a kind change (a number sent as text where
    /// the feed sends numbers; AirKorea XML can only change text to an element, and CareerNet,
    /// which sends only text, shows a number where text belongs).
    static let cases: [Case] = [
        Case(fixture: "airkorea-added.xml", header: airKoreaSeoul, path: "pm1Value", change: "added", sample: "9"),
        Case(fixture: "airkorea-removed.xml", header: airKoreaSeoul, path: "stationName", change: "removed", sample: "NULL"),
        Case(fixture: "airkorea-object.xml", header: airKoreaSeoul, path: "pm10Value", change: "text-to-object", sample: "NULL"),
        Case(fixture: "airkorea-added.json", header: airKoreaSeoul, path: "pm1Value", change: "added", sample: "9"),
        Case(fixture: "airkorea-removed.json", header: airKoreaSeoul, path: "stationName", change: "removed", sample: "NULL"),
        Case(fixture: "airkorea-text-as-number.json", header: airKoreaSeoul, path: "pm10Value", change: "text-to-number", sample: "33"),
        Case(fixture: "airkorea-number-as-text.json", header: airKoreaNearby, path: "tm", change: "number-to-text", sample: "1.1"),
        Case(fixture: "openweather-air-pollution-current-added.json", header: openWeather, path: "components/pm1", change: "added", sample: "2.5"),
        Case(fixture: "openweather-air-pollution-current-removed.json", header: openWeather, path: "dt", change: "removed", sample: "NULL"),
        Case(fixture: "openweather-air-pollution-current-number-as-text.json", header: openWeather, path: "components/no2",
             change: "number-to-text", sample: "27.42"),
        Case(fixture: "openaq-added.json", header: openAQ, path: "unit", change: "added", sample: "µg/m³"),
        Case(fixture: "openaq-removed.json", header: openAQ, path: "datetime/utc", change: "removed", sample: "NULL"),
        Case(fixture: "openaq-number-as-text.json", header: openAQ, path: "locationsId", change: "number-to-text", sample: "2623101"),
        Case(fixture: "careernet-added.json", header: careerNet, path: "workplace", change: "added", sample: "사무실"),
        Case(fixture: "careernet-removed.json", header: careerNet, path: "jobdicSeq", change: "removed", sample: "NULL"),
        Case(fixture: "careernet-text-as-number.json", header: careerNet, path: "jobdicSeq", change: "text-to-number", sample: "375"),
        Case(fixture: "saramin-added.json", header: saramin, path: "position/remote", change: "added", sample: "재택 가능"),
        Case(fixture: "saramin-removed.json", header: saramin, path: "url", change: "removed", sample: "NULL"),
        Case(fixture: "saramin-number-as-text.json", header: saramin, path: "position/experience-level/min", change: "number-to-text", sample: "10"),
    ]

    static func pipeline(_ header: String, fixtures: [String], onDrift: String? = nil) -> String {
        header + "\nfixtures:\n" + fixtures.map { "  - \($0.contains("/") ? $0 : "drift/" + $0)\n" }.joined() + (onDrift.map { "on_drift: \($0)\n" } ?? "")
    }

    @Test("every feed's added, removed and kind-changed field is recorded with its path, change and sample", arguments: TestStore.all)
    func everyCase(store: TestStore) async throws {
        let env = try TestEnvironment(store: store)
        defer { env.dir.remove() }
        for (index, c) in Self.cases.enumerated() {
            let name = "drift\(index)"
            let directory = try env.writePipeline(name, Self.pipeline(c.header, fixtures: [c.fixture]))
            _ = await env.feedline.run(names: [name], source: .fixtures, paths: env.paths(pipelines: directory))
            let run = try env.db.value("SELECT max(id) FROM run WHERE pipeline = '\(name)'") ?? "?"
            let error = try env.db.value("SELECT error FROM run WHERE id = \(run)") ?? ""
            #expect(try env.db.value("SELECT status FROM run WHERE id = \(run)") == "succeeded", "\(c.fixture): \(error)")
            let rows = try env.db.rows("SELECT source, field_path, change, payload_count, sample FROM field_drift WHERE pipeline = '\(name)'")
            let source = String(c.header.split(separator: "\n")[0].dropFirst("source: ".count))
            #expect(rows == [[source, c.path, c.change, "1", c.sample]], "\(c.fixture)")
            let diagnostics = try env.db.rows("SELECT location, coalesce(value, 'NULL') FROM diagnostic WHERE code = 'schema-drift' AND run_id = \(run)")
            #expect(diagnostics.count == 1 && diagnostics.first?.first?.hasSuffix(" \(c.path)") == true
                    && diagnostics.first?.last == c.sample, "\(c.fixture): \(diagnostics)")
        }
    }

    @Test("a drift seen in several payloads has one diagnostic per run, and its row counts the payloads", arguments: TestStore.all)
    func oncePerRunAndUpserted(store: TestStore) async throws {
        let env = try TestEnvironment(store: store)
        defer { env.dir.remove() }
        var directory = try env.writePipeline("seoul", Self.pipeline(Self.airKoreaSeoul, fixtures: ["airkorea-added.xml", "airkorea-added.json"]))
        #expect(await env.feedline.run(names: ["seoul"], source: .fixtures, paths: env.paths(pipelines: directory)) == .success, "\(env.err.text)")
        #expect(try env.db.integer("SELECT count(*) FROM diagnostic WHERE code = 'schema-drift'") == 1)
        #expect(try env.db.rows("SELECT field_path, change, payload_count FROM field_drift") == [["pm1Value", "added", "2"]])
        let firstSeen = try env.db.value("SELECT CAST(first_seen AS TEXT) FROM field_drift")

        // A later run with another drifting payload updates the row: one more payload, same first seen.
        directory = try env.writePipeline("seoul", Self.pipeline(Self.airKoreaSeoul, fixtures: ["airkorea-added.xml", "airkorea-removed.xml"]))
        _ = await env.feedline.run(names: ["seoul"], source: .fixtures, paths: env.paths(pipelines: directory))
        #expect(try env.db.rows("SELECT field_path, change, payload_count FROM field_drift ORDER BY field_path")
                == [["pm1Value", "added", "2"], ["stationName", "removed", "1"]])
        #expect(try env.db.value("SELECT CAST(first_seen AS TEXT) FROM field_drift WHERE field_path = 'pm1Value'") == firstSeen)
        #expect(try env.db.integer("SELECT count(*) FROM diagnostic WHERE code = 'schema-drift'") == 2)
    }

    @Test("feedline drift lists the rows, status says it, status --check warns and metrics carry the payload count", arguments: TestStore.all)
    func reported(store: TestStore) async throws {
        let env = try TestEnvironment(store: store)
        defer { env.dir.remove() }
        let directory = try env.writePipeline("seoul", Self.pipeline(Self.airKoreaSeoul, fixtures: ["airkorea-added.xml", "airkorea-added.json"]))
        let paths = env.paths(pipelines: directory)
        #expect(await env.feedline.run(names: ["seoul"], source: .fixtures, paths: paths) == .success, "\(env.err.text)")

        env.out.clear()
        #expect(env.feedline.drift(pipeline: nil, paths: paths, json: false) == .success)
        let lines = env.out.text.split(separator: "\n").map(String.init)
        #expect(lines.count == 2 && lines[0].hasPrefix("PIPELINE") && lines[1].hasPrefix("seoul") && lines[1].contains("pm1Value")
                && lines[1].contains("added") && lines[1].contains("getCtprvnRltmMesureDnsty"), "\(lines)")
        env.out.clear()
        #expect(env.feedline.drift(pipeline: "seoul", paths: paths, json: true) == .success)
        let parsed = try JSONSerialization.jsonObject(with: Data(env.out.text.utf8)) as? [[String: Any]]
        #expect(parsed?.count == 1 && parsed?.first?["field"] as? String == "pm1Value" && parsed?.first?["payloads"] as? Int == 2
                && parsed?.first?["sample"] as? String == "9", "\(env.out.text)")
        env.out.clear()
        #expect(env.feedline.drift(pipeline: "elsewhere", paths: paths, json: false) == .success)
        #expect(env.out.text.hasPrefix("No schema drift recorded for elsewhere"))

        env.out.clear()
        #expect(env.feedline.status(paths: paths, json: false, wide: true) == .success)
        #expect(env.out.text.contains("schema drift (") && env.out.text.contains("seoul (1 field)"), "\(env.out.text)")
        env.out.clear()
        _ = env.feedline.status(paths: paths, json: false, check: true)
        #expect(env.out.text.contains("warning: seoul: schema drift in the last run: 1 field differs from what airkorea getCtprvnRltmMesureDnsty declares (pm1Value added); see feedline drift seoul"),
                "\(env.out.text)")

        env.out.clear()
        #expect(env.feedline.metrics(paths: paths) == .success)
        #expect(env.out.text.contains(#"feedline_field_drift{pipeline="seoul",source="airkorea",operation="getCtprvnRltmMesureDnsty",field="pm1Value",change="added"} 2"#),
                "\(env.out.text)")
    }

    @Test("on_drift: fail rolls the whole load back and the ledger records the failed run and why", arguments: TestStore.all)
    func failRollsBack(store: TestStore) async throws {
        let env = try TestEnvironment(store: store)
        defer { env.dir.remove() }
        // The clean page comes first: it must not be kept either.
        let directory = try env.writePipeline("seoul", Self.pipeline(Self.airKoreaSeoul, fixtures: ["airkorea/realtime-province-seoul.xml", "airkorea-added.json"],
                                                                     onDrift: "fail"))
        let status = await env.feedline.run(names: ["seoul"], source: .fixtures, paths: env.paths(pipelines: directory))
        #expect(status != .success)
        #expect(try env.db.rows("SELECT status FROM run WHERE pipeline = 'seoul'") == [["failed"]])
        let error = try env.db.value("SELECT error FROM run WHERE pipeline = 'seoul'") ?? ""
        #expect(error.contains("pm1Value added") && error.contains("on_drift: fail"), "\(error)")
        #expect(try env.db.integer("SELECT count(*) FROM measurement") == 0)
        #expect(try env.db.integer("SELECT count(*) FROM payload") == 0)
        #expect(try env.db.integer("SELECT count(*) FROM field_drift") == 0)
        #expect(try env.db.integer("SELECT count(*) FROM diagnostic") == 0)
    }

    @Test("the bundled pipelines' unchanged fixtures record no drift")
    func bundledFixturesDoNotDrift() async throws {
        let env = try TestEnvironment(store: .sqlite)
        defer { env.dir.remove() }
        _ = await env.feedline.run(names: [], source: .fixtures, paths: env.paths())
        #expect(try env.db.integer("SELECT count(*) FROM run") > 10)
        #expect(try env.db.rows("SELECT pipeline, source, operation, field_path, change FROM field_drift") == [])
        #expect(try env.db.integer("SELECT count(*) FROM diagnostic WHERE code = 'schema-drift'") == 0)
    }

    @Test("an unknown on_drift value is refused naming the file and the field")
    func unknownPolicy() throws {
        let dir = try TemporaryDirectory("drift-policy")
        defer { dir.remove() }
        let directory = try dir.writePipeline("seoul", Self.pipeline(Self.airKoreaSeoul, fixtures: ["airkorea-added.xml"], onDrift: "maybe"))
        let catalog = PipelineCatalog(directory: directory, feeds: AppEnvironment.standardFeeds(variables: [:]), workingDirectory: dir.url)
        let (pipelines, problems) = catalog.loadAll()
        #expect(pipelines.isEmpty)
        #expect(problems.map(\.description) == ["Pipelines/seoul.yaml: field 'on_drift': must be warn or fail, not 'maybe'."], "\(problems)")
        _ = try dir.writePipeline("seoul", Self.pipeline(Self.airKoreaSeoul, fixtures: ["airkorea-added.xml"], onDrift: "fail"))
        #expect(catalog.loadAll().pipelines.first?.onDrift == .fail)
    }
}
