/// Korean place names in Latin letters, for matching what a user types (`Jongno`, `jongno-gu`)
/// against the Hangul names the data holds (`종로구`).
///
/// The Revised Romanization of Korean, letter by letter, with the one sound change place names
/// show most: ㄹ after ㄱ, ㄷ, ㅁ, ㅂ or ㅇ is read `n` (종로 → jongno, 대림 → daerim stays).
/// Not a full transcription (no other assimilation, no tensing): good enough to recognise a
/// district or neighbourhood name, never used to store one.
public enum Romanization {
    static let initials = ["g", "kk", "n", "d", "tt", "r", "m", "b", "pp", "s", "ss", "", "j", "jj", "ch", "k", "t", "p", "h"]
    static let medials = ["a", "ae", "ya", "yae", "eo", "e", "yeo", "ye", "o", "wa", "wae", "oe", "yo", "u", "wo", "we", "wi", "yu", "eu", "ui", "i"]
    static let finals = ["", "k", "k", "k", "n", "n", "n", "t", "l", "k", "m", "l", "l", "l", "p", "l", "m", "p", "p", "t", "t", "ng", "t", "t", "k", "t", "p", "t"]
    /// Finals after which an initial ㄹ is read `n`.
    static let nasalisingFinals: Set<Int> = [1, 7, 16, 17, 21]  // ㄱ, ㄷ, ㅁ, ㅂ, ㅇ

    /// `name` in lower-case Latin letters; characters that are not Hangul syllables are kept as
    /// they are (lower-cased), spaces and hyphens dropped. `nasalise: false` writes ㄹ as `r`
    /// after any final but ㄹ, as road names are written (노형로 → nohyeongro).
    public static func latin(_ name: String, nasalise: Bool = true) -> String {
        var out = ""
        var previousFinal: Int?
        for scalar in name.unicodeScalars {
            let value = Int(scalar.value)
            guard (0xAC00...0xD7A3).contains(value) else {
                previousFinal = nil
                if scalar != " " && scalar != "-" { out += String(scalar).lowercased() }
                continue
            }
            let index = value - 0xAC00
            let initial = index / (21 * 28), medial = index % (21 * 28) / 28, final = index % 28
            var lead = initials[initial]
            if initial == 5, let before = previousFinal {  // ㄹ
                lead = nasalise && nasalisingFinals.contains(before) ? "n" : (before == 8 ? "l" : "r")
            }
            out += lead + medials[medial] + finals[final]
            previousFinal = final
        }
        return out
    }

    /// `typed` reduced for comparison: lower case, without spaces, hyphens and apostrophes.
    static func folded(_ typed: String) -> String {
        String(typed.lowercased().unicodeScalars.filter { $0 != " " && $0 != "-" && $0 != "'" && $0 != "’" }.map(Character.init))
    }

    /// Administrative suffixes a user may leave out (`종로구` is also `Jongno`).
    static let suffixes: Set<Character> = ["구", "동", "시", "군", "읍", "면", "리"]

    /// The forms of a Hangul name a Latin spelling is compared with: the whole name, and the name
    /// without its administrative suffix, each with and without the ㄹ → n sound change.
    public static func forms(of name: String) -> Set<String> {
        var bases = [name]
        if let last = name.last, suffixes.contains(last), name.count > 1 { bases.append(String(name.dropLast())) }
        return Set(bases.flatMap { [latin($0), latin($0, nasalise: false)] })
    }

    /// The names among `names` that `typed` (in Latin letters) spells: every name one of whose
    /// forms equals it, ignoring case, spaces and hyphens. Empty when `typed` holds Hangul.
    public static func matches(_ typed: String, among names: [String]) -> [String] {
        let wanted = folded(typed)
        guard !wanted.isEmpty, wanted.unicodeScalars.allSatisfy({ $0.isASCII }) else { return [] }
        return names.filter { forms(of: $0).contains(wanted) }
    }
}
