/// One of South Korea's 17 first-level divisions (시도), under every name the feeds write it.
///
/// The feeds disagree on how to name a province: AirKorea (`sidoName`) and Saramin (the part
/// of a location before `>`) write the short name (`서울`), CareerNet and AirKorea's TM
/// coordinates the official one (`서울특별시`), older data the names before a province became a
/// 특별자치도 (`강원도`, `전라북도`), and AirKorea's dust forecast splits two provinces into
/// forecast regions (`영동`/`영서`, `경기남부`/`경기북부`). `Province.all` is the reference every
/// one of those names resolves to; the database's `province` and `province_alias` tables are
/// filled from it.
public struct Province: Hashable, Sendable {
    /// The two-digit administrative code of the 시도 (행정구역코드, the first two digits of a
    /// 법정동코드): `11` 서울 … `52` 전북. 강원 became `51` and 전북 `52` when they became
    /// 특별자치도 (2023-06-11 and 2024-01-18); their earlier codes were 42 and 45.
    public let code: String
    /// The short name AirKorea and Saramin use: `서울`, `경기`, `전북`.
    public let shortName: String
    /// The official name in force: `서울특별시`, `경기도`, `전북특별자치도`.
    public let officialName: String
    /// The English name, short form: `Seoul`, `Gyeonggi`, `North Jeolla` (강원 and 전북 have
    /// styled themselves `Gangwon State` and `Jeonbuk State` since becoming 특별자치도).
    public let englishName: String
    /// Official names the province had before (still found in older data): `강원도`.
    public let formerNames: [String]
    /// AirKorea dust-forecast regions inside the province (`영동`, `영서` for 강원).
    public let forecastRegions: [String]

    public init(code: String, shortName: String, officialName: String, englishName: String,
                formerNames: [String] = [], forecastRegions: [String] = []) {
        self.code = code
        self.shortName = shortName
        self.officialName = officialName
        self.englishName = englishName
        self.formerNames = formerNames
        self.forecastRegions = forecastRegions
    }

    /// The 17 provinces, by code.
    public static let all: [Province] = [
        Province(code: "11", shortName: "서울", officialName: "서울특별시", englishName: "Seoul"),
        Province(code: "26", shortName: "부산", officialName: "부산광역시", englishName: "Busan"),
        Province(code: "27", shortName: "대구", officialName: "대구광역시", englishName: "Daegu"),
        Province(code: "28", shortName: "인천", officialName: "인천광역시", englishName: "Incheon"),
        Province(code: "29", shortName: "광주", officialName: "광주광역시", englishName: "Gwangju"),
        Province(code: "30", shortName: "대전", officialName: "대전광역시", englishName: "Daejeon"),
        Province(code: "31", shortName: "울산", officialName: "울산광역시", englishName: "Ulsan"),
        Province(code: "36", shortName: "세종", officialName: "세종특별자치시", englishName: "Sejong"),
        Province(code: "41", shortName: "경기", officialName: "경기도", englishName: "Gyeonggi",
                 forecastRegions: ["경기남부", "경기북부"]),
        Province(code: "43", shortName: "충북", officialName: "충청북도", englishName: "North Chungcheong"),
        Province(code: "44", shortName: "충남", officialName: "충청남도", englishName: "South Chungcheong"),
        Province(code: "46", shortName: "전남", officialName: "전라남도", englishName: "South Jeolla"),
        Province(code: "47", shortName: "경북", officialName: "경상북도", englishName: "North Gyeongsang"),
        Province(code: "48", shortName: "경남", officialName: "경상남도", englishName: "South Gyeongsang"),
        Province(code: "50", shortName: "제주", officialName: "제주특별자치도", englishName: "Jeju",
                 formerNames: ["제주도"]),
        Province(code: "51", shortName: "강원", officialName: "강원특별자치도", englishName: "Gangwon",
                 formerNames: ["강원도"], forecastRegions: ["영동", "영서"]),
        Province(code: "52", shortName: "전북", officialName: "전북특별자치도", englishName: "North Jeolla",
                 formerNames: ["전라북도"]),
    ]

    /// What kind of name an alias is.
    public enum AliasKind: String, Sendable, CaseIterable {
        /// The short name (`서울`).
        case short
        /// The official name in force (`서울특별시`).
        case official
        /// An official name the province had before (`강원도`).
        case former
        /// An AirKorea dust-forecast region inside the province (`영동`).
        case forecastRegion = "forecast-region"
    }

    /// Every name of the province with its kind: short, official, former names, forecast regions.
    public var aliases: [(name: String, kind: AliasKind)] {
        [(shortName, .short), (officialName, .official)]
            + formerNames.map { ($0, .former) } + forecastRegions.map { ($0, .forecastRegion) }
    }

    /// The province any of its names (short, official, former, forecast region) refers to.
    public static func named(_ name: String) -> Province? {
        byName[name]
    }

    private static let byName: [String: Province] = {
        var names: [String: Province] = [:]
        for province in all {
            for alias in province.aliases { names[alias.name] = province }
        }
        return names
    }()
}
