// libFuzzer target: JSONItemReader.read(data:) over arbitrary bytes, with the item paths and
// depth bound the AirKorea decoder uses. Thrown errors are the reader's answer to bad input;
// only crashes, hangs and sanitizer reports are failures.
import FeedCore
import Foundation
import FuzzDriver

/// The AirKorea realtime fields (standard 4 KiB bound) and a forecast text (prose, 64 KiB).
let schema = FieldSchema([
    "dataTime", "stationName", "stationCode", "sidoName", "mangName", "so2Value", "coValue", "o3Value",
    "no2Value", "pm10Value", "pm25Value", "khaiValue", "khaiGrade", "pm10Flag", "pm25Flag", "informOverall",
], prose: ["informOverall"])
let reader = JSONItemReader(schema: schema, itemPaths: ["", "list", "response/body/items", "response/body/items/item"],
                            singleItemPaths: ["response/body/items/item"])
/// Fields named by path, as Saramin's are: members of nested objects.
let nestedSchema = FieldSchema([
    "id", "url", "active", "keyword", "company/detail/name", "company/detail/href", "company/name", "company/name/href",
    "position/title", "position/location", "position/location/code", "position/location/name",
    "position/experience-level/code", "position/experience-level/min", "salary", "salary/code",
], prose: ["keyword"])
let nestedReader = JSONItemReader(schema: nestedSchema, itemPaths: ["jobs/job"], singleItemPaths: ["jobs/job"])
/// Keeps the work observable so the optimiser cannot drop it.
nonisolated(unsafe) var sink = 0

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    var seen = 0
    for reader in [reader, nestedReader] {
        if let envelope = try? reader.read(data: bytes, onItem: { item in
            // Touch what the decoders read: every value, type mismatches, notes and their diagnostics.
            for (index, value) in item.values.enumerated() where value != nil { seen &+= index &+ value!.utf8.count }
            seen &+= item.typeMismatches.count &+ item.notes.count &+ item.readerDiagnostics().count
        }, onNonObject: { seen &+= $0 }) {
            seen &+= envelope.leaves.count &+ envelope.itemArrays.count &+ envelope.itemCount &+ envelope.rootKeys.count
        }
    }
    sink &+= seen
    return 0
}

@main enum Main {
    static func main() { exit(feedline_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv)) }
}
