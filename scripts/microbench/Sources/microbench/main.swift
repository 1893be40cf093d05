import Foundation

// usage: microbench --feedline BIN --tiny FILE --xml FILE [--json FILE] [--work DIR] [--repeats N]
//                   [--binary-only | --in-process-only]
let usage = """
usage: microbench --feedline BIN --tiny FILE --xml FILE [--json FILE] [--work DIR] [--repeats N]
                  [--binary-only | --in-process-only]
  --tiny   a one-item AirKorea page; --xml/--json  single-file pages of many items
  (scripts/microbench/run makes these inputs and passes them)
"""

var options: [String: String] = [:]
var flags: Set<String> = []
var arguments = CommandLine.arguments.dropFirst()
while let arg = arguments.popFirst() {
    switch arg {
    case "--binary-only", "--in-process-only": flags.insert(arg)
    case "-h", "--help": print(usage); exit(0)
    case _ where arg.hasPrefix("--"):
        guard let value = arguments.popFirst() else { FileHandle.standardError.write(Data("\(arg) needs a value\n\(usage)\n".utf8)); exit(2) }
        options[String(arg.dropFirst(2))] = value
    default: FileHandle.standardError.write(Data("unexpected '\(arg)'\n\(usage)\n".utf8)); exit(2)
    }
}
guard let xml = options["xml"] else { FileHandle.standardError.write(Data("--xml is required\n\(usage)\n".utf8)); exit(2) }
let repeats = Int(options["repeats"] ?? "5") ?? 5
let work = URL(fileURLWithPath: options["work"] ?? NSTemporaryDirectory() + "feedline-microbench")
try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)

/// Items in a page, counted from its text (each item has exactly one dataTime field).
func itemCount(_ file: String) -> Int {
    guard let data = FileManager.default.contents(atPath: file) else { return 0 }
    let needle = Array((file.hasSuffix(".json") ? "\"dataTime\"" : "<dataTime>").utf8)
    return data.withUnsafeBytes { raw -> Int in
        let b = raw.bindMemory(to: UInt8.self)
        var count = 0, i = 0
        while i + needle.count <= b.count {
            if b[i] == needle[0] && Array(b[i..<i + needle.count]) == needle { count += 1; i += needle.count } else { i += 1 }
        }
        return count
    }
}

do {
    if !flags.contains("--in-process-only") {
        guard let feedline = options["feedline"], let tiny = options["tiny"] else {
            FileHandle.standardError.write(Data("--feedline and --tiny are required for the binary benchmarks\n\(usage)\n".utf8)); exit(2)
        }
        print("== feedline binary micro-benchmarks")
        var inputs = [(label: "xml", file: xml, items: itemCount(xml))]
        if let json = options["json"] { inputs.append((label: "json", file: json, items: itemCount(json))) }
        try BinaryBench(feedline: feedline, work: work, repeats: repeats).run(tiny: tiny, inputs: inputs)
        print("")
    }
    if !flags.contains("--binary-only") {
        #if FEEDLINE_LIBS
        print("== in-process micro-benchmarks (parser, Domain)")
        try InProcessBench(repeats: repeats).run(xml: xml, json: options["json"])
        #else
        print("== in-process micro-benchmarks: not built (FEEDLINE_MICROBENCH_PRODUCT was empty);")
        print("   scripts/microbench/run builds them against the main package's FeedlineKit library by default.")
        #endif
    }
    print("(checksum \(blackHole))")
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
