import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How many columns the text `feedline describe` prints may take.
enum TerminalWidth {
    /// Used when standard output is not a terminal and `COLUMNS` is not set (a pipe, a file).
    static let fallback = 100

    /// `COLUMNS` when it is a number of at least 40, else the width of the terminal on standard
    /// output, else `fallback`.
    static func columns(_ variables: [String: String]) -> Int {
        if let text = variables["COLUMNS"], let columns = Int(text.trimmingCharacters(in: .whitespaces)), columns >= 40 {
            return columns
        }
        guard isatty(STDOUT_FILENO) != 0 else { return fallback }
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col >= 40 else { return fallback }
        return Int(size.ws_col)
    }
}
