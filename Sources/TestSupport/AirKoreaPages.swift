import Foundation

/// Builds AirKorea-shaped realtime pages for tests that need many or specific pages (paging,
/// faults), in the real envelope: XML `<response><header>…<body><items><item>…` or JSON
/// `{"response":{"body":{…},"header":{…}}}`.
public enum AirKoreaPages {
    /// One realtime-by-province item.
    public struct Item: Sendable {
        public var station: String
        public var sido: String
        public var dataTime: String
        public var pm10: String
        public var pm25: String
        public var pm10Flag: String?

        public init(station: String, sido: String = "서울", dataTime: String, pm10: String, pm25: String, pm10Flag: String? = nil) {
            self.station = station; self.sido = sido; self.dataTime = dataTime; self.pm10 = pm10; self.pm25 = pm25; self.pm10Flag = pm10Flag
        }
    }

    /// `count` items for Seoul stations `S<first>`…, all at `dataTime`.
    public static func items(first: Int, count: Int, dataTime: String = "2024-03-06 15:00") -> [Item] {
        (first..<(first + count)).map { Item(station: "S\($0)", dataTime: dataTime, pm10: String(20 + $0), pm25: String(10 + $0 % 7)) }
    }

    public static func xml(_ items: [Item], pageNo: Int, numOfRows: Int, totalCount: Int) -> Data {
        var out = """
        <?xml version="1.0" encoding="UTF-8"?>
        <response><header><resultCode>00</resultCode><resultMsg>NORMAL_CODE</resultMsg></header><body><items>
        """
        for it in items {
            out += "<item><stationName>\(it.station)</stationName><sidoName>\(it.sido)</sidoName><mangName>도시대기</mangName>"
            out += "<dataTime>\(it.dataTime)</dataTime><pm10Value>\(it.pm10)</pm10Value><pm25Value>\(it.pm25)</pm25Value>"
            out += it.pm10Flag.map { "<pm10Flag>\($0)</pm10Flag>" } ?? "<pm10Flag/>"
            out += "<pm25Flag/><so2Value>0.003</so2Value><coValue>0.4</coValue><o3Value>0.030</o3Value><no2Value>0.020</no2Value>"
            out += "<khaiValue>-</khaiValue><khaiGrade/><pm10Grade>2</pm10Grade><pm25Grade>1</pm25Grade></item>\n"
        }
        out += "</items><numOfRows>\(numOfRows)</numOfRows><pageNo>\(pageNo)</pageNo><totalCount>\(totalCount)</totalCount></body></response>\n"
        return Data(out.utf8)
    }

    public static func json(_ items: [Item], pageNo: Int, numOfRows: Int, totalCount: Int) -> Data {
        let objects = items.map { it -> String in
            let flag = it.pm10Flag.map { "\"\($0)\"" } ?? "null"
            return """
            {"so2Grade":null,"pm10Flag":\(flag),"pm25Flag":null,"khaiValue":"-","so2Value":"0.003","coValue":"0.4","pm10Value":"\(it.pm10)","sidoName":"\(it.sido)","pm25Value":"\(it.pm25)","khaiGrade":null,"o3Value":"0.030","no2Value":"0.020","stationName":"\(it.station)","mangName":"도시대기","dataTime":"\(it.dataTime)","pm10Grade":"2","pm25Grade":"1"}
            """
        }
        return Data("""
        {"response":{"body":{"totalCount":\(totalCount),"items":[\(objects.joined(separator: ","))],"pageNo":\(pageNo),"numOfRows":\(numOfRows)},"header":{"resultMsg":"NORMAL_CODE","resultCode":"00"}}}
        """.utf8)
    }

    /// A data.go.kr gateway error (XML whatever format was asked).
    public static func gatewayError(code: String, name: String) -> Data {
        Data("""
        <OpenAPI_ServiceResponse><cmmMsgHeader><errMsg>SERVICE ERROR</errMsg><returnAuthMsg>\(name)</returnAuthMsg><returnReasonCode>\(code)</returnReasonCode></cmmMsgHeader></OpenAPI_ServiceResponse>
        """.utf8)
    }
}
