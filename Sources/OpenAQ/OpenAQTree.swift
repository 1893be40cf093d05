import FeedCore
import Foundation

/// An OpenAQ answer read as a tree of leaves (`JSONEnvelope` with no item arrays): every scalar
/// by its slash path (`results/0/sensors/3/parameter/units`), with the length of every array and
/// the set of paths that hold an object or array, so items with arrays inside them (a
/// location's `sensors[]` and `instruments[]`, a 422's `detail[]`) can be read as `ItemFields`.
/// Memory is one page of leaves.
struct OpenAQTree {
    let envelope: JSONEnvelope
    /// Element count of every array that has a non-empty element (its largest index + 1).
    private(set) var lengths: [String: Int] = [:]
    /// Every path below which a leaf or an object lies (objects and arrays with content).
    private(set) var containers: Set<String> = []

    /// More elements than any page of up to 1,000 results can hold.
    static let maximumLength = 1_000_000

    init(_ envelope: JSONEnvelope) {
        self.envelope = envelope
        for path in envelope.leaves.keys { index(path) }
        for path in envelope.objects where !path.isEmpty { index(path) }
    }

    private mutating func index(_ path: String) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        var prefix = ""
        for (k, part) in parts.enumerated() {
            if k > 0 {
                containers.insert(prefix)
                // A number below an object is a key ({"9223372036854775807": …}), not an index;
                // an array's indices come from the reader, one by one, so they stay small.
                if !envelope.objects.contains(prefix), part.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                   let n = Int(part), n < Self.maximumLength {
                    lengths[prefix] = Swift.max(lengths[prefix] ?? 0, n + 1)
                }
                prefix += "/"
            }
            prefix += part
        }
    }

    /// The scalar at `path` (nil for absent or `null`).
    func value(_ path: String) -> String? { envelope.leaves[path] ?? nil }

    /// Whether `path` holds a scalar (including `null`).
    func isLeaf(_ path: String) -> Bool { envelope.leaves[path] != nil }

    /// Whether `path` holds an object.
    func isObject(_ path: String) -> Bool { envelope.objects.contains(path) }

    /// The element count of the array at `path` (0 when absent or empty).
    func count(_ path: String) -> Int { lengths[path] ?? 0 }

    /// The object at `prefix` as an item of `schema` at `position`: each field's scalar, and a
    /// type mismatch for a field that holds an object or array instead.
    func fields(_ schema: FieldSchema, at prefix: String, position: Int) -> ItemFields {
        var item = ItemFields(schema: schema, position: position)
        for (i, name) in schema.names.enumerated() {
            let path = prefix + "/" + name
            if let leaf = envelope.leaves[path] {
                item.values[i] = leaf
            } else if containers.contains(path) || envelope.objects.contains(path) {
                item.typeMismatches.append(name)
            }
        }
        return item
    }
}
