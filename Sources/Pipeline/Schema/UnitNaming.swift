/// Which columns hold a quantity that the declarations keep in more than one unit, and whether a
/// column's name says its unit. One rule for `describe`, the Datasette metadata and the tests:
/// where two units are in use for one quantity (ozone in ppm at AirKorea, µg/m³ at OpenWeather),
/// a new column's name ends with its unit (`o3_ppm`, `o3_ugm3`); an older column that cannot be
/// renamed (users' SQL depends on it) is flagged with its unit instead.
public struct UnitNaming: Sendable {
    /// The name suffix of a unit (`ppm`, `ugm3`), nil for a unit no name spells.
    public static func suffix(_ unit: ColumnUnit) -> String? {
        switch unit.symbol {
        case ColumnUnit.microgramsPerCubicMetre.symbol: "ugm3"
        case ColumnUnit.ppm.symbol: "ppm"
        default: nil
        }
    }

    /// The quantity a column name stands for: without a unit suffix, one spelling for each
    /// (`pm2_5` is `pm25`, OpenWeather's name for AirKorea's).
    public static func quantity(_ name: String) -> String {
        var base = name.lowercased()
        for suffix in ["_ppm", "_ugm3"] where base.hasSuffix(suffix) { base.removeLast(suffix.count) }
        return base == "pm2_5" ? "pm25" : base
    }

    /// Whether `name` ends with the suffix of `unit`.
    public static func says(_ unit: ColumnUnit, in name: String) -> Bool {
        suffix(unit).map { name.lowercased().hasSuffix("_" + $0) } ?? false
    }

    /// Every quantity with its units and where each is used (`relation.column`), for the
    /// quantities kept in more than one unit.
    public let ambiguous: [String: [ColumnUnit: [String]]]

    public init(_ relations: [DeclaredRelation]) {
        var uses: [String: [ColumnUnit: [String]]] = [:]
        for relation in relations {
            for column in relation.columns {
                guard let unit = column.unit, Self.suffix(unit) != nil else { continue }
                uses[Self.quantity(column.name), default: [:]][unit, default: []].append("\(relation.name).\(column.name)")
            }
        }
        ambiguous = uses.filter { $0.value.count > 1 }
    }

    /// For a column whose quantity is kept in two units and whose name does not say which: a
    /// short note naming its unit and where the other is used (`in ppm; µg/m³ in
    /// openweather_air_pollution.o3, …`). nil when the name is unambiguous.
    public func flag(_ column: ColumnDeclaration) -> String? {
        guard let unit = column.unit, let units = ambiguous[Self.quantity(column.name)], !Self.says(unit, in: column.name) else { return nil }
        let others = units.filter { $0.key != unit }.sorted { $0.key.symbol < $1.key.symbol }.map { other, places in
            let shown = places.sorted().prefix(2).joined(separator: ", ") + (places.count > 2 ? ", …" : "")
            return "\(other.symbol) in \(shown)"
        }
        return "in \(unit.symbol), not said by the name: \(others.joined(separator: "; "))"
    }
}
