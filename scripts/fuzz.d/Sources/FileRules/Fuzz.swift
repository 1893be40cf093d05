// libFuzzer target: the rules for what feedline writes — `OutputFile` (every file a command
// writes) and `ShellText` (every generated crontab and unit-file line) — and the pipeline-name
// rule, on hostile names and on whatever stands at the path. A refusal is the rules' answer;
// a broken invariant stops the target like a crash:
//   - `ShellText.shellWord` reads back (as POSIX sh reads it) as exactly the text;
//   - a `cronCommand` line holds no line break, every `%` is escaped, and it reads back as the text
//     once cron has turned `\%` into `%`; text with a control character is refused;
//   - a `systemdArgument` word holds no control character and no unescaped `%` or `$`, never starts
//     with a prefix character, and reads back as the text;
//   - a pipeline name the rule accepts is a plain shell word that does not start with `-`;
//   - `OutputFile` never changes the database, another SQLite file, a FIFO or a directory; replaces
//     a foreign file only with `force`; leaves no temporary file behind; and what it writes is there.
//
// Input: byte 0 picks what stands at the path, byte 1 the flags (force, mkdir, kind), the rest is
// the name (as UTF-8, lossy).
import App
import Foundation
import FuzzDriver
#if canImport(Glibc)
import Glibc
#endif

/// A directory per process: in memory (/dev/shm) when there is one, else the temporary directory.
let root: URL = {
    var isDirectory: ObjCBool = false
    let shm = FileManager.default.fileExists(atPath: "/dev/shm", isDirectory: &isDirectory) && isDirectory.boolValue
        && FileManager.default.isWritableFile(atPath: "/dev/shm")
    let url = URL(fileURLWithPath: shm ? "/dev/shm" : NSTemporaryDirectory())
        .appendingPathComponent("feedline-fuzz-file-rules-\(ProcessInfo.processInfo.processIdentifier)")
    try? FileManager.default.removeItem(at: url)
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}()
/// The database the command "uses", another SQLite file, a foreign file: fixed for the whole run.
let fixed = root.appendingPathComponent("fixed")
let database = fixed.appendingPathComponent("feedline.sqlite")
let otherSQLite = fixed.appendingPathComponent("other.db")
let foreign = fixed.appendingPathComponent("notes.txt")
let databaseBytes = Data("SQLite format 3\u{0}".utf8) + Data(repeating: 7, count: 4080)
let foreignBytes = Data("the user's own notes\n".utf8)
/// Where each input's path is made (emptied after each input).
let work = root.appendingPathComponent("work")
nonisolated(unsafe) var sink = 0

func setUp() {
    try? FileManager.default.createDirectory(at: fixed, withIntermediateDirectories: true)
    try? FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    try? databaseBytes.write(to: database)
    try? databaseBytes.write(to: otherSQLite)
    try? foreignBytes.write(to: foreign)
}

func broken(_ what: String) -> Never { fatalError("file-rules invariant broken: \(what)") }

// MARK: - Reading words back

let shellSafe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@".unicodeScalars)

/// One POSIX sh word read back: unquoted safe characters, `'…'` literally, `\x` as `x`. Nil when
/// the word holds anything sh would read otherwise (an unquoted space, `$`, `;`, an open quote).
func readShellWord(_ word: String) -> String? {
    var out = String.UnicodeScalarView()
    var it = word.unicodeScalars.makeIterator()
    while let c = it.next() {
        switch c {
        case "'":
            var closed = false
            while let q = it.next() {
                if q == "'" { closed = true; break }
                out.append(q)
            }
            if !closed { return nil }
        case "\\":
            guard let next = it.next(), next != "\n" else { return nil }
            out.append(next)
        default:
            guard shellSafe.contains(c) || c == "%" else { return nil }
            out.append(c)
        }
    }
    return String(out)
}

/// An `ExecStart=` word read back: plain, or double-quoted with `\\`, `\"`, `%%`, `$$`.
func readSystemdWord(_ word: String) -> String? {
    let scalars = Array(word.unicodeScalars)
    guard scalars.first == "\"" else {
        guard let head = scalars.first, !"-@+!:".unicodeScalars.contains(head),
              !scalars.contains("%"), !scalars.contains("$"), !scalars.contains(" "), !scalars.contains("\"") else { return nil }
        return word
    }
    guard scalars.count >= 2, scalars.last == "\"" else { return nil }
    var out = String.UnicodeScalarView()
    var i = 1
    while i < scalars.count - 1 {
        let c = scalars[i]
        if c == "\\" || c == "%" || c == "$" {
            guard i + 1 < scalars.count - 1 else { return nil }
            let n = scalars[i + 1]
            if c == "\\" { guard n == "\\" || n == "\"" else { return nil } } else { guard n == c else { return nil } }
            out.append(n)
            i += 2
        } else {
            guard c != "\"" else { return nil }
            out.append(c)
            i += 1
        }
    }
    return String(out)
}

func hasControl(_ text: String) -> Bool {
    text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0.value == 0x2028 || $0.value == 0x2029 }
}

func checkShellText(_ text: String) {
    let word = ShellText.shellWord(text)
    guard readShellWord(word) == text else { broken("shellWord(\(text.debugDescription)) = \(word.debugDescription)") }
    do {
        let line = try ShellText.cronCommand([.word(text, what: "fuzzed")])
        let redirect = try ShellText.cronCommand([.redirect(">>", text, what: "fuzzed")])
        if hasControl(text) { broken("cronCommand accepted a control character: \(text.debugDescription)") }
        for produced in [line, redirect] {
            if produced.contains("\n") || produced.contains("\r") { broken("cron line holds a line break") }
            let scalars = Array(produced.unicodeScalars)
            for (i, c) in scalars.enumerated() where c == "%" && (i == 0 || scalars[i - 1] != "\\") {
                broken("unescaped % in cron line \(produced.debugDescription)")
            }
        }
        // cron turns `\%` into `%`; sh then reads the word.
        guard readShellWord(line.replacingOccurrences(of: "\\%", with: "%")) == text,
              redirect.hasPrefix(">>"), readShellWord(String(redirect.dropFirst(2)).replacingOccurrences(of: "\\%", with: "%")) == text
        else { broken("cron line does not read back: \(line.debugDescription)") }
    } catch {
        if !hasControl(text) { broken("cronCommand refused text without a control character: \(text.debugDescription)") }
        sink &+= "\(error)".utf8.count
    }
    do {
        let word = try ShellText.systemdArgument(text, what: "fuzzed")
        if hasControl(text) || hasControl(word) { broken("systemdArgument let a control character through") }
        guard readSystemdWord(word) == text else { broken("systemdArgument(\(text.debugDescription)) = \(word.debugDescription)") }
    } catch {
        if !hasControl(text) { broken("systemdArgument refused text without a control character") }
    }
    if PipelineName.problem(text) == nil {
        guard ShellText.shellWord(text) == text, !text.hasPrefix("-"), !text.isEmpty else {
            broken("pipeline name \(text.debugDescription) accepted but not a plain word")
        }
    }
}

// MARK: - Output files

func kind(of st: stat) -> mode_t { st.st_mode & S_IFMT }

func lstatKind(_ path: String) -> mode_t? {
    var st = stat()
    return lstat(path, &st) == 0 ? kind(of: st) : nil
}

func checkOutputFile(scenario: UInt8, flags: UInt8, name: String) {
    // One path component in the work directory (a `/` would lead anywhere on the machine);
    // with mkdir, one directory that does not exist yet.
    var component = String(name.unicodeScalars.map { $0 == "/" || $0 == "\u{0}" ? "_" : Character($0) })
    if component.isEmpty || component == "." || component == ".." { component = "x" + component }
    let makeDirectories = flags & 2 != 0
    let force = flags & 1 != 0
    let directory = makeDirectories && flags & 8 != 0 ? work.appendingPathComponent("new-dir") : work
    let url = directory.appendingPathComponent(component)
    let path = url.path
    let payload = Data("written by the fuzz target \(flags)\n".utf8)
    let kinds: [OutputFile.Kind] = [.report, .junit, .queryRows, .projectFile("the file")]
    let outputKind = kinds[Int(flags >> 4) % kinds.count]

    let foreignBefore = try? Data(contentsOf: foreign)
    // What stands at the path.
    // (Placing it fails when the name is too long or its directory does not exist yet.)
    let placed: Bool
    switch scenario % 8 {
    case 0: placed = false  // nothing
    case 1: placed = (try? foreignBytes.write(to: url)) != nil
    case 2: placed = (try? databaseBytes.write(to: url)) != nil
    case 3: placed = mkfifo(path, 0o600) == 0
    case 4: placed = mkdir(path, 0o700) == 0
    case 5: placed = symlink(database.path, path) == 0
    case 6: placed = symlink(otherSQLite.path, path) == 0
    default: placed = symlink(foreign.path, path) == 0
    }
    let foreignAtPath = placed && (scenario % 8 == 1 || scenario % 8 == 7)
    let expectRefusal = placed && (foreignAtPath ? !force : true)
    let before = lstatKind(path)

    var wrote = false
    do throws(OutputFile.Problem) {
        let file = try OutputFile.prepare(url, kind: outputKind, database: OutputFile.Database(database), force: force,
                                          makeDirectories: makeDirectories)
        try file.write(payload)
        wrote = true
        guard let written = try? Data(contentsOf: file.target), written == payload else { broken("written file does not hold what was written") }
    } catch {
        sink &+= error.message.utf8.count
        if error.message.contains("\n") { broken("a refusal of more than one line: \(error.message.debugDescription)") }
    }
    if wrote && expectRefusal { broken("wrote over scenario \(scenario % 8) at \(path.debugDescription) (force \(force))") }

    // Nothing feedline must not touch has changed.
    guard (try? Data(contentsOf: database)) == databaseBytes else { broken("the database changed") }
    guard (try? Data(contentsOf: otherSQLite)) == databaseBytes else { broken("another SQLite file changed") }
    if !(force && scenario % 8 == 7), (try? Data(contentsOf: foreign)) != foreignBefore {
        broken("a foreign file changed without force")
    }
    if !wrote, let before, lstatKind(path) != before { broken("a refused write changed what stands at the path") }
    if placed, scenario % 8 == 3, lstatKind(path) != S_IFIFO { broken("the FIFO is gone") }
    if placed, scenario % 8 == 4, lstatKind(path) != S_IFDIR { broken("the directory is gone") }
    if entries(of: directory.path).contains(where: { $0 != component && $0.hasPrefix(".") && $0.hasSuffix(".tmp") }) {
        broken("a temporary file was left behind")
    }

    // Empty the work directory and restore the fixed files for the next input.
    emptyDirectory(work.path)
    if (try? Data(contentsOf: foreign)) != foreignBytes { try? foreignBytes.write(to: foreign) }
}

/// The names in a directory, as `readdir` gives them (Foundation's listing leaves some out,
/// such as names starting with `._`).
func entries(of path: String) -> [String] {
    guard let dir = opendir(path) else { return [] }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}

/// Removes everything in `path` (links themselves, never what they point to).
func emptyDirectory(_ path: String) {
    for name in entries(of: path) {
        let child = path + "/" + name
        var st = stat()
        guard lstat(child, &st) == 0 else { continue }
        if st.st_mode & S_IFMT == S_IFDIR {
            emptyDirectory(child)
            rmdir(child)
        } else {
            unlink(child)
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 2 else { return 0 }
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let name = String(decoding: bytes[2...], as: UTF8.self)
    checkShellText(name)
    checkOutputFile(scenario: bytes[0], flags: bytes[1], name: name)
    return 0
}

@main enum Main {
    static func main() {
        setUp()
        exit(feedline_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv))
    }
}
