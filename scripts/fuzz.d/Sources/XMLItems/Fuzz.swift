// libFuzzer target: XMLItemReader.read(data:) over arbitrary bytes, with a flat schema and with
// fields named by path. Thrown errors are the reader's answer to bad input; only crashes, hangs
// and sanitizer reports are failures.
import FeedCore
import Foundation
import FuzzDriver
import ReaderFuzzing

let reader = XMLItemReader(schema: flatSchema)
let nestedReader = XMLItemReader(schema: nestedSchema, itemElement: "job")
/// Keeps the work observable so the optimiser cannot drop it.
nonisolated(unsafe) var sink = 0

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    var seen = 0
    for reader in [reader, nestedReader] {
        if let envelope = try? reader.read(data: bytes, onItem: { seen &+= touch($0) }) {
            seen &+= envelope.rootElement.utf8.count &+ envelope.leaves.count &+ envelope.itemCount
        }
    }
    sink &+= seen
    return 0
}

@main enum Main {
    static func main() { exit(feedline_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv)) }
}
