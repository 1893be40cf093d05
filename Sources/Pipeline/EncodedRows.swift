/// Rows a writer encoded before the load, while the payload was prepared: the values of each
/// row in one flat byte buffer, ready to bind.
///
/// For record types that arrive by the tens of thousands per load (hourly measurements) and whose
/// writer only upserts by natural key (`RecordWriter(_:rows:)`): the preparing task encodes each
/// record's rows as the page is decoded, and the load binds them straight from the buffer: no
/// record kept per item, no `[StoreValue]` array per row, and the writer's thread (the one that
/// holds the transaction, and so the load's pace) only binds and steps.
///
/// Layout of one row: a flag byte (bit 0: counted — an upsert whose outcome counts as the
/// record's; otherwise an `upsertOnce` fact), the table's index in `tables` (UInt16), the value
/// count (UInt16), then each value: a tag byte (0 NULL, 1 integer, 2 real, 3 text) and for
/// integers and reals 8 bytes (little-endian bit pattern), for text a UInt32 byte count and the
/// UTF-8 bytes.
public struct EncodedRows: Sendable {
    public private(set) var bytes: [UInt8] = []
    /// The tables rows are written to, indexed by each row's table number.
    public private(set) var tables: [UpsertTable] = []
    /// Rows in the buffer.
    public private(set) var count = 0

    public init() {}

    /// Makes room for `count` bytes in all, so appending rows does not grow the buffer step by step.
    public mutating func reserveCapacity(_ count: Int) { bytes.reserveCapacity(count) }

    public var isEmpty: Bool { count == 0 }
    /// The buffer's length: rows appended from now on start here (entries of a prepared
    /// payload name their rows by byte range).
    public var byteCount: Int { bytes.count }

    /// Appends a row for `table` with the values `fill` gives, in `table.columns` order.
    /// `counted`: the row's outcome is the record's (an upsert); false for facts written once per
    /// load (`upsertOnce`).
    public mutating func append(_ table: UpsertTable, counted: Bool, _ fill: (inout RowEncoder) -> Void) {
        let tableIndex: Int
        if let known = tables.lastIndex(where: { $0.fingerprint == table.fingerprint && $0.table == table.table }) {
            tableIndex = known
        } else {
            tableIndex = tables.count
            tables.append(table)
        }
        precondition(tableIndex <= Int(UInt16.max), "more tables than a row can name")
        bytes.append(counted ? 1 : 0)
        Self.put(UInt16(tableIndex), into: &bytes)
        let countAt = bytes.count
        bytes.append(0); bytes.append(0)
        // The encoder owns the buffer while it fills and hands it back: one owner at a time, so
        // appending never copies it.
        var encoder = RowEncoder(bytes: [])
        swap(&bytes, &encoder.bytes)
        fill(&encoder)
        swap(&bytes, &encoder.bytes)
        precondition(encoder.values == table.columns.count,
                     "\(table.table): \(encoder.values) values encoded for \(table.columns.count) columns")
        bytes[countAt] = UInt8(truncatingIfNeeded: encoder.values)
        bytes[countAt + 1] = UInt8(truncatingIfNeeded: encoder.values >> 8)
        count += 1
    }

    /// Calls `body` with each row in order, of the rows within `byteRange` (all when nil).
    public func forEach(in byteRange: Range<Int>? = nil, _ body: (EncodedRow) throws -> Void) rethrows {
        let range = byteRange ?? 0..<bytes.count
        precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count, "rows out of the buffer")
        try bytes.withUnsafeBufferPointer { buffer in
            var offset = range.lowerBound
            while offset < range.upperBound {
                let row = EncodedRow(buffer: buffer, offset: offset)
                try body(row)
                offset = row.end
            }
        }
    }

    static func put(_ value: UInt16, into bytes: inout [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: value)); bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    }
}

/// Fills one row of `EncodedRows`: one call per column, in the table's column order.
public struct RowEncoder {
    fileprivate var bytes: [UInt8]
    fileprivate var values = 0

    fileprivate init(bytes: [UInt8]) { self.bytes = bytes }

    public mutating func append(_ value: String?) {
        values += 1
        guard var value else { bytes.append(0); return }
        bytes.append(3)
        value.withUTF8 { utf8 in
            withUnsafeBytes(of: UInt32(utf8.count).littleEndian) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: utf8)
        }
    }

    public mutating func append(_ value: Int?) { append(value.map(Int64.init)) }

    public mutating func append(_ value: Int64?) {
        values += 1
        guard let value else { bytes.append(0); return }
        bytes.append(1)
        put(UInt64(bitPattern: value))
    }

    public mutating func append(_ value: Double?) {
        values += 1
        guard let value else { bytes.append(0); return }
        bytes.append(2)
        put(value.bitPattern)
    }

    public mutating func append(_ value: StoreValue) {
        switch value {
        case .null: append(nil as Int64?)
        case .integer(let v): append(v)
        case .real(let v): append(v)
        case .text(let v): append(v)
        }
    }

    private mutating func put(_ bits: UInt64) {
        withUnsafeBytes(of: bits.littleEndian) { bytes.append(contentsOf: $0) }
    }
}

/// One encoded row, read in place (valid only inside `EncodedRows.forEach`).
public struct EncodedRow {
    /// One value, text as a pointer into the buffer (valid as long as the row).
    public enum Value {
        case null
        case integer(Int64)
        case real(Double)
        case text(UnsafeBufferPointer<UInt8>)

        /// The value as a `StoreValue` (text copied into a `String`).
        public var storeValue: StoreValue {
            switch self {
            case .null: return .null
            case .integer(let v): return .integer(v)
            case .real(let v): return .real(v)
            case .text(let bytes): return .text(String(decoding: bytes, as: UTF8.self))
            }
        }
    }

    private let buffer: UnsafeBufferPointer<UInt8>
    /// Where the row starts, its first value, and the byte after it.
    private let start: Int
    private let valuesStart: Int
    let end: Int

    init(buffer: UnsafeBufferPointer<UInt8>, offset: Int) {
        self.buffer = buffer
        start = offset
        valuesStart = offset + 5
        var at = valuesStart
        for _ in 0..<Int(Self.uint16(buffer, offset + 3)) { at = Self.skip(buffer, at) }
        end = at
    }

    /// Whether the row's outcome counts as its record's (false: a fact written once per load).
    public var isCounted: Bool { buffer[start] & 1 == 1 }
    /// The row's table, an index into `EncodedRows.tables`.
    public var table: Int { Int(Self.uint16(buffer, start + 1)) }
    public var valueCount: Int { Int(Self.uint16(buffer, start + 3)) }
    /// The bytes of the row's values, for comparing rows cheaply.
    public var valueBytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: buffer[valuesStart..<end]) }

    /// Calls `body` with each value in column order.
    public func forEachValue(_ body: (Value) throws -> Void) rethrows {
        var at = valuesStart
        for _ in 0..<valueCount {
            let tag = buffer[at]
            switch tag {
            case 1: try body(.integer(Int64(bitPattern: Self.uint64(buffer, at + 1))))
            case 2: try body(.real(Double(bitPattern: Self.uint64(buffer, at + 1))))
            case 3:
                let length = Int(Self.uint32(buffer, at + 1))
                try body(.text(UnsafeBufferPointer(rebasing: buffer[(at + 5)..<(at + 5 + length)])))
            default: try body(.null)
            }
            at = Self.skip(buffer, at)
        }
    }

    /// The row as `RowValues` (for stores that write through `upsert`).
    public var rowValues: RowValues {
        var row = RowValues(capacity: valueCount)
        forEachValue { row.append($0.storeValue) }
        return row
    }

    private static func skip(_ buffer: UnsafeBufferPointer<UInt8>, _ at: Int) -> Int {
        switch buffer[at] {
        case 1, 2: return at + 9
        case 3: return at + 5 + Int(uint32(buffer, at + 1))
        default: return at + 1
        }
    }

    private static func uint16(_ b: UnsafeBufferPointer<UInt8>, _ at: Int) -> UInt16 { UInt16(b[at]) | UInt16(b[at + 1]) << 8 }

    private static func uint32(_ b: UnsafeBufferPointer<UInt8>, _ at: Int) -> UInt32 {
        UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
    }

    private static func uint64(_ b: UnsafeBufferPointer<UInt8>, _ at: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in (0..<8).reversed() { value = value << 8 | UInt64(b[at + i]) }
        return value
    }
}

extension TableWriting {
    /// Writes the encoded rows within `byteRange` (all when nil) in order, through
    /// `upsertBatched` (counted rows) and `upsertOnce` (facts), and returns the counted rows'
    /// outcomes. Stores may instead bind the bytes directly.
    public func write(_ rows: EncodedRows, in byteRange: Range<Int>?) throws -> LoadCounts {
        var counts = LoadCounts()
        try rows.forEach(in: byteRange) { row in
            let table = rows.tables[row.table]
            if row.isCounted {
                counts.count(try upsertBatched(table, row.rowValues))
            } else {
                try upsertOnce(table, row.rowValues)
            }
        }
        return counts
    }
}
