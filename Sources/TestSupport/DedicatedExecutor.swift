import Dispatch

// MARK: - Running off the cooperative pool

/// A task executor with its own serial queue (so its own thread when it blocks).
///
/// `feedline`'s use cases are async but do long synchronous stretches (parsing, hashing,
/// SQLite). Test cases run in parallel on Swift's cooperative pool — as many threads as cores,
/// two on CI — so one test parsing a large document would starve every other test's HTTP
/// client and make their timeouts fire. Each test body runs here instead.
public final class DedicatedExecutor: TaskExecutor, @unchecked Sendable {
    private let queue = DispatchQueue(label: "feedline.reliability-test")

    public init() {}

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

/// Runs `body` with a `DedicatedExecutor` preferred, off the cooperative pool.
public func onOwnThread<T>(_ body: () async throws -> T) async throws -> T {
    try await withTaskExecutorPreference(DedicatedExecutor()) { try await body() }
}
