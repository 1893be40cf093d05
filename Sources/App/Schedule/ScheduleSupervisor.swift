import CProcess
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `feedline schedule` as two processes: a supervisor that only waits, and a scheduling process
/// started from it for each stretch of work.
///
/// Why: once a process has closed a GRDB database, libdispatch checks its worker threads once a
/// second for the rest of the process's life (GRDB's queues carry queue-specific values, whose
/// destructors libdispatch runs on its default queue; the first worker of that queue starts the
/// monitor). That tick was most of what an idle scheduler cost: 0.26 s of CPU per hour. So the
/// process that waits never opens a database or starts a thread: it blocks in `sigtimedwait`
/// until the next fire time is near, or until SIGTERM / SIGINT.
///
/// How: `feedline schedule` (after parsing and validating its options) re-executes itself as the
/// supervisor (`FEEDLINE_SCHEDULE_SUPERVISE`). The supervisor starts the same command line as a
/// *cycle* (`FEEDLINE_SCHEDULE_CYCLE`): the ordinary scheduler loop, which runs what is due,
/// stays for fire times less than `ScheduleCycle.handBackAfter` (15 minutes) away, and otherwise writes a
/// report (runs made, the next fire time, each pipeline's cursor) to the supervisor and exits.
/// The next cycle starts `ScheduleCycle.lead` before that fire time with the cursors of the
/// last, so no slot is run twice or caught up that the one process would not have.
/// Signals reach the supervisor (the cycle runs in a process group of its own, so Ctrl-C reaches
/// only the supervisor), which passes them on to a running cycle (it finishes the run in hand)
/// and otherwise stops at once. A cycle that fails (a bad pipeline file, the database refused)
/// ends the supervisor with its exit status. `FEEDLINE_SCHEDULE_PROCESS=single` keeps it all in
/// one process.
public enum ScheduleSupervisor {
    static let superviseVariable = "FEEDLINE_SCHEDULE_SUPERVISE"
    static let cycleVariable = "FEEDLINE_SCHEDULE_CYCLE"
    static let processVariable = "FEEDLINE_SCHEDULE_PROCESS"
    /// The file descriptor a cycle writes its report to.
    static let reportDescriptor: Int32 = 3

    // MARK: Entry points

    /// Called by the executable first thing, on the main thread: when this process image is the
    /// supervisor, runs it and returns its exit status; nil otherwise (a `getenv` or two).
    ///
    /// A cycle asks here to be sent SIGTERM if the supervisor dies (killed with SIGKILL): it then
    /// finishes its run in hand and stops. Here, because the kernel keeps that request with the
    /// thread that made it, and the main thread lives as long as the process.
    public static func runIfRequested() -> Int32? {
        if getenv(cycleVariable) != nil {
            feedline_signal_when_parent_dies(SIGTERM)
            // The report pipe is this process's alone: nothing it might start may hold it open
            // (the supervisor reads until every writer has closed it).
            _ = fcntl(reportDescriptor, F_SETFD, FD_CLOEXEC)
        }
        guard let raw = getenv(superviseVariable) else { return nil }
        let quiet = String(cString: raw) == "quiet"
        unsetenv(superviseVariable)
        var supervisor = Supervisor(quiet: quiet)
        return supervisor.run()
    }

    /// Called by `feedline schedule` once its options are valid: re-executes this program as the
    /// supervisor. Returns only when the scheduler should run in this process: it is a cycle
    /// already, `FEEDLINE_SCHEDULE_PROCESS=single` says so, or the exec failed (then with why).
    static func becomeSupervisor(variables: [String: String], quiet: Bool) -> String? {
        if variables[cycleVariable] != nil || variables[processVariable] == "single" { return nil }
        setenv(superviseVariable, quiet ? "quiet" : "1", 1)
        let arguments = CommandLine.arguments
        let argv = arguments.map { strdup($0) } + [nil]
        execv("/proc/self/exe", argv)
        let reason = String(cString: strerror(errno))
        unsetenv(superviseVariable)
        for pointer in argv { free(pointer) }
        return "could not start the waiting process (\(reason)); scheduling in this one"
    }

    // MARK: The supervisor

    struct Supervisor {
        var quiet: Bool
        var runs = 0
        var stopReason: String?

        init(quiet: Bool) { self.quiet = quiet }

        func say(_ text: String) { if !quiet { writeAll(1, text + "\n") } }
        func complain(_ text: String) { writeAll(2, text + "\n") }

        mutating func run() -> Int32 {
            var signals = sigset_t()
            sigemptyset(&signals)
            for number in [SIGTERM, SIGINT, SIGCHLD, SIGIO] { sigaddset(&signals, number) }
            // Blocked, they wait in the kernel for `sigtimedwait`; no handler runs.
            sigprocmask(SIG_BLOCK, &signals, nil)

            var cycle = ScheduleCycle(first: true, parent: getpid())
            while true {
                let outcome: CycleOutcome
                switch runCycle(cycle, signals: signals) {
                case .failure(let failure): return failure.status
                case .success(let report): outcome = report
                }
                runs += outcome.runs
                cycle.first = false
                cycle.cursors = outcome.cursors
                if stopReason == nil, let reason = outcome.stoppedBy { stopReason = reason }
                if let reason = stopReason { return stopped(reason) }
                if let reason = wait(until: outcome.next.map { $0.addingTimeInterval(-ScheduleCycle.lead) }, signals: signals) {
                    complain("feedline schedule: \(reason) received; finishing the run in hand, then stopping.")
                    return stopped(reason)
                }
            }
        }

        func stopped(_ reason: String) -> Int32 {
            say("feedline schedule: stopped on \(reason) after \(runs) run\(runs == 1 ? "" : "s").")
            return 0
        }

        /// Waits until `instant` (forever when nil); returns the signal's name if SIGTERM or SIGINT came first.
        func wait(until instant: Date?, signals: sigset_t) -> String? {
            var signals = signals
            while true {
                var info = siginfo_t()
                let number: Int32
                if let instant {
                    // At most five minutes at a time: the wall clock is looked at again (a wait
                    // measures elapsed time, which drifts from the wall clock across a suspend).
                    let left = min(instant.timeIntervalSinceNow, 300)
                    if left <= 0 { return nil }
                    var timeout = timespec(tv_sec: Int(left), tv_nsec: Int((left - left.rounded(.down)) * 1e9))
                    number = sigtimedwait(&signals, &info, &timeout)
                } else {
                    number = sigwaitinfo(&signals, &info)
                }
                if number == SIGTERM || number == SIGINT { return SignalStopper.name(of: number) }
                // SIGCHLD (no cycle is running), a timeout (EAGAIN) or EINTR: look at the clock again.
            }
        }

        /// Starts one cycle and waits for it, passing SIGTERM and SIGINT on.
        mutating func runCycle(_ cycle: ScheduleCycle, signals: sigset_t) -> Result<CycleOutcome, CycleFailure> {
            var report: [Int32] = [0, 0]
            // Close-on-exec: only the duplicate made for the cycle (descriptor 3) is inherited.
            guard pipe(&report) == 0, fcntl(report[0], F_SETFD, FD_CLOEXEC) == 0, fcntl(report[1], F_SETFD, FD_CLOEXEC) == 0 else {
                complain("error: feedline schedule: cannot start a scheduling process: \(String(cString: strerror(errno)))")
                return .failure(CycleFailure(status: 1))
            }
            defer { close(report[0]) }
            // The report is read as it arrives (SIGIO wakes the wait below), not only once the
            // cycle has exited: a report larger than the pipe holds would otherwise block the
            // cycle's write while the supervisor waits for its exit.
            _ = fcntl(report[0], F_SETOWN, getpid())
            _ = fcntl(report[0], F_SETFL, O_NONBLOCK | O_ASYNC)
            var received: [UInt8] = []
            let child = spawn(cycle, reportWriter: report[1])
            close(report[1])
            guard let child else { return .failure(CycleFailure(status: 1)) }

            var signals = signals
            var status: Int32 = 0
            while true {
                var info = siginfo_t()
                let number = sigwaitinfo(&signals, &info)
                if number == SIGTERM || number == SIGINT {
                    let name = SignalStopper.name(of: number)
                    complain("feedline schedule: \(stopReason == nil ? name : "\(name) again") received; finishing the run in hand, then stopping.")
                    if stopReason == nil { stopReason = name }
                    kill(child, number)
                    continue
                }
                drain(report[0], into: &received)
                // SIGCHLD, SIGIO or EINTR: has the cycle ended?
                let reaped = waitpid(child, &status, WNOHANG)
                if reaped == child { break }
                if reaped < 0 && errno != EINTR {
                    complain("error: feedline schedule: lost the scheduling process: \(String(cString: strerror(errno)))")
                    return .failure(CycleFailure(status: 1))
                }
            }
            drain(report[0], into: &received)
            let text = String(decoding: received, as: UTF8.self)
            if isExited(status) {
                let code = exitCode(status)
                guard code == 0 else { return .failure(CycleFailure(status: code)) }
                guard let outcome = CycleOutcome(report: text) else {
                    complain("error: feedline schedule: the scheduling process ended without a report")
                    return .failure(CycleFailure(status: 1))
                }
                return .success(outcome)
            }
            let signal = status & 0x7f
            // The signal passed on reached it after it had stopped listening (its report written,
            // or before it began): it stopped, as asked.
            if stopReason != nil && (signal == SIGTERM || signal == SIGINT) {
                return .success(CycleOutcome(report: text) ?? CycleOutcome(runs: 0, next: nil, stoppedBy: stopReason, cursors: cycle.cursors))
            }
            complain("error: feedline schedule: the scheduling process was killed by signal \(signal)")
            return .failure(CycleFailure(status: 128 + signal))
        }

        /// This program again, with the same arguments, as a cycle: default signal handling, no
        /// blocked signals, a process group of its own, the report pipe as descriptor 3.
        func spawn(_ cycle: ScheduleCycle, reportWriter: Int32) -> pid_t? {
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, reportWriter, ScheduleSupervisor.reportDescriptor)

            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var none = sigset_t()
            sigemptyset(&none)
            posix_spawnattr_setsigmask(&attributes, &none)
            var defaults = sigset_t()
            sigemptyset(&defaults)
            sigaddset(&defaults, SIGTERM)
            sigaddset(&defaults, SIGINT)
            posix_spawnattr_setsigdefault(&attributes, &defaults)
            posix_spawnattr_setpgroup(&attributes, 0)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

            var environment = ProcessInfo.processInfo.environment
            environment[ScheduleSupervisor.cycleVariable] = cycle.encoded
            environment[ScheduleSupervisor.superviseVariable] = nil
            let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            let argv = CommandLine.arguments.map { strdup($0) } + [nil]
            defer { for pointer in envp + argv { free(pointer) } }
            var child: pid_t = 0
            let failure = posix_spawn(&child, "/proc/self/exe", &actions, &attributes, argv, envp)
            guard failure == 0 else {
                complain("error: feedline schedule: cannot start a scheduling process: \(String(cString: strerror(failure)))")
                return nil
            }
            return child
        }
    }

    struct CycleFailure: Error { var status: Int32 }

    // MARK: The cycle side

    /// What the supervisor passed in, if this process is a cycle.
    static func cycle(variables: [String: String]) -> ScheduleCycle? {
        variables[cycleVariable].flatMap(ScheduleCycle.init(encoded:))
    }

    /// Whether the supervisor that started this cycle is still its parent.
    static func supervisorIsAlive(_ cycle: ScheduleCycle) -> Bool { getppid() == cycle.parent }

    /// Writes a cycle's report for the supervisor.
    static func report(_ outcome: CycleOutcome) {
        writeAll(reportDescriptor, outcome.report)
    }
}

// MARK: - What passes between the processes

/// What a cycle is told: whether it is the first (it prints the banner), the supervisor's pid,
/// and where each pipeline's schedule stands (every slot at or before its cursor is handled).
struct ScheduleCycle: Equatable {
    /// A cycle exits when the next fire time is at least this far away… Starting a cycle costs
    /// about 50 ms of CPU (process start, database open, ledger read); libdispatch's tick, which
    /// waiting in the cycle costs, about 70 µs a second: the two meet near 12 minutes. Shorter
    /// waits stay in the cycle, so a scheduler due every few minutes costs no more than before.
    static let handBackAfter: TimeInterval = 15 * 60
    /// …and the next one starts this long before it.
    static let lead: TimeInterval = 5

    var first: Bool
    var parent: pid_t
    var cursors: [String: Date] = [:]

    init(first: Bool, parent: pid_t, cursors: [String: Date] = [:]) {
        self.first = first; self.parent = parent; self.cursors = cursors
    }

    /// Lines: `first 0|1`, `parent PID`, `cursor SECONDS NAME`.
    var encoded: String {
        (["first \(first ? 1 : 0)", "parent \(parent)"] + cursorLines(cursors)).joined(separator: "\n")
    }

    init?(encoded text: String) {
        var first: Bool?, parent: pid_t?
        var cursors: [String: Date] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
            switch (parts.first, parts.count) {
            case ("first", 2): first = parts[1] == "1"
            case ("parent", 2): parent = pid_t(parts[1])
            case ("cursor", 3): guard let (name, at) = cursor(parts) else { return nil }; cursors[name] = at
            default: return nil
            }
        }
        guard let first, let parent else { return nil }
        self.init(first: first, parent: parent, cursors: cursors)
    }
}

/// What a cycle reports when it exits: the runs it made, why it stopped (a signal) or when the
/// next fire time is (none: no pipeline has one), and the cursors.
struct CycleOutcome: Equatable {
    var runs: Int
    var next: Date?
    var stoppedBy: String?
    var cursors: [String: Date]

    /// Lines: `runs N`, `next SECONDS` or `next none`, optionally `stopped NAME`, `cursor SECONDS NAME`…, `end`.
    var report: String {
        var lines = ["runs \(runs)", "next \(next.map { "\($0.timeIntervalSince1970)" } ?? "none")"]
        if let stoppedBy { lines.append("stopped \(stoppedBy)") }
        return (lines + cursorLines(cursors) + ["end"]).joined(separator: "\n") + "\n"
    }

    /// Nil unless the whole report arrived (it ends with `end`).
    init?(report text: String) {
        var runs: Int?, next: Date??, stoppedBy: String?, ended = false
        var cursors: [String: Date] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
            switch (parts.first, parts.count) {
            case ("runs", 2): runs = Int(parts[1])
            case ("next", 2): next = parts[1] == "none" ? .some(nil) : Double(parts[1]).map { .some(Date(timeIntervalSince1970: $0)) }
            case ("stopped", 2): stoppedBy = parts[1]
            case ("cursor", 3): guard let (name, at) = cursor(parts) else { return nil }; cursors[name] = at
            case ("end", 1): ended = true
            default: return nil
            }
        }
        guard ended, let runs, let next else { return nil }
        self.init(runs: runs, next: next, stoppedBy: stoppedBy, cursors: cursors)
    }

    init(runs: Int, next: Date?, stoppedBy: String?, cursors: [String: Date]) {
        self.runs = runs; self.next = next; self.stoppedBy = stoppedBy; self.cursors = cursors
    }
}

private func cursorLines(_ cursors: [String: Date]) -> [String] {
    cursors.sorted { $0.key < $1.key }.map { "cursor \($0.value.timeIntervalSince1970) \($0.key)" }
}

/// A `cursor SECONDS NAME` line, split in three.
private func cursor(_ parts: [String]) -> (name: String, at: Date)? {
    Double(parts[1]).map { (parts[2], Date(timeIntervalSince1970: $0)) }
}

// MARK: - Small system helpers

private func writeAll(_ descriptor: Int32, _ text: String) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if written < 0 { if errno == EINTR { continue }; return }
        bytes = bytes.dropFirst(written)
    }
}

/// Appends what can be read from a non-blocking descriptor now.
private func drain(_ descriptor: Int32, into data: inout [UInt8]) {
    var chunk = [UInt8](repeating: 0, count: 16384)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 { if errno == EINTR { continue }; return }  // EAGAIN: nothing more for now
        if count == 0 { return }
        data.append(contentsOf: chunk[..<count])
    }
}

private func isExited(_ status: Int32) -> Bool { status & 0x7f == 0 }
private func exitCode(_ status: Int32) -> Int32 { (status >> 8) & 0xff }
