import App
import Foundation
import Testing
import TestSupport

/// What the readers find in a payload reaches the database and the exit status like any other
/// finding: a repeated field is a stored diagnostic, a mis-declared encoding a refused file.
@Suite struct ReaderFindingsTests {
    static func copy(_ fixture: String, to env: TestEnvironment, replacing original: String, with replacement: String) throws -> URL {
        let text = try String(contentsOf: FixturePaths.fixtures.appendingPathComponent(fixture), encoding: .utf8)
        let range = try #require(text.range(of: original))
        let file = env.dir.path(URL(fileURLWithPath: fixture).lastPathComponent)
        try text.replacingCharacters(in: range, with: replacement).write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test("a duplicate JSON key is stored as a repeated-field diagnostic of the replay, and the last value is loaded")
    func repeatedFieldIsStored() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let file = try Self.copy("airkorea/realtime-province-seoul.json", to: env, replacing: #""pm10Value":"33""#,
                                 with: #""pm10Value":"999","pm10Value":"33""#)
        let status = await env.feedline.replay(inputs: [file.path], sourceHint: nil, parameters: [:], paths: env.paths(), force: false)
        #expect(status == .success, "\(env.err.text)")
        #expect(try env.db.rows("SELECT code, location FROM diagnostic WHERE code = 'repeated-field'") == [["repeated-field", "item 0 pm10Value"]])
        #expect(try env.db.value("SELECT count(*) FROM measurement WHERE pm10 = 999") == "0")
    }

    @Test("UTF-8 XML declared as ISO-8859-1 is refused on replay, exit non-zero, nothing loaded")
    func misdeclaredEncodingIsRefused() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let file = try Self.copy("airkorea/realtime-province-seoul.xml", to: env, replacing: #"encoding="UTF-8""#, with: #"encoding="ISO-8859-1""#)
        let status = await env.feedline.replay(inputs: [file.path], sourceHint: nil, parameters: [:], paths: env.paths(), force: false)
        #expect(status != .success)
        #expect(env.err.text.contains("declares encoding ISO-8859-1"), "\(env.err.text)")
        #expect(try env.db.value("SELECT count(*) FROM measurement") == "0")
    }
}
