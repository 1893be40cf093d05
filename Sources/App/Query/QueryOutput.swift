import Foundation
import Pipeline
import Storage

/// How `feedline query` writes rows.
public enum QueryOutputFormat: String, CaseIterable, Sendable {
    /// Aligned columns for a terminal (wide characters count 2 columns; long cells cut with `…`).
    case table
    /// RFC 4180: comma-separated, a header row, fields quoted when they hold `,` `"` CR or LF.
    case csv
    /// One JSON array of objects, keys in column order; numbers stay numbers, NULL is null.
    case json
    /// One JSON object per line.
    case ndjson
}

/// Receives a result set as it streams: the column names once, then each row.
///
/// Produced by `feedline query` for the chosen `QueryOutputFormat`; writes lines through `write`
/// (the environment's standard output), each call one line without its newline.
protocol QueryRowWriter {
    mutating func begin(columns: [String])
    mutating func row(_ values: [SQLValue])
    /// Called once after the last row; `rows` is how many there were.
    mutating func end(rows: Int)
    /// Called instead of `end` when the query was stopped (by its timeout) after `rows` rows.
    mutating func stopped(rows: Int)
}

extension QueryRowWriter {
    /// Streaming writers have already written every row they got; there is nothing to close.
    mutating func stopped(rows: Int) {}
}

// MARK: - Table

/// Aligned text columns, `psql`-style with ASCII rules so no ambiguous-width box characters are
/// needed. Numbers are right-aligned, NULL shows as `NULL`, blobs as `<blob N bytes>`, and
/// control characters as `\n`, `\t`, ….
///
/// Every width must be known before the first line, so rows are buffered: at most `rowLimit` of
/// them, each as its cells already cut to `maxWidth`, so memory stays bounded whatever the query
/// returns. Rows past the limit are counted, not kept, and a closing note says how many were
/// left out and how to get them all.
struct TableWriter: QueryRowWriter {
    /// The most rows a table shows.
    static let rowLimit = 1_000

    let write: (String) -> Void
    /// The widest a cell may be, in terminal columns; longer cells end in `…`.
    let maxWidth: Int
    let rowLimit: Int
    private var columns: [String] = []
    /// The kept rows' cells, as shown.
    private var cells: [[String]] = []
    /// Per column: some kept value is a number / every kept value is a number or NULL.
    private var hasNumber: [Bool] = []
    private var onlyNumbers: [Bool] = []

    init(maxWidth: Int, rowLimit: Int = TableWriter.rowLimit, write: @escaping (String) -> Void) {
        self.maxWidth = max(1, maxWidth)
        self.rowLimit = max(1, rowLimit)
        self.write = write
    }

    mutating func begin(columns: [String]) {
        self.columns = columns
        hasNumber = columns.map { _ in false }
        onlyNumbers = columns.map { _ in true }
    }

    mutating func row(_ values: [SQLValue]) {
        guard cells.count < rowLimit else { return }
        for (c, value) in values.enumerated() where c < columns.count {
            if value.number != nil { hasNumber[c] = true } else if !value.isNull { onlyNumbers[c] = false }
        }
        cells.append(values.map { DisplayWidth.truncate(Self.cell($0), toColumns: maxWidth) })
    }

    mutating func end(rows count: Int) {
        printTable()
        if count > cells.count {
            let more = count - cells.count
            write("(\(count) rows; the first \(cells.count) are shown, \(more) more \(more == 1 ? "is" : "are") not: use --format csv, json or ndjson for every row)")
        } else {
            write("(\(count) row\(count == 1 ? "" : "s"))")
        }
    }

    mutating func stopped(rows count: Int) {
        printTable()
        write("(the query was stopped after \(count) row\(count == 1 ? "" : "s")\(count > cells.count ? "; the first \(cells.count) are shown" : ""))")
    }

    private func printTable() {
        let header = columns.map { DisplayWidth.truncate(Self.visible($0), toColumns: maxWidth) }
        let numeric = columns.indices.map { c in hasNumber[c] && onlyNumbers[c] }
        let widths = columns.indices.map { c in
            max(DisplayWidth.columns(header[c]), cells.map { DisplayWidth.columns($0[c]) }.max() ?? 0)
        }
        func line(_ values: [String], header: Bool) -> String {
            values.indices.map { c in
                " " + DisplayWidth.pad(values[c], toColumns: widths[c], alignRight: numeric[c] && !header) + " "
            }.joined(separator: "|").trimmingTrailingSpaces()
        }
        if !columns.isEmpty {
            write(line(header, header: true))
            write(widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "+"))
            for row in cells { write(line(row, header: false)) }
        }
    }

    /// A cell as shown in the table.
    static func cell(_ value: SQLValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let i): String(i)
        case .real(let d): QueryFormatting.real(d)
        case .text(let s): visible(s)
        case .blob(let b): "<blob \(b.count) bytes>"
        }
    }

    /// Text with control characters made visible, so one cell stays on one line.
    static func visible(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return s }
        var out = ""
        for scalar in s.unicodeScalars {
            switch scalar {
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
        return out
    }
}

// MARK: - CSV

/// RFC 4180 CSV: a header row, then one record per row; a field is quoted (with `"` doubled)
/// when it holds a comma, a double quote, CR or LF, or starts or ends with a space. NULL is an
/// empty field, blobs are base64. Records end with LF.
struct CSVWriter: QueryRowWriter {
    let write: (String) -> Void

    mutating func begin(columns: [String]) { write(columns.map(Self.field).joined(separator: ",")) }

    mutating func row(_ values: [SQLValue]) {
        write(values.map { value -> String in
            switch value {
            case .null: ""
            case .integer(let i): String(i)
            case .real(let d): QueryFormatting.real(d)
            case .text(let s): Self.field(s)
            case .blob(let b): b.base64EncodedString()
            }
        }.joined(separator: ","))
    }

    mutating func end(rows: Int) {}

    static func field(_ s: String) -> String {
        let needsQuotes = s.contains { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
            || s.hasPrefix(" ") || s.hasSuffix(" ")
        return needsQuotes ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
    }
}

// MARK: - JSON

/// JSON (`[{…},\n{…}]`) or NDJSON (one object per line). Keys are the column names in order
/// (a repeated name gets `_2`, `_3`…); integers and reals stay numbers, text is a string, NULL is
/// `null`, blobs are base64 strings. Streams: one row is held back to place the commas.
struct JSONRowWriter: QueryRowWriter {
    let write: (String) -> Void
    /// One object per line, no enclosing array.
    let lines: Bool
    private var keys: [String] = []
    private var pending: String?

    init(lines: Bool, write: @escaping (String) -> Void) {
        self.lines = lines
        self.write = write
    }

    mutating func begin(columns: [String]) {
        var seen: [String: Int] = [:]
        keys = columns.map { name in
            let n = (seen[name] ?? 0) + 1
            seen[name] = n
            return QueryFormatting.jsonString(n == 1 ? name : "\(name)_\(n)")
        }
        if !lines { write("[") }
    }

    mutating func row(_ values: [SQLValue]) {
        let object = "{" + zip(keys, values).map { "\($0):\(QueryFormatting.json($1))" }.joined(separator: ",") + "}"
        if lines {
            write(object)
        } else {
            if let pending { write(pending + ",") }
            pending = object
        }
    }

    mutating func end(rows: Int) {
        guard !lines else { return }
        if let pending { write(pending) }
        write("]")
    }
}

// MARK: - Shared formatting

enum QueryFormatting {
    /// A real in the shortest form that reads back to the same Double (`35.0`, `0.085`, `1e-05`);
    /// infinities as `Infinity`/`-Infinity` (SQLite stores no NaN).
    static func real(_ d: Double) -> String {
        if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
        return "\(d)"
    }

    /// One value as JSON.
    static func json(_ value: SQLValue) -> String {
        switch value {
        case .null: "null"
        case .integer(let i): String(i)
        case .real(let d): d.isFinite ? "\(d)" : "null"
        case .text(let s): jsonString(s)
        case .blob(let b): jsonString(b.base64EncodedString())
        }
    }

    /// `s` as a JSON string literal.
    static func jsonString(_ s: String) -> String { JSONText.string(s) }
}

extension String {
    /// The string without trailing spaces.
    fileprivate func trimmingTrailingSpaces() -> String {
        var end = endIndex
        while end > startIndex, self[index(before: end)] == " " { end = index(before: end) }
        return String(self[..<end])
    }
}
