import Foundation

/// `meta.found`: how many results OpenAQ says the query matched — a number, or a string such as
/// `">1000"` when a page came back full and no count was run. Only a hint: paging never relies
/// on it (it stops at a short or empty page).
public enum OpenAQFound: Sendable, Hashable, CustomStringConvertible {
    /// `42` (or `"42"`).
    case exactly(Int)
    /// `">1000"`: more than this many.
    case moreThan(Int)
    /// No `found`, or `null`.
    case absent
    /// Something else (`"lots"`, `-3`, `1.5`), kept as written.
    case unreadable(String)

    /// Reads `found` as the JSON reader hands it over (numbers verbatim, strings unescaped,
    /// `null` as nil).
    public init(wire raw: String?) {
        guard let raw else { self = .absent; return }
        let text = raw.trimmingCharacters(in: .whitespaces)
        if text.isEmpty { self = .absent; return }
        if let n = Self.count(text) { self = .exactly(n); return }
        if text.hasPrefix(">"), let n = Self.count(text.dropFirst().trimmingCharacters(in: .whitespaces)) {
            self = .moreThan(n)
            return
        }
        self = .unreadable(raw)
    }

    /// The total as a number, when OpenAQ counted (`exactly`); nil otherwise.
    public var reportedTotal: Int? {
        if case .exactly(let n) = self { return n }
        return nil
    }

    /// The fewest results the query matched, when `found` says so.
    public var atLeast: Int? {
        switch self {
        case .exactly(let n): n
        case .moreThan(let n): n == Int.max ? n : n + 1
        case .absent, .unreadable: nil
        }
    }

    public var description: String {
        switch self {
        case .exactly(let n): "\(n)"
        case .moreThan(let n): ">\(n)"
        case .absent: "absent"
        case .unreadable(let text): "unreadable(\(text))"
        }
    }

    /// A count written with ASCII digits only (no sign, no fraction), that fits an `Int`.
    private static func count(_ text: some StringProtocol) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int(text)
    }
}
