import Foundation
@testable import Pipeline
import PropertyBased
import Testing

@Suite("Encoded rows: the values a writer encodes come back unchanged")
struct EncodedRowsTests {
    static let tables = [
        UpsertTable(table: "a", columns: ["k", "v1", "v2"], key: ["k"]),
        UpsertTable(table: "b", columns: ["k", "v"], key: ["k"], revision: false),
        UpsertTable(table: "c", columns: ["k", "v1", "v2", "v3", "v4"], key: ["k", "v1"]),
    ]

    /// Texts that stress the length prefix and the bytes: empty, Hangul, a NUL, a long one.
    static let texts = ["", "종로구", "a\u{0}b", "2024-03-01T00:00:00Z", String(repeating: "측정소", count: 400), "🙂 emoji"]

    static func value(_ rng: inout some RandomNumberGenerator) -> StoreValue {
        let integer = Int64.random(in: .min ... .max, using: &rng)
        switch Int.random(in: 0...5, using: &rng) {
        case 0: return .null
        case 1: return .integer(integer)
        case 2: return .real(Double.random(in: -1e12...1e12, using: &rng))
        case 3: return .real([-0.0, .infinity, -.infinity, .greatestFiniteMagnitude, .leastNonzeroMagnitude].randomElement(using: &rng)!)
        case 4: return .integer([Int64.min, Int64.max, 0, -1].randomElement(using: &rng)!)
        default: return .text(texts.randomElement(using: &rng)!)
        }
    }

    typealias GeneratedRow = (table: Int, counted: Bool, values: [StoreValue])

    /// 0 to 12 rows, each with as many values as its table has columns.
    static let rows = Generator<[GeneratedRow], Shrink.None<[GeneratedRow]>> { rng in
        (0..<Int.random(in: 0...12, using: &rng)).map { _ in
            let table = Int.random(in: 0...2, using: &rng)
            return (table, Bool.random(using: &rng), (0..<tables[table].columns.count).map { _ in value(&rng) })
        }
    }

    static func encode(_ rows: [GeneratedRow]) -> (EncodedRows, [Int]) {
        var encoded = EncodedRows()
        var boundaries = [0]
        for row in rows {
            encoded.append(tables[row.table], counted: row.counted) { encoder in
                for value in row.values { encoder.append(value) }
            }
            boundaries.append(encoded.byteCount)
        }
        return (encoded, boundaries)
    }

    static func decode(_ encoded: EncodedRows, in range: Range<Int>? = nil) -> [(table: String, counted: Bool, values: [StoreValue])] {
        var out: [(table: String, counted: Bool, values: [StoreValue])] = []
        encoded.forEach(in: range) { row in
            out.append((encoded.tables[row.table].table, row.isCounted, row.rowValues.values))
        }
        return out
    }

    /// Equal values, reals compared by bit pattern (so -0.0 and 0.0 differ).
    static func same(_ a: [StoreValue], _ b: [StoreValue]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { x, y in
            if case .real(let p) = x, case .real(let q) = y { return p.bitPattern == q.bitPattern }
            return x == y
        }
    }

    @Test("every row comes back with its table, its flag and its values, in order")
    func roundTrip() {
        seededPropertyCheck(count: 300, input: Self.rows) { rows in
            let (encoded, _) = Self.encode(rows)
            let decoded = Self.decode(encoded)
            #expect(encoded.count == rows.count)
            #expect(decoded.count == rows.count)
            for (given, back) in zip(rows, decoded) {
                #expect(back.table == Self.tables[given.table].table)
                #expect(back.counted == given.counted)
                #expect(Self.same(back.values, given.values), "\(given.values) came back as \(back.values)")
            }
            // Each table appears once in the encoded set, however many rows use it.
            #expect(encoded.tables.count == Set(rows.map(\.table)).count)
        }
    }

    /// A spool in memory, as a live run's (`RowSpooling`) keeps pages' rows until its load.
    final class MemorySpool: RowSpooling, @unchecked Sendable {
        var bytes: [UInt8] = []
        func append(_ data: UnsafeRawBufferPointer) throws -> Int { defer { bytes += data }; return bytes.count }
        func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws {
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes.withUnsafeBytes { $0 }[offset..<offset + buffer.count]))
        }
    }

    @Test("rows kept in a spool and read back are the rows written, among other pages' rows")
    func spoolRoundTrip() throws {
        seededPropertyCheck(count: 200, input: zip(Self.rows, Self.rows)) { first, second in
            let spool = MemorySpool()
            var pages: [(offset: Int, count: Int, rows: EncodedRows)] = []
            for rows in [first, second] {
                let (encoded, _) = Self.encode(rows)
                let offset = try! encoded.withUnsafeBytes { try spool.append($0) }
                pages.append((offset, encoded.byteCount, encoded))
            }
            for (page, rows) in zip(pages, [first, second]) {
                let back = try! EncodedRows(byteCount: page.count, count: page.rows.count, tables: page.rows.tables) {
                    try spool.read(at: page.offset, into: $0)
                }
                let decoded = Self.decode(back)
                #expect(back.count == rows.count && decoded.count == rows.count)
                for (given, again) in zip(rows, decoded) {
                    #expect(again.table == Self.tables[given.table].table && again.counted == given.counted)
                    #expect(Self.same(again.values, given.values))
                }
            }
        }
    }

    @Test("a page spilled to the spool reads back with the same rows, diagnostics and records, in order")
    func pageSpillRoundTrip() throws {
        struct Note: LoadableRecord { var text: String }
        seededPropertyCheck(count: 100, input: Self.rows) { rows in
            let (encoded, boundaries) = Self.encode(rows)
            var entries: [PreparingSink.Entry] = [.diagnostic(Diagnostic(code: DiagnosticCode("grade-mismatch"), message: "종로구 said 2, ours 3.",
                                                                         location: "item 1", value: nil))]
            if boundaries.count > 2 { entries.append(.rows(0..<boundaries[1])) }
            entries.append(.record(FeedRecord(Note(text: "first"))))
            entries.append(.diagnostic(Diagnostic(code: DiagnosticCode("x"), message: "", location: "a\u{0}b", value: "🙂")))
            if boundaries.count > 2 { entries.append(.rows(boundaries[1]..<encoded.byteCount)) }
            entries.append(.record(FeedRecord(Note(text: "second"))))
            let page = PreparedPayload(entries: entries, rows: encoded, summary: PageSummary(itemCount: rows.count), newestSlot: nil)
            let spool = MemorySpool()
            let spilled = try! PageInspection(prepared: page).spilled(into: spool)
            #expect(!spool.bytes.isEmpty)
            let back = try! spilled.prepared()
            #expect(back.rows.count == rows.count && back.rows.byteCount == encoded.byteCount)
            #expect(back.entries.count == entries.count)
            for (a, b) in zip(entries, back.entries) {
                switch (a, b) {
                case (.rows(let x), .rows(let y)): #expect(x == y)
                case (.diagnostic(let x), .diagnostic(let y)): #expect(x == y)
                case (.record(let x), .record(let y)): #expect((x.value as? Note)?.text == (y.value as? Note)?.text)
                default: Issue.record("entry \(a) came back as \(b)")
                }
            }
            for (given, again) in zip(rows, Self.decode(back.rows)) { #expect(Self.same(again.values, given.values)) }
        }
    }

    @Test("a byte range between row boundaries holds exactly those rows")
    func ranges() {
        seededPropertyCheck(count: 200, input: zip(Self.rows, Gen.int(in: 0...12), Gen.int(in: 0...12))) { rows, a, b in
            let (encoded, boundaries) = Self.encode(rows)
            let lower = min(a, b, rows.count), upper = min(max(a, b), rows.count)
            let decoded = Self.decode(encoded, in: boundaries[lower]..<boundaries[upper])
            #expect(decoded.count == upper - lower)
            for (given, back) in zip(rows[lower..<upper], decoded) {
                #expect(Self.same(back.values, given.values))
            }
        }
    }

    @Test("rows written through the port: counted rows are upserted and counted, the others written once, in order")
    func defaultWrite() throws {
        let tables = RecordingTables()
        var encoded = EncodedRows()
        encoded.append(Self.tables[0], counted: true) { $0.append("k1"); $0.append(1 as Int?); $0.append(2.5 as Double?) }
        encoded.append(Self.tables[1], counted: false) { $0.append("k1"); $0.append(nil as String?) }
        encoded.append(Self.tables[0], counted: true) { $0.append("k2"); $0.append(nil as Int?); $0.append(-1.0 as Double?) }
        let counts = try tables.write(encoded, in: nil)
        #expect(tables.calls == ["upsert a [k1, 1, 2.5]", "once b [k1, NULL]", "upsert a [k2, NULL, -1.0]"])
        #expect(counts.inserted == 2 && counts.rows == 2)
    }

    @Test("a writer that encodes rows writes them when given a record directly, and answers the record's outcome")
    func writerWritesItsRows() throws {
        struct Reading: LoadableRecord { var station: String; var value: Double? }
        let table = Self.tables[1]
        let writer = RecordWriter(Reading.self, rows: { reading, _, rows in
            rows.append(table, counted: true) { $0.append(reading.station); $0.append(reading.value) }
        })
        let tables = RecordingTables()
        #expect(try writer.write(Reading(station: "종로구", value: 3), payload: nil, to: tables) == .inserted)
        #expect(tables.calls == ["upsert b [종로구, 3.0]"])
        var encoded = EncodedRows()
        // The preparing task's step: the transform (here the default: unchanged, no diagnostics), then the rows.
        let diagnostics = writer.prepare?(Reading(station: "중구", value: nil), nil, &encoded)
        #expect(diagnostics?.isEmpty == true)
        #expect(Self.decode(encoded).map(\.values) == [[.text("중구"), .null]])
    }
}

/// A `TableWriting` that records the calls the default `write(_:in:)` makes.
private final class RecordingTables: TableWriting {
    var calls: [String] = []
    var runID: RunID { RunID(1) }

    private func describe(_ row: RowValues) -> String {
        "[" + row.values.map { value -> String in
            switch value {
            case .null: return "NULL"
            case .integer(let v): return "\(v)"
            case .real(let v): return "\(v)"
            case .text(let v): return v
            }
        }.joined(separator: ", ") + "]"
    }

    func upsert(_ table: UpsertTable, _ row: RowValues) throws -> WriteOutcome {
        calls.append("upsert \(table.table) \(describe(row))")
        return .inserted
    }
    func upsertOnce(_ table: UpsertTable, _ row: RowValues) throws { calls.append("once \(table.table) \(describe(row))") }
    func replaceChildren(_ table: ChildTable, parent: [StoreValue], rows: [RowValues]) throws -> Bool { false }
    func newestRow(in table: String, columns: [String], matching match: [(column: String, value: StoreValue)]) throws -> [StoreValue]? { nil }
    func insert(into table: String, columns: [String], _ row: RowValues) throws {}
    func raiseBookmark(_ name: String, toAtLeast value: Int64) throws {}
}
