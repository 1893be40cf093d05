import Pipeline

// MARK: - Codes every feed shares

extension DiagnosticCode {
    /// Reader: a field held an object or array where a scalar was expected, or an item was not
    /// an object (`type-mismatch`).
    public static let typeMismatch = DiagnosticCode("type-mismatch")
    /// Reader: a value was longer than its `FieldLimit` and was refused (`field-too-long`).
    public static let fieldTooLong = DiagnosticCode("field-too-long")
    /// Reader: U+0000 characters were removed from a value (`nul-removed`).
    public static let nulRemoved = DiagnosticCode("nul-removed")
    /// Reader: an unpaired UTF-16 surrogate escape became U+FFFD (`lone-surrogate`).
    public static let loneSurrogate = DiagnosticCode("lone-surrogate")
    /// Reader: one item held a field twice (a duplicate JSON key, a repeated XML element); the
    /// last value was kept (`repeated-field`).
    public static let repeatedField = DiagnosticCode("repeated-field")
    /// Mapping: a value the record needs is missing (`missing-value`).
    public static let missingValue = DiagnosticCode("missing-value")
    /// Mapping: a value that should be a number is not one (`unparsable-number`).
    public static let unparsableNumber = DiagnosticCode("unparsable-number")
}

// MARK: - What one item became

/// The result of mapping one item: a record (nil when the item is skipped) and what was odd
/// about it. Mapping is pure; the feed's decoder forwards both to the sink.
public struct ItemOutcome {
    public var record: FeedRecord?
    public var diagnostics: [Diagnostic]

    public init(record: FeedRecord?, diagnostics: [Diagnostic]) {
        self.record = record
        self.diagnostics = diagnostics
    }
}

// MARK: - Collecting diagnostics

/// Collects the diagnostics of one item, each located by the item's place in its page, what
/// identifies it and the field: `item 3 (도봉구 2023-05-13 15:00) pm10Value`,
/// `job 4 (41232649) salary.name`.
public struct ItemDiagnostics {
    /// What the feed calls an item in locations (`item`, `job`).
    public let noun: String
    /// The item's position in its page, 0-based.
    public let position: Int
    /// What identifies the item to a reader of diagnostics (`도봉구`, `41232649`), and a
    /// qualifier written after it (`2023-05-13 15:00`). They are joined only when a diagnostic
    /// is written, so clean items cost nothing.
    public var subject: String?
    public var qualifier: String?
    public private(set) var diagnostics: [Diagnostic] = []

    public init(position: Int, subject: String? = nil, qualifier: String? = nil, noun: String = "item") {
        self.noun = noun
        self.position = position
        self.subject = subject
        self.qualifier = qualifier
    }

    /// `noun position (subject qualifier) field`, leaving out what is missing.
    public func location(_ field: String?) -> String {
        var text = "\(noun) \(position)"
        let parts = [subject, qualifier].compactMap { $0 }.filter { !$0.isEmpty }
        if !parts.isEmpty { text += " (\(parts.joined(separator: " ")))" }
        if let field { text += " \(field)" }
        return text
    }

    /// Adds a diagnostic made elsewhere (the reader's, for instance).
    public mutating func add(_ diagnostic: Diagnostic) { diagnostics.append(diagnostic) }

    /// Adds a diagnostic about `field` (nil: the item as a whole) and its raw `value`.
    public mutating func note(_ code: DiagnosticCode, field: String?, value: String?, _ message: String) {
        diagnostics.append(Diagnostic(code: code, message: message, location: location(field), value: value))
    }

    /// The outcome for an item that cannot become a record, with the reason as a diagnostic.
    public mutating func skip(_ code: DiagnosticCode, field: String?, value: String?, _ message: String) -> ItemOutcome {
        note(code, field: field, value: value, message)
        return ItemOutcome(record: nil, diagnostics: diagnostics)
    }

    /// The outcome for an item that became `record`.
    public func keep(_ record: FeedRecord) -> ItemOutcome {
        ItemOutcome(record: record, diagnostics: diagnostics)
    }
}
