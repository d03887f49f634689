package cache

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/footnote-app/footnote/backend/lexical"
)

// Korean questions are compared by stem: a space-separated word (eojeol) is
// a stem followed by particles (학교에서 = 학교 + 에서) or, for predicates,
// by endings (사용하나요 = 사용 + 하 + 나요). The particles are the index
// analyzer's (lexical.KoreanParticles); the endings, the words that change an
// ask (않, 없, 더, 가장, 언제, ...) and the politeness frames are here.

// koreanFrames are politeness wrappers cut before comparing
// ("... 알려 주세요", "혹시 ...", "... 궁금합니다").
var koreanFrames = []rewrite{
	rule("주", `(좀\s*)?(알려|말씀해|설명해|보여|가르쳐)\s*주(세요|시겠어요|실래요|실 수 있나요|십시오|시겠습니까)`, " "),
	rule("궁금", `궁금(합니다|해요|하네요|한데요)`, " "),
	rule("싶", `알고\s*싶(습니다|어요|은데요)`, " "),
	rule("혹시|실례|안녕|감사|고맙|부탁|좀", `(^|\s)(혹시|실례지만|실례합니다|안녕하세요|감사합니다|고맙습니다|부탁(드립니다|해요)|좀)([\s,.!?]|$)`, " "),
	rule("아시|아세요|아십", `(^|\s)아(시나요|세요|십니까)([\s,.!?]|$)`, " "),
}

// koreanEndings are predicate endings stripped from a word's end, longest
// first; tense and politeness do not change what is asked.
var koreanEndings = longestFirst(strings.Fields(`
	었습니까 았습니까 였습니까 습니까 입니까 합니까 됩니까
	었나요 았나요 였나요 인가요 은가요 는가요 나요 가요 까요 을까요
	었어요 았어요 였어요 이에요 예요 에요 어요 아요 세요 지요 죠
	었습니다 았습니다 였습니다 습니다 입니다 니다
	었는지 았는지 였는지 는지 은지 인지 던지 을지 지
	었는데 는데 은데 인데 으면 면 려면 으려면 어서 아서 고
	는 은 던 을 어야 아야 었다 았다 였다 다 요 어 아 여 나 니 냐 었 았`))

// koreanContractions are final syllables in which a verb stem fused with an
// ending (했 = 하 + 였); they are put back to the stem's syllable.
var koreanContractions = map[string]string{
	"했": "하", "해": "하", "할": "하", "한": "하", "합": "하", "됐": "되", "돼": "되", "될": "되",
	"된": "되", "됩": "되", "썼": "쓰", "쓸": "쓰", "쓴": "쓰", "봤": "보", "볼": "보", "본": "보",
	"였": "",
}

// koreanVerbSuffixes make verbs from nouns (사용 + 하다, 저장 + 되다).
var koreanVerbSuffixes = []string{"시키", "하", "되", "받"}

var koreanParticles = longestFirst(lexical.KoreanParticles())

func longestFirst(words []string) []string {
	sort.SliceStable(words, func(i, j int) bool {
		return utf8.RuneCountInString(words[i]) > utf8.RuneCountInString(words[j])
	})
	return words
}

// koreanKeys are words with a fixed meaning for the comparison: question
// classes, comparatives, times and scope. Values are keys as SameAsk uses
// them (shared with English where the meaning is the same).
var koreanKeys = map[string][]string{
	"누구": {"wh_who"}, "누가": {"wh_who"}, "언제": {"wh_when"}, "어디": {"wh_where"}, "어디서": {"wh_where"},
	"왜": {"wh_why"}, "어째서": {"wh_why"}, "어떻게": {"wh_how"}, "몇": {"wh_count"}, "얼마": {"wh_amount"},
	"얼마나": {"wh_amount"},
	"더":   {"c:more"}, "덜": {"c:less"}, "가장": {"c:most"}, "제일": {"c:most"}, "최대": {"c:max"},
	"최고": {"c:max"}, "최소": {"c:min"}, "최저": {"c:min"}, "이상": {"c:atleast"}, "이하": {"c:atmost"},
	"미만": {"c:below"}, "초과": {"c:above"},
	"어제": {"t:yesterday"}, "오늘": {"t:today"}, "내일": {"t:tomorrow"}, "지금": {"t:now"}, "현재": {"t:now"},
	"최근": {"t:recent"}, "작년": {"t:rel:last", "year"}, "올해": {"t:rel:this", "year"}, "내년": {"t:rel:next", "year"},
	"지난달": {"t:rel:last", "month"}, "이번달": {"t:rel:this", "month"}, "다음달": {"t:rel:next", "month"},
	"지난주": {"t:rel:last", "week"}, "이번주": {"t:rel:this", "week"}, "다음주": {"t:rel:next", "week"},
	"지난해": {"t:rel:last", "year"}, "지난": {"t:rel:last"}, "저번": {"t:rel:last"}, "이번": {"t:rel:this"},
	"다음": {"t:rel:next"}, "전": {"t:before"}, "이전": {"t:before"}, "후": {"t:after"}, "이후": {"t:after"},
	"오전": {"t:am"}, "오후": {"t:pm"}, "아침": {"t:morning"}, "저녁": {"t:evening"}, "밤": {"t:night"},
	"월요일": {"t:day:mon"}, "화요일": {"t:day:tue"}, "수요일": {"t:day:wed"}, "목요일": {"t:day:thu"},
	"금요일": {"t:day:fri"}, "토요일": {"t:day:sat"}, "일요일": {"t:day:sun"}, "주말": {"t:weekend"},
	"달": {"month"}, "해": {"year"},
	"모든": {"s:all"}, "모두": {"s:all"}, "전부": {"s:all"}, "전체": {"s:whole"}, "각": {"s:each"},
	"각각": {"s:each"}, "마다": {"s:each"}, "총": {"s:total"}, "오직": {"s:only"}, "단지": {"s:only"},
	"하나": {"1"}, "둘": {"2"}, "셋": {"3"}, "넷": {"4"}, "첫째": {"#1"}, "둘째": {"#2"}, "셋째": {"#3"},
}

// koreanRoles are particles that say who or what goes where (로: to or
// by, 에서/부터: from or at, 에게: to a person, 까지: up to, 보다: than),
// by the role they mark; longest first.
var koreanRoles = []struct{ particle, role string }{
	{"으로부터", "부터"}, {"에서부터", "부터"}, {"로부터", "부터"}, {"에게서", "부터"}, {"한테서", "부터"},
	{"으로", "로"}, {"에서", "에서"}, {"에게", "에게"}, {"한테", "에게"}, {"까지", "까지"}, {"부터", "부터"},
	{"보다", "보다"}, {"로", "로"}, {"께", "에게"},
}

// koreanRole splits a role particle off w (계좌로 → 계좌, 로).
func koreanRole(w string) (base, role string) {
	for _, r := range koreanRoles {
		if b, ok := strings.CutSuffix(w, r.particle); ok {
			return b, r.role
		}
	}
	return w, ""
}

// koreanPast reports a past-tense form: a syllable closed by ㅆ (했, 었,
// 였, 썼), other than 있 (to be) and 겠 (would).
func koreanPast(w string) bool {
	for _, r := range w {
		if r >= 0xAC00 && r <= 0xD7A3 && (r-0xAC00)%28 == 20 && r != '있' && r != '겠' {
			return true
		}
	}
	return false
}

// koreanGeneric are question words that ask nothing specific (what, which).
var koreanGeneric = setOf(`무엇 뭐 무슨 어떤 어느 뭔 뭐라 무엇인 어떠`)

// koreanStop carry no question content: bound nouns, pronouns, auxiliaries.
var koreanStop = setOf(`수 있 것 거 등 및 때 하 되 이 그 저 제 내 나 우리 저희 대해 대하 관해 관하 대한 관한 대 관 경우 좀 있으 싶`)

// koreanNumberWords are native numbers before a counter (두 번째, 세 개).
var koreanNumberWords = map[string]string{"한": "1", "첫": "1", "두": "2", "세": "3", "네": "4", "다섯": "5",
	"여섯": "6", "일곱": "7", "여덟": "8", "아홉": "9", "열": "10"}

// koreanCounters follow a number; they count without changing the ask.
var koreanCounters = setOf(`개 명 번 대 권 건 곳 살 회 차 가지`)

// koreanUnits follow a number (10분) or 몇 (몇 미터).
var koreanUnits = map[string]string{
	"분": "u:min", "시간": "u:h", "초": "u:s", "일": "u:day", "주": "u:week", "개월": "u:month", "년": "u:year",
	"미터": "u:m", "센티미터": "u:cm", "밀리미터": "u:mm", "킬로미터": "u:km", "킬로그램": "u:kg", "그램": "u:g",
	"파운드": "u:lb", "피트": "u:ft", "인치": "u:in", "마일": "u:mi", "리터": "u:l", "밀리리터": "u:ml",
	"도": "u:°", "퍼센트": "u:%", "킬로": "u:kg", "와트": "u:w", "볼트": "u:v",
}

// koreanSynonyms map stems that ask the same thing to one stem.
var koreanSynonyms = map[string]string{
	"쓰": "사용", "이용": "사용", "지우": "삭제", "제거": "삭제", "비용": "가격", "보관": "저장",
	"비활성화": "끄", "활성화": "켜", "바꾸": "변경", "수정": "변경", "의미": "뜻", "리셋": "초기화",
	"콜렉션": "컬렉션", "설명서": "매뉴얼", "메뉴얼": "매뉴얼",
}

func isHangul(r rune) bool { return unicode.Is(unicode.Hangul, r) }

// cutParticle strips one particle when at least one syllable stays.
func cutParticle(w string) (stem, particle string) {
	for _, p := range koreanParticles {
		if s, ok := strings.CutSuffix(w, p); ok && s != "" {
			return s, p
		}
	}
	return w, ""
}

// koreanSuffixes are the particles and endings together, longest first: a
// word ends in either (카트리지를, 사용하나요, 얼마인가요), and the longest
// match must win over a short particle (요) that ends a longer ending.
var koreanSuffixes = func() []string {
	seen := map[string]bool{}
	var all []string
	for _, s := range append(append([]string{}, koreanParticles...), koreanEndings...) {
		if !seen[s] {
			seen[s] = true
			all = append(all, s)
		}
	}
	return longestFirst(all)
}()

// koreanStem reduces a Hangul word to its stem: up to three particles or
// endings (past tense, politeness, question), a fused final syllable and a
// verb-forming suffix, then a synonym. Both questions go through the same
// steps, so a stem cut one syllable short still compares equal.
func koreanStem(w string) string {
	for range 3 {
		if _, ok := koreanKeys[w]; ok || koreanGeneric[w] {
			return w
		}
		if utf8.RuneCountInString(w) <= 1 {
			break
		}
		cut := false
		for _, e := range koreanSuffixes {
			if s, ok := strings.CutSuffix(w, e); ok && s != "" {
				w, cut = s, true
				break
			}
		}
		if !cut {
			break
		}
	}
	if _, ok := koreanKeys[w]; ok || koreanGeneric[w] {
		return w
	}
	if last, size := utf8.DecodeLastRuneInString(w); size > 0 {
		if base, ok := koreanContractions[string(last)]; ok && (base != "" || size < len(w)) {
			w = w[:len(w)-size] + base
		}
	}
	for _, s := range koreanVerbSuffixes {
		if stem, ok := strings.CutSuffix(w, s); ok && stem != "" {
			w = stem
			break
		}
	}
	if syn, ok := koreanSynonyms[w]; ok {
		w = syn
	}
	return w
}
