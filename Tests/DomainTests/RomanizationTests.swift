import Domain
import Testing

@Suite("Romanization: Latin spellings of Korean place names")
struct RomanizationTests {
    @Test("district and neighbourhood names as they are written in Latin letters", arguments: [
        ("종로구", "jongnogu"), ("강남구", "gangnamgu"), ("관악구", "gwanakgu"), ("양천구", "yangcheongu"),
        ("도봉구", "dobonggu"), ("중구", "junggu"), ("연동", "yeondong"), ("서울", "seoul"), ("대구", "daegu"),
        ("별래", "byeollae"), ("의정부", "uijeongbu"),
    ])
    func latin(hangul: String, expected: String) {
        #expect(Romanization.latin(hangul) == expected)
    }

    @Test("a Latin spelling finds the Hangul name: with or without -gu, any case, spaces and hyphens ignored")
    func matches() {
        let names = ["강동구", "강서구", "종로구", "중구", "노형로", "연동"]
        #expect(Romanization.matches("Jongno", among: names) == ["종로구"])
        #expect(Romanization.matches("jongno-gu", among: names) == ["종로구"])
        #expect(Romanization.matches("JONGNOGU", among: names) == ["종로구"])
        #expect(Romanization.matches("Nohyeong-ro", among: names) == ["노형로"])
        #expect(Romanization.matches("Gangdong", among: names) == ["강동구"])
        #expect(Romanization.matches("Yeon-dong", among: names) == ["연동"])
        #expect(Romanization.matches("Busan", among: names).isEmpty)
        #expect(Romanization.matches("종로", among: names).isEmpty, "Hangul is matched as Hangul, not romanized")
    }
}
