import App
import Foundation
import Testing
import TestSupport

/// The feedline executable run as a user would: in a directory of its own, output captured.
struct FeedlineProcess {
    var status: Int32
    var out: String
    var err: String

    /// Runs `feedline arguments…` in `directory` with only `extra` of the FEEDLINE_ variables set.
    static func run(_ arguments: [String], in directory: URL, extra: [String: String] = [:]) throws -> FeedlineProcess {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FEEDLINE_") }
        environment["FEEDLINE_PROGRESS"] = "0"
        environment.merge(extra) { _, new in new }
        return try run(FeedlineExecutable.url!, arguments, in: directory, environment: environment)
    }

    /// Runs `executable` in `directory` with exactly `environment`, output captured in files;
    /// with `stopAfter`, sends it SIGTERM after that many seconds.
    static func run(_ executable: URL, _ arguments: [String], in directory: URL, environment: [String: String],
                    stopAfter seconds: Double? = nil) throws -> FeedlineProcess {
        let scratch = try TemporaryDirectory("feedline-process")
        defer { scratch.remove() }
        let outFile = scratch.path("out"), errFile = scratch.path("err")
        FileManager.default.createFile(atPath: outFile.path, contents: nil)
        FileManager.default.createFile(atPath: errFile.path, contents: nil)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = directory
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: outFile)
        process.standardError = try FileHandle(forWritingTo: errFile)
        try process.run()
        if let seconds {
            Thread.sleep(forTimeInterval: seconds)
            process.terminate()
        }
        process.waitUntilExit()
        return FeedlineProcess(status: process.terminationStatus,
                               out: (try? String(contentsOf: outFile, encoding: .utf8)) ?? "",
                               err: (try? String(contentsOf: errFile, encoding: .utf8)) ?? "")
    }
}

/// `feedline init` and finding the home from anywhere inside it, without the source tree.
@Suite struct HomeTests {
    @Test func theHomeIsFoundByWalkingUpOrByName() throws {
        let dir = try TemporaryDirectory("home")
        defer { dir.remove() }
        let home = dir.path("air")
        let deep = home.appendingPathComponent("a/b")
        try FileManager.default.createDirectory(at: deep, withIntermediateDirectories: true)
        try "database: db/x.sqlite\n".write(to: home.appendingPathComponent("feedline.yaml"), atomically: true, encoding: .utf8)
        let found = try #require(try FeedlineHome.locate(explicit: nil, variables: [:], from: deep))
        #expect(found.root.path == home.standardizedFileURL.path)
        #expect(found.config.database == "db/x.sqlite")
        #expect(try FeedlineHome.locate(explicit: nil, variables: ["FEEDLINE_HOME": home.path], from: URL(fileURLWithPath: "/")) == found)
        #expect(try FeedlineHome.locate(explicit: "air", variables: [:], from: dir.url)?.root.path == home.standardizedFileURL.path)

        // Paths: the config's, relative to the home; the command line and FEEDLINE_DB win.
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        var environment = env.environment
        environment.home = found
        #expect(Paths(environment: environment).database.path == home.appendingPathComponent("db/x.sqlite").path)
        #expect(Paths(environment: environment).pipelines.path == home.appendingPathComponent("Pipelines").path)
        #expect(Paths(environment: environment, database: "/elsewhere.sqlite").database.path == "/elsewhere.sqlite")

        #expect(throws: FeedlineHome.Problem.self) { try FeedlineHome.locate(explicit: dir.path("missing").path, variables: [:], from: dir.url) }
        try "database: x\ncolour: blue\n".write(to: home.appendingPathComponent("feedline.yaml"), atomically: true, encoding: .utf8)
        #expect { try FeedlineHome.locate(explicit: nil, variables: [:], from: deep) } throws: { error in
            "\(error)".contains("field 'colour' is not known")
        }
    }

    @Test func theEmbeddedScaffoldMatchesTheRepository() throws {
        let root = FixturePaths.repositoryRoot
        let embedded = Scaffold.files
        #expect(embedded.count > 30)
        for (path, contents) in embedded {
            let onDisk = try? Data(contentsOf: root.appendingPathComponent(path))
            #expect(onDisk == contents, "\(path) differs from the copy in the binary: run scripts/gen-scaffold")
        }
        let pipelines = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Pipelines").path).filter { $0.hasSuffix(".yaml") }
        #expect(Set(pipelines.map { "Pipelines/\($0)" }).isSubset(of: Set(embedded.map(\.path))), "a pipeline is missing: run scripts/gen-scaffold")
    }

    @Test("init, then run, status, describe, query and report in a directory that is not the repository",
          .enabled(if: FeedlineExecutable.url != nil))
    func aNewHomeWorksOfflineAtOnce() throws {
        let dir = try TemporaryDirectory("first-hour")
        defer { dir.remove() }
        // Outside any home: the error says how to get one.
        let lost = try FeedlineProcess.run(["run"], in: dir.url)
        #expect(lost.status == 78 && lost.err.contains("feedline init DIR"), "\(lost)")

        let made = try FeedlineProcess.run(["init", "air"], in: dir.url)
        #expect(made.status == 0 && made.out.contains("cd air && feedline run"), "\(made)")
        let home = dir.path("air")
        #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent("feedline.yaml").path))

        let run = try FeedlineProcess.run(["run"], in: home)
        #expect(run.status == 0, "\(run.err)")
        // The embedded snapshots came along: the new home's pipelines pass their checks.
        let checked = try FeedlineProcess.run(["check"], in: home)
        #expect(checked.status == 0 && checked.out.contains("— passed"), "\(checked)")
        // From a subdirectory: the home is found by walking up.
        let sub = home.appendingPathComponent("notes")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        let count = try FeedlineProcess.run(["query", "select count(*) AS n from measurement", "--format", "csv"], in: sub)
        #expect(count.status == 0 && count.out.hasPrefix("n\n") && (Int(count.out.dropFirst(2).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 0, "\(count)")
        let status = try FeedlineProcess.run(["status"], in: sub)
        #expect(status.status == 0 && status.out.contains("airkorea-seoul"), "\(status)")
        let described = try FeedlineProcess.run(["describe", "measurement"], in: sub)
        #expect(described.status == 0 && described.out.contains("pm25") && described.out.contains("µg/m³"), "\(described)")
        let saved = try FeedlineProcess.run(["query", "--list"], in: sub)
        #expect(saved.status == 0 && saved.out.contains("latest"), "\(saved)")
        let report = try FeedlineProcess.run(["report", "--station", "종로구", "-o", "jongno.html"], in: sub)
        #expect(report.status == 0 && FileManager.default.fileExists(atPath: sub.appendingPathComponent("jongno.html").path), "\(report)")
        // From anywhere, by name; a second init keeps what is there.
        let named = try FeedlineProcess.run(["pipelines"], in: dir.url, extra: ["FEEDLINE_HOME": home.path])
        #expect(named.status == 0 && named.out.contains("21 valid, 0 invalid"), "\(named)")
        let again = try FeedlineProcess.run(["init", "air"], in: dir.url)
        #expect(again.status == 0 && again.out.contains("kept"), "\(again)")
    }

    @Test("a Pipelines directory that is a symbolic link is followed", .enabled(if: FeedlineExecutable.url != nil))
    func aLinkedPipelinesDirectoryIsFollowed() throws {
        let dir = try TemporaryDirectory("linked-home")
        defer { dir.remove() }
        _ = try FeedlineProcess.run(["init", "home"], in: dir.url)
        let home = dir.path("home")
        try FileManager.default.moveItem(at: home.appendingPathComponent("Pipelines"), to: dir.path("shared-pipelines"))
        try FileManager.default.createSymbolicLink(at: home.appendingPathComponent("Pipelines"), withDestinationURL: dir.path("shared-pipelines"))
        let listed = try FeedlineProcess.run(["pipelines"], in: home)
        #expect(listed.status == 0 && listed.out.contains("21 valid"), "\(listed)")
    }

    @Test func replayFollowsLinkedDirectoriesAndWalksALoopOnce() throws {
        let dir = try TemporaryDirectory("linked-archive")
        defer { dir.remove() }
        let fm = FileManager.default
        let store = dir.path("store/2024-03-06")
        try fm.createDirectory(at: store, withIntermediateDirectories: true)
        try Data("<response/>".utf8).write(to: store.appendingPathComponent("a.xml"))
        let top = dir.path("archive")
        try fm.createDirectory(at: top, withIntermediateDirectories: true)
        try fm.createSymbolicLink(at: top.appendingPathComponent("airkorea"), withDestinationURL: dir.path("store"))
        try fm.createSymbolicLink(at: store.appendingPathComponent("back-up"), withDestinationURL: top)  // a loop
        #expect(Console.payloadFiles(under: top).map(\.lastPathComponent) == ["a.xml"])
        try fm.createSymbolicLink(at: dir.path("linked"), withDestinationURL: top)
        #expect(Console.payloadFiles(under: dir.path("linked")).map(\.lastPathComponent) == ["a.xml"])
    }
}
