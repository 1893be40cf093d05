import Foundation

// Schema drift: the fields an operation answers with, as each feed declares them next to its
// decoder (`AnswerShape`), against the fields a page's items actually carried, as the item
// readers counted them while decoding (`FieldCensus`). A difference is a `FieldDrift`: recorded
// once per field and change per run as a `schema-drift` diagnostic, and in `field_drift`.

// MARK: - Kinds

/// The kinds a field's value takes on the wire. JSON tells all five apart; in XML every value is
/// text, so a declared `number` or `bool` is satisfied by text there, and only text ↔ object can
/// change.
public struct FieldKinds: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// A JSON number (`48`, `0.003`).
    public static let number = FieldKinds(rawValue: 1)
    /// A JSON string, or an XML element's text.
    public static let text = FieldKinds(rawValue: 2)
    /// `true` or `false`.
    public static let bool = FieldKinds(rawValue: 4)
    /// A JSON object, or an XML element with child elements.
    public static let object = FieldKinds(rawValue: 8)
    /// A JSON array.
    public static let list = FieldKinds(rawValue: 16)
    /// Any scalar: number, text or bool.
    public static let scalar: FieldKinds = [.number, .text, .bool]

    /// Each kind's name, in this order.
    static let names: [(FieldKinds, String)] = [(.number, "number"), (.text, "text"), (.bool, "bool"), (.object, "object"), (.list, "list")]

    /// `number`, `text|number`, … (`none` when empty).
    public var description: String {
        let parts = Self.names.filter { contains($0.0) }.map(\.1)
        return parts.isEmpty ? "none" : parts.joined(separator: "|")
    }
}

// MARK: - What a page carried

/// The fields a page's items carried, as an item reader saw them while decoding: for each field
/// path (a member `pm10Value`, or a slash path into nested structure `components/pm2_5`), the
/// items that held it (JSON `null` included), the kinds its non-null values took, and the first
/// value of each kind (bounded). Produced by FeedCore's readers; consumed by `AnswerShape.drift`.
public struct FieldCensus: Sendable, Equatable {
    /// What was seen of one field path.
    public struct Field: Sendable, Equatable {
        /// Items that held the field.
        public var items: Int
        /// Kinds of its non-null values.
        public var kinds: FieldKinds
        /// A value of each kind seen, the first one, cut to `FieldCensus.sampleLength` characters.
        public var samples: [UInt8: String]

        public init(items: Int = 0, kinds: FieldKinds = [], samples: [UInt8: String] = [:]) {
            self.items = items; self.kinds = kinds; self.samples = samples
        }

        /// The sample of `kind`, else any sample.
        public func sample(of kind: FieldKinds) -> String? {
            samples[kind.rawValue] ?? samples.sorted { $0.key < $1.key }.first?.value
        }
    }

    /// Items read.
    public var items: Int
    /// The format the items came in (XML cannot tell a number from text).
    public var format: PayloadFormat
    /// Every field path seen in an item, by path.
    public var fields: [String: Field]

    public init(items: Int = 0, format: PayloadFormat, fields: [String: Field] = [:]) {
        self.items = items; self.format = format; self.fields = fields
    }

    /// How many characters of a value a sample keeps.
    public static let sampleLength = 80

    /// `value` cut to `sampleLength` characters, with `…` when cut.
    public static func bounded(_ value: String) -> String {
        value.count <= sampleLength ? value : String(value.prefix(sampleLength)) + "…"
    }
}

// MARK: - What an operation answers with

/// One field an operation's items carry, as the feed declares it.
public struct AnswerField: Sendable, Hashable {
    /// Member name or slash path (`pm10Value`, `position/location/code`).
    public var path: String
    /// The kinds its value may take.
    public var kinds: FieldKinds
    /// Whether every page of items carries it: a page where no item holds it has drifted.
    /// Optional fields (sent only by some API versions or requests) are never reported missing.
    public var required: Bool

    public init(_ path: String, _ kinds: FieldKinds, required: Bool = false) {
        self.path = path; self.kinds = kinds; self.required = required
    }
}

/// The fields one operation answers with (declared once per operation, next to its decoder).
public struct AnswerShape: Sendable {
    public let fields: [AnswerField]
    private let byPath: [String: AnswerField]
    /// Paths that hold declared fields below them (`components`, `position/location`): objects.
    private let containers: Set<String>

    public init(_ fields: [AnswerField]) {
        self.fields = fields
        byPath = Dictionary(fields.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
        var containers: Set<String> = []
        for field in fields {
            var path = Substring(field.path)
            while let slash = path.lastIndex(of: "/") {
                path = path[..<slash]
                containers.insert(String(path))
            }
        }
        self.containers = containers
    }

    /// Every field path given with `kinds`, none required.
    public init(_ paths: [String], kinds: FieldKinds, required: Set<String> = []) {
        self.init(paths.map { AnswerField($0, kinds, required: required.contains($0)) })
    }

    /// This shape with `more` fields (a later declaration of a path replaces an earlier one).
    public func adding(_ more: [AnswerField]) -> AnswerShape {
        let replaced = Set(more.map(\.path))
        return AnswerShape(fields.filter { !replaced.contains($0.path) } + more)
    }

    /// The declared field at `path`, a declared container as an optional object, a field
    /// declared `parent/*` (any member of `parent`, such as the languages of `local_names`), or nil.
    public func field(_ path: String) -> AnswerField? {
        if let field = byPath[path] { return field }
        if containers.contains(path) { return AnswerField(path, .object) }
        if let slash = path.lastIndex(of: "/"), let any = byPath[path[..<slash] + "/*"] { return AnswerField(path, any.kinds) }
        return nil
    }

    /// How `census` differs from the declaration, ordered by path: fields not declared
    /// (`added`), required fields no item held (`removed`, only for a page with items), and
    /// values of a kind the field does not take (`number-to-text`, `object-to-list`, …).
    /// Fields below an added field are not reported again.
    public func drift(in census: FieldCensus) -> [FieldDrift] {
        var out: [FieldDrift] = []
        var added: [String] = []
        for (path, seen) in census.fields.sorted(by: { $0.key < $1.key }) {
            if added.contains(where: { path.hasPrefix($0 + "/") }) { continue }
            guard let declared = field(path) else {
                added.append(path)
                out.append(FieldDrift(path: path, change: .added, sample: seen.sample(of: .text)))
                continue
            }
            // XML carries every scalar as text: a declared number or bool is satisfied by it.
            var accepted = declared.kinds
            if census.format == .xml, !accepted.isDisjoint(with: .scalar) { accepted.formUnion(.text) }
            let unexpected = seen.kinds.subtracting(accepted)
            guard !unexpected.isEmpty else { continue }
            for (kind, _) in FieldKinds.names where unexpected.contains(kind) {
                out.append(FieldDrift(path: path, change: .kind(from: declared.kinds, to: kind), sample: seen.sample(of: kind)))
            }
        }
        if census.items > 0 {
            for field in fields where field.required && (census.fields[field.path]?.items ?? 0) == 0 {
                out.append(FieldDrift(path: field.path, change: .removed, sample: nil))
            }
        }
        return out.sorted { ($0.path, $0.change.label) < ($1.path, $1.change.label) }
    }
}

// MARK: - What changed

/// One way a page's fields differ from what its operation declares.
public struct FieldDrift: Sendable, Hashable {
    public enum Change: Sendable, Hashable {
        /// A field the operation does not declare.
        case added
        /// A required field no item held.
        case removed
        /// A value of kind `to` where the field is declared `from`.
        case kind(from: FieldKinds, to: FieldKinds)

        /// The change as stored and labelled: `added`, `removed`, `number-to-text`.
        public var label: String {
            switch self {
            case .added: "added"
            case .removed: "removed"
            case .kind(let from, let to): "\(from.description.replacingOccurrences(of: "|", with: "-or-"))-to-\(to)"
            }
        }

        /// What the change means, as a clause.
        var sentence: String {
            switch self {
            case .added: "is a field the operation is not declared to answer with"
            case .removed: "is missing from every item, though the operation is declared to always answer with it"
            case .kind(let from, let to): "is declared \(from) but came as \(to)"
            }
        }
    }

    /// Member name or slash path.
    public var path: String
    public var change: Change
    /// A value the field took (bounded, from a payload already scrubbed of secrets); nil when
    /// the field is missing.
    public var sample: String?

    public init(path: String, change: Change, sample: String?) {
        self.path = path; self.change = change; self.sample = sample.map(FieldCensus.bounded)
    }

    /// The `schema-drift` diagnostic for this drift in `operation` of `source`.
    public func diagnostic(source: String, operation: String) -> Diagnostic {
        Diagnostic(code: .schemaDrift,
                   message: "\(path) \(change.sentence) (\(source) \(operation)); recorded in field_drift, the rows load as before.",
                   location: "\(source) \(operation) \(path)", value: sample)
    }
}

extension DiagnosticCode {
    /// A page's fields differ from what its operation declares: a field added or missing, or a
    /// value of another kind (`schema-drift`).
    public static let schemaDrift = DiagnosticCode("schema-drift")
}

/// What a pipeline does when a payload's fields drift (`on_drift:`).
public enum DriftPolicy: String, Sendable, CaseIterable {
    /// Record the drift (diagnostic and `field_drift`) and load as usual.
    case warn
    /// Fail the run before anything is committed: the load rolls back, the ledger records why.
    case fail
}

/// The fields a payload of one operation carried that differ from the declaration, kept with
/// the prepared page until the load records them.
public struct PageDrift: Sendable {
    public var source: String
    public var operation: String
    public var drifts: [FieldDrift]

    public init(source: String, operation: String, drifts: [FieldDrift]) {
        self.source = source; self.operation = operation; self.drifts = drifts
    }
}

// MARK: - One run's drift

/// One run's schema drift as its load records it: each field and change gets its `schema-drift`
/// diagnostic once per run, and every payload that shows it counts in `field_drift`. Under
/// `on_drift: fail` the first drifting payload throws instead, so the load rolls back.
final class DriftLog {
    let policy: DriftPolicy
    private var reported: Set<String> = []

    init(policy: DriftPolicy) { self.policy = policy }

    func record(_ page: PageDrift, payload: RawPayload, into session: LoadSession, at now: Date) throws {
        if policy == .fail {
            let shown = page.drifts.prefix(5).map { "\($0.path) \($0.change.label)" }.joined(separator: ", ")
            let more = page.drifts.count > 5 ? " and \(page.drifts.count - 5) more" : ""
            throw FeedError(.schemaDrift, .terminal,
                            "The fields of \(page.source) \(page.operation) drifted from its declaration (\(shown)\(more)); the pipeline says on_drift: fail, so nothing was loaded.",
                            context: payload.request?.displayURL ?? payload.file.lastPathComponent)
        }
        for drift in page.drifts {
            try session.recordFieldDrift(drift, source: page.source, operation: page.operation, seenAt: now)
            if reported.insert("\(page.source)\t\(page.operation)\t\(drift.path)\t\(drift.change.label)").inserted {
                try session.record(drift.diagnostic(source: page.source, operation: page.operation), payload: payload)
            }
        }
    }
}

/// A row of `field_drift`, as `feedline drift`, `status` and `metrics` read it.
public struct FieldDriftRow: Sendable, Equatable {
    public var pipeline: String
    public var source: String
    public var operation: String
    public var fieldPath: String
    public var change: String
    public var firstSeen: String
    public var lastSeen: String
    public var payloadCount: Int
    public var sample: String?

    public init(pipeline: String, source: String, operation: String, fieldPath: String, change: String, firstSeen: String,
                lastSeen: String, payloadCount: Int, sample: String?) {
        self.pipeline = pipeline; self.source = source; self.operation = operation; self.fieldPath = fieldPath; self.change = change
        self.firstSeen = firstSeen; self.lastSeen = lastSeen; self.payloadCount = payloadCount; self.sample = sample
    }

    /// When the field was last seen, or nil when the text is not an ISO-8601 instant.
    public var lastSeenAt: Date? { try? Date(lastSeen, strategy: Date.ISO8601FormatStyle()) }

    /// Every row of `field_drift` (of `pipeline`, when given), newest last seen first; empty when
    /// the table does not exist (a store older than the declaration).
    public static func all(pipeline: String? = nil, from database: any SQLReading) throws -> [FieldDriftRow] {
        guard try database.hasTable("field_drift") else { return [] }
        let rows = try database.fetchAll(sql: """
            SELECT pipeline, source, operation, field_path, change, first_seen, last_seen, payload_count, sample
            FROM field_drift ORDER BY last_seen DESC, pipeline, source, operation, field_path, change
            """).rows
        return rows.compactMap { row -> FieldDriftRow? in
            guard let pipeline = row[0].text, let source = row[1].text, let operation = row[2].text, let path = row[3].text,
                  let change = row[4].text, let first = row[5].text, let last = row[6].text else { return nil }
            return FieldDriftRow(pipeline: pipeline, source: source, operation: operation, fieldPath: path, change: change,
                                 firstSeen: first, lastSeen: last, payloadCount: Int(row[7].number ?? 0), sample: row[8].text)
        }.filter { pipeline == nil || $0.pipeline == pipeline }
    }
}
