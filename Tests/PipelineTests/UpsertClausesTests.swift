import Pipeline
import Testing

@Suite("Upsert clauses: the values an insert binds, fallbacks included")
struct UpsertClausesTests {
    @Test("each {column} of a fallback reads as that column's parameter; other braces stay as written")
    func fallbacks() {
        let spec = UpsertTable(table: "m", columns: ["name", "hour", "sido", "note"], key: ["name", "hour"], keepKnown: ["sido"],
                               insertFallbacks: ["sido": "(SELECT sido FROM station WHERE name = {name} AND {hour} > 0)",
                                                 "note": "'{unknown} {name'"])
        let values = spec.insertedValues(parameter: { "?\(spec.columns.firstIndex(of: $0)! + 41)" })
        #expect(values == ["?41", "?42",
                           "coalesce(?43, (SELECT sido FROM station WHERE name = ?41 AND ?42 > 0))",
                           "coalesce(?44, '{unknown} {name')"])
        #expect(spec.upsertClauses(parameter: { ":\($0)" }, existing: { $0 }, differs: { "\($0) <> \($1)" }).inserted
                == spec.insertedValues(parameter: { ":\($0)" }))
    }
}
