import Foundation

/// Wall-clock timing with a monotonic clock, repeated, summarised by min and median.
enum Timing {
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Runs `body` `repeats` times and returns the seconds of each run.
    static func repeated(_ repeats: Int, _ body: () throws -> Void) rethrows -> [Double] {
        var out: [Double] = []
        for _ in 0..<repeats {
            let t0 = now()
            try body()
            out.append(Double(now() - t0) / 1e9)
        }
        return out
    }

    static func median(_ xs: [Double]) -> Double {
        let s = xs.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
}

/// Keeps results alive so the optimiser cannot drop the work being timed.
nonisolated(unsafe) var blackHole = 0

/// Prints aligned result lines.
struct Table {
    var rows: [[String]] = []
    let header: [String]

    init(_ header: String...) { self.header = header }

    mutating func add(_ cells: String...) { rows.append(cells) }

    func print() {
        let all = [header] + rows
        let widths = header.indices.map { i in all.map { $0.count > i ? $0[i].count : 0 }.max() ?? 0 }
        for (n, row) in all.enumerated() {
            let line = row.enumerated().map { i, cell in
                i == 0 ? cell.padding(toLength: widths[i], withPad: " ", startingAt: 0)
                       : String(repeating: " ", count: max(0, widths[i] - cell.count)) + cell
            }.joined(separator: "  ")
            Swift.print("  " + line)
            if n == 0 { Swift.print("  " + String(repeating: "-", count: line.count)) }
        }
    }
}

func fmt(_ x: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", x) }
func grouped(_ x: Double) -> String {
    let n = Int(x.rounded())
    let s = String(abs(n))
    var out = ""
    for (i, c) in s.reversed().enumerated() {
        if i > 0 && i % 3 == 0 { out.append(",") }
        out.append(c)
    }
    return (n < 0 ? "-" : "") + String(out.reversed())
}
