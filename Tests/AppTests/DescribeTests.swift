@testable import App
import Foundation
import GRDB
import Pipeline
import Storage
import Testing
import TestSupport

/// `feedline describe`: the schema, its meaning and row counts from the tool itself.
@Suite struct DescribeTests {
    /// An environment whose database (on `store`) holds every fixture pipeline's rows.
    func loaded(_ store: TestStore = .sqlite) async throws -> TestEnvironment {
        let env = try TestEnvironment(store: store)
        #expect(await env.feedline.run(names: [], source: .fixtures, paths: env.paths()) == .success)
        return env
    }

    /// `describe` on `env`'s database, with its own captured output.
    func describe(_ request: DescribeRequest, on env: TestEnvironment) throws -> (status: App.ExitStatus, out: String, err: String) {
        let fresh = try TestEnvironment()
        defer { fresh.dir.remove() }
        var paths = fresh.paths()
        paths.database = env.database
        paths.postgresURL = env.db.postgresURL
        let status = fresh.feedline.describe(request, paths: paths)
        return (status, fresh.out.text, fresh.err.text)
    }

    /// Every relation a database on `store` holds: the declared ones and the store's own
    /// migration ledger.
    static func described(_ store: TestStore, _ env: TestEnvironment) -> Set<String> {
        Set(env.environment.declaredSchema.relations.map(\.name)).union([store == .sqlite ? "grdb_migrations" : "feedline_migration"])
    }

    /// A column's type as each store declares it.
    static func type(_ sqlite: String, _ postgres: String, on store: TestStore) -> String { store == .sqlite ? sqlite : postgres }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func aMissingDatabaseIsExit78AndIsNotCreated() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        #expect(env.feedline.describe(DescribeRequest(), paths: env.paths()) == .configuration)
        #expect(env.err.text.contains("No database at \(env.database.path)"))
        #expect(!FileManager.default.fileExists(atPath: env.database.path))
        #expect(env.feedline.describe(DescribeRequest(name: "measurement"), paths: env.paths()) == .configuration)
    }

    @Test func anotherApplicationsDatabaseIsRefused() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let queue = try DatabaseQueue(path: env.database.path)
        try queue.write { try $0.execute(sql: "CREATE TABLE notes (body TEXT)") }
        try queue.close()
        #expect(env.feedline.describe(DescribeRequest(), paths: env.paths()) == .configuration)
        #expect(env.err.text.contains("is not a feedline database"))
    }

    @Test(arguments: TestStore.all)
    func theOverviewListsEveryTableAndViewWithItsMeaningAndRowsAndInternalTablesLast(store: TestStore) async throws {
        let env = try await loaded(store)
        defer { env.dir.remove() }
        let (status, text, _) = try describe(DescribeRequest(output: .text(width: 120)), on: env)
        #expect(status == .success)
        for name in Self.described(store, env) {
            #expect(text.contains(name), "\(name) missing from the overview")
        }
        let measurements = try env.db.integer("SELECT count(*) FROM measurement")
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("measurement ") })
        #expect(line.contains("table") && line.contains(" \(measurements) ") && line.contains("One station × hour"))
        let internalHeading = try #require(text.range(of: "Internal (feedline's own bookkeeping"))
        let ledger = store == .sqlite ? "grdb_migrations" : "feedline_migration"
        for name in [ledger, "run_lock", "bookmark", "api_call"] {
            let at = try #require(text.range(of: "\n\(name) "))
            #expect(at.lowerBound > internalHeading.lowerBound, "\(name) is listed with the internal tables")
        }
        #expect(text.range(of: "\nmeasurement ")!.lowerBound < internalHeading.lowerBound)
        for line in text.split(separator: "\n") {
            #expect(DisplayWidth.columns(line) <= 120, "too wide: \(line)")
        }
    }

    @Test(arguments: TestStore.all)
    func aTableShowsTypesUnitsWhoseAndScalesFittingTheWidth(store: TestStore) async throws {
        let env = try await loaded(store)
        defer { env.dir.remove() }
        let (status, text, _) = try describe(DescribeRequest(name: "measurement", output: .text(width: 80)), on: env)
        #expect(status == .success)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("measurement (table, ") == true)
        let pm10 = try #require(lines.first { $0.hasPrefix("pm10 ") })
        #expect(pm10.contains(Self.type("REAL", "double precision", on: store)) && pm10.contains("µg/m³") && pm10.contains("AirKorea"))
        let cai = try #require(lines.first { $0.hasPrefix("cai ") })
        #expect(cai.contains(Self.type("INTEGER", "bigint", on: store)) && cai.contains("feedline"))
        let observed = try #require(lines.first { $0.hasPrefix("observed_at ") })
        #expect(observed.contains(Self.type("TEXT", "timestamptz", on: store)))
        #expect(text.contains("Scale: 1 좋음 · 2 보통"))
        for line in lines { #expect(DisplayWidth.columns(line) <= 80, "too wide: \(line)") }
    }

    @Test(arguments: TestStore.all)
    func anUnknownNameSuggestsCloseOnes(store: TestStore) async throws {
        let env = try await loaded(store)
        defer { env.dir.remove() }
        let typo = try describe(DescribeRequest(name: "measurment"), on: env)
        #expect(typo.status == .configuration)
        #expect(typo.err.hasPrefix("error: no table or view named 'measurment'"))
        #expect(typo.err.contains("Did you mean: measurement"))
        #expect(typo.out.isEmpty)

        let part = try describe(DescribeRequest(name: "posting"), on: env)
        #expect(part.status == .configuration)
        #expect(part.err.contains("job_posting"))
    }

    @Test(arguments: TestStore.all)
    func jsonCarriesTypesFromTheDatabaseAndTheDictionarysMeaning(store: TestStore) async throws {
        let env = try await loaded(store)
        defer { env.dir.remove() }
        let one = try describe(DescribeRequest(name: "measurement", output: .json), on: env)
        #expect(one.status == .success)
        let relation = try json(one.out)
        #expect(relation["name"] as? String == "measurement")
        #expect(relation["kind"] as? String == "table")
        #expect((relation["rows"] as? Int ?? 0) > 0)
        let columns = try #require(relation["columns"] as? [[String: Any]])
        let byName = Dictionary(uniqueKeysWithValues: columns.map { ($0["name"] as! String, $0) })
        #expect(byName["pm10"]?["type"] as? String == Self.type("REAL", "double precision", on: store))
        #expect(byName["pm10"]?["unit"] as? String == "µg/m³")
        #expect(byName["pm10"]?["pint_unit"] as? String == "ug/m**3")
        #expect(byName["khai"]?["whose"] as? String == "AirKorea")
        #expect(byName["cai_grade"]?["whose"] as? String == "feedline")
        #expect(byName["station_name"]?["unit"] is NSNull)
        #expect(one.out.contains("\"columns\" : ["), "pretty-printed")

        let every = try describe(DescribeRequest(output: .json), on: env)
        #expect(every.status == .success)
        let all = try json(every.out)
        let relations = try #require(all["relations"] as? [[String: Any]])
        #expect(Set(relations.compactMap { $0["name"] as? String }) == Self.described(store, env))
        #expect(relations.first { $0["name"] as? String == "run_lock" }?["internal"] as? Bool == true)
    }

    @Test func datasetteMetadataIsKeyedByTheFileStemAndHidesInternalTables() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        var paths = env.paths()
        paths.database = env.dir.path("air.sqlite")
        #expect(env.feedline.describe(DescribeRequest(output: .datasette), paths: paths) == .success)
        let metadata = try json(env.out.text)
        #expect(metadata["title"] as? String == "feedline")
        let databases = try #require(metadata["databases"] as? [String: Any])
        #expect(Array(databases.keys) == ["air"])
        let tables = try #require((databases["air"] as? [String: Any])?["tables"] as? [String: [String: Any]])
        #expect(Set(tables.keys) == Set(env.environment.declaredSchema.relations.map(\.name)).union(["grdb_migrations", "feedline_migration"]))
        let measurement = try #require(tables["measurement"])
        #expect((measurement["description"] as? String)?.hasPrefix("One station × hour") == true)
        #expect((measurement["units"] as? [String: String])?["pm10"] == "ug/m**3")
        #expect((measurement["units"] as? [String: String])?["o3"] == "ppm")
        let columns = try #require(measurement["columns"] as? [String: String])
        #expect(columns["pm10_grade"]?.contains("[AirKorea] Scale: 1 좋음") == true)
        #expect(columns["our_pm10_grade"]?.contains("[feedline]") == true)
        #expect(tables["run_lock"]?["hidden"] as? Bool == true)
        #expect(tables["measurement"]?["hidden"] == nil)
        #expect(tables["grade_agreement"]?["columns"].flatMap { ($0 as? [String: String])?["airkorea_column"] } != nil)
        #expect(!FileManager.default.fileExists(atPath: paths.database.path), "the metadata needs no database")
        // The description names every registered source; the saved queries are canned queries.
        let description = try #require(metadata["description"] as? String)
        for source in ["AirKorea", "OpenWeather", "OpenAQ", "CareerNet", "Saramin"] { #expect(description.contains(source), "\(description)") }
        let queries = try #require((databases["air"] as? [String: Any])?["queries"] as? [String: [String: String]])
        #expect(Set(queries.keys) == Set(SavedQuery.all(in: paths.queries).map(\.name)) && !queries.isEmpty)
        #expect(queries["latest"]?["sql"]?.localizedCaseInsensitiveContains("select") == true)
        #expect(queries["latest"]?["description"]?.isEmpty == false)
    }

    @Test func closeNamesRankTyposAndPartsFirst() throws {
        let schema = DatabaseSchema(relations: ["measurement", "measurement_latest", "station", "job_posting", "job_posting_location"].map {
            DatabaseSchema.Relation(name: $0, kind: .table, columns: [])
        })
        let description = SchemaDescription(schema: schema, declared: SchemaDeclarations())
        #expect(description.names(closeTo: "measurment").first == "measurement")
        #expect(description.names(closeTo: "staton") == ["station"])
        #expect(description.names(closeTo: "posting").prefix(2) == ["job_posting", "job_posting_location"])
        #expect(description.names(closeTo: "zzzzzz").isEmpty)
    }
}
