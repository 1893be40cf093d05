import App
import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Pipeline files are bounded before YAML sees them: a hostile or broken file is one clear
/// error naming the file, and it never keeps the valid pipelines from running or the scheduler
/// from starting.
@Suite struct PipelineFileBoundsTests {
    /// Nine levels of nine aliases: 9⁹ strings once expanded.
    static let aliasBomb = """
        source: airkorea
        operation: realtime-by-province
        a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
        b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
        c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
        d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
        e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
        f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
        g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
        h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
        parameters: &i
          sidoName: [*h,*h,*h,*h,*h,*h,*h,*h,*h]

        """

    static let seoul = """
        description: Realtime Seoul from the bundled fixture.
        source: airkorea
        operation: realtime-by-province
        parameters:
          sidoName: 서울
        schedule: "20 * * * *"
        fixtures:
          - airkorea/realtime-province-seoul.xml

        """

    func check(_ text: String) -> PipelineFileBounds.Violation? { PipelineFileBounds.check(Data(text.utf8)) }

    @Test func anchorsAliasesDepthAndSizeAreRefusedFromTheText() {
        #expect(check(Self.aliasBomb)?.message.contains("anchor (&) on line 3") == true, "\(String(describing: check(Self.aliasBomb)))")
        #expect(check("source: airkorea\nparameters: *p\n")?.message.contains("alias (*) on line 2") == true)
        #expect(check("fixtures:\n  - *x\n")?.line == 2)
        #expect(check("a: !!str &x value\n")?.line == 1, "an anchor after a tag")
        #expect(check("a: [b, {c: *d}]\n")?.line == 1, "an alias in a flow collection")
        #expect(check(String(repeating: "[", count: 50_000))?.message.contains("nests deeper") == true)
        #expect(check("a:\n" + String(repeating: "- ", count: 30_000) + "x\n")?.message.contains("nests deeper") == true)
        var deep = ""
        for level in 0..<40 { deep += String(repeating: " ", count: level) + "k\(level):\n" }
        #expect(check(deep)?.message.contains("nests deeper") == true)
        #expect(check(String(repeating: "# padding\n", count: 7_000))?.message.contains("limited to 64 KiB") == true)
    }

    @Test func ampersandsAndStarsThatAreTextStayAllowed() throws {
        #expect(check("description: Tom & Jerry * 2 # & not an anchor\nsource: airkorea\n") == nil)
        #expect(check("description: \"*starred* & quoted\"\nname: '&amp; ''*'''\n") == nil)
        #expect(check("description: |\n  * first point\n  & second\n    *deeper\nsource: airkorea\n") == nil)
        #expect(check("description: >-\n  *folded*\nsource: x\n") == nil)
        #expect(check("parameters:\n  sidoName: [서울, 부산]\n  q: {a: b, c: \"*\"}\n") == nil)
        // A dash not followed by a space starts a plain scalar, not a sequence entry.
        #expect(check("description: -*new* stations\nq: -&x\n") == nil)
        #expect(check("list:\n  - *alias\n") != nil)
        // Every bundled pipeline file passes.
        let bundled = FixturePaths.repositoryRoot.appendingPathComponent("Pipelines")
        let files = try FileManager.default.contentsOfDirectory(at: bundled, includingPropertiesForKeys: nil)
        #expect(files.count >= 10)
        for file in files {
            #expect(PipelineFileBounds.check(try Data(contentsOf: file)) == nil, "\(file.lastPathComponent)")
        }
    }

    /// Loads the catalog on its own thread and gives up after `seconds`, so a regression hangs
    /// one test instead of the whole suite.
    func loadWithWatchdog(_ catalog: PipelineCatalog, seconds: Double = 30) async -> (pipelines: [String], problems: [String])? {
        await withCheckedContinuation { continuation in
            let once = OnceFlag()
            Thread.detachNewThread {
                let (pipelines, problems) = catalog.loadAll()
                if once.claim() { continuation.resume(returning: (pipelines.map(\.name), problems.map(\.description))) }
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
                if once.claim() { continuation.resume(returning: nil) }
            }
        }
    }

    final class OnceFlag: @unchecked Sendable {
        private let lock = NSLock()
        private var done = false
        func claim() -> Bool { lock.withLock { defer { done = true }; return !done } }
    }

    @Test func anAliasBombIsOneErrorAndTheOtherPipelinesStillRun() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        _ = try env.writePipeline("bomb", Self.aliasBomb)
        let pipelines = try env.writePipeline("seoul", Self.seoul)
        let catalog = PipelineCatalog(directory: pipelines, feeds: env.environment.feeds)
        let loaded = await loadWithWatchdog(catalog)
        #expect(loaded?.pipelines == ["seoul"], "loading hung or lost the valid pipeline")
        #expect(loaded?.problems.count == 1 && loaded?.problems.first?.contains("bomb.yaml") == true
                && loaded?.problems.first?.contains("anchors or aliases") == true, "\(String(describing: loaded?.problems))")
        guard loaded != nil else { return }

        let paths = env.paths(pipelines: pipelines)
        #expect(env.feedline.listPipelines(paths: paths) == .configuration)
        #expect(await env.feedline.run(names: ["seoul"], source: .fixtures, paths: paths) == .success, "\(env.err.text)")
        // All pipelines: the valid one runs, the bad file is named, the exit says "partly".
        #expect(await env.feedline.run(names: [], source: .fixtures, paths: paths) == .partial)
        #expect(env.err.text.contains("bomb.yaml") && env.err.text.contains("(skipped)"), "\(env.err.text)")
        #expect(await env.feedline.run(names: ["bomb"], source: .fixtures, paths: paths) == .configuration)
        // The scheduler starts with the valid pipeline.
        #expect(env.feedline.printUpcoming(names: [], paths: paths, count: 1) == .success)
        #expect(env.out.text.contains("\nseoul     20 * * * *"), "\(env.out.text)")
        #expect(env.feedline.status(paths: paths, json: false) == .success)
    }

    @Test func aFIFOOrALinkedDirectoryIsHandledAndMessagesNameTheRealPath() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        // Pipelines live elsewhere and are reached through a symbolic link.
        let real = try env.writePipeline("seoul", Self.seoul)
        #expect(mkfifo(real.appendingPathComponent("pipe.yaml").path, 0o600) == 0)
        try "source: nowhere\n".write(to: real.appendingPathComponent("bad.yaml"), atomically: true, encoding: .utf8)
        let link = env.dir.path("linked")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)
        let catalog = PipelineCatalog(directory: link, feeds: env.environment.feeds, workingDirectory: URL(fileURLWithPath: "/nonexistent"))
        let loaded = await loadWithWatchdog(catalog)
        #expect(loaded?.pipelines == ["seoul"], "the FIFO blocked loading or the link was not followed")
        let problems = loaded?.problems ?? []
        #expect(problems.contains { $0.hasPrefix(link.appendingPathComponent("pipe.yaml").path) && $0.contains("not a regular file") }, "\(problems)")
        #expect(problems.contains { $0.hasPrefix(link.appendingPathComponent("bad.yaml").path + ": field 'source'") }, "\(problems)")
    }

    /// Found by fuzzing: YAML's own value construction stops the process on a mapping key that
    /// is a collection (`{source}: x`) or on a bad `!!binary`; pipeline files are read as plain
    /// data instead, and such a file is one error.
    @Test(arguments: [
        "{sourc}: careernet, operdes",
        "{source: careernet, operati!!strchool, parameter}: {guttttt l, s, unknoee:$~}",
        "[a, b]: 1\nsource: airkorea\n",
        "source: airkorea\noperation: !!binary '%%%'\n",
        "source: !!timestamp 2024-99-99\noperation: x\n",
        "? [complex, key]\n: value\n",
    ])
    func hostileYAMLIsOneErrorNotACrash(text: String) throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let pipelines = try env.writePipeline("odd", text)
        let (valid, problems) = PipelineCatalog(directory: pipelines, feeds: env.environment.feeds).loadAll()
        #expect(valid.isEmpty && problems.count >= 1, "\(problems)")
        #expect(problems.allSatisfy { $0.file.hasSuffix("odd.yaml") })
    }

    @Test func fieldsAreDecodedAsWrittenAndEveryBadFieldIsNamedByItsPath() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        // Scalars stay the text they were written as (no 1.3 for 1.30, no true for yes).
        let good = try env.writePipeline("good", """
            source: airkorea
            operation: realtime-by-station
            description: yes
            page_size: 0100
            parameters: {stationName: [종로구, 중구], dataTerm: DAILY, ver: 1.30}
            """)
        let (valid, none) = PipelineCatalog(directory: good, feeds: env.environment.feeds).loadAll()
        #expect(none.isEmpty, "\(none)")
        let p = try #require(valid.first)
        #expect(p.description == "yes" && p.spec.pageSize == 100)
        #expect(p.spec.parameters.map(\.name) == ["dataTerm", "stationName", "ver"])
        #expect(p.spec.parameters.last?.values == ["1.30"])

        let bad = try env.writePipeline("bad", """
            source: [airkorea]
            operation: realtime-by-station
            parameters: {stationName: [], dataTerm: {a: 1}}
            fixtures: {a: b}
            colour: blue
            """)
        try FileManager.default.removeItem(at: bad.appendingPathComponent("good.yaml"))
        let (_, problems) = PipelineCatalog(directory: bad, feeds: env.environment.feeds).loadAll()
        let byField = Dictionary(problems.map { ($0.field ?? "-", $0.message) }, uniquingKeysWith: { a, _ in a })
        #expect(byField["colour"]?.hasPrefix("is not a known field") == true)
        #expect(byField["source"] == "must be a single value.")
        #expect(byField["parameters.stationName"] == "must be a value or a non-empty list of values.")
        #expect(byField["parameters.dataTerm"] == "must be a value or a non-empty list of values.")
        #expect(byField["fixtures"] == "must be a list of file paths.")
        #expect(problems.count == 5, "\(problems)")
    }
}

