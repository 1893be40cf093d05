/// How many terminal columns text occupies, by Unicode East Asian Width (UAX #11).
///
/// Wide (W) and fullwidth (F) characters — Hangul syllables and leading jamo, CJK ideographs,
/// kana, fullwidth forms, emoji presented as emoji — take 2 columns; combining marks, format
/// characters and Hangul medial/final jamo take 0; everything else, including ambiguous-width
/// characters such as `µ`, `·` and `…`, takes 1 (as in terminals outside CJK legacy locales).
/// Widths are summed per grapheme cluster, so `한` written as three conjoining jamo is 2 columns.
enum DisplayWidth {
    /// Columns of `text`.
    static func columns(_ text: some StringProtocol) -> Int {
        text.reduce(0) { $0 + columns(of: $1) }
    }

    /// Columns of one grapheme cluster (0, 1 or 2).
    static func columns(of character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if scalars.count == 1 && isZeroWidth(first) { return 0 }
        if isWide(first.value) { return 2 }
        if first.properties.isEmojiPresentation { return 2 }
        // An emoji made so by VARIATION SELECTOR-16 (e.g. ☁️) is shown wide.
        if scalars.contains(where: { $0.value == 0xFE0F }) && first.properties.isEmoji { return 2 }
        return isZeroWidth(first) ? 0 : 1
    }

    static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return true
        default: break
        }
        switch scalar.value {
        case 0x1160...0x11FF, 0xD7B0...0xD7FF: return true   // Hangul medial vowels and final consonants
        case 0x200B: return true                               // ZERO WIDTH SPACE
        default: return false
        }
    }

    /// East Asian Width W or F (the ranges that matter for text feedline shows).
    static func isWide(_ v: UInt32) -> Bool {
        switch v {
        case 0x1100...0x115F,          // Hangul Jamo, leading consonants
             0x2E80...0x303E,          // CJK radicals, Kangxi, ideographic description, CJK symbols and punctuation
             0x3041...0x33FF,          // kana, Bopomofo, Hangul compatibility jamo, Kanbun, CJK strokes, enclosed CJK
             0x3400...0x4DBF,          // CJK Extension A
             0x4E00...0x9FFF,          // CJK Unified Ideographs
             0xA000...0xA4CF,          // Yi
             0xA960...0xA97F,          // Hangul Jamo Extended-A
             0xAC00...0xD7A3,          // Hangul syllables
             0xF900...0xFAFF,          // CJK Compatibility Ideographs
             0xFE10...0xFE19,          // vertical forms
             0xFE30...0xFE6F,          // CJK compatibility forms, small form variants
             0xFF00...0xFF60,          // fullwidth forms
             0xFFE0...0xFFE6,          // fullwidth signs
             0x16FE0...0x16FE4, 0x17000...0x18AFF, 0x1B000...0x1B2FF,  // Tangut, kana supplements
             0x1F200...0x1F2FF,        // enclosed ideographic supplement
             0x1F300...0x1F64F,        // pictographs, emoticons
             0x1F900...0x1F9FF,        // supplemental symbols and pictographs
             0x20000...0x2FFFD, 0x30000...0x3FFFD:  // CJK Extensions B…
            return true
        default:
            return false
        }
    }

    /// `text` cut to at most `maxColumns` columns, ending in `…` when cut. A wide character that
    /// would straddle the limit is left out rather than split.
    static func truncate(_ text: String, toColumns maxColumns: Int) -> String {
        guard maxColumns > 0 else { return "" }
        if columns(text) <= maxColumns { return text }
        var result = ""
        var used = 0
        for character in text {
            let w = columns(of: character)
            if used + w > maxColumns - 1 { break }
            result.append(character)
            used += w
        }
        return result + "…"
    }

    /// `text` padded with spaces to `width` columns, on the right (left-aligned) or the left.
    static func pad(_ text: String, toColumns width: Int, alignRight: Bool = false) -> String {
        let missing = max(0, width - columns(text))
        let spaces = String(repeating: " ", count: missing)
        return alignRight ? spaces + text : text + spaces
    }
}
