import ArgumentParser
@testable import App
import Domain
import Foundation
import Testing
import TestSupport

/// Error messages that say what to do next: close names for mistyped tables, columns, saved
/// queries, commands and stations; every missing API key with the command that works without.
@Suite struct WayForwardMessageTests {
    static let savedQueries = FixturePaths.repositoryRoot.appendingPathComponent("Data/queries")

    func request(_ source: QueryRequest.Source) -> QueryRequest {
        QueryRequest(source: source, format: .csv, savedQueries: Self.savedQueries)
    }

    /// The Jongno fixture pipeline loaded into a temporary database.
    func loaded() async throws -> TestEnvironment {
        let env = try TestEnvironment()
        #expect(await env.feedline.run(names: ["airkorea-jongno"], source: .fixtures, paths: env.paths()) == .success, "\(env.err.text)")
        return env
    }

    @Test func closeNamesByEditDistanceOrPrefix() {
        #expect(Suggestions.editDistance("measurment", "measurement") == 1)
        #expect(Suggestions.editDistance("rnu", "run") == 1, "two swapped letters are one edit")
        #expect(Suggestions.close(to: "rnu", among: ["run", "replay", "report", "status"]) == ["run"])
        #expect(Suggestions.close(to: "종로", among: ["종로구", "중구", "강남구"]) == ["종로구"])
        #expect(Suggestions.close(to: "xyz", among: ["run", "replay"]).isEmpty)
        #expect(Suggestions.didYouMean("statu", among: ["status", "station"]) == "did you mean `status`?")
        #expect(Suggestions.didYouMean("stat", among: ["status", "station", "run"]) == "did you mean `station` or `status`?")
    }

    @Test func aMistypedTableOrColumnGetsTheClosestNameFromTheSchema() async throws {
        let env = try await loaded()
        defer { env.dir.remove() }
        #expect(env.feedline.query(request(.text("SELECT * FROM measurment")), paths: env.paths()) == .failure)
        #expect(env.err.text.contains("no such table: measurment; did you mean `measurement`?"), "\(env.err.text)")
        #expect(env.feedline.query(request(.text("SELECT m.pm10x FROM measurement m")), paths: env.paths()) == .failure)
        #expect(env.err.text.contains("no such column: m.pm10x; did you mean `pm10`?"), "\(env.err.text)")
        // A column is looked for in the query's own tables first (not `stations` of another table).
        #expect(env.feedline.query(request(.text("SELECT station FROM measurement")), paths: env.paths()) == .failure)
        #expect(env.err.text.contains("no such column: station; did you mean `station_name`?"), "\(env.err.text)")
        // Nothing close: the error alone.
        #expect(env.feedline.query(request(.text("SELECT * FROM qqqqqqqq")), paths: env.paths()) == .failure)
        #expect(env.err.text.hasSuffix("no such table: qqqqqqqq"), "\(env.err.text)")
    }

    @Test func aMistypedSavedQueryNameIsNotRunAsSQL() async throws {
        let env = try await loaded()
        defer { env.dir.remove() }
        #expect(env.feedline.query(request(.text("latset")), paths: env.paths()) == .configuration)
        let line = env.err.text
        #expect(line.hasPrefix("error: no saved query 'latset' in "), "\(line)")
        #expect(line.contains("did you mean `latest`?") && line.contains("`feedline query --list`"), "\(line)")
        #expect(!line.contains("syntax error") && !line.contains("\n"), "one line, not SQLite's syntax error")
        // A one-word SQL statement is still SQL (and refused as a write), a real name still runs.
        #expect(env.feedline.query(request(.text("VACUUM")), paths: env.paths()) == .usage)
        #expect(env.feedline.query(request(.text("latest")), paths: env.paths()) == .success)
    }

    @Test func missingKeysAreNamedTogetherWithACommandThatWorks() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let paths = env.paths()
        let status = await env.feedline.run(names: ["airkorea-seoul", "careernet-schools"], source: .live, paths: paths)
        #expect(status == .configuration)
        let lines = env.err.text.split(separator: "\n")
        #expect(lines.count == 1, "\(env.err.text)")
        let line = String(lines[0])
        #expect(line.contains("set AIRKOREA_SERVICE_KEY and CAREERNET_API_KEY in the environment"), "\(line)")
        // data.go.kr approves a key per service: the message names the ones these pipelines call.
        #expect(line.contains("AIRKOREA_SERVICE_KEY must be approved for ArpltnInforInqireSvc (에어코리아 대기오염정보)"), "\(line)")
        #expect(!line.contains("MsrstnInfoInqireSvc") && !line.contains("CAREERNET_API_KEY must be approved"), "\(line)")
        #expect(!line.contains("--live"))
        // The command in backquotes parses as a feedline command line and loads the fixtures.
        let command = try #require(line.split(separator: "`").dropFirst().first.map(String.init))
        let words = command.split(separator: " ").map(String.init)
        #expect(Array(words.prefix(4)) == ["feedline", "run", "airkorea-seoul", "careernet-schools"], "\(command)")
        let parsed = try FeedlineCommand.parseAsRoot(Array(words.dropFirst()))
        let run = try #require(parsed as? RunCommand)
        let resolve = { (path: String?) in path.map { env.environment.resolve($0).standardizedFileURL.path } }
        #expect(!run.live && resolve(run.global.db) == paths.database.path && resolve(run.fixtures) == paths.fixtures.standardizedFileURL.path)
        let again = Paths(environment: env.environment, database: run.global.db, pipelines: run.pipelinesDir, fixtures: run.fixtures)
        #expect(await env.feedline.run(names: run.pipelines, source: .fixtures, paths: again) == .success, "\(env.err.text)")
    }

    @Test func aMistypedCommandGetsTheClosestCommand() throws {
        let message = try #require(FeedlineCommand.unknownCommandMessage(["rnu", "airkorea-seoul"]))
        #expect(message.hasPrefix("Error: Unknown command 'rnu'. Did you mean 'run'?"), "\(message)")
        #expect(message.contains("Commands: init, run, replay"))
        #expect(FeedlineCommand.unknownCommandMessage(["frobnicate"])?.contains("Did you mean") == false)
        for line in [["run"], ["help", "run"], ["--help"], ["--version"], []] {
            #expect(FeedlineCommand.unknownCommandMessage(line) == nil, "\(line)")
        }
    }

    @Test("`feedline rnu` exits 64 naming `run`", .enabled(if: FeedlineExecutable.url != nil))
    func theExecutableSuggestsTheCommand() throws {
        let dir = try TemporaryDirectory("typo")
        defer { dir.remove() }
        let result = try FeedlineProcess.run(["rnu"], in: dir.url)
        #expect(result.status == 64)
        #expect(result.err.contains("Did you mean 'run'?") && result.out.isEmpty, "\(result)")
    }

    @Test func intakeForAnUnknownStationListsTheCloseOnesFirst() async throws {
        let env = try await loaded()
        defer { env.dir.remove() }
        let request = IntakeRequest(station: "종로", date: LocalDate(iso: "2023-05-13")!, activity: .moderate,
                                    metresPerHour: 5000, speed: 5, hours: Array(0...23), legacy: false)
        #expect(env.feedline.intake(request, paths: env.paths()) == .failure)
        #expect(env.err.text.contains("no measurements for station '종로' in feedline.sqlite; did you mean `종로구`? Known: 종로구"), "\(env.err.text)")
    }
}

extension WayForwardMessageTests {
    @Test func aStationTypedInLatinLettersOrShortenedIsFound() async throws {
        let env = try await loaded()
        defer { env.dir.remove() }
        // `Jongno` spells 종로구: the report is made for it, with a note saying so.
        let output = env.dir.path("jongno.html").path
        #expect(env.feedline.report(ReportRequest(subject: .station("Jongno"), output: output), paths: env.paths()) == .success, "\(env.err.text)")
        #expect(env.err.text.contains("note: 'Jongno' is 종로구."), "\(env.err.text)")
        #expect(FileManager.default.fileExists(atPath: output))
        let intake = IntakeRequest(station: "jongno-gu", date: LocalDate(iso: "2023-05-20")!, activity: .moderate,
                                   metresPerHour: 5000, speed: 5, hours: Array(0...23), legacy: false)
        #expect(env.feedline.intake(intake, paths: env.paths()) == .success, "\(env.err.text)")
        #expect(env.out.text.contains("종로구"))
        // A shortened Hangul name is not guessed, but offered.
        #expect(env.feedline.report(ReportRequest(subject: .station("종로"), output: env.dir.path("x.html").path), paths: env.paths()) == .failure)
        #expect(env.err.text.contains("no measurements for station '종로'") && env.err.text.contains("did you mean `종로구`?"), "\(env.err.text)")
    }
}
