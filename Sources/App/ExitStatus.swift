/// feedline's exit codes (documented in the README).
public enum ExitStatus: Int32, Sendable {
    /// Everything asked for succeeded.
    case success = 0
    /// A run failed for a reason a retry will not fix (bad key, bad parameter, malformed data);
    /// for `status --check`, a warning.
    case failure = 1
    /// `status --check`: an error (the monitoring plug-in convention's CRITICAL).
    case checkError = 2
    /// Some files or pipelines failed and the rest loaded (replay of a mixed directory, several pipelines).
    case partial = 3
    /// Command-line usage error (ArgumentParser's own code).
    case usage = 64
    /// A run failed for a reason that may pass (quota, timeout, 5xx, the pipeline already running,
    /// the database busy past its timeout): try again later.
    case temporaryFailure = 75
    /// Configuration error: missing API key, invalid pipeline file, unknown pipeline, missing
    /// database (readers), a database that is another application's or a newer feedline's.
    case configuration = 78
}
