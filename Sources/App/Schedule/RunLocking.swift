import Dispatch
import Domain
import Foundation
import Pipeline
import Storage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How run locks are taken and kept: this host's name, this process's id, how a process is
/// probed, and the heartbeat timing.
public struct RunLockSettings: Sendable {
    public var host: String
    public var pid: Int32
    /// A holder that has not refreshed its heartbeat for this long is stale (seconds).
    public var heartbeatTimeout: TimeInterval
    /// How often a running pipeline refreshes its heartbeat (seconds).
    public var heartbeatInterval: TimeInterval
    public var isProcessAlive: @Sendable (Int32) -> Bool

    public init(host: String, pid: Int32, heartbeatTimeout: TimeInterval = 900, heartbeatInterval: TimeInterval = 60,
                isProcessAlive: @escaping @Sendable (Int32) -> Bool) {
        self.host = host; self.pid = pid; self.heartbeatTimeout = heartbeatTimeout
        self.heartbeatInterval = heartbeatInterval; self.isProcessAlive = isProcessAlive
    }

    /// This process on this host, probing other processes with `kill(pid, 0)`.
    public static var live: RunLockSettings {
        RunLockSettings(host: hostName(), pid: getpid(), isProcessAlive: processIsAlive)
    }

    var staleness: RunLockStaleness {
        RunLockStaleness(host: host, heartbeatTimeout: heartbeatTimeout, isProcessAlive: isProcessAlive)
    }

    /// `kill(pid, 0)`: alive unless it fails with ESRCH (EPERM means alive, owned by someone else).
    public static func processIsAlive(_ pid: Int32) -> Bool { RunProcess.processIsAlive(pid) }

    public static func hostName() -> String { RunProcess.hostName() }
}

/// A run lock this process holds: refreshes its heartbeat on a timer off the Swift
/// concurrency pool until `release()`.
final class HeldRunLock: @unchecked Sendable {
    let pipeline: String
    let holder: String
    private let store: any FeedlineStore
    private let timer: DispatchSourceTimer
    private let lock = NSLock()
    private var released = false

    init(pipeline: String, holder: String, store: any FeedlineStore, interval: TimeInterval, clock: @escaping @Sendable () -> Date) {
        self.pipeline = pipeline
        self.holder = holder
        self.store = store
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "feedline.run-lock.heartbeat"))
        timer.schedule(deadline: .now() + interval, repeating: interval)
        // Weak: the timer must not keep the store (and its connections) open after the run; the
        // last release closes the database, checkpointing the WAL, and must happen in the caller.
        timer.setEventHandler { [weak store] in _ = try? store?.heartbeatRunLock(pipeline: pipeline, holder: holder, now: clock()) }
        timer.resume()
    }

    /// Stops the heartbeat and deletes the lock row (if still ours). Safe to call twice.
    func release() {
        let first: Bool = lock.withLock { defer { released = true }; return !released }
        guard first else { return }
        timer.cancel()
        try? store.releaseRunLock(pipeline: pipeline, holder: holder)
    }

    deinit { release() }
}

/// Why a run lock was not taken: another live run holds it, or the lock table could not be used.
struct RunLockRefusal: Error, Sendable {
    var message: String
    /// Another run holds the lock (not an error reading it): the pipeline is deferred, not failed.
    var heldElsewhere = false
}

extension AppEnvironment {
    /// Takes the run lock of `pipeline` in `store`, or says why not ("pipeline X is already
    /// running (pid N since T)"): the caller skips the pipeline and exits 10 (deferred). A stale lock (dead
    /// pid on this host, or no heartbeat within the timeout) is taken over with a warning in the log.
    func acquireRunLock(_ pipeline: String, store: any FeedlineStore) -> Result<HeldRunLock, RunLockRefusal> {
        let settings = runLocks
        let holder = "\(settings.host):\(settings.pid):\(UUID().uuidString.lowercased())"
        let now = clock()
        do {
            switch try store.acquireRunLock(pipeline: pipeline, holder: holder, pid: settings.pid, now: now, staleness: settings.staleness) {
            case .acquired(let previous):
                if let previous {
                    logger.warning("took over a stale run lock", metadata: [
                        "lock.pipeline": "\(pipeline)", "lock.previous_pid": "\(previous.pid)", "lock.previous_host": "\(previous.host)",
                        "lock.previous_heartbeat": "\(iso8601UTC(previous.heartbeatAt))",
                    ])
                }
                return .success(HeldRunLock(pipeline: pipeline, holder: holder, store: store,
                                            interval: settings.heartbeatInterval, clock: clock))
            case .held(let by):
                return .failure(RunLockRefusal(message: Console.alreadyRunningMessage(by, thisHost: settings.host), heldElsewhere: true))
            }
        } catch let error as DatabaseAccessError {
            return .failure(RunLockRefusal(message: "cannot take the run lock of pipeline \(pipeline): \(error)"))
        } catch {
            return .failure(RunLockRefusal(message: "cannot take the run lock of pipeline \(pipeline) in \(store.location): \(error)"))
        }
    }
}

extension Console {
    /// `pipeline X is already running (pid N since T)`, naming the host when it is another one.
    static func alreadyRunningMessage(_ holder: RunLockHolder, thisHost: String) -> String {
        let host = holder.host == thisHost ? "" : " on \(holder.host)"
        return "pipeline \(holder.pipeline) is already running (pid \(holder.pid)\(host) since \(iso8601UTC(holder.acquiredAt))); try again later."
    }
}
