import Foundation

extension AppEnvironment {
    /// The one line for a live run that lacks API keys: every missing variable, and the exact
    /// command that runs the same pipelines from their fixture files instead (the same names,
    /// and `--db`/`--pipelines-dir`/`--fixtures` when they differ from the defaults).
    func missingKeysMessage(_ variables: [String], names: [String], paths: Paths) -> String {
        let defaults = Paths(environment: self)
        var command = ["feedline", "run"] + names
        if paths.postgresURL != nil { command += ["--db", paths.databaseName] }
        else if paths.database != defaults.database { command += ["--db", displayPath(paths.database)] }
        if paths.pipelines != defaults.pipelines { command += ["--pipelines-dir", displayPath(paths.pipelines)] }
        if paths.fixtures != defaults.fixtures { command += ["--fixtures", displayPath(paths.fixtures)] }
        let shown = "`" + command.map(ShellText.shellWord).joined(separator: " ") + "`"
        let what = names.count == 1 ? "the pipeline from its fixture files" : "the same pipelines from their fixture files"
        if variables.count == 1 {
            return "live mode needs an API key: set \(variables[0]) in the environment. Without it, \(shown) loads \(what)."
        }
        let list = variables.dropLast().joined(separator: ", ") + " and " + variables.last!
        return "live mode needs \(variables.count) API keys: set \(list) in the environment. Without them, \(shown) loads \(what)."
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
