/// The field names an item may carry, numbered, so a reader can store values by index.
public struct FieldSchema: Sendable {
    public let names: [String]
    let index: [String: Int]

    public init(_ names: [String]) {
        self.names = names
        var index: [String: Int] = [:]
        for (i, name) in names.enumerated() where index[name] == nil { index[name] = i }
        self.index = index
    }

    /// The index of `name`, or nil for a field outside the schema.
    public func position(of name: String) -> Int? { index[name] }
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

    public init(schema: FieldSchema, position: Int) {
        self.schema = schema
        self.values = Array(repeating: nil, count: schema.names.count)
        self.position = position
    }

    /// The raw value of field `name` (nil if absent or not in the schema).
    public subscript(_ name: String) -> String? {
        guard let i = schema.position(of: name) else { return nil }
        return values[i]
    }

    /// The raw value at schema position `i`.
    public subscript(at i: Int) -> String? { values[i] }
}
