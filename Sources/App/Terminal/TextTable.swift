/// A plain text table for the terminal: a header row of capitals, columns padded to their
/// widest cell by display width (Hangul counts 2 columns), two spaces between columns, and the
/// last column never padded (so long text there just runs on).
struct TextTable {
    var headers: [String]
    var rows: [[String]] = []

    init(_ headers: [String]) { self.headers = headers }

    mutating func append(_ row: [String]) { rows.append(row) }

    /// The table's lines, with trailing spaces trimmed.
    var lines: [String] {
        let all = [headers] + rows
        let count = headers.count
        var widths = [Int](repeating: 0, count: count)
        for row in all {
            for (i, cell) in row.prefix(count).enumerated() { widths[i] = max(widths[i], DisplayWidth.columns(cell)) }
        }
        return all.map { row in
            var line = ""
            for i in 0..<count {
                let cell = i < row.count ? row[i] : ""
                line += cell
                if i < count - 1 { line += String(repeating: " ", count: widths[i] - DisplayWidth.columns(cell) + 2) }
            }
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }
    }

    var text: String { lines.joined(separator: "\n") }
}
