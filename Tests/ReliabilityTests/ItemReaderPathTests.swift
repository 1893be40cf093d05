import FeedCore
import Foundation
import Pipeline
import Testing
import TestSupport

/// The FeedCore readers read nested fields and attributes named by slash path, the same way in
/// XML and JSON, and keep their hostile-input refusals wherever in the document they strike.
@Suite struct ItemReaderPathTests {
    let schema = FieldSchema(["id", "position/title", "position/location", "position/location/code", "position/location/name"])

    func file(_ text: String, _ name: String) throws -> (URL, TemporaryDirectory) {
        let directory = try TemporaryDirectory("reader-test")
        let url = directory.path(name)
        try Data(text.utf8).write(to: url)
        return (url, directory)
    }

    func readXML(_ text: String) throws -> ([ItemFields], XMLEnvelope) {
        let (url, directory) = try file(text, "page.xml")
        defer { directory.remove() }
        var items: [ItemFields] = []
        let envelope = try XMLItemReader(schema: schema, itemElement: "job").read(file: url) { items.append($0) }
        return (items, envelope)
    }

    func readJSON(_ text: String) throws -> ([ItemFields], JSONEnvelope) {
        var items: [ItemFields] = []
        let envelope = try JSONItemReader(schema: schema, itemPaths: ["jobs/job"]).read(data: Data(text.utf8), onItem: { items.append($0) })
        return (items, envelope)
    }

    @Test func xmlAttributesAndNestedElementsAreReadByPath() throws {
        let (items, envelope) = try readXML("""
            <job-search><jobs total="2" start="0"><count>2</count>
            <job><id>1</id><position><title>A &amp; B</title><location code="101010&amp;x">서울 &gt; 강남구</location></position></job>
            <job><id>2</id><position><title>C<b>bold</b></title><other><title>not mine</title></other></position></job>
            </jobs></job-search>
            """)
        #expect(items.count == 2)
        #expect(items[0]["id"] == "1" && items[0]["position/title"] == "A & B")
        #expect(items[0]["position/location"] == "서울 > 강남구" && items[0]["position/location/code"] == "101010&x")
        #expect(items[1]["position/title"] == nil, "an element with child elements has no value of its own")
        #expect(envelope.leaves["job-search/jobs/total"] == "2" && envelope.leaves["job-search/jobs/count"] == "2")
    }

    /// Readers reuse one `ItemFields` for every item of a page: nothing of an item may show
    /// in the next (values, type mismatches, notes), and items kept by the caller stay whole.
    @Test func nothingOfAnItemCarriesIntoTheNext() throws {
        let long = String(repeating: "x", count: FieldLimit.standard + 1)
        let (json, _) = try readJSON("""
            {"jobs":{"job":[{"id":"1","position":{"title":["A"],"location":"\(long)"}},{},{"id":"3"}]}}
            """)
        let (xml, _) = try readXML("""
            <jobs><job><id>1</id><position><location>\(long)</location><title>T</title></position></job><job/><job><id>3</id></job></jobs>
            """)
        for (items, format) in [(json, "json"), (xml, "xml")] {
            try #require(items.count == 3, "\(format)")
            #expect(items.map(\.position) == [0, 1, 2], "\(format)")
            #expect(items[0]["id"] == "1" && items[0].notes.count == 1, "\(format)")
            #expect(items[1].values.allSatisfy { $0 == nil } && items[1].notes.isEmpty && items[1].typeMismatches.isEmpty, "\(format)")
            #expect(items[2]["id"] == "3" && items[2]["position/title"] == nil && items[2].notes.isEmpty, "\(format)")
        }
        #expect(json[0].typeMismatches == ["position/title"] && json[2].typeMismatches.isEmpty)
        #expect(xml[0]["position/title"] == "T")
    }

    @Test func jsonNestedObjectsAreReadByPath() throws {
        let (items, envelope) = try readJSON("""
            {"jobs":{"total":"2","job":[
             {"id":"1","position":{"title":"A","location":{"code":"101010","name":"서울 > 강남구"},"other":{"title":"x"}}},
             {"id":2,"position":{"title":["A"],"location":"서울"}}]}}
            """)
        #expect(items.count == 2)
        #expect(items[0]["position/title"] == "A" && items[0]["position/location/code"] == "101010")
        #expect(items[0]["position/location/name"] == "서울 > 강남구" && items[0].typeMismatches.isEmpty)
        #expect(items[1]["id"] == "2" && items[1]["position/location"] == "서울")
        #expect(items[1].typeMismatches == ["position/title"])
        #expect(envelope.objects == ["", "jobs"] && envelope.leaves["jobs/total"] == "2")
    }

    @Test func flatSchemasStillTreatNestedObjectsAsMismatches() throws {
        var items: [ItemFields] = []
        _ = try JSONItemReader(schema: FieldSchema(["a"]), itemPaths: [""]).read(data: Data(#"[{"a":{"b":"1"}}]"#.utf8), onItem: { items.append($0) })
        #expect(items.first?.typeMismatches == ["a"] && items.first?["a"] == nil)
    }

    @Test func aDoctypeAnywhereIsRefused() throws {
        let padding = "<!--" + String(repeating: " padding", count: 2_000) + " -->"
        #expect(throws: FeedError.self) {
            _ = try readXML("<?xml version=\"1.0\"?>\(padding)<!DOCTYPE job-search [<!ENTITY e \"x\">]><job-search><jobs/></job-search>")
        }
        do {
            _ = try readXML("<?xml version=\"1.0\"?>\(padding)<!DOCTYPE job-search SYSTEM \"file:///etc/passwd\"><job-search><jobs/></job-search>")
            Issue.record("a DOCTYPE past the first 4 KiB was accepted")
        } catch let error as FeedError {
            #expect(error.message.contains("DOCTYPE"))
        }
    }

    @Test func aCutOffJSONDocumentIsMalformed() throws {
        for text in [#"{"jobs":{"job":[{"id":"1"},"#, #"{"jobs":{"job":[{"id":"1"}]}"#, #"{"jobs":{"job":[{"id":"1\"#] {
            do {
                _ = try readJSON(text)
                Issue.record("accepted \(text)")
            } catch let error as FeedError {
                #expect(error.kind == .malformed && error.message == "The JSON is not well-formed (Unexpected end of file during JSON parse.).")
            }
        }
    }

    @Test func unclosedRootNamesTheRootOfACutOffFile() throws {
        let (cut, directory) = try file("<?xml version=\"1.0\"?>\n<job-search><jobs><job><id>1</id></job>", "cut.xml")
        defer { directory.remove() }
        #expect(XMLItemReader.unclosedRoot(of: cut) == "job-search")
        let whole = directory.path("whole.xml")
        try Data("<job-search><jobs/></job-search>\n".utf8).write(to: whole)
        #expect(XMLItemReader.unclosedRoot(of: whole) == nil)
    }

    /// A payload whose bytes are in memory is read from them: its file (here one that does not
    /// exist) is only a name for messages.
    @Test func bytesInMemoryAreReadInsteadOfTheFile() throws {
        let missing = URL(fileURLWithPath: "/nonexistent/feedline/page.xml")
        let xml = Data("<job-search><jobs><job><id>7</id><position><title>T</title></position></job></jobs></job-search>".utf8)
        var items: [ItemFields] = []
        _ = try XMLItemReader(schema: schema, itemElement: "job").read(PayloadSource(file: missing, bytes: xml)) { items.append($0) }
        #expect(items.map { $0["id"] } == ["7"])
        let json = Data(#"{"jobs":{"job":[{"id":"8"},{"id":"9"}]}}"#.utf8)
        let page = try JSONItemReader(schema: schema, itemPaths: ["jobs/job"]).readPage(PayloadSource(file: missing, bytes: json))
        #expect(page.elements.count == 2)
        #expect(XMLItemReader.unclosedRoot(of: PayloadSource(file: missing, bytes: Data("<job-search><jobs>".utf8))) == "job-search")
        #expect(XMLItemReader.unclosedRoot(of: PayloadSource(file: missing, bytes: xml)) == nil)
        // Without bytes, the file is read, and a missing one is an error naming it.
        #expect(throws: FeedError.self) {
            try XMLItemReader(schema: schema, itemElement: "job").read(PayloadSource(file: missing)) { _ in }
        }
    }
}
