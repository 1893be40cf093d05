import Domain
import Testing

/// The 17 시도 and every name they go by.
@Suite struct ProvinceTests {
    @Test func seventeenProvincesWithDistinctCodesAndNames() {
        #expect(Province.all.count == 17)
        #expect(Set(Province.all.map(\.code)).count == 17)
        #expect(Set(Province.all.map(\.shortName)).count == 17)
        #expect(Set(Province.all.map(\.officialName)).count == 17)
        #expect(Set(Province.all.map(\.englishName)).count == 17)
        let names = Province.all.flatMap { $0.aliases.map(\.name) }
        #expect(Set(names).count == names.count, "a name belongs to one province only")
    }

    @Test func everySpellingTheFeedsUseResolves() {
        // AirKorea's sidoName values (the realtime-by-province parameter list).
        for short in ["서울", "부산", "대구", "인천", "광주", "대전", "울산", "경기", "강원", "충북", "충남", "전북", "전남", "경북", "경남", "제주", "세종"] {
            #expect(Province.named(short)?.shortName == short)
        }
        #expect(Province.named("서울특별시")?.code == "11")
        #expect(Province.named("세종특별자치시")?.shortName == "세종")
        #expect(Province.named("강원특별자치도")?.code == "51")
        #expect(Province.named("강원도")?.shortName == "강원")
        #expect(Province.named("전북특별자치도")?.code == "52")
        #expect(Province.named("전라북도")?.shortName == "전북")
        #expect(Province.named("제주도")?.shortName == "제주")
        #expect(Province.named("영동")?.shortName == "강원")
        #expect(Province.named("경기북부")?.shortName == "경기")
        #expect(Province.named("전국") == nil)
    }
}
