import ArgumentParser
@testable import App
import Foundation
import Testing
import TestSupport

/// The man page and completion scripts come from the command tree alone (`GeneratedDocs`), the
/// committed copies match it, help examples fit an 80-column terminal, and the completion
/// scripts offer pipeline and saved query names.
@Suite struct GeneratedDocsTests {
    @Test func theCommittedManPageAndCompletionsMatchTheCommandTree() throws {
        for file in GeneratedDocs.files() {
            let url = FixturePaths.repositoryRoot.appendingPathComponent(file.path)
            let committed = try? String(contentsOf: url, encoding: .utf8)
            #expect(committed != nil, "\(file.path) is missing: run `\(GeneratedDocs.regenerateCommand)` and commit the result")
            guard let committed, committed != file.contents else { continue }
            let old = committed.components(separatedBy: "\n"), new = file.contents.components(separatedBy: "\n")
            let line = zip(old, new).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(old.count, new.count)
            Issue.record("""
                \(file.path) differs from what the command tree produces (first at line \(line + 1)):
                  committed: \(line < old.count ? old[line] : "<end of file>")
                  generated: \(line < new.count ? new[line] : "<end of file>")
                Run `\(GeneratedDocs.regenerateCommand)` and commit the result.
                """)
        }
    }

    /// The help and the man page list the key variables of exactly the registered feeds.
    @Test func theHelpListsTheKeyVariableOfEveryRegisteredFeed() {
        #expect(AppEnvironment.credentialVariables == AppEnvironment.standardFeeds(variables: [:]).map(\.credentialVariable),
                "a feed was registered or removed: update AppEnvironment.credentialVariables and run `\(GeneratedDocs.regenerateCommand)`")
    }

    /// Every command type in the tree, with its path (`["feedline", "run"]`).
    func commands(_ type: ParsableCommand.Type = FeedlineCommand.self, path: [String] = []) -> [(path: [String], type: ParsableCommand.Type)] {
        let here = path + [type.configuration.commandName ?? "?"]
        return [(here, type)] + type.configuration.subcommands.flatMap { commands($0, path: here) }
    }

    @Test func theManPageKeepsParagraphsWholeAndExamplesVerbatim() {
        let page = ManPage.render()
        let lines = page.components(separatedBy: "\n")
        #expect(lines.contains(".TH FEEDLINE 1 \"\" \"feedline \(FeedlineCommand.configuration.version)\" \"User Commands\""))
        for (path, type) in commands() where type.configuration.shouldDisplay {
            let discussion = type.configuration.discussion
            for paragraph in discussion.components(separatedBy: "\n\n") {
                for line in paragraph.components(separatedBy: "\n") where !line.isEmpty {
                    // Each source line is one roff line: a prose paragraph is never cut mid-sentence,
                    // an example keeps its whole command.
                    let expected = ManPage.text(line.hasPrefix("  ") ? String(line.dropFirst(2)) : line)
                    #expect(lines.contains(expected), "\(path.joined(separator: " ")): \(line)")
                }
            }
            if path.count > 1 {
                #expect(lines.contains(".SS \"\(ManPage.text(path.joined(separator: " ")))\""), "\(path)")
            }
        }
        #expect(!page.contains("generate\\-docs"), "the hidden command stays out of the page")
        #expect(page.contains("종로구"), "UTF-8 examples are kept")
        #expect(!page.contains("OVERVIEW:"), "the page is not a copy of wrapped --help output")
    }

    @Test func everyHelpExampleFitsAnEightyColumnTerminal() {
        for (path, type) in commands() where type.configuration.shouldDisplay {
            let help = FeedlineCommand.helpMessage(for: type, columns: 80).components(separatedBy: "\n")
            for line in type.configuration.discussion.components(separatedBy: "\n") where line.hasPrefix("  feedline") {
                #expect(DisplayWidth.columns(line) <= 80, "\(path.joined(separator: " ")): \(DisplayWidth.columns(line)) columns: \(line)")
                #expect(help.contains(line), "\(path.joined(separator: " ")) --help wraps the example: \(line)")
            }
        }
        let pipelines = PipelinesCommand.configuration.discussion
        #expect(pipelines.contains("Examples:\n  feedline pipelines"))
    }

    @Test func completionScriptsAskFeedlineForPipelineAndSavedQueryNames() {
        for file in GeneratedDocs.files() where file.path.hasPrefix("Data/completions/") {
            for callback in ["run -- positional@0", "schedule -- positional@0", "backfill -- positional@0",
                             "query -- positional@0", "query -- --saved"] {
                #expect(file.contents.contains("---completion \(callback)"), "\(file.path): \(callback)")
            }
            #expect(!file.contents.contains("generate-docs"), "\(file.path)")
        }
    }

    @Test func completionCandidatesComeFromThePipelinesAndQueriesDirectories() throws {
        let dir = try TemporaryDirectory("completion")
        defer { dir.remove() }
        let pipelines = dir.path("Pipelines"), other = dir.path("other"), queries = dir.path("Data/queries")
        for directory in [pipelines, other, queries] { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
        for name in ["b-seoul.yaml", "a-jongno.yml", "notes.txt", ".hidden.yaml"] { try Data().write(to: pipelines.appendingPathComponent(name)) }
        try Data().write(to: other.appendingPathComponent("elsewhere.yaml"))
        for name in ["daily.sql", "by_station.sql", "bad name.sql", "readme.md"] { try Data().write(to: queries.appendingPathComponent(name)) }

        #expect(ShellCompletion.pipelineNames(in: pipelines) == ["a-jongno", "b-seoul"])
        #expect(ShellCompletion.savedQueryNames(in: queries) == ["by_station", "daily"])
        #expect(ShellCompletion.pipelineNames(in: dir.path("missing")) == [])

        func directory(_ words: [String], _ environment: [String: String] = [:]) -> URL {
            ShellCompletion.directory(option: "--pipelines-dir", variable: "FEEDLINE_PIPELINES", fallback: "Pipelines",
                                      words: words, environment: environment, workingDirectory: dir.url)
        }
        #expect(directory(["feedline", "run", ""]).path == pipelines.path)
        #expect(directory(["feedline", "run", "--pipelines-dir", "other", ""]).path == other.path)
        #expect(directory(["feedline", "run", "--pipelines-dir=\(other.path)", ""]).path == other.path)
        #expect(directory(["feedline", "run", ""], ["FEEDLINE_PIPELINES": "other"]).path == other.path)
        #expect(ShellCompletion.pipelineNames(in: directory(["feedline", "run", "--pipelines-dir", "other"])) == ["elsewhere"])
    }
}
