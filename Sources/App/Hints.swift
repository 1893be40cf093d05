import Foundation
import Pipeline

extension AppEnvironment {
    /// The one line for a live run that lacks API keys: every missing variable, and the exact
    /// command that runs the same pipelines from their fixture files instead (the same names,
    /// and `--db`/`--pipelines-dir`/`--fixtures` when they differ from the defaults).
    func missingKeysMessage(_ variables: [String], names: [String], paths: Paths, pipelines: [PipelineDefinition] = []) -> String {
        let defaults = Paths(environment: self)
        var command = ["feedline", "run"] + names
        if paths.postgresURL != nil { command += ["--db", paths.databaseName] }
        else if paths.database != defaults.database { command += ["--db", displayPath(paths.database)] }
        if paths.pipelines != defaults.pipelines { command += ["--pipelines-dir", displayPath(paths.pipelines)] }
        if paths.fixtures != defaults.fixtures { command += ["--fixtures", displayPath(paths.fixtures)] }
        let shown = "`" + command.map(ShellText.shellWord).joined(separator: " ") + "`"
        let what = names.count == 1 ? "the pipeline from its fixture files" : "the same pipelines from their fixture files"
        // What each key must be approved for, when its provider approves per service (data.go.kr).
        let approvals = variables.compactMap { variable -> String? in
            let feeds = self.feeds.filter { $0.credentialVariable == variable }
            let services = feeds.flatMap { feed in feed.keyApprovals(for: pipelines.filter { $0.source == feed.source }.map(\.spec.operation)) }
            return services.isEmpty ? nil : "\(variable) must be approved for \(services.joined(separator: ", "))"
        }
        let approved = approvals.isEmpty ? "" : " (" + approvals.joined(separator: "; ") + ")"
        if variables.count == 1 {
            return "live mode needs an API key: set \(variables[0]) in the environment\(approved). Without it, \(shown) loads \(what)."
        }
        let list = variables.dropLast().joined(separator: ", ") + " and " + variables.last!
        return "live mode needs \(variables.count) API keys: set \(list) in the environment\(approved). Without them, \(shown) loads \(what)."
    }

}

extension AppEnvironment {
    /// `url` as a user would type it: relative to the working directory when inside it,
    /// absolute otherwise.
    func displayPath(_ url: URL) -> String {
        let path = url.standardizedFileURL.path
        let base = workingDirectory.standardizedFileURL.path
        let prefix = base.hasSuffix("/") ? base : base + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }
}
