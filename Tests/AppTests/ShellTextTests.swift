@testable import App
import Foundation
import PropertyBased
import Testing
import TestSupport

/// `ShellText` is the one way values reach a generated crontab, shell or unit-file line. These
/// tests run what it writes through a real `/bin/sh` (and cron's own `%` decoding) with hostile
/// strings, and check that a pipeline file whose name could split a line is refused when read.
@Suite("Shell text: quoting for sh, crontab and systemd; pipeline names are identifiers")
struct ShellTextTests {
    /// The seed the hostile strings are drawn from, so each run checks the same inputs.
    static let seed: (UInt64, UInt64, UInt64, UInt64) = (0x7368_656C_6C74_6578, 0x6372_6F6E_7461_6200, 0x7379_7374_656D_6400, 0x0000_0000_0000_0032)

    /// Checks `body` on `count` pieces of hostile text: quotes, `%`, `$()`, backticks,
    /// backslashes, a leading `-`, globbing, comments, non-ASCII, and (when `controls`) newlines
    /// and other control characters.
    static func forHostileText(controls: Bool, count: Int, _ body: (String) throws -> Void) rethrows {
        var specials = ["'", "\"", "%", "\\%", "\\", "$(touch PWNED)", "`id`", "$HOME", "${X}", "-", "--db=evil", ";", "&&", "|", ">", "<",
                        "*", "?", "[a]", "~", "#", "!", " ", "  ", "%%", "'\\''", "é", "서울", "😀", "\u{FEFF}", "=", "\\n", "%s",
                        "'\u{0331}", "%\u{0301}", "\u{0301}", "\"\u{20DD}"]
        if controls { specials += ["\n", "\r", "\t", "\n* * * * * touch PWNED #", "\u{7F}", "\u{85}", "\u{2028}", "\u{1B}[2J"] }
        let piece = Gen.oneOf(Gen.ascii.string(of: 0...4).map { $0.filter { controls ? $0 != "\0" : !$0.unicodeScalars.contains(where: ShellText.isControl) } },
                              Gen.element(of: specials).map { $0 ?? "" })
        try seededPropertyCheck(count: count, seed: seed, input: piece.array(of: 0...6).map { $0.joined() }, perform: body)
    }

    /// Runs `/bin/sh -c SCRIPT` and returns its standard output.
    static func sh(_ script: String) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        // In a directory of its own: a quoting bug would run `touch PWNED` there, not in the checkout.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shelltext-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        process.currentDirectoryURL = directory
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return data
    }

    /// Cron's reading of a command field (vixie cron and cronie, `do_command.c`): `\%` is `%`,
    /// a backslash before any other character keeps both, an unescaped `%` ends the command (what
    /// follows is standard input). Returns nil when the command would be cut.
    static func cronReads(_ field: String) -> String? {
        // Byte by byte as cron reads it (scalars here), not by characters: `%` + a combining
        // mark is one Swift Character but still a `%` to cron.
        var out = String.UnicodeScalarView()
        var escaped = false
        for ch in field.unicodeScalars {
            if escaped {
                if ch == "%" { out.removeLast() }
                out.append(ch)
                escaped = false
                continue
            }
            if ch == "\\" { escaped = true }
            if ch == "%" { return nil }
            out.append(ch)
        }
        return String(out)
    }

    /// systemd's reading of one double-quoted `ExecStart=` word (the subset `systemdArgument`
    /// writes): `\\` and `\"` unescaped, then `%%` → `%` and `$$` → `$`.
    static func systemdReads(_ word: String) -> String? {
        // Scalar by scalar, as systemd reads bytes: a quote or `%` with a combining mark after
        // it is still a quote or `%`.
        var text = Array(word.unicodeScalars)
        if text.first == "\"" {
            guard text.count >= 2, text.last == "\"" else { return nil }
            var out: [Unicode.Scalar] = []
            var escaped = false
            for ch in text.dropFirst().dropLast() {
                if escaped { guard ch == "\\" || ch == "\"" else { return nil }; out.append(ch); escaped = false; continue }
                if ch == "\\" { escaped = true; continue }
                if ch == "\"" { return nil }
                out.append(ch)
            }
            guard !escaped else { return nil }
            text = out
        } else if text.contains(where: { " \"'\\;".unicodeScalars.contains($0) }) || "-@+!:".unicodeScalars.contains(text.first ?? "x") {
            return nil
        }
        var out = String.UnicodeScalarView()
        var pending: Unicode.Scalar?
        for ch in text {
            if let p = pending {
                guard ch == p else { return nil }
                out.append(ch); pending = nil; continue
            }
            if ch == "%" || ch == "$" { pending = ch; continue }
            out.append(ch)
        }
        return pending == nil ? String(out) : nil
    }

    @Test("a shell word read back by /bin/sh is exactly the text, for generated hostile strings")
    func shellWordRoundTrip() throws {
        var inputs: [String] = []
        Self.forHostileText(controls: true, count: 400) { inputs.append($0) }
        let script = "printf '%s\\0' " + inputs.map(ShellText.shellWord).joined(separator: " ")
        let printed = try Self.sh(script).split(separator: 0, omittingEmptySubsequences: false).dropLast().map { String(decoding: $0, as: UTF8.self) }
        #expect(printed.count == inputs.count)
        for (input, output) in zip(inputs, printed) where input != output {
            Issue.record("sh read \(ShellText.shown(output)) for \(ShellText.shown(input)) (quoted \(ShellText.shellWord(input)))")
        }
    }

    @Test("a quote or % followed by a combining mark is escaped like any other (a quote left open would end the quoting)")
    func combiningMarksDoNotHideQuotes() throws {
        let texts = ["'\u{0331}; touch PWNED; echo '\u{0331}", "a%\u{0301}b", "''\u{0331}''"]
        let printed = try Self.sh("printf '%s\\0' " + texts.map(ShellText.shellWord).joined(separator: " "))
            .split(separator: 0, omittingEmptySubsequences: false).dropLast().map { String(decoding: $0, as: UTF8.self) }
        #expect(printed == texts)
        for text in texts {
            let field = try ShellText.cronCommand([.word(text, what: "value")])
            #expect(Self.cronReads(field) != nil, "cron cuts \(ShellText.shown(field))")
            #expect(try ShellText.systemdValue(text, what: "value").unicodeScalars.filter { $0 == "%" }.count
                    == 2 * text.unicodeScalars.filter { $0 == "%" }.count)
        }
    }

    @Test("a shell word in a command's first place is the command, never an assignment or an expansion")
    func firstWordIsTheCommand() throws {
        for text in ["x=y", "PATH=/tmp", "~", "$(echo)", "a*"] {
            // A word sh runs as a command named TEXT, which does not exist: status 127.
            let status = try Self.sh("\(ShellText.shellWord(text)) 2>/dev/null; printf %s $?")
            #expect(String(decoding: status, as: UTF8.self) == "127", "\(text) as \(ShellText.shellWord(text))")
        }
    }

    @Test("a crontab command is one line, and cron then sh read each word back as exactly the text")
    func cronCommandRoundTrip() throws {
        var inputs: [String] = []
        var fields: [String] = []
        try Self.forHostileText(controls: false, count: 400) { text in
            let field = try ShellText.cronCommand([.word(text, what: "value")])
            #expect(!field.contains("\n") && !field.contains("\r"), "\(ShellText.shown(field))")
            guard let read = Self.cronReads(field) else {
                Issue.record("cron cuts \(ShellText.shown(field)) at a % (from \(ShellText.shown(text)))")
                return
            }
            inputs.append(text)
            fields.append(read)
        }
        let printed = try Self.sh("printf '%s\\0' " + fields.joined(separator: " "))
            .split(separator: 0, omittingEmptySubsequences: false).dropLast().map { String(decoding: $0, as: UTF8.self) }
        #expect(printed == inputs)
    }

    @Test("text with a newline or another control character is refused on every generated line")
    func controlCharactersRefused() throws {
        try Self.forHostileText(controls: true, count: 300) { text in
            let hasControl = text.unicodeScalars.contains(where: ShellText.isControl)
            let cron = Result { try ShellText.cronCommand([.word(text, what: "value")]) }
            let unit = Result { try ShellText.systemdArgument(text, what: "value") }
            let value = Result { try ShellText.systemdValue(text, what: "value") }
            let comment = Result { try ShellText.comment(text) }
            // A unit-file value is also refused for a trailing backslash or white space at an end.
            let edges = text.hasSuffix("\\") || text.first?.isWhitespace == true || text.last?.isWhitespace == true
            for (result, refusedToo) in [(cron, false), (unit, false), (value, edges), (comment, false)] {
                switch result {
                case .success(let line):
                    #expect(!hasControl, "\(ShellText.shown(text)) written as \(ShellText.shown(line))")
                    #expect(!line.unicodeScalars.contains(where: ShellText.isControl))
                case .failure(let error):
                    #expect(hasControl || refusedToo, "\(ShellText.shown(text)) refused: \(error)")
                    #expect(!"\(error)".unicodeScalars.contains(where: ShellText.isControl), "the refusal itself shows no raw control character")
                }
            }
        }
    }

    @Test("an ExecStart= word reads back as the text: quoted, \\ and \" escaped, % and $ doubled, no prefix or lone ;")
    func systemdArgumentRoundTrip() throws {
        try Self.forHostileText(controls: false, count: 400) { text in
            let word = try ShellText.systemdArgument(text, what: "value")
            #expect(Self.systemdReads(word) == text, "\(ShellText.shown(text)) written as \(ShellText.shown(word))")
            #expect(!word.contains(" ") || word.hasPrefix("\""))
        }
        #expect(try ShellText.systemdArgument("-x", what: "v") == "\"-x\"")
        #expect(try ShellText.systemdArgument(";", what: "v") == "\";\"")
        #expect(try ShellText.systemdArgument("/opt/feedline", what: "v") == "/opt/feedline")
    }

    @Test("a unit-file value ending in a backslash (a continued line) or with white space at an end is refused; % is doubled")
    func systemdValueEdges() throws {
        #expect(throws: ShellText.Refusal.self) { try ShellText.systemdValue("/srv/feedline\\", what: "home path") }
        #expect(throws: ShellText.Refusal.self) { try ShellText.systemdValue(" /srv/feedline", what: "home path") }
        #expect(throws: ShellText.Refusal.self) { try ShellText.systemdValue("/srv/feedline ", what: "home path") }
        #expect(try ShellText.systemdValue("/srv/100% a\\b", what: "home path") == "/srv/100%% a\\b")
        let renderer = CrontabRenderer(executable: "/bin/feedline", home: "/srv/x\\", database: "/d.sqlite", logDirectory: "/l")
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let directory = try env.writeScheduledPipelines()
        #expect(env.feedline.crontab(paths: env.paths(pipelines: directory), renderer: renderer, systemd: true) == .configuration)
        #expect(env.err.text.contains("ends in a backslash"), "\(env.err.text)")
    }

    // MARK: - Pipeline names

    /// Names a pipeline file must not have, each with a reason it is dangerous.
    static let hostileNames = [
        "x\n* * * * * touch PWNED #",   // a second crontab line
        "-run --db=evil",               // an option
        "--db=evil",
        "a b",                          // two words
        "it's",                         // a quote
        "a\"b",
        "$(touch PWNED)",               // command substitution
        "`id`",
        "a;b", "a|b", "a&b", "a%b", "a>b", "a*b",
        "tab\there",
        "서울",                          // not an identifier for unit names
        ".hidden",
    ]

    @Test("a pipeline file whose name is not an identifier is refused when read, with an error naming the file")
    func hostileNamesRefused() throws {
        for name in Self.hostileNames {
            let env = try TestEnvironment()
            defer { env.dir.remove() }
            let directory = try env.writeScheduledPipelines()
            try "source: airkorea\noperation: stations\nschedule: \"* * * * *\"\n".write(to: directory.appendingPathComponent(name + ".yaml"), atomically: false, encoding: .utf8)
            let catalog = PipelineCatalog(directory: directory, feeds: env.environment.feeds, workingDirectory: env.environment.workingDirectory)
            let (pipelines, problems) = catalog.loadAll()
            #expect(!pipelines.contains { $0.name == name }, "\(ShellText.shown(name)) was accepted")
            let problem = problems.first { $0.description.contains("pipeline name") }
            #expect(problem != nil, "no problem names \(ShellText.shown(name)): \(problems)")
            if let problem {
                #expect(!problem.description.contains("\n"), "the error is one line: \(ShellText.shown(problem.description))")
                #expect(problem.description.contains(".yaml"))
            }

            // The crontab is not printed at all, so no line can run the name.
            #expect(env.feedline.crontab(paths: env.paths(pipelines: directory), renderer: renderer, systemd: false) == .configuration)
            #expect(!env.out.text.contains("PWNED") && !env.out.text.contains("evil"), "\(env.out.text)")
            #expect(env.feedline.crontab(paths: env.paths(pipelines: directory), renderer: renderer, systemd: true) == .configuration)
            #expect(!env.out.text.contains("PWNED") && !env.out.text.contains("evil"), "\(env.out.text)")
        }
    }

    @Test("identifier names are accepted", arguments: ["airkorea-seoul", "a", "_x", "A.b_c-9", "9lives"])
    func identifierNamesAccepted(name: String) {
        #expect(PipelineName.problem(name) == nil)
    }

    let renderer = CrontabRenderer(executable: "/opt/feedline/bin/feedline", home: "/srv/feedline",
                                   database: "/srv/feedline/Data/feedline.sqlite", logDirectory: "/var/log/feedline")

    @Test("hostile paths in a crontab stay one line per pipeline and read back through cron and sh; a newline in a path is refused")
    func hostilePathsInCrontab() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let directory = try env.writeScheduledPipelines()
        let paths = (executable: "/opt/my $(touch PWNED) `id`/feed'line", repository: "/srv/100%\\%/it's", database: "-db;x.sqlite", logs: "/var/log/%s\"")
        let odd = CrontabRenderer(executable: paths.executable, home: paths.repository, database: paths.database, logDirectory: paths.logs)
        #expect(env.feedline.crontab(paths: env.paths(pipelines: directory), renderer: odd, systemd: false) == .success, "\(env.err.text)")
        let commands = env.out.text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.hasPrefix("CRON_TZ=") }
        #expect(commands.count == 2, "\(env.out.text)")
        for line in commands {
            // Five fields, then the command; cron's reading of it, with `printf` for `cd` and
            // the executable, shows the words sh would run.
            let fields = line.split(separator: " ", maxSplits: 5)
            let command = try #require(Self.cronReads(String(fields[5])))
            let words = command.replacingOccurrences(of: " && ", with: " ").replacingOccurrences(of: " 2>&1", with: "")
                .replacingOccurrences(of: " >>", with: " ")
            let printed = try Self.sh("printf '%s\\0' " + words.dropFirst("cd ".count))
                .split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            #expect(printed.first == paths.repository)
            #expect(printed.dropFirst().first == paths.executable)
            #expect(printed.contains(paths.database))
            #expect(printed.last?.hasPrefix(paths.logs + "/") == true)
        }

        let newline = CrontabRenderer(executable: "/bin/feedline", home: "/srv\n* * * * * touch PWNED", database: "/d.sqlite", logDirectory: "/l")
        #expect(env.feedline.crontab(paths: env.paths(pipelines: directory), renderer: newline, systemd: false) == .configuration)
        #expect(env.feedline.crontab(paths: env.paths(pipelines: directory), renderer: newline, systemd: true) == .configuration)
        #expect(!env.out.text.contains("\n* * * * * touch PWNED"))
        #expect(env.err.text.contains("home path"), "\(env.err.text)")
    }
}
