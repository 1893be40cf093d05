@testable import App
import Foundation
import Testing
import TestSupport

/// `feedline pipelines`: every problem in every file in one go, with the file's real path and
/// the field, as a table and as JSON.
@Suite struct PipelineProblemsTableTests {
    static let good = "source: airkorea\noperation: realtime-by-province\nparameters:\n  sidoName: 서울\nschedule: '20 * * * *'\n"
    /// Four problems in one file: an unknown field, a bad format, a bad page size, a bad schedule.
    static let manyProblems = """
        source: airkorea
        operation: realtime-by-province
        paramters:
          sidoName: 서울
        format: csv
        page_size: 0
        schedule: "0 25 * * *"
        """

    @Test func everyFieldProblemOfAFileIsFoundInOneReading() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let directory = try env.writePipeline("many", Self.manyProblems)
        let catalog = PipelineCatalog(directory: directory, feeds: env.environment.feeds, workingDirectory: env.dir.url)
        let (pipelines, problems) = catalog.loadAll()
        #expect(pipelines.isEmpty)
        #expect(problems.map(\.field) == ["paramters", "format", "page_size", "schedule"], "\(problems)")
        #expect(Set(problems.map(\.file)) == ["Pipelines/many.yaml"])
    }

    @Test func theTableNamesEveryProblemWithTheRealPathAndField() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        // The pipelines live outside the working directory and are named with --pipelines-dir.
        let elsewhere = try TemporaryDirectory("elsewhere")
        defer { elsewhere.remove() }
        try Self.good.write(to: elsewhere.path("seoul.yaml"), atomically: true, encoding: .utf8)
        try Self.manyProblems.write(to: elsewhere.path("many.yaml"), atomically: true, encoding: .utf8)
        try "source: nowhere\n".write(to: elsewhere.path("other.yaml"), atomically: true, encoding: .utf8)
        let paths = env.paths(pipelines: elsewhere.url)
        #expect(env.feedline.listPipelines(paths: paths) == .configuration)

        let lines = env.out.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let many = elsewhere.path("many.yaml").path, other = elsewhere.path("other.yaml").path
        func row(_ file: String, _ field: String) -> String? {
            lines.first { $0.hasPrefix(file + " ") && $0.dropFirst(file.count).trimmingCharacters(in: .whitespaces).hasPrefix(field + " ") }
        }
        #expect(lines.first?.hasPrefix("PIPELINE ") == true && lines.contains { $0.hasPrefix("seoul ") })
        #expect(lines.contains { $0.hasPrefix("FILE ") && $0.contains(" FIELD ") && $0.hasSuffix(" PROBLEM") })
        #expect(row(many, "paramters")?.contains("is not a known field") == true, "\(env.out.text)")
        #expect(row(many, "format")?.hasSuffix("must be xml or json, not 'csv'.") == true)
        #expect(row(many, "page_size") != nil && row(many, "schedule")?.contains("'25' is out of range") == true)
        #expect(row(other, "source")?.contains("'nowhere' is not a known feed") == true)
        #expect(row(other, "operation")?.hasSuffix("is required.") == true)
        #expect(lines.last == "1 valid, 2 invalid (6 problems)")
        // The messages start in the PROBLEM column (the paths are ASCII: characters are columns).
        let header = try #require(lines.first { $0.hasPrefix("FILE ") })
        let column = header.count - "PROBLEM".count
        for line in lines where line.hasPrefix(many + " ") || line.hasPrefix(other + " ") {
            #expect(line.prefix(column).hasSuffix("  ") && line.dropFirst(column).first?.isWhitespace == false, "\(line)")
        }
        // The valid pipeline lists no fixtures: a warning, then the error.
        #expect(env.err.text == "warning: \(elsewhere.path("seoul.yaml").path): field 'fixtures': none listed, so `feedline run` without --live skips seoul "
                + "and `feedline check` cannot test it; after a live run, `feedline fixtures add seoul ARCHIVED_FILE` adds a payload it archived.\n"
                + "error: 2 pipeline files are invalid (6 problems): \(many), \(other).", "\(env.err.text)")
    }

    @Test func jsonHasThePipelinesAndEveryProblem() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        _ = try env.writePipeline("seoul", Self.good)
        let directory = try env.writePipeline("many", Self.manyProblems)
        #expect(env.feedline.listPipelines(paths: env.paths(pipelines: directory), json: true) == .configuration)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(env.out.text.utf8)) as? [String: Any])
        let pipelines = try #require(object["pipelines"] as? [[String: Any]])
        #expect(pipelines.map { $0["name"] as? String } == ["seoul"])
        #expect((pipelines[0]["parameters"] as? [String: [String]]) == ["sidoName": ["서울"]])
        let problems = try #require(object["problems"] as? [[String: Any]])
        #expect(problems.map { $0["field"] as? String } == ["paramters", "format", "page_size", "schedule"])
        #expect(problems.allSatisfy { $0["file"] as? String == "Pipelines/many.yaml" && $0["pipeline"] as? String == "many" })
        #expect(object["valid"] as? Int == 1 && object["invalid"] as? Int == 1)
    }
}
