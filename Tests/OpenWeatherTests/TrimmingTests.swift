import FeedCore
import Foundation
import PropertyBased
import Testing

/// `Substring.trimmingWhitespace()` (every XML/JSON field passes through it): its ASCII shortcut
/// trims exactly what Unicode's `White_Space` property says.
@Suite struct TrimmingTests {
    /// The definition: drop leading and trailing scalars whose `White_Space` property is set.
    func reference(_ text: Substring) -> Substring {
        let scalars = Array(text.unicodeScalars)
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: scalars[first...last])
        return Substring(String(out))
    }

    @Test("the whitespace list is Unicode's White_Space, scalar for scalar")
    func whitespaceListIsTheProperty() {
        var differing: [UInt32] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }  // surrogates
            // Trimmed away entirely exactly when it is whitespace.
            let trimmedAway = Substring(String(String.UnicodeScalarView([scalar]))).trimmingWhitespace().isEmpty
            if trimmedAway != scalar.properties.isWhitespace { differing.append(value) }
        }
        #expect(differing.isEmpty, "\(differing.map { String($0, radix: 16) })")
    }

    @Test func trimsWhatUnicodeCallsWhitespaceAndNothingElse() {
        // Every ASCII control and space, the non-ASCII White_Space scalars, and letters beside them.
        let pieces = ["\u{08}", "\t", "\n", "\u{0B}", "\u{0C}", "\r", "\u{0E}", " ", "\u{1C}", "\u{1F}", "\u{7F}", "\u{00}", "\u{85}", "\u{A0}",
                      "\u{2003}", "\u{2028}", "\u{3000}", "\u{200B}", "\u{FEFF}", "a", "1", "-", "서울", "é"]
        let text = Gen.element(of: pieces).map { $0 ?? "" }.array(of: 0...8).map { $0.joined() }
        seededPropertyCheck(input: text) { text in
            let whole = "x" + text + "y"
            let inner = whole.dropFirst().dropLast()
            #expect(String(inner.trimmingWhitespace()) == String(reference(inner)), "\(Array(text.unicodeScalars).map(\.value))")
        }
        #expect(String(Substring(" \t\u{3000}12.5\u{A0}\n").trimmingWhitespace()) == "12.5")
        #expect(String(Substring("\u{1F}1\u{7F}").trimmingWhitespace()) == "\u{1F}1\u{7F}")  // controls that are not White_Space stay
    }
}
