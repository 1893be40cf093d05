// libFuzzer target: JSONItemReader.read(data:) over arbitrary bytes, with the item paths and
// depth bound the AirKorea decoder uses, and a schema named by path (Saramin's shape). Thrown
// errors are the reader's answer to bad input; only crashes, hangs and sanitizer reports are
// failures.
import FeedCore
import Foundation
import FuzzDriver
import ReaderFuzzing

let reader = JSONItemReader(schema: flatSchema, itemPaths: ["", "list", "response/body/items", "response/body/items/item"],
                            singleItemPaths: ["response/body/items/item"])
let nestedReader = JSONItemReader(schema: nestedSchema, itemPaths: ["jobs/job"], singleItemPaths: ["jobs/job"])
/// Keeps the work observable so the optimiser cannot drop it.
nonisolated(unsafe) var sink = 0

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    var seen = 0
    for reader in [reader, nestedReader] {
        if let envelope = try? reader.read(data: bytes, onItem: { seen &+= touch($0) }, onNonObject: { seen &+= $0 }) {
            seen &+= envelope.leaves.count &+ envelope.itemArrays.count &+ envelope.itemCount &+ envelope.rootKeys.count
        }
    }
    sink &+= seen
    return 0
}

@main enum Main {
    static func main() { exit(feedline_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv)) }
}
