import FeedCore
import Foundation
import Pipeline

// MARK: - Raw strings

/// The raw-string rules of CareerNet: every value is a string; `""` and the string `"null"`
/// mean "missing" (nil, never an empty value or 0).
enum CareerNetText {
    /// The value trimmed of surrounding whitespace, or nil when it is a missing marker.
    static func value(_ raw: String?) -> String? {
        guard let raw else { return nil }
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        switch trimmed {
        case "", "null", "NULL", "Null": return nil
        default: return trimmed
        }
    }

    /// Free text: like `value`, with CR LF folded to LF so XML (whose parser normalises line
    /// ends) and JSON give the same string.
    static func prose(_ raw: String?) -> String? {
        guard let text = value(raw) else { return nil }
        guard text.contains("\r") else { return text }
        return text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
    }

    /// A comma-joined list split into its entries: trimmed, empties and repeats dropped, in
    /// published order. Commas inside parentheses (`컴퓨터공학(소프트웨어,하드웨어)`) do not split.
    static func list(_ raw: String?) -> [String] {
        guard let text = value(raw) else { return [] }
        var entries: [String] = []
        var seen: Set<String> = []
        var current = ""
        var depth = 0
        func flush() {
            let entry = current.trimmingCharacters(in: .whitespacesAndNewlines)
            if !entry.isEmpty, entry != "null", seen.insert(entry).inserted { entries.append(entry) }
            current = ""
        }
        for character in text {
            switch character {
            case "(", "[", "（": depth += 1; current.append(character)
            case ")", "]", "）": depth = max(0, depth - 1); current.append(character)
            case "," where depth == 0, "，" where depth == 0: flush()
            default: current.append(character)
            }
        }
        flush()
        return entries
    }

    /// A whole number written as text (`"444"`, `"444.0"`), or nil.
    static func integer(_ raw: String?) -> Int? {
        guard let text = value(raw) else { return nil }
        if let n = Int(text) { return n }
        if let d = Double(text), d.isFinite, d == d.rounded(), d.magnitude < 1e15 { return Int(d) }
        return nil
    }
}

// MARK: - What one item became

/// The result of mapping one item: a record (nil when the item is skipped) and what was odd
/// about it. Mapping is pure; the decoder forwards both to the sink.
struct CareerNetOutcome {
    var record: FeedRecord?
    var diagnostics: [Diagnostic]
}

/// Collects the diagnostics of one item, naming it (`item 3 (경희대학교) seq`).
struct CareerNetItemNotes {
    let position: Int
    var subject: String?
    private(set) var diagnostics: [Diagnostic] = []

    init(position: Int, subject: String?) {
        self.position = position
        self.subject = subject
    }

    func location(_ field: String?) -> String {
        var text = "item \(position)"
        if let subject { text += " (\(subject))" }
        if let field { text += " \(field)" }
        return text
    }

    mutating func note(_ code: DiagnosticCode, field: String?, value: String?, _ message: String) {
        diagnostics.append(Diagnostic(code: code, message: message, location: location(field), value: value))
    }

    /// The outcome for an item that cannot become a record, with the reason as a diagnostic.
    mutating func skip(_ code: DiagnosticCode, field: String?, value: String?, _ message: String) -> CareerNetOutcome {
        note(code, field: field, value: value, message)
        return CareerNetOutcome(record: nil, diagnostics: diagnostics)
    }

    /// The outcome for an item that became `record`.
    func keep(_ record: FeedRecord) -> CareerNetOutcome {
        CareerNetOutcome(record: record, diagnostics: diagnostics)
    }
}
