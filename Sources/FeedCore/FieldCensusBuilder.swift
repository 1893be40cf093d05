import Pipeline

/// Counts, while a reader reads a page, which fields its items carried and of what kinds
/// (`FieldCensus`), for schema-drift detection. Cheap enough for every page: schema fields are
/// counted in arrays by their schema position; fields outside the schema get an index once (the
/// readers cache it with the key), and a value is kept only the first time a field shows a kind.
struct FieldCensusBuilder {
    let schema: FieldSchema
    let format: PayloadFormat
    var items = 0
    /// By schema position: items that held the field, kinds seen.
    private var counts: [Int]
    private var kinds: [UInt8]
    private var samples: [(slot: Int, kind: UInt8, value: String)] = []
    /// Fields outside the schema (and containers), by index.
    private var extraIndex: [String: Int] = [:]
    private var extras: [(path: String, field: FieldCensus.Field)] = []

    init(schema: FieldSchema, format: PayloadFormat) {
        self.schema = schema
        self.format = format
        counts = Array(repeating: 0, count: schema.names.count)
        kinds = Array(repeating: 0, count: schema.names.count)
    }

    /// A schema field held by an item, of `kind` (empty for JSON `null`) with `value` (nil when
    /// not read).
    @inline(__always)
    mutating func saw(slot: Int, kind: FieldKinds, value: String?) {
        counts[slot] &+= 1
        guard !kind.isEmpty, kinds[slot] & kind.rawValue == 0 else { return }
        kinds[slot] |= kind.rawValue
        if let value { samples.append((slot, kind.rawValue, FieldCensus.bounded(value))) }
    }

    /// The index of a field outside the schema (or a container), given once per path.
    mutating func extra(_ path: String) -> Int {
        if let known = extraIndex[path] { return known }
        extras.append((path, FieldCensus.Field()))
        extraIndex[path] = extras.count - 1
        return extras.count - 1
    }

    /// Whether the schema field at `slot` has no value of `kind` kept yet.
    func wantsSample(slot: Int, kind: FieldKinds) -> Bool { kinds[slot] & kind.rawValue == 0 }

    /// Whether the field outside the schema at `index` has no value of `kind` kept yet (so the
    /// reader should read one).
    func wantsSample(extra index: Int, kind: FieldKinds) -> Bool {
        extras[index].field.samples[kind.rawValue] == nil
    }

    /// Whether the field outside the schema at `index` was never seen with a value.
    func isNew(extra index: Int) -> Bool { extras[index].field.kinds.isEmpty }

    /// A field outside the schema held by an item.
    mutating func saw(extra index: Int, kind: FieldKinds, value: String?) {
        extras[index].field.items &+= 1
        guard !kind.isEmpty else { return }
        extras[index].field.kinds.formUnion(kind)
        if let value, extras[index].field.samples[kind.rawValue] == nil {
            extras[index].field.samples[kind.rawValue] = FieldCensus.bounded(value)
        }
    }

    /// What the page carried.
    func census() -> FieldCensus {
        var fields: [String: FieldCensus.Field] = [:]
        for (slot, name) in schema.names.enumerated() where counts[slot] > 0 {
            fields[name, default: FieldCensus.Field()].items += counts[slot]
            fields[name, default: FieldCensus.Field()].kinds.formUnion(FieldKinds(rawValue: kinds[slot]))
        }
        for sample in samples {
            let name = schema.names[sample.slot]
            if fields[name]?.samples[sample.kind] == nil { fields[name]?.samples[sample.kind] = sample.value }
        }
        for (path, field) in extras where field.items > 0 {
            if var known = fields[path] {
                known.items += field.items
                known.kinds.formUnion(field.kinds)
                known.samples.merge(field.samples) { a, _ in a }
                fields[path] = known
            } else {
                fields[path] = field
            }
        }
        return FieldCensus(items: items, format: format, fields: fields)
    }
}
