// What the XML and JSON item-reader targets share: the two schemas they read with and the way
// they touch what a decoder would read.
import FeedCore

/// The AirKorea realtime fields (standard 4 KiB bound) and a forecast text (prose, 64 KiB).
public let flatSchema = FieldSchema([
    "dataTime", "stationName", "stationCode", "sidoName", "mangName", "so2Value", "coValue", "o3Value",
    "no2Value", "pm10Value", "pm25Value", "khaiValue", "khaiGrade", "pm10Flag", "pm25Flag", "informOverall",
], prose: ["informOverall"])

/// Fields named by path, as Saramin's are: nested elements, attributes and nested objects.
public let nestedSchema = FieldSchema([
    "id", "url", "active", "keyword", "company/detail/name", "company/detail/href", "company/name", "company/name/href",
    "position/title", "position/location", "position/location/code", "position/location/name",
    "position/experience-level/code", "position/experience-level/min", "salary", "salary/code",
], prose: ["keyword"])

/// A number derived from everything a decoder reads of an item — every value, type mismatches,
/// notes and their diagnostics — so the optimiser cannot drop the work.
public func touch(_ item: ItemFields) -> Int {
    var seen = 0
    for (index, value) in item.values.enumerated() where value != nil { seen &+= index &+ value!.utf8.count }
    return seen &+ item.typeMismatches.count &+ item.notes.count &+ item.readerDiagnostics().count
}
