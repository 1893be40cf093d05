import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process that writes the ledger: its host and pid go into each run it begins, and its
/// probe tells whether another run's process on this host is still alive.
public struct RunProcess: Sendable {
    public var host: String
    public var pid: Int32
    /// Whether a process id is alive on this host.
    public var isAlive: @Sendable (Int32) -> Bool

    public init(host: String, pid: Int32, isAlive: @escaping @Sendable (Int32) -> Bool) {
        self.host = host; self.pid = pid; self.isAlive = isAlive
    }

    /// This process on this host, probing others with `kill(pid, 0)`.
    public static var current: RunProcess {
        RunProcess(host: hostName(), pid: getpid(), isAlive: processIsAlive)
    }

    /// `kill(pid, 0)`: alive unless it fails with ESRCH (EPERM means alive, owned by someone else).
    public static func processIsAlive(_ pid: Int32) -> Bool {
        guard pid > 0 else { return false }
        if kill(pid, 0) == 0 { return true }
        return errno != ESRCH
    }

    /// This machine's host name (`localhost` if it cannot be read).
    public static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
