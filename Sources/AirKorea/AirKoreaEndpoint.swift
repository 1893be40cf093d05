import Domain
import FeedCore
import Foundation
import Pipeline

/// What a decoder knows about the page besides its items: the request parameters that the
/// items themselves may omit. Built once per page from the `DecodeContext`.
struct PageContext: Sendable {
    /// `stationName` of a by-station request (items before `ver=1.4` omit it).
    var stationName: String?
    /// `sidoName` of a by-province request, unless it is `전국` (legacy items echo it empty).
    var sidoName: String?
    /// `tmX`/`tmY` of a nearby-stations request, TM 중부원점 metres.
    var queryPoint: (x: Double, y: Double)?
    /// `msrstnName` of a statistics request (its items normally name their station).
    var msrstnName: String?
    /// The latest time an item may carry: a day after the payload was fetched
    /// (`AirKoreaDecoder.futureAllowance`); nil when the fetch time is not known.
    var futureLimit: Date?

    init(_ context: DecodeContext, fetchedAt: Date? = nil) {
        stationName = WireValue.airKorea.text(context.parameter("stationName"))
        msrstnName = WireValue.airKorea.text(context.parameter("msrstnName"))
        futureLimit = fetchedAt?.addingTimeInterval(AirKoreaDecoder.futureAllowance)
        let sido = WireValue.airKorea.text(context.parameter("sidoName"))
        sidoName = sido == "전국" ? nil : sido
        if let x = WireValue.airKorea.text(context.parameter("tmX")).flatMap(Double.init),
           let y = WireValue.airKorea.text(context.parameter("tmY")).flatMap(Double.init), x.isFinite, y.isFinite {
            queryPoint = (x, y)
        }
    }
}

/// One AirKorea operation: where it lives, what parameters it takes, which item fields it
/// reads and how an item becomes a record. Adding an operation means adding one of these.
struct AirKoreaEndpoint: Sendable {
    /// The canonical operation name (`getCtprvnRltmMesureDnsty`).
    let operation: String
    /// The service it belongs to (`ArpltnInforInqireSvc`).
    let service: String
    /// Friendly names a pipeline may use instead (`realtime-by-province`).
    let aliases: [String]
    /// The parameters a pipeline may pass (besides the paging ones the feed sets itself).
    let parameters: [ParameterRule]
    /// Parameters added when the pipeline does not give them (the API requires them).
    let defaults: [QueryItem]
    /// The item fields read.
    let schema: FieldSchema
    /// One item → a record and diagnostics. Shared by the XML and JSON paths.
    let mapItem: @Sendable (ItemFields, PageContext) -> ItemOutcome
    /// One checked query (parameters normalised, required ones present) → the queries actually
    /// sent, or a sentence ending saying what is wrong. Default: the query as it is.
    var planQueries: @Sendable ([QueryItem]) -> QueryPlan = { .send([$0]) }

    /// What data.go.kr calls each service (a key is approved per service).
    static let serviceTitles = [
        "ArpltnInforInqireSvc": "에어코리아 대기오염정보", "MsrstnInfoInqireSvc": "에어코리아 측정소정보",
        "ArpltnStatsSvc": "에어코리아 대기오염통계 현황", "UlfptcaAlarmInqireSvc": "에어코리아 미세먼지 경보 발령 현황",
    ]

    /// The path below the base URL (`ArpltnInforInqireSvc/getCtprvnRltmMesureDnsty`).
    var path: String { "\(service)/\(operation)" }

    /// Whether `name` (canonical, path, or alias; case-insensitive) names this endpoint.
    func answers(to name: String) -> Bool {
        let wanted = name.lowercased()
        return wanted == operation.lowercased() || wanted == path.lowercased() || aliases.contains(wanted)
    }
}

/// What an endpoint makes of one checked query.
enum QueryPlan: Sendable, Equatable {
    /// Send these queries (one request each).
    case send([[QueryItem]])
    /// Refuse the pipeline: the sentence says why.
    case refuse(String)
}

// MARK: - The operations

extension AirKoreaEndpoint {
    static let realtimeByStation = AirKoreaEndpoint(
        operation: "getMsrstnAcctoRltmMesureDnsty", service: "ArpltnInforInqireSvc",
        aliases: ["realtime-by-station"],
        parameters: [.stationName(required: true), .dataTerm, .ver],
        defaults: [QueryItem("dataTerm", "DAILY")],
        schema: RealtimeField.schema,
        mapItem: { item, page in RealtimeItemMapping.map(item, fallbackStation: page.stationName, fallbackProvince: nil) })

    static let realtimeByProvince = AirKoreaEndpoint(
        operation: "getCtprvnRltmMesureDnsty", service: "ArpltnInforInqireSvc",
        aliases: ["realtime-by-province"],
        parameters: [.sidoName, .ver],
        defaults: [],
        schema: RealtimeField.schema,
        mapItem: { item, page in RealtimeItemMapping.map(item, fallbackStation: nil, fallbackProvince: page.sidoName) })

    static let forecast = AirKoreaEndpoint(
        operation: "getMinuDustFrcstDspth", service: "ArpltnInforInqireSvc",
        aliases: ["forecast"],
        parameters: [.searchDate, .informCode, .ver],
        defaults: [],
        schema: ForecastField.schema,
        mapItem: { item, _ in ForecastItemMapping.map(item) })

    static let stations = AirKoreaEndpoint(
        operation: "getMsrstnList", service: "MsrstnInfoInqireSvc",
        aliases: ["stations"],
        parameters: [.text("addr"), .stationName(required: false), .ver],
        defaults: [],
        schema: StationField.schema,
        mapItem: { item, _ in StationItemMapping.map(item) })

    static let nearbyStations = AirKoreaEndpoint(
        operation: "getNearbyMsrstnList", service: "MsrstnInfoInqireSvc",
        aliases: ["nearby-stations"],
        parameters: [.tmCoordinate("tmX"), .tmCoordinate("tmY"), .ver],
        defaults: [],
        schema: NearbyStationField.schema,
        mapItem: { item, page in NearbyStationItemMapping.map(item, queryPoint: page.queryPoint) })

    static let tmCoordinates = AirKoreaEndpoint(
        operation: "getTMStdrCrdnt", service: "MsrstnInfoInqireSvc",
        aliases: ["tm-coordinates"],
        parameters: [.umdName, .ver],
        defaults: [],
        schema: TMCoordinateField.schema,
        mapItem: { item, _ in TMCoordinateItemMapping.map(item) })

    /// `ArpltnStatsSvc/getMsrstnAcctoRDyrg`: daily averages per station over `inqBginDt`…`inqEndDt`
    /// (all stations when `msrstnName` is left out).
    static let stationDailyStatistics = AirKoreaEndpoint(
        operation: "getMsrstnAcctoRDyrg", service: "ArpltnStatsSvc",
        aliases: ["station-daily-stats"],
        parameters: [.day("inqBginDt"), .day("inqEndDt"), .text("msrstnName")],
        defaults: [],
        schema: StatisticsField.schema,
        mapItem: { item, page in StatisticsItemMapping.mapDaily(item, page: page) },
        planQueries: { query in StatisticsQueries.daily(query) })

    /// `ArpltnStatsSvc/getMsrstnAcctoRMmrg`: monthly averages per station. The service answers a
    /// range of months with an empty item list, so a range is asked month by month.
    static let stationMonthlyStatistics = AirKoreaEndpoint(
        operation: "getMsrstnAcctoRMmrg", service: "ArpltnStatsSvc",
        aliases: ["station-monthly-stats"],
        parameters: [.month("inqBginMm"), .month("inqEndMm"), .text("msrstnName")],
        defaults: [],
        schema: StatisticsField.schema,
        mapItem: { item, page in StatisticsItemMapping.mapMonthly(item, page: page) },
        planQueries: { query in StatisticsQueries.monthly(query) })

    /// `UlfptcaAlarmInqireSvc/getUlfptcaAlarmInfo`: PM10 and PM2.5 alerts (주의보, 경보) of a year.
    static let pmAlerts = AirKoreaEndpoint(
        operation: "getUlfptcaAlarmInfo", service: "UlfptcaAlarmInqireSvc",
        aliases: ["pm-alerts"],
        parameters: [.year, .alertItemCode],
        defaults: [],
        schema: PMAlertField.schema,
        mapItem: { item, page in PMAlertItemMapping.map(item, page: page) })

    /// Every operation, in the order `AirKoreaFeed.operations` lists them.
    static let all: [AirKoreaEndpoint] = [realtimeByStation, realtimeByProvince, forecast, stations, nearbyStations, tmCoordinates,
                                          stationDailyStatistics, stationMonthlyStatistics, pmAlerts]

    /// The endpoint `name` designates (canonical name, `Service/operation` path or alias).
    static func named(_ name: String) -> AirKoreaEndpoint? {
        let trimmed = String(Substring(name).trimmingASCIISpace())
        return all.first { $0.answers(to: trimmed) }
    }
}

// MARK: - Parameters

/// One parameter an operation accepts, with its check.
struct ParameterRule: Sendable {
    let name: String
    let required: Bool
    /// What is wrong with `value`, as the end of a sentence, or nil when it is fine.
    let problem: @Sendable (String) -> String?
    /// The value as sent, once `problem` has accepted it (`2024-03-05` → `20240305`).
    let normalised: @Sendable (String) -> String

    init(name: String, required: Bool, normalised: @escaping @Sendable (String) -> String = { $0 },
         problem: @escaping @Sendable (String) -> String?) {
        self.name = name; self.required = required; self.problem = problem; self.normalised = normalised
    }

    /// The 18 `sidoName` values the by-province operation accepts.
    static let provinces = ["전국", "서울", "부산", "대구", "인천", "광주", "대전", "울산", "경기", "강원",
                            "충북", "충남", "전북", "전남", "경북", "경남", "제주", "세종"]

    static func stationName(required: Bool) -> ParameterRule {
        ParameterRule(name: "stationName", required: required) { _ in nil }
    }

    static func text(_ name: String) -> ParameterRule {
        ParameterRule(name: name, required: false) { _ in nil }
    }

    static let sidoName = ParameterRule(name: "sidoName", required: true) { value in
        provinces.contains(value) ? nil : "must be one of \(provinces.joined(separator: ", "))"
    }

    static let searchDate = ParameterRule(name: "searchDate", required: true) { value in
        LocalDate(iso: value) == nil ? "must be a date written YYYY-MM-DD (e.g. 2023-06-03)" : nil
    }

    static let informCode = ParameterRule(name: "InformCode", required: false) { value in
        ["PM10", "PM25", "O3"].contains(value) ? nil : "must be PM10, PM25 or O3"
    }

    static let dataTerm = ParameterRule(name: "dataTerm", required: false) { value in
        ["DAILY", "MONTH", "3MONTH"].contains(value) ? nil : "must be DAILY, MONTH or 3MONTH"
    }

    static let ver = ParameterRule(name: "ver", required: false) { value in
        Double(value).map { $0 > 0 && $0 < 10 } == true ? nil : "must be a version number such as 1.0 or 1.4"
    }

    static let umdName = ParameterRule(name: "umdName", required: true) { _ in nil }

    /// A required day of the statistics service, sent `YYYYMMDD`; `YYYY-MM-DD` (what `{today}`
    /// and `{yesterday}` give) is accepted.
    static func day(_ name: String) -> ParameterRule {
        ParameterRule(name: name, required: true, normalised: { StatisticsCalendar.compactDay($0) ?? $0 }) { value in
            StatisticsCalendar.compactDay(value) == nil ? "must be a day written YYYYMMDD (e.g. 20240305) or YYYY-MM-DD" : nil
        }
    }

    /// A required month of the statistics service, sent `YYYYMM`; `YYYY-MM` and a day (the
    /// month holding it, so `{yesterday}` names the month yesterday was in) are accepted.
    static func month(_ name: String) -> ParameterRule {
        ParameterRule(name: name, required: true, normalised: { StatisticsCalendar.month($0)?.compact ?? $0 }) { value in
            StatisticsCalendar.month(value) == nil
                ? "must be a month written YYYYMM (e.g. 202402), YYYY-MM, or a day standing for its month" : nil
        }
    }

    /// The alert service's required `year`, sent `YYYY`; a day (its year) is accepted.
    static let year = ParameterRule(name: "year", required: true, normalised: { StatisticsCalendar.year($0).map(String.init) ?? $0 }) { value in
        StatisticsCalendar.year(value) == nil
            ? "must be a year from \(StatisticsCalendar.years.lowerBound) to \(StatisticsCalendar.years.upperBound) (e.g. 2024), or a day standing for its year"
            : nil
    }

    /// The alert service's optional pollutant, sent `PM10` or `PM25` (`PM2.5` is accepted).
    static let alertItemCode = ParameterRule(name: "itemCode", required: false,
                                             normalised: { AlertPollutant.parse($0) == .pm25 ? "PM25" : "PM10" }) { value in
        AlertPollutant.parse(value) == nil ? "must be PM10 or PM25" : nil
    }

    static func tmCoordinate(_ name: String) -> ParameterRule {
        ParameterRule(name: name, required: true) { value in
            guard let number = Double(value), number.isFinite else {
                return "must be a number (TM 중부원점 metres, e.g. 244148.5), not WGS84 degrees or text"
            }
            return number.magnitude < 1000 ? "looks like WGS84 degrees; the API needs TM 중부원점 metres (e.g. 244148.5)" : nil
        }
    }
}

// MARK: - Query plans

/// The statistics operations' checks across parameters, and the monthly split.
enum StatisticsQueries {
    /// The most months one monthly request plan may span (the service keeps about four).
    static let maximumMonths = 24

    /// A daily range is sent as one request once its first day is not after its last.
    static func daily(_ query: [QueryItem]) -> QueryPlan {
        guard let first = value("inqBginDt", in: query).flatMap(StatisticsCalendar.day),
              let last = value("inqEndDt", in: query).flatMap(StatisticsCalendar.day) else { return .send([query]) }
        guard first <= last else {
            return .refuse("starts on \(first) but ends on \(last): inqBginDt must not be after inqEndDt")
        }
        return .send([query])
    }

    /// A range of months is sent as one request per month (`inqBginMm` = `inqEndMm`): the
    /// service answers a range with `totalCount` and no items.
    static func monthly(_ query: [QueryItem]) -> QueryPlan {
        guard let first = value("inqBginMm", in: query).flatMap(StatisticsCalendar.month),
              let last = value("inqEndMm", in: query).flatMap(StatisticsCalendar.month) else { return .send([query]) }
        guard first <= last else {
            return .refuse("starts in \(first) but ends in \(last): inqBginMm must not be after inqEndMm")
        }
        let months = first.count(through: last)
        guard months <= maximumMonths else {
            return .refuse("spans \(months) months (\(first)…\(last)); ask at most \(maximumMonths) (the service keeps about four recent months)")
        }
        return .send(first.through(last).map { month in
            query.map { item in
                ["inqBginMm", "inqEndMm"].contains(item.name) ? QueryItem(item.name, month.compact) : item
            }
        })
    }

    private static func value(_ name: String, in query: [QueryItem]) -> String? {
        query.first { $0.name == name }?.value
    }
}

extension AirKoreaFeed {
    /// The operation whose `dataTerm` (DAILY, MONTH, 3MONTH) reaches back: what `feedline
    /// backfill` fetches missing station-hours with.
    public static var historyOperation: String { AirKoreaEndpoint.realtimeByStation.operation }
}
