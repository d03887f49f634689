package facts

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// unitSpellings maps each unit's canonical name to its spellings. Counted
// things that documents measure by (tokens, pages, files) are units too:
// "6 passages" and "6 files" are different facts.
var unitSpellings = map[string]string{
	"b": "b byte bytes", "kb": "kb kib kilobyte kilobytes", "mb": "mb mib megabyte megabytes",
	"gb": "gb gib gigabyte gigabytes", "tb": "tb tib terabyte terabytes",
	"ms": "ms millisecond milliseconds", "s": "s sec secs second seconds", "min": "min mins minute minutes",
	"h": "h hr hrs hour hours", "day": "day days", "week": "week weeks", "month": "month months",
	"year": "year years yr yrs", "decade": "decade decades", "century": "century centuries",
	"mm": "mm millimeter millimeters millimetre millimetres", "cm": "cm centimeter centimeters centimetre centimetres",
	"m": "m meter meters metre metres", "km": "km kilometer kilometers kilometre kilometres",
	"in": "in inch inches", "ft": "ft foot feet", "mi": "mi mile miles", "yd": "yd yard yards",
	"mg": "mg milligram milligrams", "g": "g gram grams", "kg": "kg kilo kilos kilogram kilograms",
	"lb": "lb lbs pound pounds", "oz": "oz ounce ounces", "t": "tonne tonnes ton tons",
	"ml": "ml milliliter milliliters millilitre millilitres", "l": "l liter liters litre litres",
	"gal": "gal gallon gallons", "°c": "°c celsius", "°f": "°f fahrenheit", "°": "° degree degrees",
	"%": "% percent per-cent pct", "v": "v volt volts", "a": "a amp amps ampere amperes", "w": "w watt watts",
	"hz": "hz hertz", "khz": "khz", "mhz": "mhz", "ghz": "ghz", "mah": "mah", "wh": "wh", "kwh": "kwh",
	"rpm": "rpm", "dpi": "dpi", "px": "px pixel pixels", "mph": "mph", "kcal": "kcal", "km/h": "km/h kph",
	"x": "x times", "token": "token tokens", "page": "page pages", "core": "core cores", "file": "file files",
	"passage": "passage passages",
	"바이트":     "바이트", "메가바이트": "메가바이트", "기가바이트": "기가바이트", "초": "초", "분": "분",
	"시간": "시간", "일": "일", "주": "주", "개월": "개월", "월": "월", "년": "년", "개": "개", "번": "번",
	"토큰": "토큰", "퍼센트": "퍼센트", "배": "배", "쪽": "쪽", "페이지": "페이지", "명": "명", "단계": "단계",
	"미터": "미터", "센티미터": "센티미터", "밀리미터": "밀리미터", "킬로미터": "킬로미터", "킬로그램": "킬로그램",
	"그램": "그램", "리터": "리터",
}

// unitCanon maps a lowercase spelling to its unit.
var unitCanon = func() map[string]string {
	m := map[string]string{}
	for canon, spellings := range unitSpellings {
		for _, s := range strings.Fields(spellings) {
			m[s] = canon
		}
	}
	// Korean spellings of units whose Latin name is the canonical one.
	m["메가바이트"], m["기가바이트"], m["바이트"], m["퍼센트"] = "mb", "gb", "b", "%"
	m["초"], m["분"], m["시간"], m["일"], m["주"], m["개월"], m["년"] = "s", "min", "h", "day", "week", "month", "year"
	m["토큰"], m["페이지"], m["쪽"] = "token", "page", "page"
	m["미터"], m["센티미터"], m["밀리미터"], m["킬로미터"], m["킬로그램"], m["그램"], m["리터"] = "m", "cm", "mm", "km", "kg", "g", "l"
	return m
}()

// Unit returns the canonical unit a lowercase word spells ("megabytes" →
// "mb", "percent" → "%", "분" → "min").
func Unit(word string) (string, bool) {
	u, ok := unitCanon[word]
	return u, ok
}

// ambiguousUnits are unit spellings that are also ordinary words or single
// letters ("in", "a", "m", "second").
var ambiguousUnits = map[string]bool{"m": true, "g": true, "l": true, "s": true, "h": true, "a": true,
	"v": true, "w": true, "in": true, "t": true, "x": true, "min": true, "second": true, "day": true,
	"week": true, "month": true, "year": true, "times": true, "ton": true, "pound": true, "foot": true}

// countedUnits are the things documents count (tokens, pages, files):
// units after a number, ordinary nouns alone.
var countedUnits = map[string]bool{"token": true, "page": true, "file": true, "core": true, "passage": true}

// AmbiguousUnit reports a unit spelling that names a unit only right after
// a number: a letter or word with another sense ("in", "a", "m",
// "second", "day") or a counted thing ("files", "pages").
func AmbiguousUnit(lower string) bool {
	return ambiguousUnits[lower] || countedUnits[unitCanon[lower]]
}

// unitScale converts units of one dimension to a base unit, where the
// factor is exact: "90 minutes" and "1.5 hours" are the same fact.
var unitScale = map[string]struct {
	base   string
	factor float64
}{
	"ms": {"s", 0.001}, "s": {"s", 1}, "min": {"s", 60}, "h": {"s", 3600}, "day": {"s", 86400}, "week": {"s", 604800},
	"mm": {"m", 0.001}, "cm": {"m", 0.01}, "m": {"m", 1}, "km": {"m", 1000},
	"mg": {"g", 0.001}, "g": {"g", 1}, "kg": {"g", 1000},
	"ml": {"l", 0.001}, "l": {"l", 1},
}

// koreanUnits are unit names that may be written onto a number and be
// followed by a particle (20MB의, 6개의), longest first so 메가바이트 wins
// over 바이트.
var koreanUnits = func() []string {
	var out []string
	for w := range unitCanon {
		if IsHangulString(w) {
			out = append(out, w)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if a, b := utf8.RuneCountInString(out[i]), utf8.RuneCountInString(out[j]); a != b {
			return a > b
		}
		return out[i] < out[j]
	})
	return out
}()
