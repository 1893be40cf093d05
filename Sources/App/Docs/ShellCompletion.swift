import ArgumentParser
import Foundation

/// Candidates the shell completion scripts ask `feedline` for at completion time: the pipeline
/// names in the pipelines directory and the saved query names in the queries directory. The
/// directories follow the command line being completed (`--pipelines-dir`, `--queries-dir`),
/// then `FEEDLINE_PIPELINES` / `FEEDLINE_QUERIES`, then `Pipelines` / `Data/queries` under the
/// working directory — the same order the commands use. Nothing is validated or printed: a
/// missing or unreadable directory offers no candidates.
enum ShellCompletion {
    /// Pipeline names (`*.yaml`/`*.yml` file names without the extension), sorted.
    static func pipelineNames(in directory: URL) -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let names = files.compactMap { file -> String? in
            guard !file.hasPrefix(".") else { return nil }
            let url = URL(fileURLWithPath: file)
            return ["yaml", "yml"].contains(url.pathExtension.lowercased()) ? url.deletingPathExtension().lastPathComponent : nil
        }
        return Array(Set(names)).sorted()
    }

    /// Saved query names (`NAME.sql` files with a plain name), sorted.
    static func savedQueryNames(in directory: URL) -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { $0.hasSuffix(".sql") && !$0.hasPrefix(".") }
            .map { String($0.dropLast(".sql".count)) }
            .filter(SavedQuery.looksLikeName)
            .sorted()
    }

    /// The directory named by `option` on the command line being completed (`--opt dir` or
    /// `--opt=dir`), else the environment variable `variable`, else `fallback`; relative paths
    /// are taken from `workingDirectory`.
    static func directory(option: String, variable: String, fallback: String, words: [String],
                          environment: [String: String], workingDirectory: URL) -> URL {
        var chosen: String?
        for (i, word) in words.enumerated() {
            if word == option, i + 1 < words.count { chosen = words[i + 1] }
            if word.hasPrefix(option + "=") { chosen = String(word.dropFirst(option.count + 1)) }
        }
        let path = NSString(string: chosen ?? environment[variable] ?? fallback).expandingTildeInPath
        return path.hasPrefix("/") ? URL(fileURLWithPath: path) : workingDirectory.appendingPathComponent(path)
    }

    static var workingDirectory: URL { URL(fileURLWithPath: FileManager.default.currentDirectoryPath) }

    /// Completion of a pipeline name.
    static let pipelines = CompletionKind.custom { words, _, _ in
        pipelineNames(in: directory(option: "--pipelines-dir", variable: "FEEDLINE_PIPELINES", fallback: "Pipelines", words: words,
                                    environment: ProcessInfo.processInfo.environment, workingDirectory: workingDirectory))
    }

    /// Completion of a saved query name.
    static let savedQueries = CompletionKind.custom { words, _, _ in
        savedQueryNames(in: directory(option: "--queries-dir", variable: "FEEDLINE_QUERIES", fallback: "Data/queries", words: words,
                                      environment: ProcessInfo.processInfo.environment, workingDirectory: workingDirectory))
    }
}

extension CompletionKind {
    /// Pipeline names from the pipelines directory (see `ShellCompletion`).
    static var pipelineNames: CompletionKind { ShellCompletion.pipelines }
    /// Saved query names from the queries directory (see `ShellCompletion`).
    static var savedQueryNames: CompletionKind { ShellCompletion.savedQueries }
}
