import Foundation
import Testing
import TestSupport

/// Every command in the README's `sh` blocks, run as written (through `/bin/sh`, with `feedline`
/// on PATH) in a home made by `feedline init` and loaded from its fixtures — so the README never
/// shows a command that does not work.
///
/// What cannot run here is said, not skipped silently: `scripts/run` and `scripts/test` are what
/// CI runs; `export` lines only set keys; `datasette` is another program's web server; `swift
/// build` and `sudo` lines build and install into the system. `~` is a
/// directory inside the test. Live commands meet no key (or an unreachable API) and
/// must answer as the README says (a missing key is exit 78 naming the variable); the scheduler
/// is stopped with SIGTERM as documented; `crontab` is a stand-in that only records its input.
@Suite(.serialized) struct ReadmeCommandsTests {
    /// One command line of the README (continuation lines joined while a quote is open).
    struct Command: CustomStringConvertible {
        var text: String
        var description: String { text }
    }

    static func readmeCommands() throws -> [Command] {
        let readme = try String(contentsOf: FixturePaths.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        var commands: [Command] = []
        var inBlock = false
        var pending = ""
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") {
                inBlock = line == "```sh" || line == "```bash"
                pending = ""
                continue
            }
            guard inBlock else { continue }
            pending += pending.isEmpty ? line : "\n" + line
            // Keep joining while a quote is open.
            if pending.filter({ $0 == "\"" }).count % 2 == 1 { continue }
            let text = withoutComment(pending).trimmingCharacters(in: .whitespaces)
            pending = ""
            if !text.isEmpty { commands.append(Command(text: text)) }
        }
        return commands
    }

    /// `line` without a trailing `# comment` outside quotes.
    static func withoutComment(_ line: String) -> String {
        var quoted: Character? = nil
        var previous: Character = " "
        for (offset, c) in line.enumerated() {
            if let q = quoted { if c == q { quoted = nil } } else if c == "\"" || c == "'" { quoted = c } else if c == "#" && previous.isWhitespace {
                return String(line.prefix(offset))
            }
            previous = c
        }
        return line
    }

    /// `command` with `exec` before the program (after any `NAME=value` prefixes), so a signal
    /// sent to the shell's process reaches the program itself.
    static func execForm(_ command: String) -> String {
        var words = command.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        let assignments = words.prefix { $0.range(of: "^[A-Z_][A-Z0-9_]*=", options: .regularExpression) != nil }
        words.removeFirst(assignments.count)
        return (assignments + ["exec"] + words).joined(separator: " ")
    }

    /// Runs `command` with `sh -c` in `directory`; with `stopAfter`, the program gets SIGTERM
    /// after that many seconds (as the README says to stop the scheduler).
    func shell(_ command: String, in directory: URL, path: String, environment extra: [String: String], stopAfter seconds: Double? = nil) throws -> FeedlineProcess {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FEEDLINE_") && !$0.key.hasSuffix("_KEY") }
        environment["PATH"] = path
        environment["FEEDLINE_PROGRESS"] = "0"
        environment["HOME"] = directory.appendingPathComponent(".home").path  // lines that install into ~ stay inside the test
        environment.merge(extra) { _, new in new }
        return try FeedlineProcess.run(URL(fileURLWithPath: "/bin/sh"), ["-c", seconds == nil ? command : Self.execForm(command)],
                                       in: directory, environment: environment, stopAfter: seconds)
    }

    @Test("every README command works as written", .enabled(if: FeedlineExecutable.url != nil))
    func everyReadmeCommandWorks() throws {
        let commands = try Self.readmeCommands()
        #expect(commands.count >= 10, "\(commands)")
        let dir = try TemporaryDirectory("readme")
        defer { dir.remove() }
        // PATH: feedline (also as .build/release/feedline), a recording crontab, then the system.
        let bin = dir.path("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: bin.appendingPathComponent("feedline"), withDestinationURL: FeedlineExecutable.url!)
        let crontabLog = dir.path("crontab-input")
        try "#!/bin/sh\ncat \"$@\" > '\(crontabLog.path)'\n".write(to: bin.appendingPathComponent("crontab"), atomically: true, encoding: .utf8)
        _ = chmod(bin.appendingPathComponent("crontab").path, 0o755)
        let path = "\(bin.path):" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let offline = ["FEEDLINE_AIRKOREA_BASE_URL": "http://127.0.0.1:9/", "FEEDLINE_CAREERNET_BASE_URL": "http://127.0.0.1:9/",
                       "FEEDLINE_SARAMIN_BASE_URL": "http://127.0.0.1:9/", "FEEDLINE_RETRY_ATTEMPTS": "1"]

        let home = dir.path("home")
        #expect(try shell("feedline init home", in: dir.url, path: path, environment: [:]).status == 0)
        try FileManager.default.createDirectory(at: home.appendingPathComponent(".build/release"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: home.appendingPathComponent(".build/release/feedline"), withDestinationURL: FeedlineExecutable.url!)
        let loaded = try shell("feedline run", in: home, path: path, environment: [:])
        #expect(loaded.status == 0, "\(loaded.err)")

        var ran = 0
        for command in commands {
            let text = command.text
            if text.hasPrefix("scripts/") || text.hasPrefix("export ") { continue }  // CI runs the scripts; exports set keys
            if text.hasPrefix("datasette ") { continue }  // a web server of its own, not feedline's
            // Building and installing is what `scripts/run` does; `sudo` lines write into the system
            // (/usr/local/bin, /etc/systemd/system), which a test must not touch.
            if text.hasPrefix("swift build") || text.hasPrefix("sudo ") { continue }
            if text.hasPrefix("sqlite3"), (try? shell("command -v sqlite3", in: home, path: path, environment: [:]).status) != 0 { continue }
            ran += 1
            let live = text.contains("--live") && !text.contains("--dry-run")
            if text.contains("feedline schedule") && !text.contains("--next") {
                let scheduler = try shell(text, in: home, path: path, environment: offline, stopAfter: 2)
                #expect(scheduler.status == 0 && scheduler.out.contains("stopped"), "\(text)\n\(scheduler)")
                continue
            }
            // A dry run plans with the key the README's "Going live" put in the environment.
            let key = text.contains("--dry-run") ? ["AIRKOREA_SERVICE_KEY": "readme-placeholder-key"] : [:]
            let result = try shell(text, in: home, path: path, environment: offline.merging(key) { a, _ in a })
            if live {
                #expect(result.status == 78 && result.err.contains("AIRKOREA_SERVICE_KEY"), "\(text)\n\(result)")
            } else {
                #expect(result.status == 0, "\(text)\nexit \(result.status)\n\(result.err)")
                if text.hasPrefix("feedline") { #expect(!result.out.isEmpty || text.contains(">"), "\(text) printed nothing") }
            }
        }
        #expect(ran >= 8)
        let installed = (try? String(contentsOf: crontabLog, encoding: .utf8)) ?? ""
        #expect(installed.contains("feedline run"), "the crontab line did not reach crontab: \(installed)")
    }
}
