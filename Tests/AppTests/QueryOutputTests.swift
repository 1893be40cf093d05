@testable import App
import Foundation
import Pipeline
import Storage
import Testing

/// Display widths and the table, CSV and JSON writers of `feedline query`.
@Suite struct QueryOutputTests {
    // MARK: Display width

    @Test func hangulCJKAndFullwidthCountTwoColumnsCombiningMarksNone() {
        #expect(DisplayWidth.columns("종로구") == 6)
        #expect(DisplayWidth.columns("PM2.5") == 5)
        #expect(DisplayWidth.columns("서울 Seoul") == 10)
        #expect(DisplayWidth.columns("東京") == 4)
        #expect(DisplayWidth.columns("ＡＢ") == 4)               // fullwidth Latin
        #expect(DisplayWidth.columns("e\u{301}") == 1)          // e + combining acute
        #expect(DisplayWidth.columns("\u{1112}\u{1161}\u{11AB}") == 2)  // 한 as conjoining jamo
        #expect(DisplayWidth.columns("µg/m³") == 5)             // ambiguous-width symbols count 1
        #expect(DisplayWidth.columns("😷") == 2)
    }

    @Test func truncationCutsToTheColumnLimitWithAnEllipsisAndNeverSplitsAWideCharacter() {
        #expect(DisplayWidth.truncate("종로구청앞", toColumns: 7) == "종로구…")
        #expect(DisplayWidth.truncate("종로구청앞", toColumns: 6) == "종로…")     // 종로구 would need 6 + 1
        #expect(DisplayWidth.truncate("종로구", toColumns: 6) == "종로구")         // fits: untouched
        #expect(DisplayWidth.truncate("abcdefgh", toColumns: 5) == "abcd…")
        for limit in 2...12 {
            #expect(DisplayWidth.columns(DisplayWidth.truncate("서울특별시 종로구 종로35가길 19", toColumns: limit)) <= limit)
        }
    }

    // MARK: Table

    func table(_ columns: [String], _ rows: [[SQLValue]], maxWidth: Int = 40) -> [String] {
        var lines: [String] = []
        var writer = TableWriter(maxWidth: maxWidth) { lines.append($0) }
        writer.begin(columns: columns)
        rows.forEach { writer.row($0) }
        writer.end(rows: rows.count)
        return lines
    }

    /// The display column of every `|` in a line.
    func separatorColumns(_ line: String) -> [Int] {
        var columns: [Int] = []
        var at = 0
        for c in line {
            if c == "|" { columns.append(at) }
            at += DisplayWidth.columns(of: c)
        }
        return columns
    }

    @Test func tableColumnsLineUpWithHangulAndNumbersAreRightAligned() {
        let lines = table(["station_name", "sido", "pm10"], [
            [.text("종로구"), .text("서울"), .real(35)],
            [.text("Jongno-gu"), .text("Seoul"), .integer(120)],
            [.text("한강대로"), .null, .null],
        ])
        #expect(lines.count == 6)  // header, rule, 3 rows, "(3 rows)"
        let header = separatorColumns(lines[0])
        #expect(header.count == 2)
        for line in lines[2...4] { #expect(separatorColumns(line) == header, "\(line)") }
        // The rule's '+' sit where the '|' are.
        #expect(lines[1].enumerated().filter { $0.element == "+" }.map(\.offset) == header)
        #expect(lines[2].hasSuffix(" 35.0"))
        #expect(lines[3].hasSuffix("120"))
        #expect(lines[4].contains("NULL"))
        #expect(lines[5] == "(3 rows)")
    }

    @Test func longCellsAreCutToMaxWidthWithAnEllipsisAndControlCharactersStayOnOneLine() {
        let lines = table(["address"], [[.text("서울특별시 종로구 종로35가길 19 (효제동) 한국방송통신대학교 본관 옥상")], [.text("a\nb\tc")]], maxWidth: 20)
        #expect(lines[2].hasSuffix("…"))
        #expect(DisplayWidth.columns(lines[2]) <= 21)   // one leading space + 20
        #expect(lines[3].contains("a\\nb\\tc"))
        #expect(lines.allSatisfy { !$0.contains("\n") })
    }

    // MARK: CSV

    @Test func csvQuotesPerRFC4180AndLeavesNullEmpty() {
        var lines: [String] = []
        var writer = CSVWriter { lines.append($0) }
        writer.begin(columns: ["name", "note", "n", "x"])
        writer.row([.text("종로구"), .text("say \"hi\", then\nleave"), .integer(3), .null])
        writer.row([.text(" padded"), .text("plain"), .real(2.5), .blob(Data([0, 1, 2]))])
        writer.end(rows: 2)
        #expect(lines[0] == "name,note,n,x")
        #expect(lines[1] == "종로구,\"say \"\"hi\"\", then\nleave\",3,")
        #expect(lines[2] == "\" padded\",plain,2.5,AAEC")
    }

    // MARK: JSON

    @Test func jsonKeepsTypesAndColumnOrder() throws {
        var lines: [String] = []
        var writer = JSONRowWriter(lines: false) { lines.append($0) }
        writer.begin(columns: ["i", "r", "t", "n", "b", "i"])
        writer.row([.integer(35), .real(0.5), .text("종로구 \"q\" \\ \u{1}"), .null, .blob(Data("hi".utf8)), .integer(-1)])
        writer.row([.integer(1), .real(2), .text(""), .null, .null, .integer(2)])
        writer.end(rows: 2)
        let text = lines.joined(separator: "\n")
        #expect(text.hasPrefix("[\n{\"i\":35,\"r\":0.5,\"t\":"))
        #expect(text.contains("\"r\":2.0"))   // a real stays a real
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        #expect(rows.count == 2)
        #expect(rows[0]["i"] as? Int == 35)
        #expect(rows[0]["r"] as? Double == 0.5)
        #expect(rows[0]["t"] as? String == "종로구 \"q\" \\ \u{1}")
        #expect(rows[0]["n"] is NSNull)
        #expect(rows[0]["b"] as? String == Data("hi".utf8).base64EncodedString())
        #expect(rows[0]["i_2"] as? Int == -1)   // a repeated column name gets a suffix
    }

    @Test func ndjsonWritesOneObjectPerLine() throws {
        var lines: [String] = []
        var writer = JSONRowWriter(lines: true) { lines.append($0) }
        writer.begin(columns: ["a"])
        for i in 0..<3 { writer.row([.integer(Int64(i))]) }
        writer.end(rows: 3)
        #expect(lines == ["{\"a\":0}", "{\"a\":1}", "{\"a\":2}"])
    }

    // MARK: Parameters and saved queries

    @Test func parameterValuesAreNumbersOnlyInCanonicalForm() {
        #expect(SQLValue(parameter: "3") == .integer(3))
        #expect(SQLValue(parameter: "-12") == .integer(-12))
        #expect(SQLValue(parameter: "2.5") == .real(2.5))
        #expect(SQLValue(parameter: "007") == .text("007"))
        #expect(SQLValue(parameter: "2024-03-06") == .text("2024-03-06"))
        #expect(SQLValue(parameter: "종로구") == .text("종로구"))
        #expect(SQLValue(parameter: "NULL") == .null)
        #expect(SQLValue(parameter: "1e5") == .text("1e5"))
    }

    @Test func savedQueryHeaderGivesDescriptionAndDefaults() {
        let q = SavedQuery(name: "x", file: URL(fileURLWithPath: "/x.sql"), sql: """
            -- Stations older than :hours.
            -- param hours = 3        age in hours
            -- param from = '0000-01-01'   first date
            -- param sido = null
            SELECT 1
            """)
        #expect(q.description == "Stations older than :hours.")
        #expect(q.defaults == ["hours": .integer(3), "from": .text("0000-01-01"), "sido": .null])
        #expect(q.parameters.first?.help == "age in hours")
    }
}
