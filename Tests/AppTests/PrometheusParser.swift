import Foundation
import Testing

/// Metrics text read back by a real parser: the text parser of the Python `prometheus-client`
/// package (`prometheus_client.parser.text_string_to_metric_families`), which `scripts/test`
/// installs. A missing `python3` or package, or text the parser rejects, throws: the test fails,
/// it is never skipped.
struct PrometheusParser {
    struct Sample: Sendable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    struct Family: Sendable {
        var name: String
        var type: String
        var help: String
        var samples: [Sample]
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static let script = """
        import json, sys
        try:
            from prometheus_client.parser import text_string_to_metric_families
        except ImportError as error:
            sys.stderr.write("prometheus-client is not installed (python3 -m pip install prometheus-client; scripts/test installs it): %s\\n" % error)
            sys.exit(3)
        with open(sys.argv[1], encoding="utf-8") as source:
            text = source.read()
        families = []
        for family in text_string_to_metric_families(text):
            families.append({"name": family.name, "type": family.type, "help": family.documentation,
                             "samples": [{"name": s.name, "labels": s.labels, "value": s.value} for s in family.samples]})
        print(json.dumps(families))
        """

    /// The families of `text`, as the parser reads them. The parser stores a counter's family
    /// under its name without `_total` (its samples keep it).
    static func parse(_ text: String) throws -> [Family] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-\(UUID().uuidString).prom")
        try Data(text.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, file.path]
        let output = Pipe(), errors = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = errors
        do { try process.run() } catch { throw Failure(description: "cannot run python3: \(error)") }
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "the prometheus-client parser rejected the metrics (exit \(process.terminationStatus)): \(String(decoding: err, as: UTF8.self))")
        }
        guard let list = try JSONSerialization.jsonObject(with: out) as? [[String: Any]] else {
            throw Failure(description: "the parser printed no list: \(String(decoding: out, as: UTF8.self))")
        }
        return list.map { f in
            Family(name: f["name"] as? String ?? "", type: f["type"] as? String ?? "", help: f["help"] as? String ?? "",
                   samples: (f["samples"] as? [[String: Any]] ?? []).map { s in
                       Sample(name: s["name"] as? String ?? "", labels: s["labels"] as? [String: String] ?? [:],
                              value: (s["value"] as? NSNumber)?.doubleValue ?? .nan)
                   })
        }
    }
}

extension Array where Element == PrometheusParser.Family {
    /// The family named `name` (a counter by its name without `_total`).
    func family(_ name: String) -> PrometheusParser.Family? { first { $0.name == name } }

    /// The value of the sample `name` with exactly `labels`, or nil.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        lazy.flatMap(\.samples).first { $0.name == name && $0.labels == labels }?.value
    }
}
