import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// User + system CPU seconds of the children this process has waited for.
func childrenCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_CHILDREN.rawValue, &usage)
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// Times the `feedline` binary on single-file inputs and splits a replay's cost into start-up,
/// database set-up, hashing, parse + map (+ an upsert that changes nothing) and the writes.
///
/// Works with the executable product alone; every figure is the end-to-end time of a process.
struct BinaryBench {
    let feedline: String
    let work: URL
    let repeats: Int

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs feedline with `arguments`, returns wall and CPU (user + system) seconds; throws unless it exits 0.
    func time(_ arguments: [String]) throws -> (wall: Double, cpu: Double) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: feedline)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let cpu0 = childrenCPUSeconds()
        let t0 = Timing.now()
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let seconds = Double(Timing.now() - t0) / 1e9
        let cpu = childrenCPUSeconds() - cpu0
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw Failure(description: "feedline \(arguments.joined(separator: " ")) exited \(process.terminationStatus):\n\(text)")
        }
        if text.hasPrefix("OVERVIEW:") || text.contains("\nUSAGE:") && !arguments.contains("--version") {
            throw Failure(description: "feedline \(arguments.joined(separator: " ")) printed its help instead of running")
        }
        return (seconds, cpu)
    }

    func freshDatabase(_ name: String) -> String {
        let path = work.appendingPathComponent(name).path
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        return path
    }

    /// `tiny`: a one-item page; `inputs`: (label, file, items) single-file pages to load.
    func run(tiny: String, inputs: [(label: String, file: String, items: Int)]) throws {
        var samples: [String: [Double]] = [:]
        var cpuSamples: [String: [Double]] = [:]
        func add(_ key: String, _ t: (wall: Double, cpu: Double)) {
            samples[key, default: []].append(t.wall)
            cpuSamples[key, default: []].append(t.cpu)
        }
        for _ in 0..<repeats {
            add("startup", try time(["--version"]))
            add("tiny", try time(["replay", tiny, "--db", freshDatabase("tiny.sqlite")]))
            for input in inputs {
                let db = freshDatabase("\(input.label).sqlite")
                add("load.\(input.label)", try time(["replay", input.file, "--db", db]))
                add("skip.\(input.label)", try time(["replay", input.file, "--db", db]))
                add("force.\(input.label)", try time(["replay", input.file, "--db", db, "--force"]))
            }
        }
        let wall = samples.mapValues(Timing.median)
        let cpu = cpuSamples.mapValues(Timing.median)
        print("feedline binary: \(feedline)")
        print("median of \(repeats) runs each; every figure is a whole process (start-up included);")
        print("derived figures use CPU time (user + system), which a busy machine inflates far less than wall time")
        var table = Table("case", "min s", "median s", "median CPU s")
        func row(_ key: String, _ label: String) {
            table.add(label, fmt(samples[key]!.min()!, 3), fmt(wall[key]!, 3), fmt(cpu[key]!, 3))
        }
        row("startup", "feedline --version (process start-up)")
        row("tiny", "replay 1 item into a fresh database")
        for input in inputs {
            row("load.\(input.label)", "replay \(input.label) (\(grouped(Double(input.items))) items), fresh database")
            row("skip.\(input.label)", "  again, unchanged (hash, skip)")
            row("force.\(input.label)", "  again with --force (parse, map, no-op upserts)")
        }
        table.print()
        print("")
        let m = cpu
        print("derived (from the median CPU times)")
        var derived = Table("what", "value")
        derived.add("process start-up", "\(fmt(m["startup"]! * 1000, 1)) ms")
        derived.add("database create + migrate + 1 item", "\(fmt((m["tiny"]! - m["startup"]!) * 1000, 1)) ms")
        for input in inputs {
            let n = Double(input.items)
            let bytes = Double((try? FileManager.default.attributesOfItem(atPath: input.file)[.size] as? Int) ?? 0)
            let load = m["load.\(input.label)"]! - m["tiny"]!
            let hash = m["skip.\(input.label)"]! - m["tiny"]!
            let parse = m["force.\(input.label)"]! - m["skip.\(input.label)"]!
            let write = m["load.\(input.label)"]! - m["force.\(input.label)"]!
            // A difference of whole-process CPU times smaller than this is noise, not a figure.
            let resolution = 0.005
            func rate(_ seconds: Double, _ text: () -> String) -> String {
                seconds < resolution ? "below resolution (difference \(fmt(seconds * 1000, 1)) ms < \(fmt(resolution * 1000, 0)) ms)" : text()
            }
            derived.add("\(input.label): steady-state load", rate(load) { "\(grouped(n / load)) items/s, \(fmt(bytes / 1e6 / load, 1)) MB/s, \(fmt(load / n * 1e6, 1)) µs/item" })
            derived.add("\(input.label): read + hash + skip", rate(hash) { "\(fmt(bytes / 1e6 / hash, 1)) MB/s (\(fmt(hash * 1000, 0)) ms)" })
            derived.add("\(input.label): parse + map + no-op upsert", rate(parse) { "\(fmt(parse / n * 1e6, 1)) µs/item" })
            derived.add("\(input.label): inserting (load − force)", rate(write) { "\(fmt(write / n * 1e6, 1)) µs/item" })
        }
        derived.print()
    }
}
