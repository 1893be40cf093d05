// libFuzzer target: payload recognition as `feedline replay` and fixture staging do it — the
// first 4 KiB, the format sniffed from them (else either format, as a pipeline may declare),
// then every feed's `recognise(head:format:)`. It returns an operation or nil; only crashes,
// hangs and sanitizer reports are failures.
import App
import FeedCore
import Foundation
import FuzzDriver
import Pipeline

let feeds = AppEnvironment.standardFeeds(variables: [:])
/// Keeps the work observable so the optimiser cannot drop it.
nonisolated(unsafe) var sink = 0

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let head = Data(bytes: data, count: min(size, 4096))
    let formats: [PayloadFormat] = PayloadArchive.sniffFormat(head).map { [$0] } ?? [.xml, .json]
    for format in formats {
        for feed in feeds {
            if let operation = feed.recognise(head: head, format: format) { sink &+= operation.utf8.count }
        }
    }
    return 0
}

@main enum Main {
    static func main() { exit(feedline_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv)) }
}
