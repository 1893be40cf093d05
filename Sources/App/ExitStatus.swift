/// feedline's exit codes (documented in the README).
public enum ExitStatus: Int32, Sendable {
    /// Everything asked for succeeded.
    case success = 0
    /// A run failed for a reason a retry will not fix (bad key, bad parameter, malformed data);
    /// for `status --check`, a warning.
    case failure = 1
    /// Nothing was run and nothing failed: the pipeline was already running (another run holds
    /// its lock), or today's API quota is used up. The next scheduled run goes on; a supervisor
    /// may count this as success (systemd `SuccessExitStatus=10`).
    case deferred = 10
    /// `status --check`: an error (the monitoring plug-in convention's CRITICAL).
    case checkError = 2
    /// Some files or pipelines failed and the rest loaded (replay of a mixed directory, several pipelines).
    case partial = 3
    /// Command-line usage error (ArgumentParser's own code).
    case usage = 64
    /// A run failed for a reason that may pass — the source is down (5xx, timeout, reset), still
    /// rate-limited after waiting, or the database was busy past its timeout: try again later.
    /// A failure all the same: a supervisor should show it.
    case temporaryFailure = 75
    /// Configuration error: missing API key, invalid pipeline file, unknown pipeline, missing
    /// database (readers), a database that is another application's or a newer feedline's.
    case configuration = 78
}
