// libFuzzer target: `feedline query`'s statement check, ReadOnlyDatabase.check(sql:), on the
// input as text, against an empty feedline database created (migrated) once per process. The
// check prepares and never runs the statement; ReadOnlyQueryError is its answer to a refused
// or bad statement. Only crashes, hangs and sanitizer reports are failures.
import Foundation
import FuzzDriver
import Pipeline
import Storage

let database: ReadOnlyDatabase = {
    let directory = URL(fileURLWithPath: NSTemporaryDirectory())
        .appendingPathComponent("feedline-fuzz-query-\(ProcessInfo.processInfo.processIdentifier)")
    try? FileManager.default.removeItem(at: directory)
    try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let path = directory.appendingPathComponent("feedline.sqlite").path
    _ = try! SQLiteStore(path: path, schema: FeedSchema())  // creates and migrates the empty database (feedline's own tables)
    return try! ReadOnlyDatabase(path: path)
}()
/// Keeps the work observable so the optimiser cannot drop it.
nonisolated(unsafe) var sink = 0

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let sql = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let names = try? database.check(sql: sql) { sink &+= names.count &+ 1 }
    return 0
}

@main enum Main {
    static func main() { exit(feedline_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv)) }
}
