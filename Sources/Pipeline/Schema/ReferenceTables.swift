import Domain
import Foundation

/// Reference tables every new database starts filled: activity profiles (inhalation rates) and
/// the 17 provinces under every name the feeds write them.
public enum ReferenceTables {
    public static let declarations = SchemaDeclarations(tables: [activityProfile, province, provinceAlias])

    /// An SQL text literal: `'…'` with `'` doubled.
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// An activity with its inhalation rate, from the US EPA Exposure Factors Handbook (2011),
    /// Chapter 6, Table 6-2, adults 21 to <31, males and females combined (m³/h).
    static let activityProfile = TableDeclaration(
        "activity_profile", "An activity with its inhalation rate (US EPA Exposure Factors Handbook 2011, Table 6-2, adults 21–<31)",
        columns: [
            ColumnDeclaration("name", .text, "Activity: sedentary, light, moderate, high"),
            ColumnDeclaration("inhalation_m3_per_h", .real, notNull: true, check: [.predicate("> 0")], "Inhalation rate", unit: .cubicMetresPerHour),
            ColumnDeclaration("description", .text, notNull: true, "What the activity is (METs range)"),
            ColumnDeclaration("source", .text, notNull: true, "Where the rate comes from"),
        ],
        key: ["name"],
        rows: [
            ["'sedentary'", "0.25", "'sedentary / passive (METs <= 1.5)'", "'EPA EFH 2011 Table 6-2, ages 21-<31'"],
            ["'light'", "0.72", "'light intensity (1.5 < METs <= 3.0)'", "'EPA EFH 2011 Table 6-2, ages 21-<31'"],
            ["'moderate'", "1.56", "'moderate intensity, e.g. brisk walking (3.0 < METs <= 6.0)'", "'EPA EFH 2011 Table 6-2, ages 21-<31'"],
            ["'high'", "3.00", "'high intensity (METs > 6.0)'", "'EPA EFH 2011 Table 6-2, ages 21-<31'"],
        ])

    /// One of the 17 시도, keyed by its two-digit administrative code; rows from `Province.all`.
    static let province = TableDeclaration(
        "province", "One of the 17 provinces (시도); every region column reaches it through province_alias",
        columns: [
            ColumnDeclaration("code", .text, "Two-digit administrative code (행정구역코드): 11 서울 … 51 강원, 52 전북"),
            ColumnDeclaration("short_name", .text, notNull: true, "Short name, as AirKorea (sidoName) and Saramin write it: 서울"),
            ColumnDeclaration("official_name", .text, notNull: true, "Official name in force, as CareerNet writes it: 서울특별시, 강원특별자치도"),
            ColumnDeclaration("english_name", .text, notNull: true, "English name: Seoul"),
        ],
        key: ["code"],
        unique: [["short_name"], ["official_name"], ["english_name"]],
        rows: Province.all.map { [literal($0.code), literal($0.shortName), literal($0.officialName), literal($0.englishName)] })

    /// Every name of a province the data may hold, the short and official names included; rows
    /// from `Province.all`, each province's aliases in its order (short, official, former names,
    /// forecast regions).
    static let provinceAlias = TableDeclaration(
        "province_alias", "One name a province goes by in the data, mapped to its code (join any region column on name)",
        columns: [
            ColumnDeclaration("name", .text, "The name: 서울, 서울특별시, 강원도, 영동 …"),
            ColumnDeclaration("province_code", .text, notNull: true, references: ForeignKey("province", ["code"]), "province.code"),
            ColumnDeclaration("kind", .text, notNull: true, check: [.predicate("IN ('short', 'official', 'former', 'forecast-region')")],
                              "short, official, former (an earlier official name: 강원도, 전라북도, 제주도) or forecast-region (영동, 영서, 경기남부, 경기북부)"),
        ],
        key: ["name"],
        indexes: [IndexDeclaration("province_alias_by_code", on: ["province_code"])],
        rows: Province.all.flatMap { province in
            province.aliases.map { [literal($0.name), literal(province.code), literal($0.kind.rawValue)] }
        })
}
