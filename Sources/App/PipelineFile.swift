import Foundation

/// A pipeline file as written, decoded from YAML before any field is checked against the feeds.
///
/// Decoding is field by field, so one reading finds every field that is not of its shape (a
/// list where a single value belongs, a mapping of parameters that is not a mapping, an empty
/// parameter) and every field that is not known; each problem names its field by its coding
/// path (`parameters.stationName`). What the values mean is checked by `PipelineCatalog`.
struct PipelineFile: Decodable {
    enum Field: String, CodingKey, CaseIterable {
        case description, source, operation, parameters, format, target, schedule, timezone, fixtures
        case pageSize = "page_size", maxPages = "max_pages", catchUp = "catch_up"
    }

    struct FieldProblem: Sendable {
        var field: String
        var message: String
    }

    var description, source, operation, format, pageSize, maxPages, target, schedule, timeZone, catchUp: String?
    /// In file order is not kept by YAML mappings; sorted by name.
    var parameters: [(name: String, values: [String])] = []
    var parametersValid = true
    var fixtures: [String] = []
    var problems: [FieldProblem] = []

    static var knownFields: [String] { Field.allCases.map(\.rawValue).sorted() }

    init(from decoder: any Decoder) throws {
        let keys = try decoder.container(keyedBy: YAMLKey.self)
        for unknown in keys.allKeys.map(\.stringValue).filter({ Field(rawValue: $0) == nil }).sorted() {
            problems.append(FieldProblem(field: unknown, message: "is not a known field; known fields: \(Self.knownFields.joined(separator: ", "))."))
        }
        let fields = try decoder.container(keyedBy: Field.self)
        var problems: [FieldProblem] = []
        func text(_ field: Field) -> String? {
            do { return try fields.decodeIfPresent(YAMLText.self, forKey: field)?.text } catch {
                problems.append(FieldProblem(field: field.rawValue, message: "must be a single value."))
                return nil
            }
        }
        description = text(.description); source = text(.source); operation = text(.operation); format = text(.format)
        pageSize = text(.pageSize); maxPages = text(.maxPages); target = text(.target); schedule = text(.schedule)
        timeZone = text(.timezone); catchUp = text(.catchUp)

        if fields.contains(.parameters), !((try? fields.decodeNil(forKey: .parameters)) ?? false) {
            if let mapping = try? fields.nestedContainer(keyedBy: YAMLKey.self, forKey: .parameters) {
                for key in mapping.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
                    let values = try? mapping.decode(YAMLTextList.self, forKey: key).values
                    if let values, !values.isEmpty {
                        parameters.append((key.stringValue, values))
                    } else {
                        problems.append(FieldProblem(field: "parameters.\(key.stringValue)", message: "must be a value or a non-empty list of values."))
                        parametersValid = false
                    }
                }
            } else {
                problems.append(FieldProblem(field: "parameters", message: "must be a mapping of name: value (or name: [values])."))
                parametersValid = false
            }
        }
        if fields.contains(.fixtures) {
            do { fixtures = try fields.decodeIfPresent(YAMLTextList.self, forKey: .fixtures)?.values ?? [] } catch {
                problems.append(FieldProblem(field: "fixtures", message: "must be a list of file paths."))
            }
        }
        self.problems += problems
    }
}
