import AirKorea
import Domain
import Foundation
import Pipeline

// MARK: - Paths

/// Where the repository's fixtures and the shared reference samples are, computed from this
/// source file's location (`Sources/TestSupport/Golden.swift`), so tests work from any
/// working directory.
public enum FixturePaths {
    /// The package root (the directory holding `Package.swift`).
    public static var repositoryRoot: URL {
        URL(fileURLWithPath: "\(#filePath)")
            .deletingLastPathComponent()  // TestSupport
            .deletingLastPathComponent()  // Sources
            .deletingLastPathComponent()  // root
    }

    /// `Data/fixtures` (one subdirectory per source: `airkorea/` …).
    public static var fixtures: URL { repositoryRoot.appendingPathComponent("Data/fixtures", isDirectory: true) }

    /// `../shared/feeds` beside the checkout: the published sample payloads and API notes.
    /// Absent on a clean CI clone; tests that read it should be skipped when it is missing.
    public static var sharedFeeds: URL {
        repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/feeds", isDirectory: true)
    }
}

// MARK: - Rendering

/// A record with a golden-file line. Every record type a feed produces conforms (a feed's own
/// record types conform in its tests), so `Golden.line(_:)` needs no list of record types.
public protocol GoldenRenderable {
    var goldenLine: String { get }
}

extension HourlyMeasurement: GoldenRenderable { public var goldenLine: String { Golden.line(self) } }
extension Station: GoldenRenderable { public var goldenLine: String { Golden.line(self) } }
extension NearbyStation: GoldenRenderable { public var goldenLine: String { Golden.line(self) } }
extension TMCoordinate: GoldenRenderable { public var goldenLine: String { Golden.line(self) } }
extension Forecast: GoldenRenderable { public var goldenLine: String { Golden.line(self) } }

/// A deterministic one-line-per-thing text rendering of what a feed produces — records,
/// diagnostics, page summaries and errors — for golden files. Missing values read `nil`;
/// numbers use Swift's shortest round-trip form (`35`, `0.085`); text is quoted only when it
/// holds spaces, quotes, `=`, or control characters.
public enum Golden {
    /// One line for one record, e.g.
    /// `measurement station=종로구 … slot=2023-05-13T14:00+09:00 data_time="2023-05-13 15:00" pm10=35 pm25=19 … flags=pm10:통신장애`.
    public static func line(_ record: FeedRecord) -> String {
        guard let renderable = record.value as? any GoldenRenderable else {
            return "unrenderable \(record.recordType): conform it to GoldenRenderable"
        }
        return renderable.goldenLine
    }

    /// The golden line of an `HourlyMeasurement`.
    public static func line(_ m: HourlyMeasurement) -> String {
        return fields("measurement", [
            ("station", text(m.stationName)), ("code", text(m.stationCode)), ("sido", text(m.sidoName)),
            ("network", text(m.network)), ("slot", slot(m.slot)), ("data_time", text(m.dataTime)),
            ("pm10", number(m.pm.pm10)), ("pm25", number(m.pm.pm25)),
            ("pm10_24h", number(m.pm24h.pm10)), ("pm25_24h", number(m.pm24h.pm25)),
            ("o3", number(m.o3ppm)), ("no2", number(m.no2ppm)), ("co", number(m.coppm)), ("so2", number(m.so2ppm)),
            ("khai", number(m.khai)),
            ("grades", perPollutant(m.grades) { String($0.rawValue) }),
            ("grades1h", perPollutant(PollutantValues(pm10: m.grades1h.pm10, pm25: m.grades1h.pm25)) { String($0.rawValue) }),
            ("khai_grade", m.khaiGrade.map { String($0.rawValue) } ?? "nil"),
            ("flags", perPollutant(m.flags) { text($0.description) }),
        ])
    }

    /// The golden line of a `Station`.
    public static func line(_ s: Station) -> String {
        return fields("station", [
            ("name", text(s.name)), ("address", text(s.address)), ("network", text(s.network)),
            ("year", s.installedYear.map(String.init) ?? "nil"), ("items", text(s.items)),
            ("lat", number(s.latitude)), ("lon", number(s.longitude)),
        ])
    }

    /// The golden line of a `NearbyStation`.
    public static func line(_ n: NearbyStation) -> String {
        return fields("nearby_station", [
            ("query_tm_x", number(n.tmX)), ("query_tm_y", number(n.tmY)), ("station", text(n.stationName)),
            ("address", text(n.address)), ("distance_km", number(n.distanceKm)),
        ])
    }

    /// The golden line of a `TMCoordinate`.
    public static func line(_ t: TMCoordinate) -> String {
        return fields("tm_coordinate", [
            ("sido", text(t.sidoName)), ("sgg", text(t.sggName)), ("umd", text(t.umdName)),
            ("tm_x", number(t.tmX)), ("tm_y", number(t.tmY)),
        ])
    }

    /// The golden line of a `Forecast`.
    public static func line(_ f: Forecast) -> String {
        let images = f.imageURLs.enumerated().compactMap { index, url in url.map { "\(index + 1):\(text($0))" } }
        let regions = f.regionGrades.map { "\(text($0.region)):\(text($0.gradeText))(\($0.grade.map { String($0.rawValue) } ?? "-"))" }
        return fields("forecast", [
            ("code", text(f.informCode)), ("date", f.forecastDate.description),
            ("released", "\(f.releaseDate)T\(twoDigits(f.releaseHour))"),
            ("overall", text(f.overall)), ("cause", text(f.cause)), ("action", text(f.actionKnack)),
            ("images", images.isEmpty ? "none" : images.joined(separator: ",")),
            ("regions", regions.isEmpty ? "none" : regions.joined(separator: ",")),
        ])
    }

    /// One line for a diagnostic: `diagnostic code=… location="…" value=… message="…"`.
    public static func line(_ diagnostic: Diagnostic) -> String {
        fields("diagnostic", [
            ("code", text(diagnostic.code.rawValue)), ("location", text(diagnostic.location)),
            ("value", text(diagnostic.value)), ("message", text(diagnostic.message)),
        ])
    }

    /// One line for a page summary: `page items=3 total=4 page_no=1 num_of_rows=3`.
    public static func line(_ summary: PageSummary) -> String {
        fields("page", [
            ("items", String(summary.itemCount)), ("total", summary.reportedTotal.map(String.init) ?? "nil"),
            ("page_no", summary.pageNo.map(String.init) ?? "nil"), ("num_of_rows", summary.numOfRows.map(String.init) ?? "nil"),
        ])
    }

    /// One line for an error: `error kind=api code=22 name=… retry=transient message="…"`. The
    /// context (a URL or file path) is left out so the line does not depend on where it ran.
    public static func line(_ error: any Error) -> String {
        guard let error = error as? FeedError else {
            return fields("error", [("kind", "other"), ("type", text(String(describing: type(of: error)))),
                                    ("message", text(String(describing: error)))])
        }
        var parts: [(String, String)]
        switch error.kind {
        case .transport: parts = [("kind", "transport")]
        case .httpStatus(let status): parts = [("kind", "http"), ("status", String(status))]
        case .api(let code, let name): parts = [("kind", "api"), ("code", text(code)), ("name", text(name))]
        case .malformed: parts = [("kind", "malformed")]
        case .unrecognised: parts = [("kind", "unrecognised")]
        case .missingCredential(let variable): parts = [("kind", "missing-credential"), ("variable", text(variable))]
        case .invalidRequest: parts = [("kind", "invalid-request")]
        case .quotaExhausted: parts = [("kind", "quota-exhausted")]
        case .checkFailed: parts = [("kind", "check-failed")]
        case .schemaDrift: parts = [("kind", "schema-drift")]
        }
        parts += [("retry", error.retryability.rawValue), ("message", text(error.message))]
        return fields("error", parts)
    }

    // MARK: Helpers

    private static func fields(_ kind: String, _ pairs: [(String, String)]) -> String {
        ([kind] + pairs.map { "\($0.0)=\($0.1)" }).joined(separator: " ")
    }

    /// A number in its shortest exact form; `nil` when missing.
    public static func number(_ value: Double?) -> String {
        guard let value else { return "nil" }
        if value == value.rounded(), value.magnitude < 1e15 { return String(Int(value)) }
        return String(value)
    }

    /// Text as is when it is a single plain token, else quoted with `\` escapes; `nil` when missing.
    public static func text(_ value: String?) -> String {
        guard let value else { return "nil" }
        let plain = !value.isEmpty && value != "nil" && !value.unicodeScalars.contains {
            $0 == " " || $0 == "\"" || $0 == "=" || $0 == "\\" || $0 == "," || $0.properties.generalCategory == .control
                || $0.properties.isWhitespace
        }
        if plain { return value }
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.properties.generalCategory == .control {
                    out += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    private static func slot(_ slot: HourSlot) -> String { "\(slot.date)T\(twoDigits(slot.hour)):00+09:00" }

    private static func twoDigits(_ n: Int) -> String { n >= 0 && n < 10 ? "0\(n)" : String(n) }

    private static func perPollutant<V>(_ values: PollutantValues<V>, _ render: (V) -> String) -> String {
        let named: [(String, V?)] = [("pm10", values.pm10), ("pm25", values.pm25), ("o3", values.o3),
                                     ("no2", values.no2), ("co", values.co), ("so2", values.so2)]
        let present = named.compactMap { name, value in value.map { "\(name):\(render($0))" } }
        return present.isEmpty ? "none" : present.joined(separator: ",")
    }
}

// MARK: - Comparing with golden files

/// A golden file that does not match, with a readable line diff as its description.
public struct GoldenMismatch: Error, CustomStringConvertible {
    public let file: URL
    public let diff: String

    public var description: String {
        "Golden file \(file.path) differs from the actual output (- expected, + actual). "
            + "Run with FEEDLINE_UPDATE_GOLDEN=1 to accept the actual output.\n" + diff
    }
}

extension Golden {
    /// Compares `actual` with the golden file `expectedFile`, line by line (a trailing newline
    /// and CRLF line ends do not matter). Throws `GoldenMismatch` with a line diff when they
    /// differ or the file is missing — unless `FEEDLINE_UPDATE_GOLDEN=1` is set in
    /// `environment`, in which case the file is (re)written with `actual` and nothing is thrown.
    public static func verify(_ actual: String, against expectedFile: URL,
                              environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let actualLines = lines(of: actual)
        if environment["FEEDLINE_UPDATE_GOLDEN"] == "1" {
            let text = actualLines.joined(separator: "\n") + (actualLines.isEmpty ? "" : "\n")
            try FileManager.default.createDirectory(at: expectedFile.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: expectedFile, options: .atomic)
            return
        }
        guard let data = FileManager.default.contents(atPath: expectedFile.path) else {
            throw GoldenMismatch(file: expectedFile, diff: "(the golden file does not exist)\n"
                                     + actualLines.map { "+ \($0)" }.joined(separator: "\n"))
        }
        let expectedLines = lines(of: String(decoding: data, as: UTF8.self))
        guard expectedLines != actualLines else { return }
        throw GoldenMismatch(file: expectedFile, diff: lineDiff(expected: expectedLines, actual: actualLines))
    }

    /// A minimal line diff (longest common subsequence): changed lines only, each with its line
    /// number in the expected (`-`) or actual (`+`) text.
    public static func lineDiff(expected: [String], actual: [String]) -> String {
        let n = expected.count, m = actual.count
        // lcs[i][j] = length of the LCS of expected[i...] and actual[j...]
        var lcs = Array(repeating: Array(repeating: 0, count: m + 1), count: n + 1)
        for i in stride(from: n - 1, through: 0, by: -1) {
            for j in stride(from: m - 1, through: 0, by: -1) {
                lcs[i][j] = expected[i] == actual[j] ? lcs[i + 1][j + 1] + 1 : max(lcs[i + 1][j], lcs[i][j + 1])
            }
        }
        var out: [String] = []
        var i = 0, j = 0
        while i < n || j < m {
            if i < n, j < m, expected[i] == actual[j] {
                i += 1; j += 1
            } else if i < n, j == m || lcs[i + 1][j] >= lcs[i][j + 1] {
                out.append("- \(i + 1): \(expected[i])"); i += 1
            } else {
                out.append("+ \(j + 1): \(actual[j])"); j += 1
            }
        }
        return out.joined(separator: "\n")
    }

    private static func lines(of text: String) -> [String] {
        var lines = text.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n")
        while lines.last == "" { lines.removeLast() }
        return lines
    }
}
