import Foundation

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
/// UTF-8 bytes. Numbers are little-endian and unaligned.
public struct EncodedRows: Sendable {
    /// The bytes, shared between copies until one of them appends (copy on write).
    private var storage = ByteStorage()
    /// The tables rows are written to, indexed by each row's table number.
    public private(set) var tables: [UpsertTable] = []
    /// Rows in the buffer.
    public private(set) var count = 0

    public init() {}

    public var isEmpty: Bool { count == 0 }
    /// The buffer's length: rows appended from now on start here (entries of a prepared
    /// payload name their rows by byte range).
    public var byteCount: Int { storage.count }

    /// Makes room for `count` bytes in all, so appending rows does not grow the buffer step by step.
    public mutating func reserveCapacity(_ count: Int) {
        unshare()
        storage.reserve(count)
    }

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
        unshare()
        let start = storage.count
        storage.reserve(start + 5)
        storage.store(UInt8(counted ? 1 : 0), at: start)
        storage.store(UInt16(tableIndex).littleEndian, at: start + 1)
        storage.count = start + 5
        var encoder = RowEncoder(storage: storage)
        fill(&encoder)
        precondition(encoder.values == table.columns.count,
                     "\(table.table): \(encoder.values) values encoded for \(table.columns.count) columns")
        storage.store(UInt16(encoder.values).littleEndian, at: start + 3)
        count += 1
    }

    /// Calls `body` with each row in order, of the rows within `byteRange` (all when nil).
    public func forEach(in byteRange: Range<Int>? = nil, _ body: (EncodedRow) throws -> Void) rethrows {
        let range = byteRange ?? 0..<storage.count
        precondition(range.lowerBound >= 0 && range.upperBound <= storage.count, "rows out of the buffer")
        try withExtendedLifetime(storage) {
            let buffer = UnsafeRawBufferPointer(start: storage.base, count: storage.count)
            var offset = range.lowerBound
            while offset < range.upperBound {
                let row = EncodedRow(buffer: buffer, offset: offset)
                try body(row)
                offset = row.end
            }
        }
    }

    private mutating func unshare() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }

    /// The rows' bytes, for keeping them out of memory (`RowSpooling`).
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withExtendedLifetime(storage) { try body(UnsafeRawBufferPointer(start: storage.base, count: storage.count)) }
    }

    /// Rows read back from bytes `withUnsafeBytes` gave: `byteCount` bytes that `fill` copies
    /// into the buffer, of `count` rows for `tables`.
    public init(byteCount: Int, count: Int, tables: [UpsertTable], fill: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        storage.reserve(byteCount)
        if byteCount > 0 { try fill(UnsafeMutableRawBufferPointer(start: storage.base, count: byteCount)) }
        storage.count = byteCount
        self.count = count
        self.tables = tables
    }
}

/// Where a live run keeps the encoded rows of the pages it has fetched until its load, so that
/// memory does not grow with the number of pages: bytes appended once, read back once, in the
/// same process. A store-independent port; FeedCore's `FileRowSpool` keeps them in an unlinked
/// temporary file.
public protocol RowSpooling: AnyObject, Sendable {
    /// Appends `bytes`; returns the offset to read them back from.
    func append(_ bytes: UnsafeRawBufferPointer) throws -> Int
    /// Fills `buffer` with the bytes stored at `offset`.
    func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws
}

/// The growable byte buffer behind `EncodedRows` (malloc'd; values stored unaligned in place).
final class ByteStorage: @unchecked Sendable {
    private(set) var base: UnsafeMutableRawPointer?
    var count = 0
    private var capacity = 0

    init() {}

    deinit { base.map { free($0) } }

    func copy() -> ByteStorage {
        let copy = ByteStorage()
        copy.reserve(count)
        if count > 0, let base, let target = copy.base { target.copyMemory(from: base, byteCount: count) }
        copy.count = count
        return copy
    }

    /// Makes the capacity at least `needed` bytes (doubling).
    @inline(__always)
    func reserve(_ needed: Int) {
        if needed > capacity { grow(needed) }
    }

    private func grow(_ needed: Int) {
        var newCapacity = max(capacity * 2, 256)
        while newCapacity < needed { newCapacity *= 2 }
        guard let moved = realloc(base, newCapacity) else { fatalError("out of memory encoding rows (\(newCapacity) bytes)") }
        base = moved
        capacity = newCapacity
    }

    /// Stores `value`'s bytes at `offset` (within the reserved capacity).
    @inline(__always)
    func store<T>(_ value: T, at offset: Int) {
        base!.storeBytes(of: value, toByteOffset: offset, as: T.self)
    }
}

/// Fills one row of `EncodedRows`: one call per column, in the table's column order.
public struct RowEncoder {
    fileprivate let storage: ByteStorage
    fileprivate var values = 0

    fileprivate init(storage: ByteStorage) { self.storage = storage }

    public mutating func append(_ value: String?) {
        values += 1
        let at = storage.count
        guard var value else {
            storage.reserve(at + 1); storage.store(UInt8(0), at: at); storage.count = at + 1
            return
        }
        value.withUTF8 { utf8 in
            storage.reserve(at + 5 + utf8.count)
            storage.store(UInt8(3), at: at)
            storage.store(UInt32(utf8.count).littleEndian, at: at + 1)
            if let source = utf8.baseAddress, !utf8.isEmpty {
                (storage.base! + at + 5).copyMemory(from: source, byteCount: utf8.count)
            }
            storage.count = at + 5 + utf8.count
        }
    }

    public mutating func append(_ value: Int?) { append(value.map(Int64.init)) }

    public mutating func append(_ value: Int64?) {
        guard let value else { appendNull(); return }
        appendNumber(tag: 1, UInt64(bitPattern: value))
    }

    public mutating func append(_ value: Double?) {
        guard let value else { appendNull(); return }
        appendNumber(tag: 2, value.bitPattern)
    }

    public mutating func append(_ value: StoreValue) {
        switch value {
        case .null: appendNull()
        case .integer(let v): append(v)
        case .real(let v): append(v)
        case .text(let v): append(v)
        }
    }

    @inline(__always)
    private mutating func appendNull() {
        values += 1
        let at = storage.count
        storage.reserve(at + 1)
        storage.store(UInt8(0), at: at)
        storage.count = at + 1
    }

    @inline(__always)
    private mutating func appendNumber(tag: UInt8, _ bits: UInt64) {
        values += 1
        let at = storage.count
        storage.reserve(at + 9)
        storage.store(tag, at: at)
        storage.store(bits.littleEndian, at: at + 1)
        storage.count = at + 9
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

    @usableFromInline let buffer: UnsafeRawBufferPointer
    /// Where the row starts, its first value, and the byte after it.
    private let start: Int
    @usableFromInline let valuesStart: Int
    @usableFromInline let end: Int

    init(buffer: UnsafeRawBufferPointer, offset: Int) {
        self.buffer = buffer
        start = offset
        valuesStart = offset + 5
        var at = valuesStart
        for _ in 0..<Int(Self.load(UInt16.self, buffer, offset + 3)) {
            at = Self.skip(buffer, at)
        }
        end = at
    }

    /// Whether the row's outcome counts as its record's (false: a fact written once per load).
    public var isCounted: Bool { buffer[start] & 1 == 1 }
    /// The row's table, an index into `EncodedRows.tables`.
    public var table: Int { Int(Self.load(UInt16.self, buffer, start + 1)) }
    public var valueCount: Int { Int(Self.load(UInt16.self, buffer, start + 3)) }
    /// The bytes of the row's values, for comparing rows cheaply.
    public var valueBytes: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: buffer.baseAddress!.assumingMemoryBound(to: UInt8.self) + valuesStart, count: end - valuesStart)
    }

    /// Calls `body` with each value in column order. Inlinable: the store's binding loop runs it
    /// for every value of every row, and a call per value through a closure cost a third of it.
    @inlinable
    public func forEachValue(_ body: (Value) throws -> Void) rethrows {
        var at = valuesStart
        while at < end {
            switch buffer[at] {
            case 1:
                try body(.integer(Int64(bitPattern: Self.load(UInt64.self, buffer, at + 1))))
                at += 9
            case 2:
                try body(.real(Double(bitPattern: Self.load(UInt64.self, buffer, at + 1))))
                at += 9
            case 3:
                let length = Int(Self.load(UInt32.self, buffer, at + 1))
                let text = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self) + at + 5
                try body(.text(UnsafeBufferPointer(start: text, count: length)))
                at += 5 + length
            default:
                try body(.null)
                at += 1
            }
        }
    }

    /// The row as `RowValues` (for stores that write through `upsert`).
    public var rowValues: RowValues {
        var row = RowValues(capacity: valueCount)
        forEachValue { row.append($0.storeValue) }
        return row
    }

    /// The little-endian number of type `T` at `at` (unaligned).
    @inlinable @inline(__always)
    static func load<T: FixedWidthInteger>(_ type: T.Type, _ buffer: UnsafeRawBufferPointer, _ at: Int) -> T {
        T(littleEndian: buffer.loadUnaligned(fromByteOffset: at, as: T.self))
    }

    private static func skip(_ buffer: UnsafeRawBufferPointer, _ at: Int) -> Int {
        switch buffer[at] {
        case 1, 2: return at + 9
        case 3: return at + 5 + Int(Self.load(UInt32.self, buffer, at + 1))
        default: return at + 1
        }
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
