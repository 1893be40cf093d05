import Domain
import FeedCore
import Pipeline

// MARK: - getMsrstnList

/// The item fields of `MsrstnInfoInqireSvc/getMsrstnList`, as on the wire (legacy items also
/// carry `oper`, `photo`, `vrml`, `map` and request echoes, which are not read).
enum StationField: Int, WireFields {
    case stationName, addr, year, mangName, item, dmX, dmY

    static let schema = makeSchema()
}

/// Turns station-list items into `Station`s.
enum StationItemMapping {
    /// Korean WGS84 latitudes and longitudes (Jeju to the DMZ, Heuksando to Ulleungdo/Dokdo).
    static let latitudes: ClosedRange<Double> = 33...39
    static let longitudes: ClosedRange<Double> = 124...132

    static func map(_ item: ItemFields) -> ItemOutcome {
        let name = WireValue.airKorea.text(item[StationField.stationName])
        var reader = ItemDiagnostics(position: item.position, subject: name)
        guard let name else {
            return reader.skip(.missingStation, field: "stationName", value: nil,
                               "The station item has no stationName; it is skipped.")
        }
        let x = reader.number(item[StationField.dmX], StationField.dmX, range: PlausibleRange.anyFinite, unit: "°")
        let y = reader.number(item[StationField.dmY], StationField.dmY, range: PlausibleRange.anyFinite, unit: "°")
        let (latitude, longitude) = place(x: x, y: y, reader: &reader, rawX: item[StationField.dmX], rawY: item[StationField.dmY])
        let station = Station(
            name: name,
            address: WireValue.airKorea.text(item[StationField.addr]),
            network: WireValue.airKorea.text(item[StationField.mangName]),
            installedYear: reader.integer(item[StationField.year], StationField.year),
            items: WireValue.airKorea.text(item[StationField.item]),
            latitude: latitude,
            longitude: longitude)
        return reader.keep(FeedRecord(station))
    }

    /// Assigns `dmX`/`dmY` to latitude/longitude by range: legacy lists put the latitude in
    /// `dmX`, `ver=1.1` reportedly the longitude, so names are not trusted.
    static func place(x: Double?, y: Double?, reader: inout ItemDiagnostics, rawX: String?, rawY: String?) -> (Double?, Double?) {
        var latitude: Double?, longitude: Double?
        for (value, raw, field) in [(x, rawX, "dmX"), (y, rawY, "dmY")] {
            guard let value else { continue }
            if latitudes.contains(value), latitude == nil {
                latitude = value
            } else if longitudes.contains(value), longitude == nil {
                longitude = value
            } else {
                reader.note(.implausibleCoordinate, field: field, value: raw,
                            "\(field) is neither a Korean latitude (33…39°) nor a Korean longitude (124…132°); it is stored as missing.")
            }
        }
        return (latitude, longitude)
    }
}

// MARK: - getNearbyMsrstnList

/// The item fields of `MsrstnInfoInqireSvc/getNearbyMsrstnList`, as on the wire.
enum NearbyStationField: Int, WireFields {
    case stationName, addr, tm

    static let schema = makeSchema()
}

/// Turns nearby-station items into `NearbyStation`s. The query point is not in the items: it
/// comes from the request (`tmX`, `tmY`).
enum NearbyStationItemMapping {
    static func map(_ item: ItemFields, queryPoint: (x: Double, y: Double)?) -> ItemOutcome {
        let name = WireValue.airKorea.text(item[NearbyStationField.stationName])
        var reader = ItemDiagnostics(position: item.position, subject: name)
        guard let name else {
            return reader.skip(.missingStation, field: "stationName", value: nil,
                               "The nearby-station item has no stationName; it is skipped.")
        }
        guard let queryPoint else {
            return reader.skip(.missingQueryPoint, field: nil, value: nil,
                               "The request's tmX/tmY are unknown, so the distance has no reference point; the item is skipped.")
        }
        let station = NearbyStation(
            tmX: queryPoint.x, tmY: queryPoint.y, stationName: name,
            address: WireValue.airKorea.text(item[NearbyStationField.addr]),
            distanceKm: reader.number(item[NearbyStationField.tm], NearbyStationField.tm, range: PlausibleRange.distanceKm, unit: "km"))
        return reader.keep(FeedRecord(station))
    }
}

// MARK: - getTMStdrCrdnt

/// The item fields of `MsrstnInfoInqireSvc/getTMStdrCrdnt`, as on the wire.
enum TMCoordinateField: Int, WireFields {
    case sidoName, sggName, umdName, tmX, tmY

    static let schema = makeSchema()
}

/// Turns TM-coordinate items into `TMCoordinate`s.
enum TMCoordinateItemMapping {
    /// TM 중부원점 metres covering South Korea with a wide margin (false origin 200 km/500 km).
    static let tmRange: ClosedRange<Double> = -100_000...1_500_000

    static func map(_ item: ItemFields) -> ItemOutcome {
        let umd = WireValue.airKorea.text(item[TMCoordinateField.umdName])
        let sido = WireValue.airKorea.text(item[TMCoordinateField.sidoName])
        let sgg = WireValue.airKorea.text(item[TMCoordinateField.sggName])
        var reader = ItemDiagnostics(position: item.position, subject: [sido, sgg, umd].compactMap { $0 }.joined(separator: " "))
        guard let umd else {
            return reader.skip(.missingPlace, field: "umdName", value: nil, "The item has no umdName; it is skipped.")
        }
        let x = reader.number(item[TMCoordinateField.tmX], TMCoordinateField.tmX, range: tmRange, unit: "m")
        let y = reader.number(item[TMCoordinateField.tmY], TMCoordinateField.tmY, range: tmRange, unit: "m")
        guard let x, let y else {
            return reader.skip(.missingCoordinate, field: "tmX/tmY", value: nil,
                               "The item has no usable tmX/tmY; it is skipped.")
        }
        // 세종 has no 시군구, so an empty sggName is legitimate.
        return reader.keep(FeedRecord(TMCoordinate(sidoName: sido ?? "", sggName: sgg ?? "", umdName: umd, tmX: x, tmY: y)))
    }
}
