package lexical

import (
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// The Korean stemmer, the one every package uses: the query analyzer (a
// stem becomes a prefix query), claim verification (words match by stem)
// and the answer cache (through KoreanParticles).

// koreanParticles are postpositions stripped from the end of a word.
var koreanParticles = longestFirst([]string{
	"에서부터", "으로부터", "에게서", "한테서", "으로서", "으로써", "이라고", "에서는", "에게는",
	"에서", "에게", "한테", "께서", "으로", "로서", "로써", "부터", "까지", "처럼", "보다",
	"마다", "조차", "만큼", "이나", "이랑", "하고", "라고", "에는", "와", "과", "은", "는",
	"이", "가", "을", "를", "의", "에", "도", "로", "만", "랑", "요",
})

// koreanEndings are common verb and adjective endings, so 설치합니다 and
// 설치하려면 share 설치.
var koreanEndings = []string{
	"했습니다", "하였습니다", "합니다", "됩니다", "입니다", "습니다", "했다", "한다", "된다", "이다",
	"하세요", "하십시오", "하려면", "하면", "해야", "하는", "하고", "하여", "해서", "하지", "되는", "되면",
	"되어", "되지", "이며", "이고", "니다", "어요", "아요", "세요", "는다", "다", "지",
}

// koreanSuffixes are the particles and endings together, longest first.
var koreanSuffixes = func() []string {
	seen := map[string]bool{}
	var all []string
	for _, s := range append(slices.Clone(koreanParticles), koreanEndings...) {
		if !seen[s] {
			seen[s] = true
			all = append(all, s)
		}
	}
	return longestFirst(all)
}()

func longestFirst(words []string) []string {
	sort.SliceStable(words, func(i, j int) bool {
		return utf8.RuneCountInString(words[i]) > utf8.RuneCountInString(words[j])
	})
	return words
}

// KoreanParticles returns the particles the stemmer strips from Korean
// words, longest first, so other packages (the answer cache) split Korean
// words the same way.
func KoreanParticles() []string { return slices.Clone(koreanParticles) }

// KoreanStem reduces a Korean word to its stem: it strips trailing
// particles and endings (at most two, so 문서에서는 and 보내지는 reduce
// fully) while at least two syllables stay, so short nouns such as 아이 or
// 나라 are not cut to a single syllable that would prefix-match half the
// index. A verb whose ending merged into its last syllable (보냅니다 = 보내
// + ㅂ니다, 보낸다 = 보내 + ㄴ다) loses that final consonant too, so it
// matches 보내지 않습니다. Stems are matched by prefix: a stem may keep part
// of an ending.
func KoreanStem(word string) string {
	for range 2 {
		cut := ""
		for _, p := range koreanSuffixes {
			if stem, ok := strings.CutSuffix(word, p); ok && utf8.RuneCountInString(stem) >= 2 {
				word, cut = stem, p
				break
			}
		}
		if cut == "" {
			break
		}
		if cut == "니다" || cut == "다" {
			word = dropFinal(word)
		}
	}
	return word
}

// dropFinal removes a final ㄴ or ㅂ from the last Hangul syllable of w.
func dropFinal(w string) string {
	r, size := utf8.DecodeLastRuneInString(w)
	if r < 0xAC00 || r > 0xD7A3 {
		return w
	}
	final := (r - 0xAC00) % 28
	if final != 4 && final != 17 { // ㄴ, ㅂ
		return w
	}
	return w[:len(w)-size] + string(r-final)
}
