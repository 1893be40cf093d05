import Foundation

/// The one way text enters a line feedline generates for a shell, a crontab or a systemd unit
/// file: every path, name and value goes through one of these functions, so no value can end a
/// line, start another command, become an option or be expanded.
///
/// - `shellWord`: a POSIX `sh` word — safe characters as they are, anything else single-quoted
///   (`'` as `'\''`); `sh` reads it back as exactly the text.
/// - `cronCommand`: a crontab command field — shell words whose `%` (cron's newline) leaves the
///   quotes as `\%`, never next to a backslash of the text; control characters are refused (a
///   newline would start a second crontab line).
/// - `systemdArgument`: an `ExecStart=` word — safe characters as they are when the first is
///   not a prefix (`-`, `@`, `+`, `!`, `:`), anything else double-quoted (so no prefix or lone
///   `;` is read), `\` and `"` backslash-escaped, `%` as `%%` (specifiers),
///   `$` as `$$` (environment substitution); control characters are refused.
/// - `systemdValue`: a plain unit-file value (`WorkingDirectory=`, `Description=`): `%` as `%%`;
///   control characters, a trailing `\` (a continued line) and white space at either end refused.
/// - `comment`: a `#` comment line; control characters are refused.
public enum ShellText {
    /// A value that cannot be put on a generated line (it holds a control character such as a
    /// newline, which would end the line and start another).
    public struct Refusal: Error, CustomStringConvertible, Sendable, Equatable {
        /// What the value is (`database path`, `pipeline name`).
        public var what: String
        /// The value, with control characters escaped (`\n`).
        public var shown: String
        /// Why it cannot be written, after "the WHAT VALUE ".
        public var reason = "holds a control character (a newline, tab or similar)"
        public var description: String {
            "the \(what) \(shown) \(reason); it cannot be written on a crontab or unit-file line."
        }
    }

    /// Characters `sh` reads literally outside quotes, in any position (not `%`, cron's newline,
    /// nor `=`, which makes a command's first word an assignment).
    private static let shellSafe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:,@".unicodeScalars)

    /// A POSIX `sh` word that reads back as exactly `text`. Every string has one (a newline is
    /// kept inside the quotes); lines that must stay one line add their own refusal.
    public static func shellWord(_ text: String) -> String {
        if !text.isEmpty, text.unicodeScalars.allSatisfy(shellSafe.contains) { return text }
        return "'" + replacing("'", with: #"'\''"#, in: text) + "'"
    }

    /// A crontab command field: the words as `sh` words, and each `%` taken out of its quotes
    /// as `'\%'` — cron turns `\%` into `%` (and an unescaped `%` into a newline), while `sh`
    /// reads the unquoted `%` literally. The `%` is always preceded by the closing quote, so a
    /// backslash of the text never pairs with cron's escape.
    ///
    /// `raw` pieces are shell syntax written by feedline itself (`&&`, `>>`, `2>&1`), put on the
    /// line as they are; `word` pieces are values.
    public static func cronCommand(_ pieces: [Piece]) throws -> String {
        try pieces.map { piece in
            switch piece {
            case .raw(let syntax): return syntax
            case .word(let text, let what):
                try refuseControlCharacters(text, what: what)
                let word = shellWord(text)
                return replacing("%", with: #"'\%'"#, in: word)
            case .redirect(let op, let text, let what):
                try refuseControlCharacters(text, what: what)
                return op + replacing("%", with: #"'\%'"#, in: shellWord(text))
            }
        }.joined(separator: " ")
    }

    /// One piece of a generated command line.
    public enum Piece: Sendable {
        /// Shell syntax written by feedline (`cd`, `&&`, `2>&1`), as it is.
        case raw(String)
        /// A value, quoted; `what` names it in a refusal.
        case word(String, what: String)
        /// A redirection operator (`>>`) followed directly by a quoted value.
        case redirect(String, String, what: String)
    }

    /// Characters an unquoted `ExecStart=` word may start with (not a prefix such as `-` or `@`).
    private static let systemdPlainFirst = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._".unicodeScalars)

    /// An `ExecStart=` word that systemd reads back as exactly `text`: safe text as it is,
    /// anything else double-quoted.
    public static func systemdArgument(_ text: String, what: String) throws -> String {
        try refuseControlCharacters(text, what: what)
        if let head = text.unicodeScalars.first, systemdPlainFirst.contains(head), text.unicodeScalars.allSatisfy(shellSafe.contains) {
            return text
        }
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += #"\\"#
            case "\"": out += #"\""#
            case "%": out += "%%"
            case "$": out += "$$"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A plain unit-file value (`WorkingDirectory=`, `Description=`): specifiers escaped. systemd
    /// trims white space around a value and reads a line ending in `\` as continued on the next,
    /// so such a value is refused too.
    public static func systemdValue(_ text: String, what: String) throws -> String {
        try refuseControlCharacters(text, what: what)
        if text.hasSuffix("\\") {
            throw Refusal(what: what, shown: shown(text), reason: "ends in a backslash (systemd would join the next line to it)")
        }
        if let first = text.unicodeScalars.first, let last = text.unicodeScalars.last,
           first.properties.isWhitespace || last.properties.isWhitespace {
            throw Refusal(what: what, shown: shown(text), reason: "begins or ends with white space (systemd would drop it)")
        }
        return replacing("%", with: "%%", in: text)
    }

    /// A `#` comment line holding `text`.
    public static func comment(_ text: String, what: String = "comment") throws -> String {
        try refuseControlCharacters(text, what: what)
        return "# " + text
    }

    /// Refuses text holding a control character (C0, DEL, C1, or a Unicode line or paragraph
    /// separator): any of them could end a line or hide what follows.
    public static func refuseControlCharacters(_ text: String, what: String) throws {
        if let _ = text.unicodeScalars.first(where: isControl) {
            throw Refusal(what: what, shown: shown(text))
        }
    }

    /// `text` quoted, its control characters escaped (`"x\n* * *"`), for messages.
    public static func shown(_ text: String) -> String {
        var out = "'"
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                switch scalar {
                case "\n": out += #"\n"#
                case "\r": out += #"\r"#
                case "\t": out += #"\t"#
                default: out += "\\u{\(String(scalar.value, radix: 16))}"
                }
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out + "'"
    }

    /// `text` with every `scalar` replaced by `replacement`, scalar by scalar. String's own
    /// replacement compares whole characters, and a quote or `%` followed by a combining mark
    /// (`'` + U+0331) is one character that is not `'`: it would stay unescaped and end the quotes.
    static func replacing(_ scalar: Unicode.Scalar, with replacement: String, in text: String) -> String {
        var out = String.UnicodeScalarView()
        for s in text.unicodeScalars {
            if s == scalar { out.append(contentsOf: replacement.unicodeScalars) } else { out.append(s) }
        }
        return String(out)
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }
}
