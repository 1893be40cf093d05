import Foundation

// MARK: - Shapes

/// One kind of answer a feed reads, known by the fields that make it that kind: an OpenAQ
/// location has coordinates, a country or sensors; a parameter has units and none of those.
/// Recognition is positive: a payload is this shape only when every group of `requires` is
/// met and none of `excludes` is present. A field merely shared with other answers (`id`,
/// `name`) never makes a shape.
public struct PayloadShape: Sendable, Equatable {
    /// The operation that reads this shape (`locations`, `current-weather`).
    public var operation: String
    /// Groups of field names; each group needs at least one of its fields.
    public var requires: [[String]]
    /// Fields no payload of this shape holds at that level.
    public var excludes: [String]
    /// What a refusal calls the shape: the operation, unless several shapes share one (an
    /// error answer read by the same operation).
    public var name: String

    public init(_ operation: String, requires: [[String]], excludes: [String] = [], name: String? = nil) {
        self.operation = operation; self.requires = requires; self.excludes = excludes; self.name = name ?? operation
    }

    /// Whether fields `has` holds make this shape.
    public func matches(_ has: (String) -> Bool) -> Bool {
        requires.allSatisfy { $0.contains(where: has) } && !excludes.contains(where: has)
    }

    /// How many required groups `has` meets (0: no likeness at all).
    func likeness(_ has: (String) -> Bool) -> Int {
        requires.filter { $0.contains(where: has) }.count
    }

    /// What `has` lacks or holds too much of to be this shape, as a phrase
    /// ("lacks coordinates/country/sensors; holds period").
    func shortfall(_ has: (String) -> Bool) -> String {
        let missing = requires.filter { !$0.contains(where: has) }.map { $0.joined(separator: "/") }
        let extra = excludes.filter(has)
        var parts: [String] = []
        if !missing.isEmpty { parts.append("lacks " + missing.joined(separator: ", ")) }
        if !extra.isEmpty { parts.append("holds " + extra.joined(separator: ", ")) }
        return parts.joined(separator: "; ")
    }
}

// MARK: - Judgement

/// What a feed makes of a payload's first bytes: exactly one of its shapes, a refusal (the
/// payload is this feed's, but it matches none of the shapes it reads, or several), or not
/// this feed's at all.
public enum Recognition: Sendable, Equatable {
    /// The operation of the one shape the payload has.
    case shape(String)
    /// The feed's own answer but of no shape (or of several) it reads; the sentence says which
    /// shapes it resembles.
    case refused(String)
    /// Not this feed's payload.
    case foreign

    /// The operation, when exactly one shape was recognised.
    public var operation: String? {
        if case .shape(let operation) = self { return operation }
        return nil
    }

    /// The one rule every feed's recognition goes through: fields `has` (the members of the
    /// item in view, or of the whole answer) make exactly one of `shapes`, or the payload is
    /// refused with a sentence naming the shapes it resembles. `what` says what was looked at
    /// ("The OpenAQ results").
    public static func judge(_ shapes: [PayloadShape], what: String, has: (String) -> Bool) -> Recognition {
        let matching = shapes.filter { $0.matches(has) }
        if matching.count == 1 { return .shape(matching[0].operation) }
        if matching.count > 1 {
            return .refused("\(what) match several shapes (\(matching.map(\.name).joined(separator: ", "))), so the payload is not loaded as any of them.")
        }
        var seen: Set<String> = []
        let close = shapes.map { (shape: $0, likeness: $0.likeness(has)) }.filter { $0.likeness > 0 }
            .sorted { $0.likeness > $1.likeness }.filter { seen.insert($0.shape.name).inserted }
        guard !close.isEmpty else {
            var operations: Set<String> = []
            let names = shapes.map(\.name).filter { operations.insert($0).inserted }
            return .refused("\(what) have the fields of none of the shapes feedline reads (\(names.joined(separator: ", "))), so nothing is loaded.")
        }
        let named = close.map { "\($0.shape.name) (\($0.shape.shortfall(has)))" }
        return .refused("\(what) match none of the shapes feedline reads; they resemble \(named.joined(separator: " and ")), so nothing is loaded.")
    }

    /// The one judgement of several feeds' recognitions (`--source` not given): the only shape
    /// recognised, else a refusal naming every candidate (several shapes, or the feeds' own
    /// refusals), with the feed it is judged by; nil when no feed claims the payload.
    public static func combine(_ judgements: [(source: String, recognition: Recognition)]) -> (source: String, recognition: Recognition)? {
        let shapes = judgements.filter { $0.recognition.operation != nil }
        if shapes.count == 1 { return shapes[0] }
        if shapes.count > 1 {
            let names = shapes.map { "\($0.source) \($0.recognition.operation ?? "")" }.joined(separator: ", ")
            return (shapes[0].source, .refused("The payload matches the shapes of several feeds (\(names)); pass --source NAME to say which."))
        }
        let refusals = judgements.compactMap { judgement -> String? in
            if case .refused(let reason) = judgement.recognition { return reason }
            return nil
        }
        guard let first = judgements.first(where: { $0.recognition != .foreign }) else { return nil }
        return (first.source, .refused(refusals.joined(separator: " ")))
    }
}
