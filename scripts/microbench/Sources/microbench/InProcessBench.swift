#if FEEDLINE_LIBS
import AirKorea
import Domain
import FeedCore
import Foundation
import Pipeline

/// In-process timings of the parser and the Domain calculations, through the main package's
/// public API only (built when FEEDLINE_MICROBENCH_PRODUCT names a library product of it).
struct InProcessBench {
    let repeats: Int

    /// Collects what a decoder produces.
    struct CollectingSink: RecordSink {
        var records = 0
        var diagnostics = 0
        var measurements: [HourlyMeasurement] = []
        let keep: Bool
        mutating func accept(_ record: FeedRecord) throws {
            records += 1
            if keep, let m = record.as(HourlyMeasurement.self) { measurements.append(m) }
        }
        mutating func diagnose(_ diagnostic: Diagnostic) { diagnostics += 1 }
    }

    static let realtimeFields = [
        "dataTime", "stationName", "stationCode", "sidoName", "mangName", "pm10Value", "pm25Value", "pm10Value24",
        "pm25Value24", "o3Value", "no2Value", "coValue", "so2Value", "khaiValue", "pm10Grade", "pm25Grade", "o3Grade",
        "no2Grade", "coGrade", "so2Grade", "khaiGrade", "pm10Grade1h", "pm25Grade1h", "pm10Flag", "pm25Flag", "o3Flag",
        "no2Flag", "coFlag", "so2Flag",
    ]

    func payload(_ file: String, _ format: PayloadFormat) throws -> RawPayload {
        try PayloadArchive.payload(forFile: URL(fileURLWithPath: file), request: nil, source: "airkorea",
                                   operation: "getCtprvnRltmMesureDnsty", format: format, fetchedAt: Date())
    }

    func run(xml: String, json: String?) throws {
        var table = Table("benchmark", "min ms", "median ms", "per unit", "throughput")
        func report(_ name: String, _ secs: [Double], units: Int, unit: String, bytes: Int? = nil) {
            let med = Timing.median(secs)
            var throughput = "\(grouped(Double(units) / med)) \(unit)/s"
            if let bytes { throughput += ", \(fmt(Double(bytes) / 1e6 / med, 1)) MB/s" }
            table.add(name, fmt(secs.min()! * 1000, 1), fmt(med * 1000, 1), "\(fmt(med / Double(units) * 1e9, 0)) ns/\(unit)", throughput)
        }
        let xmlData = try Data(contentsOf: URL(fileURLWithPath: xml))
        let feed = AirKoreaFeed()
        let context = DecodeContext(request: nil)

        // Parser
        report("SHA256.hex (payload hash)", Timing.repeated(repeats) { blackHole &+= SHA256.hex(xmlData).utf8.count },
               units: xmlData.count / 1000, unit: "KB", bytes: xmlData.count)
        report("PayloadArchive.payload(forFile:) (read + hash)",
               try Timing.repeated(repeats) { blackHole &+= try payload(xml, .xml).byteCount }, units: xmlData.count / 1000, unit: "KB",
               bytes: xmlData.count)
        let reader = XMLItemReader(schema: FieldSchema(Self.realtimeFields))
        var items = 0
        report("XMLItemReader.read (SAX, fields as strings)", try Timing.repeated(repeats) {
            items = 0
            _ = try reader.read(file: URL(fileURLWithPath: xml)) { _ in items += 1 }
        }, units: max(items, 1), unit: "item", bytes: xmlData.count)
        let xmlPayload = try payload(xml, .xml)
        var sink = CollectingSink(keep: false)
        report("AirKoreaFeed.decode XML (parse + map)", try Timing.repeated(repeats) {
            sink = CollectingSink(keep: false)
            _ = try feed.decode(xmlPayload, context: context, into: &sink)
        }, units: sink.records, unit: "item", bytes: xmlData.count)
        if let json {
            let jsonPayload = try payload(json, .json)
            let bytes = jsonPayload.byteCount
            let jsonReader = JSONItemReader(schema: FieldSchema(Self.realtimeFields), itemPaths: ["response/body/items", "list", ""])
            report("JSONItemReader.read (one pass, fields as strings)", try Timing.repeated(repeats) {
                blackHole &+= try jsonReader.read(file: URL(fileURLWithPath: json), onItem: { _ in }).itemCount
            }, units: sink.records, unit: "item", bytes: bytes)
            report("AirKoreaFeed.decode JSON (parse + map)", try Timing.repeated(repeats) {
                var s = CollectingSink(keep: false)
                _ = try feed.decode(jsonPayload, context: context, into: &s)
                blackHole &+= s.records
            }, units: sink.records, unit: "item", bytes: bytes)
        }

        // Domain, on the decoded measurements
        var keep = CollectingSink(keep: true)
        _ = try feed.decode(xmlPayload, context: context, into: &keep)
        let ms = keep.measurements
        let n = ms.count
        guard n > 0 else { throw BinaryBench.Failure(description: "the XML input decoded to no measurements") }
        let labels = ms.map(\.dataTime)
        report("HourSlot(airKoreaLabel:)", Timing.repeated(repeats) {
            for l in labels { blackHole &+= HourSlot(airKoreaLabel: l)?.hour ?? 0 }
        }, units: n, unit: "label")
        report("iso8601UTC(slot.end)", Timing.repeated(repeats) {
            for m in ms { blackHole &+= iso8601UTC(m.slot.end).utf8.count }
        }, units: n, unit: "call")
        let flags = ["통신장애", "점검 및 교정", "점검및교정", "장비점검", "자료이상", "기타"]
        report("MeasurementFlag(airKorea:)", Timing.repeated(repeats) {
            for i in 0..<n { blackHole &+= MeasurementFlag(airKorea: flags[i % flags.count]) == nil ? 0 : 1 }
        }, units: n, unit: "flag")
        report("KoreanCAI.evaluate(measurement)", Timing.repeated(repeats) {
            for m in ms { blackHole &+= KoreanCAI.evaluate(m).hashValue & 1 }
        }, units: n, unit: "row")
        report("crossCheckGrades(measurement)", Timing.repeated(repeats) {
            for m in ms { blackHole &+= crossCheckGrades(m).count }
        }, units: n, unit: "row")
        let byStation = Dictionary(grouping: ms, by: \.stationName)
        report("hourlyPM(from:) per station", Timing.repeated(repeats) {
            for (_, series) in byStation { blackHole &+= hourlyPM(from: series).pm10.count }
        }, units: n, unit: "row")
        let first = byStation.keys.sorted().first!
        let pm = hourlyPM(from: byStation[first]!)
        let lastDay = byStation[first]!.map(\.slot.date).max()!
        var distances: [HourSlot: Metres] = [:]
        for d in -6...0 { for slot in lastDay.adding(days: d).hourSlots where slot.hour % 3 == 0 { distances[slot] = Double(300 + slot.hour * 40) } }
        let walk = HourlySeries(distances)
        let calculator = IntakeCalculator()
        let weeks = 200
        report("IntakeCalculator.weekly (PM10 + PM2.5)", Timing.repeated(repeats) {
            for _ in 0..<weeks { blackHole &+= calculator.weekly(endingOn: lastDay, concentrations: pm, distances: walk).pm10.days.count }
        }, units: weeks, unit: "week")
        print("in-process (parser on \(xml)\(json.map { " and \($0)" } ?? ""); \(grouped(Double(n))) items; median of \(repeats))")
        table.print()
    }
}
#endif
