import Domain
import Foundation
import Pipeline

/// A status flag AirKorea attaches to one pollutant of one hourly measurement.
///
/// AirKorea writes the documented flags with or without spaces ("점검및교정" / "점검 및 교정");
/// they are compared with spaces removed and stored in their documented spelling.
public enum MeasurementFlag: Hashable, Sendable, Codable, CustomStringConvertible {
    /// 통신장애 — the station could not report.
    case communicationFailure
    /// 점검및교정 — inspection and calibration.
    case calibration
    /// 장비점검 — equipment inspection.
    case equipmentInspection
    /// 자료이상 — the value was judged abnormal.
    case abnormalData
    /// Any other non-empty text, kept verbatim.
    case other(String)

    /// Reads a flag as AirKorea writes it; nil for an empty or missing flag.
    public init?(airKorea raw: String?) {
        guard let raw else { return nil }
        let compact = raw.filter { !$0.isWhitespace }
        switch compact {
        case "": return nil
        case "통신장애": self = .communicationFailure
        case "점검및교정": self = .calibration
        case "장비점검": self = .equipmentInspection
        case "자료이상": self = .abnormalData
        default: self = .other(raw.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    /// The documented Korean spelling (no spaces), or the verbatim text for `.other`.
    public var description: String {
        switch self {
        case .communicationFailure: "통신장애"
        case .calibration: "점검및교정"
        case .equipmentInspection: "장비점검"
        case .abnormalData: "자료이상"
        case .other(let text): text
        }
    }
}

/// One hourly measurement of one AirKorea station.
///
/// Produced by the AirKorea mapping stage from `getMsrstnAcctoRltmMesureDnsty` and
/// `getCtprvnRltmMesureDnsty` items; consumed by the transform stage and the measurement store.
public struct HourlyMeasurement: Hashable, Sendable {
    /// Station name as AirKorea spells it (unique nationwide; the key AirKorea itself uses).
    public var stationName: String
    /// AirKorea station code (ver ≥ 1.4 only).
    public var stationCode: String?
    /// Province (`sidoName`), when the operation reports it.
    public var sidoName: String?
    /// Network (`mangName`): 도시대기, 도로변대기, 국가배경농도, 교외대기, 항만.
    public var network: String?
    /// The measured hour (interval start, KST).
    public var slot: HourSlot
    /// AirKorea's own `dataTime` label, verbatim.
    public var dataTime: String

    /// Hourly PM10/PM2.5 concentrations, µg/m³.
    public var pm: DustPair<Double?>
    /// 24-hour predicted moving concentrations (`pm10Value24`/`pm25Value24`), µg/m³.
    public var pm24h: DustPair<Double?>
    /// Ozone, ppm.
    public var o3ppm: Double?
    /// Nitrogen dioxide, ppm.
    public var no2ppm: Double?
    /// Carbon monoxide, ppm.
    public var coppm: Double?
    /// Sulphur dioxide, ppm.
    public var so2ppm: Double?
    /// Korean CAI (`khaiValue`), dimensionless 0…500.
    public var khai: Double?

    /// AirKorea's grades: PM grades follow the 24-hour values, `*Grade1h` the hourly ones.
    public var grades: PollutantValues<AirKoreaGrade>
    /// AirKorea's 1-hour PM grades (`pm10Grade1h`, `pm25Grade1h`).
    public var grades1h: DustPair<AirKoreaGrade?>
    /// AirKorea's CAI grade (`khaiGrade`).
    public var khaiGrade: AirKoreaGrade?
    /// Status flags per pollutant.
    public var flags: PollutantValues<MeasurementFlag>
    /// Indices feedline computed (set by the transform stage; nil before it).
    public var indices: MeasurementIndices?

    public init(stationName: String, stationCode: String? = nil, sidoName: String? = nil, network: String? = nil,
                slot: HourSlot, dataTime: String,
                pm: DustPair<Double?> = DustPair(pm10: nil, pm25: nil), pm24h: DustPair<Double?> = DustPair(pm10: nil, pm25: nil),
                o3ppm: Double? = nil, no2ppm: Double? = nil, coppm: Double? = nil, so2ppm: Double? = nil, khai: Double? = nil,
                grades: PollutantValues<AirKoreaGrade> = .init(), grades1h: DustPair<AirKoreaGrade?> = DustPair(pm10: nil, pm25: nil),
                khaiGrade: AirKoreaGrade? = nil, flags: PollutantValues<MeasurementFlag> = .init()) {
        self.stationName = stationName; self.stationCode = stationCode; self.sidoName = sidoName; self.network = network
        self.slot = slot; self.dataTime = dataTime; self.pm = pm; self.pm24h = pm24h
        self.o3ppm = o3ppm; self.no2ppm = no2ppm; self.coppm = coppm; self.so2ppm = so2ppm; self.khai = khai
        self.grades = grades; self.grades1h = grades1h; self.khaiGrade = khaiGrade; self.flags = flags
    }
}

/// An AirKorea measuring station (`getMsrstnList`).
public struct Station: Hashable, Sendable {
    public var name: String
    public var address: String?
    /// Network (`mangName`).
    public var network: String?
    /// Year the station was installed.
    public var installedYear: Int?
    /// Pollutants measured, as listed by AirKorea ("SO2, CO, O3, NO2, PM10").
    public var items: String?
    /// WGS84 latitude, degrees (taken from `dmX`/`dmY` by range, not by name).
    public var latitude: Double?
    /// WGS84 longitude, degrees.
    public var longitude: Double?

    public init(name: String, address: String? = nil, network: String? = nil, installedYear: Int? = nil,
                items: String? = nil, latitude: Double? = nil, longitude: Double? = nil) {
        self.name = name; self.address = address; self.network = network; self.installedYear = installedYear
        self.items = items; self.latitude = latitude; self.longitude = longitude
    }
}

/// A station near a TM point (`getNearbyMsrstnList`).
public struct NearbyStation: Hashable, Sendable {
    /// The query point, TM 중부원점 metres.
    public var tmX: Double
    public var tmY: Double
    public var stationName: String
    public var address: String?
    /// Distance from the query point, km.
    public var distanceKm: Double?

    public init(tmX: Double, tmY: Double, stationName: String, address: String? = nil, distanceKm: Double? = nil) {
        self.tmX = tmX; self.tmY = tmY; self.stationName = stationName; self.address = address; self.distanceKm = distanceKm
    }
}

/// The TM 중부원점 coordinate of an 읍면동 (`getTMStdrCrdnt`).
public struct TMCoordinate: Hashable, Sendable {
    public var sidoName: String
    public var sggName: String
    public var umdName: String
    /// TM 중부원점 metres.
    public var tmX: Double
    public var tmY: Double

    public init(sidoName: String, sggName: String, umdName: String, tmX: Double, tmY: Double) {
        self.sidoName = sidoName; self.sggName = sggName; self.umdName = umdName; self.tmX = tmX; self.tmY = tmY
    }
}

/// One dust forecast release (`getMinuDustFrcstDspth`) for one pollutant and one forecast day.
public struct Forecast: Hashable, Sendable {
    /// `PM10`, `PM25` or `O3`.
    public var informCode: String
    /// The day the forecast is for.
    public var forecastDate: LocalDate
    /// The KST date and hour of the release (`2023-06-03 23시 발표` → 2023-06-03, 23).
    public var releaseDate: LocalDate
    public var releaseHour: Int
    public var overall: String?
    public var cause: String?
    public var actionKnack: String?
    /// `imageUrl1`…`imageUrl9`, in order, nil where absent.
    public var imageURLs: [String?]
    /// Per-region grades split from `informGrade`.
    public var regionGrades: [ForecastRegionGrade]

    public init(informCode: String, forecastDate: LocalDate, releaseDate: LocalDate, releaseHour: Int,
                overall: String? = nil, cause: String? = nil, actionKnack: String? = nil,
                imageURLs: [String?] = [], regionGrades: [ForecastRegionGrade] = []) {
        self.informCode = informCode; self.forecastDate = forecastDate; self.releaseDate = releaseDate
        self.releaseHour = releaseHour; self.overall = overall; self.cause = cause; self.actionKnack = actionKnack
        self.imageURLs = imageURLs; self.regionGrades = regionGrades
    }
}

/// One region's grade within a forecast (`서울 : 보통`).
public struct ForecastRegionGrade: Hashable, Sendable {
    public var region: String
    /// The grade text as published (좋음, 보통, 나쁨, 매우나쁨, 예보없음 …).
    public var gradeText: String
    /// The grade, when the text is one of the four.
    public var grade: AirKoreaGrade?

    public init(region: String, gradeText: String) {
        self.region = region
        self.gradeText = gradeText
        self.grade = AirKoreaGrade.allCases.first { $0.korean == gradeText.filter { !$0.isWhitespace } }
    }
}

// MARK: - Loadable records

extension Station: LoadableRecord {}
extension NearbyStation: LoadableRecord {}
extension TMCoordinate: LoadableRecord {}
extension Forecast: LoadableRecord {}

// MARK: - Domain's calculations on a measurement

extension KoreanCAI {
    /// The CAI of a measurement: PM from its 24-h values (`pm24h`), gases from its 1-h values.
    public static func evaluate(_ measurement: HourlyMeasurement) -> CAIResult {
        evaluate(PollutantValues(pm10: measurement.pm24h.pm10, pm25: measurement.pm24h.pm25,
                                 o3: measurement.o3ppm, no2: measurement.no2ppm,
                                 co: measurement.coppm, so2: measurement.so2ppm))
    }
}

extension MeasurementIndices {
    /// Computes every index the measurement's values allow, with the tables in force at its slot's date.
    public init(_ m: HourlyMeasurement) {
        self.init(on: m.slot.date, pm: m.pm, pm24h: m.pm24h, o3ppm: m.o3ppm, no2ppm: m.no2ppm, coppm: m.coppm, so2ppm: m.so2ppm)
    }
}

/// Recomputes each grade AirKorea supplied for `measurement` and pairs it with theirs
/// (Domain's `crossCheckGrades(on:…)`): `grades` against the 24-h values, `grades1h` against the
/// hourly ones, `khaiGrade` against `khai`. When the measurement's `indices` are set, their
/// Korean grades are used as ours instead of grading again. The gas grades are not checked.
public func crossCheckGrades(_ measurement: HourlyMeasurement) -> [GradeCheck] {
    crossCheckGrades(on: measurement.slot.date, pm: measurement.pm, pm24h: measurement.pm24h, khai: measurement.khai,
                     theirs24h: DustPair(pm10: measurement.grades.pm10, pm25: measurement.grades.pm25),
                     theirs1h: measurement.grades1h, theirsKhai: measurement.khaiGrade, indices: measurement.indices)
}

/// One station's hourly PM10 and PM2.5 concentrations (µg/m³) keyed by `HourlyMeasurement.slot`.
///
/// Missing values stay absent (never 0). Pass one station's measurements; when two carry a value
/// for the same slot, the later one in `measurements` wins.
public func hourlyPM(from measurements: some Sequence<HourlyMeasurement>) -> DustPair<HourlySeries<MicrogramsPerCubicMetre>> {
    Domain.hourlyPM(from: measurements.lazy.map { (slot: $0.slot, pm: $0.pm) })
}
