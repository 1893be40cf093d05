import Pipeline

/// How long a field's value may be, in UTF-8 bytes. A longer value is refused (nil, never cut)
/// with a `field-too-long` diagnostic naming the field and its length, and the readers stop
/// buffering it at the limit, so one hostile field cannot fill memory or the database.
public enum FieldLimit {
    /// Names, codes, numbers, dates, URLs: 4 KiB.
    public static let standard = 4 * 1024
    /// Fields documented as free text (forecast overviews, job descriptions): 64 KiB.
    public static let prose = 64 * 1024
}

/// The field names an item may carry, numbered, so a reader can store values by index, and
/// the length each may have (`FieldLimit`).
///
/// A name is a member of the item (`pm10Value`) or a slash path into nested structure
/// (`position/title`, `position/location/code`). In XML a path step is a child element or an
/// attribute and an element's own text is its path (`<location code="…">name</location>` gives
/// `position/location/code` and `position/location`); in JSON every step is an object member.
public struct FieldSchema: Sendable {
    /// Everything in one object, so an item's fields (which carry their schema) retain and
    /// release one reference rather than four collections.
    private final class Storage: Sendable {
        let names: [String]
        let index: [String: Int]
        let limits: [Int]
        let containers: Set<String>

        init(names: [String], index: [String: Int], limits: [Int], containers: Set<String>) {
            self.names = names; self.index = index; self.limits = limits; self.containers = containers
        }
    }
    private let storage: Storage

    public var names: [String] { storage.names }
    /// The byte limit of each field, by position.
    public var limits: [Int] { storage.limits }

    /// - Parameter prose: fields documented as free text, allowed `FieldLimit.prose` bytes;
    ///   every other field is allowed `FieldLimit.standard`.
    public init(_ names: [String], prose: Set<String> = []) {
        var index: [String: Int] = [:]
        for (i, name) in names.enumerated() where index[name] == nil { index[name] = i }
        // Every path that leads to a nested field (`position`, `position/location`); empty for
        // a flat schema, whose readers never look below an item's members.
        var containers: Set<String> = []
        for name in names {
            var path = Substring(name)
            while let slash = path.lastIndex(of: "/") {
                path = path[..<slash]
                containers.insert(String(path))
            }
        }
        storage = Storage(names: names, index: index,
                          limits: names.map { prose.contains($0) ? FieldLimit.prose : FieldLimit.standard },
                          containers: containers)
    }

    /// The index of `name`, or nil for a field outside the schema.
    public func position(of name: String) -> Int? { storage.index[name] }

    /// The byte limit of the field at `position`.
    public func limit(at position: Int) -> Int { storage.limits[position] }

    /// Whether some field lies below the slash path `path`.
    public func isContainer(_ path: String) -> Bool { storage.containers.contains(path) }

    /// Whether any field is a nested path.
    public var isNested: Bool { !storage.containers.isEmpty }
}

/// Something a reader noticed about one field's value, and what it did about it.
public struct FieldNote: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The value was longer than its limit and was refused (the field reads as missing).
        case tooLong(bytes: Int, limit: Int)
        /// The value held U+0000 characters (JSON `\u0000`); they were removed.
        case nulRemoved
        /// The value held an unpaired UTF-16 surrogate escape (`\ud800`); it became U+FFFD.
        case loneSurrogate
        /// The item held the field more than once (a duplicate JSON key, a repeated XML
        /// element); the last value was kept.
        case repeated
    }
    public var field: String
    public var kind: Kind

    public init(field: String, kind: Kind) { self.field = field; self.kind = kind }
}

/// One item's fields as strings, exactly as on the wire: nil when the field is absent (or JSON
/// `null`), `""` when it is present but empty. XML and JSON readers both produce this, so the
/// mapping from an item to a record is shared and the two formats give identical rows.
public struct ItemFields: Sendable {
    public let schema: FieldSchema
    public var values: [String?]
    /// Position of the item within its page, 0-based.
    public var position: Int
    /// Fields whose JSON value was an object or array where a scalar was expected.
    public var typeMismatches: [String] = []
    /// What the reader did to field values (refused as too long, NUL removed, …).
    public var notes: [FieldNote] = []

    public init(schema: FieldSchema, position: Int) {
        self.schema = schema
        self.values = Array(repeating: nil, count: schema.names.count)
        self.position = position
    }

    /// Empties the fields for the item at `position`, keeping their storage: readers reuse one
    /// `ItemFields` for every item of a page instead of allocating one per item.
    mutating func reset(position: Int) {
        self.position = position
        values.withUnsafeMutableBufferPointer { values in
            for i in values.indices { values[i] = nil }
        }
        if !typeMismatches.isEmpty { typeMismatches.removeAll(keepingCapacity: true) }
        if !notes.isEmpty { notes.removeAll(keepingCapacity: true) }
    }

    /// The raw value of field `name` (nil if absent or not in the schema).
    public subscript(_ name: String) -> String? {
        guard let i = schema.position(of: name) else { return nil }
        return values[i]
    }

    /// The raw value at schema position `i`.
    public subscript(at i: Int) -> String? { values[i] }
}

extension ItemFields {
    /// The diagnostics of what the reader found wrong with this item's fields (type
    /// mismatches, refused over-long values, removed NULs, lone surrogates), located as
    /// `item 3 pm10Value` (`noun` names what the feed calls an item).
    public func readerDiagnostics(noun: String = "item") -> [Diagnostic] {
        var out = typeMismatches.sorted().map { field in
            Diagnostic(code: .typeMismatch, message: "\(field) is an object or array where a string was expected; it is treated as missing.",
                       location: "\(noun) \(position) \(field)")
        }
        for note in notes { out.append(note.diagnostic(location: "\(noun) \(position) \(note.field)")) }
        return out
    }
}

extension FieldNote {
    /// The note as a diagnostic at `location`.
    public func diagnostic(location: String) -> Diagnostic {
        switch kind {
        case .tooLong(let bytes, let limit):
            Diagnostic(code: .fieldTooLong,
                       message: "\(field) is \(bytes) bytes long, over its limit of \(limit); the value is refused and stored as missing.",
                       location: location, value: String(bytes))
        case .nulRemoved:
            Diagnostic(code: .nulRemoved, message: "\(field) held NUL characters (\\u0000); they were removed.", location: location)
        case .loneSurrogate:
            Diagnostic(code: .loneSurrogate,
                       message: "\(field) held an unpaired UTF-16 surrogate escape; it was stored as U+FFFD (�).", location: location)
        case .repeated:
            Diagnostic(code: .repeatedField,
                       message: "\(field) appears more than once in the item; the last value was kept.", location: location)
        }
    }
}


extension Diagnostic {
    /// An element of an item list that is not an object (`[1, "x", {…}]`): it is skipped.
    /// - Parameter noun: what the feed calls an item (`item`, `job`).
    public static func notAnObject(position: Int, noun: String = "item") -> Diagnostic {
        Diagnostic(code: .typeMismatch, message: "The \(noun) is not a JSON object; it is skipped.", location: "\(noun) \(position)")
    }
}
