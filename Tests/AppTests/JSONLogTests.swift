@testable import App
import FeedCore
import Foundation
import Logging
import Pipeline
import Testing
import TestSupport

/// `--log-format json`: one JSON object a line on standard error, through the same secret
/// scrubber as the human format; and how the format is chosen.
@Suite struct JSONLogTests {
    /// A key with characters percent-encoding changes, so its raw and encoded forms differ.
    static let key = "LOGKEY+json/Key=5f3a"
    static var keyForms: [String] {
        [key, FeedRequest.percentEncode(key), key.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? key, "json/Key=5f3a", "LOGKEY%2B"]
    }

    /// Every line of `text` as a JSON object; records an issue for any line that is not one.
    static func objects(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> [[String: Any]] {
        text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { index, line in
            if line.isEmpty && index == text.split(separator: "\n", omittingEmptySubsequences: false).count - 1 { return nil }
            guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else {
                Issue.record("line \(index + 1) is not a JSON object: \(line)", sourceLocation: sourceLocation)
                return nil
            }
            #expect(object["time"] is String && object["level"] is String && object["message"] is String, "\(line)", sourceLocation: sourceLocation)
            if let time = object["time"] as? String {
                #expect(time.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#, options: .regularExpression) != nil, "\(time)", sourceLocation: sourceLocation)
            }
            return object
        }
    }

    // MARK: - The handler

    @Test("any string survives JSON escaping: control characters, quotes, backslashes, Korean, emoji, line separators")
    func escapingRoundTrips() throws {
        let hostile = ["", "plain", "\"quoted\" \\ back\\slash", "line\nbreak\r\ttab", "\u{0}\u{1}\u{1F}\u{7F}\u{8}\u{C}",
                       "서울 종로구 미세먼지 좋음", "emoji 😀 and 𝄞", "\u{2028}\u{2029}", "</script>", "{\"a\":1}", "é (e\u{301})"]
        for text in hostile {
            let literal = JSONLogHandler.string(text)
            let decoded = try JSONSerialization.jsonObject(with: Data("[\(literal)]".utf8)) as? [String]
            #expect(decoded == [text], "\(literal)")
            #expect(!literal.unicodeScalars.contains { $0.value < 0x20 })
        }
    }

    @Test("each event is one line: time, level, message, then metadata as flat keys, dot-namespaced keys kept")
    func eventsAreFlatObjects() throws {
        let sink = TextSink()
        var logger = Logger(label: "t") { label in JSONLogHandler(label: label, write: { sink.append($0) }, clock: { Date(timeIntervalSince1970: 1_709_704_800.125) }) }
        logger.logLevel = .debug
        logger[metadataKey: "run.id"] = "42"
        logger.info("fetched page\nsecond line", metadata: ["fetch.page": "2", "run.pipeline": "airkorea-seoul", "message": "clash",
                                                             "nested": ["a": "1", "b": ["c": "2"]], "list": ["x", "y"]])
        logger.trace("not written")
        let lines = sink.text.split(separator: "\n")
        #expect(lines.count == 1)
        let object = try #require(Self.objects(sink.text).first)
        #expect(object["time"] as? String == "2024-03-06T06:00:00.125Z")
        #expect(object["level"] as? String == "info")
        #expect(object["message"] as? String == "fetched page\nsecond line")
        #expect(object["fetch.page"] as? String == "2")
        #expect(object["run.pipeline"] as? String == "airkorea-seoul")
        #expect(object["run.id"] as? String == "42")
        #expect(object["metadata.message"] as? String == "clash")
        #expect(object["nested.a"] as? String == "1")
        #expect(object["nested.b.c"] as? String == "2")
        #expect(object["list"] as? [String] == ["x", "y"])
        #expect(lines[0].hasPrefix("{\"time\":\"2024-03-06T06:00:00.125Z\",\"level\":\"info\",\"message\":"))
    }

    @Test("a key in a message, a metadata value or an error, raw or percent-encoded, is redacted in both formats",
          arguments: [LogFormat.json, .human])
    func keysAreRedacted(format: LogFormat) throws {
        let sink = TextSink()
        let redaction = SecretRedaction(variables: ["AIRKOREA_SERVICE_KEY": Self.key])
        var logger = Logger(label: "t") { label in
            let inner: any LogHandler = format == .json
                ? JSONLogHandler(label: label, write: { sink.append($0) })
                : CapturingLogHandler(sink: sink)
            return RedactingLogHandler(inner: inner, redaction: redaction)
        }
        logger.logLevel = .info
        let encoded = FeedRequest.percentEncode(Self.key)
        logger[metadataKey: "fetch.key"] = "\(Self.key)"
        logger.warning("calling https://x/?serviceKey=\(encoded)&b=\(Self.key)",
                       metadata: ["fetch.url": "https://x/?serviceKey=\(encoded)", "raw": "\(Self.key)", "deep": ["k": "\(Self.key.lowercased()) \(Self.key)"]])
        logger.error("failed", error: KeyError(text: "bad key \(Self.key)"))
        let text = sink.text
        for form in Self.keyForms { #expect(!text.contains(form), "\(form) in \(text)") }
        #expect(text.contains(SecretScrubber.replacement))
        if format == .json {
            let objects = Self.objects(text)
            #expect(objects.count == 2)
            #expect(objects.first?["message"] as? String == "calling https://x/?serviceKey=REDACTED&b=REDACTED")
            #expect(objects.first?["raw"] as? String == "REDACTED")
            #expect(objects.last?["error"] as? String == "bad key REDACTED")
        }
    }

    struct KeyError: Error, CustomStringConvertible { var text: String; var description: String { text } }

    @Test("error lines become JSON objects: error, warning and note lines take their level")
    func errorOutputLines() throws {
        let sink = TextSink()
        let write = FeedlineLogging.errorOutput(format: .json, redaction: SecretRedaction(variables: ["OPENAQ_API_KEY": Self.key]),
                                                write: { sink.append($0) })
        write("error: no pipeline named 'x' (key \(Self.key))")
        write("warning: two\nnote: three")
        write("plain")
        let objects = Self.objects(sink.text)
        #expect(objects.map { $0["level"] as? String } == ["error", "warning", "notice", "info"])
        #expect(objects.first?["message"] as? String == "no pipeline named 'x' (key REDACTED)")
    }

    // MARK: - The executable

    static func home() throws -> TemporaryDirectory { try TemporaryDirectory("json-logs") }
    static var root: URL { FixturePaths.repositoryRoot }

    @Test("a fixture run with --log-level info/debug --log-format json writes only JSON lines on stderr",
          .enabled(if: FeedlineExecutable.url != nil))
    func fixtureRunWritesJSONLines() throws {
        let dir = try Self.home()
        defer { dir.remove() }
        let common = ["--db", dir.path("db.sqlite").path, "--pipelines-dir", Self.root.appendingPathComponent("Pipelines").path,
                      "--fixtures", FixturePaths.fixtures.path]
        let info = try FeedlineProcess.run(["run", "airkorea-seoul"] + common + ["--log-level", "info", "--log-format", "json"], in: dir.url)
        #expect(info.status == 0, "\(info.err)")
        _ = Self.objects(info.err)
        #expect(info.out.contains("airkorea-seoul"), "the summary stays on standard output: \(info.out)")

        let debug = try FeedlineProcess.run(["run", "airkorea-seoul"] + common + ["--log-level", "debug", "--log-format", "json"], in: dir.url)
        #expect(debug.status == 0, "\(debug.err)")
        let objects = Self.objects(debug.err)
        #expect(objects.contains { $0["message"] as? String == "run started" && $0["run.pipeline"] as? String == "airkorea-seoul" && $0["level"] as? String == "debug" })

        let unknown = try FeedlineProcess.run(["run", "no-such-pipeline"] + common + ["--log-format", "json"], in: dir.url)
        #expect(unknown.status != 0)
        let errors = Self.objects(unknown.err)
        #expect(!errors.isEmpty && errors.allSatisfy { $0["level"] as? String == "error" || $0["level"] as? String == "notice" || $0["level"] as? String == "info" })
        #expect(errors.contains { $0["level"] as? String == "error" && ($0["message"] as? String)?.contains("no-such-pipeline") == true }, "\(unknown.err)")
    }

    @Test("a live run against a failing server logs its retries and its error as JSON, with no form of the key",
          .enabled(if: FeedlineExecutable.url != nil))
    func failingLiveRunWritesJSONLinesWithoutTheKey() throws {
        let dir = try Self.home()
        defer { dir.remove() }
        let server = try LoopbackServer { _ in
            .respond(status: 500, contentType: "text/plain", body: Data("internal error for \(Self.key)".utf8))
        }
        defer { server.stop() }
        let pipelines = try dir.writePipeline("seoul-json", """
            source: airkorea
            operation: realtime-by-station
            parameters:
              stationName: "\(Self.key)"
              dataTerm: DAILY
              ver: "1.4"
            format: xml
            """)
        let result = try FeedlineProcess.run(
            ["run", "seoul-json", "--live", "--db", dir.path("db.sqlite").path, "--pipelines-dir", pipelines.path,
             "--archive", dir.path("archive").path, "--log-level", "info", "--log-format", "json"],
            in: dir.url,
            extra: ["AIRKOREA_SERVICE_KEY": Self.key, "FEEDLINE_AIRKOREA_BASE_URL": server.baseURL.absoluteString,
                    "FEEDLINE_RETRY_ATTEMPTS": "2", "FEEDLINE_RETRY_BASE_MS": "5", "FEEDLINE_RETRY_CAP_MS": "10"])
        #expect(result.status == 75, "\(result.out)\n\(result.err)")
        #expect(!server.requests.isEmpty)
        let objects = Self.objects(result.err)
        let retry = objects.first { $0["message"] as? String == "retrying after a transient error" }
        #expect(retry?["level"] as? String == "warning", "\(result.err)")
        #expect((retry?["fetch.url"] as? String)?.contains("REDACTED") == true, "\(result.err)")
        #expect(retry?["retry.attempt"] != nil)
        #expect(objects.allSatisfy { ["info", "notice", "warning", "error"].contains($0["level"] as? String ?? "") })
        // The failed run's error is in the summary on standard output, scrubbed as well.
        #expect(result.out.contains("error: The server answered HTTP 500"), "\(result.out)")
        for form in Self.keyForms {
            #expect(!result.err.contains(form), "\(form) on stderr")
            #expect(!result.out.contains(form), "\(form) on stdout")
        }
    }

    @Test("the format comes from --log-format, else FEEDLINE_LOG_FORMAT, else log_format: in feedline.yaml; a bad value is one error",
          .enabled(if: FeedlineExecutable.url != nil))
    func formatPrecedenceAndRefusals() throws {
        let dir = try Self.home()
        defer { dir.remove() }
        try FileManager.default.createDirectory(at: dir.path("Pipelines"), withIntermediateDirectories: true)
        try "log_format: json\n".write(to: dir.path("feedline.yaml"), atomically: true, encoding: .utf8)
        let args = ["run", "no-such-pipeline"]

        let fromFile = try FeedlineProcess.run(args, in: dir.url)
        #expect(Self.objects(fromFile.err).contains { $0["level"] as? String == "error" }, "\(fromFile.err)")
        let envWins = try FeedlineProcess.run(args, in: dir.url, extra: ["FEEDLINE_LOG_FORMAT": "human"])
        #expect(envWins.err.hasPrefix("error: "), "\(envWins.err)")
        let flagWins = try FeedlineProcess.run(args + ["--log-format", "json"], in: dir.url, extra: ["FEEDLINE_LOG_FORMAT": "human"])
        #expect(!Self.objects(flagWins.err).isEmpty)
        let flagHuman = try FeedlineProcess.run(args + ["--log-format", "human"], in: dir.url)
        #expect(flagHuman.err.hasPrefix("error: "), "\(flagHuman.err)")

        let badFlag = try FeedlineProcess.run(["status", "--log-format", "xml"], in: dir.url)
        #expect(badFlag.status == 64)
        #expect(badFlag.err.contains("--log-format must be human or json, not 'xml'."), "\(badFlag.err)")
        let badEnv = try FeedlineProcess.run(["status"], in: dir.url, extra: ["FEEDLINE_LOG_FORMAT": "xml"])
        #expect(badEnv.status == 78)
        #expect(badEnv.err == "error: FEEDLINE_LOG_FORMAT must be human or json, not 'xml'.\n", "\(badEnv.err)")
        try "log_format: yaml\n".write(to: dir.path("feedline.yaml"), atomically: true, encoding: .utf8)
        let badFile = try FeedlineProcess.run(["status"], in: dir.url)
        #expect(badFile.status == 78)
        #expect(badFile.err.split(separator: "\n").count == 1)
        #expect(badFile.err.contains("feedline.yaml: field 'log_format' must be human or json, not 'yaml'."), "\(badFile.err)")
    }
}
