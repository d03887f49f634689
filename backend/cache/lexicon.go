package cache

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/footnote-app/footnote/backend/facts"
)

// The word lists SameAsk normalises English questions with. They are general
// English, not tuned to any library: stop words carry no question content,
// the rest name what a question asks about.

// setOf builds a lookup set from space-separated words.
func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// mapOf builds canonical forms from "canonical: variant variant ..." lines.
func mapOf(lines ...string) map[string]string {
	m := map[string]string{}
	for _, l := range lines {
		canon, variants, _ := strings.Cut(l, ":")
		canon = strings.TrimSpace(canon)
		m[canon] = canon
		for _, v := range strings.Fields(variants) {
			m[v] = canon
		}
	}
	return m
}

// stopWords are dropped before questions are compared: articles, pronouns,
// prepositions, auxiliaries and the generic question words (what, which),
// which say nothing about what is asked. Words that change the ask (not,
// all, only, more, should, before, who, ...) are not here.
var stopWords = setOf(`a an the this that these those there here
	i me my mine myself we us our ours you your yours it its they them their he him his she her
	is are was were be been being am do does did done doing have has had having
	can could will would shall may might
	what which whatever
	of in on at to for from with by about into onto as via through upon
	and or but if so then also that
	some any anything something
	please thanks thank kindly
	get got`)

// rewrite replaces what re matches with with (a politeness frame with a
// space, a multi-word expression with one word). It runs only when the
// lowercased text contains one of its hints, which keeps SameAsk cheap.
type rewrite struct {
	hints []string
	re    *regexp.Regexp
	with  string
}

func rule(hints, pattern, with string) rewrite {
	return rewrite{strings.Split(hints, "|"), regexp.MustCompile(pattern), with}
}

// applyRewrites runs rules over s in order.
func applyRewrites(s string, rules []rewrite) string {
	lower := strings.ToLower(s)
	for _, r := range rules {
		for _, h := range r.hints {
			if strings.Contains(lower, h) {
				if out := r.re.ReplaceAllString(s, r.with); out != s {
					s, lower = out, strings.ToLower(out)
				}
				break
			}
		}
	}
	return s
}

// frames are politeness wrappers around a question; they are cut before
// the question is compared ("Could you tell me which cartridge ...").
var frames = []rewrite{
	rule("hi|hello|hey|sorry|excuse|question", `(?i)^\s*(hi|hello|hey|sorry|excuse me|quick question|question)\b[\s,!:.]*`, " "),
	rule("you", `(?i)\b(could|can|would|will) you (please |kindly )?(tell|show|let) me( know)?\b`, " "),
	rule("you", `(?i)\b(could|can|would|will) you (please |kindly )?(explain|list|say|describe)( to me)?\b`, " "),
	rule("mind", `(?i)\bwould you mind (explaining|telling me|showing me|listing)\b`, " "),
	rule("know", `(?i)\b(do|does) (you|anyone|anybody) know\b`, " "),
	rule("know", `(?i)\bi(?:'d| would) like to know\b`, " "),
	rule("know", `(?i)\bi (want|need|wish) to know\b`, " "),
	rule("wonder", `(?i)\bi (was |am )?(wondering|wonder)\b`, " "),
	rule("please|kindly", `(?i)\b(please|kindly) (tell|show|explain|let)( me)?( know)?\b`, " "),
	rule("thank", `(?i)\bthank(s| you)( (very|so) much)?\b[.!]*`, " "),
	rule("please|kindly", `(?i)\b(please|kindly)\b`, " "),
}

// phrases rewrites multi-word expressions to one canonical word before
// tokenising, so "turn off" and "disable", or "how many" and "the number
// of", compare equal. Question classes become wh_* words.
var phrases = []rewrite{
	rule("steps|procedure|process|way", `(?i)\bwhat (are|is) the (steps|procedure|process|way) (to|for)\b`, " wh_how "),
	rule("go about", `(?i)\bhow (can|could|do|does|should|would) (i|we|you|one) go about\b`, " wh_how "),
	rule("how many|number of", `(?i)\bhow many\b|\bwhat is the number of\b|\bthe number of\b`, " wh_count "),
	rule("how much", `(?i)\bhow much\b`, " wh_amount "),
	rule("how long", `(?i)\bhow long\b`, " wh_long "),
	rule("how often|how frequently", `(?i)\bhow often\b|\bhow frequently\b`, " wh_often "),
	rule("how big|how large", `(?i)\bhow (big|large)\b`, " size "),
	rule("how heavy", `(?i)\bhow heavy\b`, " weight "),
	rule("how old", `(?i)\bhow old\b`, " age "),
	rule("how far", `(?i)\bhow far\b`, " distance "),
	rule("time|date|day|year", `(?i)\b(what|which) (time|date|day|year)\b`, " wh_when "),
	rule("place|location", `(?i)\b(what|which) (place|location)\b`, " wh_where "),
	rule("reason", `(?i)\bfor what reason\b|\bwhat is the reason\b`, " wh_why "),
	rule("off", `(?i)\b(turn|switch|shut) off\b`, " disable "),
	rule("turn on|switch on", `(?i)\b(turn|switch) on\b`, " enable "),
	rule("back", `(?i)\bback(ed|ing|s)? up\b`, " backup "),
	rule("log|sign", `(?i)\b(log|sign)(ged|ging|s)? in\b`, " login "),
	rule("log|sign", `(?i)\b(log|sign)(ged|ging|s)? out\b`, " logout "),
	rule("set", `(?i)\bset(s|ting)? up\b`, " setup "),
	rule("without", `(?i)\bwithout (an? )?(internet|network)( connection| access)?\b`, " offline "),
	rule("phone number", `(?i)\bphone number\b|\btelephone number\b`, " phone_number "),
	rule("per cent", `(?i)\bper cent\b`, " percent "),
}

// whWords are the question classes that change what is asked. "what" and
// "which" are generic (stop words); a question with no class is a yes/no one.
var whWords = mapOf(
	"wh_who: who whom whose",
	"wh_when: when",
	"wh_where: where",
	"wh_why: why",
	"wh_how: how",
	"wh_count:", "wh_amount:", "wh_long:", "wh_often:",
)

// relationWords link what comes before them to what follows (convert PDF
// to Word, move from A to B, louder than B): swapping the two sides asks
// something else, so the linked words are compared in order.
var relationWords = mapOf("to: to", "from: from", "into: into", "onto: onto", "than: than", "vs: vs versus")

// tenseWords mark a question about the past or the future (did it delete,
// will it delete); the present is unmarked.
var tenseWords = map[string]string{"did": "past", "was": "past", "were": "past", "had": "past",
	"will": "future", "shall": "future"}

// modals that change the ask (advice or obligation rather than ability);
// can/could/will/would are stop words.
var modals = mapOf("should: should ought", "must: must")

// scopeWords widen or narrow what is asked about.
var scopeWords = mapOf(
	"all: all",
	"each: each every",
	"whole: whole entire",
	"only: only solely just",
	"both: both",
	"either: either",
	"total: total overall",
	"per: per",
	"single: single individual",
	"across: across",
	"worldwide: worldwide globally",
)

// comparatives beyond the regular -er/-est forms of comparableBases.
var comparatives = mapOf(
	"more: more", "most: most", "less: less", "least: least", "fewer: fewer", "fewest: fewest",
	"better: better", "best: best", "worse: worse", "worst: worst", "than: than",
	"max: max maximum highest greatest", "min: min minimum lowest",
	"further: further farther", "furthest: furthest farthest",
)

// comparableBases are adjectives whose -er/-est forms are comparatives
// (faster, cheapest, easier, bigger); words like "printer" are not formed
// from them and stay ordinary words.
var comparableBases = strings.Fields(`fast slow quick big small large cheap high low long short new old
	early late heavy light strong weak hot cold warm cool safe easy hard close far near loud quiet bright
	dark thin thick wide narrow deep young recent soon great few full clean busy simple tall tiny huge rich
	poor fresh smooth tight loose sharp nice fine rare dense soft harsh calm`)

// comparativeForms maps every -er/-est form of comparableBases to itself.
var comparativeForms = func() map[string]bool {
	m := map[string]bool{}
	vowels := "aeiou"
	for _, b := range comparableBases {
		stems := []string{b}
		last := b[len(b)-1]
		switch {
		case last == 'e':
			stems = []string{b[:len(b)-1]}
		case last == 'y':
			stems = []string{b[:len(b)-1] + "i"}
		case len(b) >= 3 && !strings.ContainsRune(vowels, rune(last)) && last != 'w' && last != 'x' &&
			strings.ContainsRune(vowels, rune(b[len(b)-2])) && !strings.ContainsRune(vowels, rune(b[len(b)-3])):
			stems = append(stems, b+string(last)) // big → bigg(er)
		}
		for _, s := range stems {
			m[s+"er"], m[s+"est"] = true, true
		}
	}
	return m
}()

// timeWords mark when something is asked about.
var timeWords = mapOf(
	"today: today tonight", "tomorrow: tomorrow", "yesterday: yesterday", "now: now currently",
	"recent: recently lately", "ago: ago", "before: before prior", "after: after afterwards",
	"since: since", "until: until till", "during: during",
	"morning: morning", "afternoon: afternoon", "evening: evening", "night: night",
	"am: am a.m", "pm: pm p.m",
	"daily: daily", "weekly: weekly", "monthly: monthly", "yearly: yearly annual annually",
	"weekend: weekend", "quarterly: quarterly",
)

// relativeTimes are "last", "this", "next" when a period follows them.
var relativeTimes = mapOf("last: last past previous", "this: this current", "next: next coming upcoming")

// periods are the nouns a relative time word modifies.
var periods = setOf(`day days week weeks month months year years quarter quarters time weekend season morning evening night`)

// Numbers, ordinals, months, weekdays, units and negation words are read
// as claim verification reads them (backend/facts): one table for both.

// numberWord is the value a spelled-out number names, as a key ("12" for
// "twelve" and "dozen", "100" for "hundred"), or "".
func numberWord(l string) string {
	if v, ok := facts.NumberWord(l); ok && v == math.Trunc(v) {
		return strconv.Itoa(int(v))
	}
	if v, ok := facts.Multiplier(l); ok {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return ""
}

// ordinalWord is the position a spelled-out ordinal names ("3" for
// "third"), or "".
func ordinalWord(l string) string {
	if n, ok := facts.OrdinalWord(l); ok {
		return strconv.Itoa(n)
	}
	return ""
}

// monthOf is the month a word names ("1" for "january" and "jan"), or "".
// "mar" is a word, not March.
func monthOf(l string) string {
	if m, ok := facts.MonthName(l); ok && l != "mar" {
		return strconv.Itoa(m)
	}
	return ""
}

// weekdayOf is the weekday a full name (or "tues", "thurs") names, or "":
// "sat", "sun" and "wed" are words.
func weekdayOf(l string) string {
	if d, ok := facts.WeekdayName(l); ok && len(l) > 3 {
		return strconv.Itoa(d)
	}
	return ""
}

// unitOf is the canonical unit a word spells ("kg", "min"), or "".
func unitOf(l string) string {
	u, _ := facts.Unit(l)
	return u
}

// isNegation reports a word that turns an ask into its opposite; "n't" is
// split off as "not".
func isNegation(l string) bool { return facts.IsNegation(l) || l == "without" || l == "non" }

// synonyms map stemmed words to one canonical stem. Each group holds words
// that ask the same thing in a question about documents.
var synonyms = mapOf(
	"us: us utiliz need requir",
	"delet: delet remov eras",
	"start: start begin launch",
	"pric: pric cost fe",
	"fix: fix solv resolv",
	"stor: stor sav kept keep",
	"mean: mean meaning",
	"disabl: disabl deactivat",
	"enabl: enabl activat",
	"chang: chang modify modifi alter",
	"writ: writ wrot written author",
	"find: find locat",
	"addit: additional extra",
	"phon: phon telephon",
	"photo: photo pictur imag",
	"buy: buy purchas bought",
	"show: show display",
	"allow: allow permit",
	"app: app application",
	"doc: doc document",
	"wifi: wifi wlan",
	"email: email mail",
)

// irregular maps irregular English forms to their stem's form.
var irregular = map[string]string{
	"did": "do", "done": "do", "does": "do", "ran": "run", "wrote": "writ", "written": "writ",
	"spent": "spend", "said": "say", "says": "say", "paid": "pay", "sold": "sell", "bought": "buy", "took": "tak",
	"taken": "tak", "made": "mak", "kept": "keep", "left": "leav", "went": "go", "gone": "go", "began": "begin",
	"begun": "begin", "chose": "choos", "chosen": "choos", "meant": "mean", "sent": "send", "built": "build",
	"lost": "los", "found": "find", "held": "hold", "knew": "know", "known": "know", "ate": "eat", "fell": "fall",
	"gave": "giv", "given": "giv", "saw": "see", "seen": "see", "told": "tell", "brought": "bring", "thought": "think",
	"children": "child", "people": "person", "men": "man", "women": "woman", "feet": "ft", "mice": "mouse",
}
