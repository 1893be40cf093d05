import Domain
import FeedCore
import Pipeline

/// The item fields of the two realtime operations (`getMsrstnAcctoRltmMesureDnsty`,
/// `getCtprvnRltmMesureDnsty`), as on the wire. Which of them appear depends on `ver`:
/// 1.0 has values, grades and flags; 1.1 adds `pm10Value24`/`pm25Value24`; 1.3 adds the 1-hour
/// grades and `mangName`; 1.4 adds `stationName`/`stationCode` to the by-station operation.
enum RealtimeField: Int, WireFields {
    case dataTime, stationName, stationCode, sidoName, mangName
    case pm10Value, pm25Value, pm10Value24, pm25Value24
    case o3Value, no2Value, coValue, so2Value, khaiValue
    case pm10Grade, pm25Grade, o3Grade, no2Grade, coGrade, so2Grade, khaiGrade
    case pm10Grade1h, pm25Grade1h
    case pm10Flag, pm25Flag, o3Flag, no2Flag, coFlag, so2Flag

    static let schema = makeSchema()
}

/// Turns realtime items into `HourlyMeasurement`s. XML and JSON items both arrive here as
/// `ItemFields`, so the two formats give identical rows.
enum RealtimeItemMapping {
    /// Maps one item.
    /// - Parameters:
    ///   - fallbackStation: the station a by-station request named (items before `ver=1.4`
    ///     carry no `stationName`); nil for by-province pages, whose items always name it.
    ///   - fallbackProvince: the province a by-province request named (legacy items echo an
    ///     empty `sidoName`); nil when unknown or `전국`.
    static func map(_ item: ItemFields, fallbackStation: String?, fallbackProvince: String?) -> ItemOutcome {
        let label = WireValue.airKorea.text(item[RealtimeField.dataTime])
        let station = WireValue.airKorea.text(item[RealtimeField.stationName]) ?? fallbackStation
        var reader = ItemDiagnostics(position: item.position, subject: station, qualifier: label)

        guard let label, let slot = slot(label) else {
            return reader.skip(.badDataTime, field: "dataTime", value: item[RealtimeField.dataTime],
                               "dataTime is not an AirKorea hour label (YYYY-MM-DD HH:00 with HH 01…24); the item is skipped.")
        }
        guard let station else {
            return reader.skip(.missingStation, field: "stationName", value: nil,
                               "The item names no station (by-station items before ver 1.4 omit stationName) and the request names none to fall back on; the item is skipped.")
        }

        let pm = PlausibleRange.particulate, gas = PlausibleRange.gas
        let measurement = HourlyMeasurement(
            stationName: station,
            stationCode: WireValue.airKorea.text(item[RealtimeField.stationCode]),
            sidoName: WireValue.airKorea.text(item[RealtimeField.sidoName]) ?? fallbackProvince,
            network: WireValue.airKorea.text(item[RealtimeField.mangName]),
            slot: slot,
            dataTime: label,
            pm: DustPair(pm10: reader.number(item[RealtimeField.pm10Value], RealtimeField.pm10Value, range: pm, unit: "µg/m³"),
                         pm25: reader.number(item[RealtimeField.pm25Value], RealtimeField.pm25Value, range: pm, unit: "µg/m³")),
            pm24h: DustPair(pm10: reader.number(item[RealtimeField.pm10Value24], RealtimeField.pm10Value24, range: pm, unit: "µg/m³"),
                            pm25: reader.number(item[RealtimeField.pm25Value24], RealtimeField.pm25Value24, range: pm, unit: "µg/m³")),
            o3ppm: reader.number(item[RealtimeField.o3Value], RealtimeField.o3Value, range: gas, unit: "ppm"),
            no2ppm: reader.number(item[RealtimeField.no2Value], RealtimeField.no2Value, range: gas, unit: "ppm"),
            coppm: reader.number(item[RealtimeField.coValue], RealtimeField.coValue, range: gas, unit: "ppm"),
            so2ppm: reader.number(item[RealtimeField.so2Value], RealtimeField.so2Value, range: gas, unit: "ppm"),
            khai: reader.number(item[RealtimeField.khaiValue], RealtimeField.khaiValue, range: PlausibleRange.khai, unit: ""),
            grades: PollutantValues(
                pm10: reader.grade(item[RealtimeField.pm10Grade], RealtimeField.pm10Grade),
                pm25: reader.grade(item[RealtimeField.pm25Grade], RealtimeField.pm25Grade),
                o3: reader.grade(item[RealtimeField.o3Grade], RealtimeField.o3Grade),
                no2: reader.grade(item[RealtimeField.no2Grade], RealtimeField.no2Grade),
                co: reader.grade(item[RealtimeField.coGrade], RealtimeField.coGrade),
                so2: reader.grade(item[RealtimeField.so2Grade], RealtimeField.so2Grade)),
            grades1h: DustPair(pm10: reader.grade(item[RealtimeField.pm10Grade1h], RealtimeField.pm10Grade1h),
                               pm25: reader.grade(item[RealtimeField.pm25Grade1h], RealtimeField.pm25Grade1h)),
            khaiGrade: reader.grade(item[RealtimeField.khaiGrade], RealtimeField.khaiGrade),
            flags: PollutantValues(
                pm10: reader.flag(item[RealtimeField.pm10Flag]),
                pm25: reader.flag(item[RealtimeField.pm25Flag]),
                o3: reader.flag(item[RealtimeField.o3Flag]),
                no2: reader.flag(item[RealtimeField.no2Flag]),
                co: reader.flag(item[RealtimeField.coFlag]),
                so2: reader.flag(item[RealtimeField.so2Flag])))
        return reader.keep(FeedRecord(measurement))
    }

    /// The slot an AirKorea label names. The canonical `YYYY-MM-DD HH:00` is read byte by byte
    /// (this runs once per item, and the general parser's Foundation trimming dominated the
    /// mapping time); anything else goes through `HourSlot(airKoreaLabel:)`, which the fast
    /// path agrees with wherever both apply.
    static func slot(_ label: String) -> HourSlot? {
        let fast: HourSlot?? = label.utf8.withContiguousStorageIfAvailable { bytes -> HourSlot? in
            guard bytes.count == 16, bytes[4] == 45, bytes[7] == 45, bytes[10] == 32, bytes[13] == 58,
                  bytes[14] == 48, bytes[15] == 48 else { return nil }
            func number(_ range: Range<Int>) -> Int? {
                var value = 0
                for i in range {
                    let digit = Int(bytes[i]) - 48
                    guard (0...9).contains(digit) else { return nil }
                    value = value * 10 + digit
                }
                return value
            }
            guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
                  (1...24).contains(hour), let date = LocalDate(year: year, month: month, day: day) else { return nil }
            return HourSlot(date: date, hour: hour - 1)
        }
        if let fast, let slot = fast { return slot }
        return HourSlot(airKoreaLabel: label)
    }
}
