package embedtest

import (
	"strings"
	"unicode/utf8"
)

// specialTokens come first so their ids are stable: [PAD] must be 0 because
// padding positions carry id 0.
var specialTokens = []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}

// suffixes are common English word endings, so inflected forms of listed
// words split into "word ##ing" instead of single characters.
var suffixes = []string{
	"s", "es", "ed", "ing", "er", "ers", "est", "ly", "tion", "tions", "ment",
	"ments", "ness", "able", "ible", "al", "ful", "less", "ive", "ize", "ise",
	"ity", "ous", "ic", "y", "d", "n", "en", "ion", "ions", "ance", "ence",
}

// commonWords is a built-in list of frequent English words (whitespace
// separated, lowercase). Whole-word tokens make test texts tokenize like real
// prose, so sharing words means sharing tokens.
const commonWords = `
the of and to a in is it you that he was for on are with as his they be at one
have this from or had by not word but what some we can out other were all there
when up use your how said an each she which do their time if will way about many
then them write would like so these her long make thing see him two has look more
day could go come did number sound no most people my over know water than call
first who may down side been now find any new work part take get place made live
where after back little only round man year came show every good me give our under
name very through just form sentence great think say help low line differ turn
cause much mean before move right boy old too same tell does set three want air
well also play small end put home read hand port large spell add even land here
must big high such follow act why ask men change went light kind off need house
picture try us again animal point mother world near build self earth father head
stand own page should country found answer school grow study still learn plant
cover food sun four between state keep eye never last let thought city tree cross
farm hard start might story saw far sea draw left late run while press close
night real life few north open seem together next white children begin got walk
example ease paper group always music those both mark often letter until mile
river car feet care second book carry took science eat room friend began idea fish
mountain stop once base hear horse cut sure watch color face wood main enough
plain girl usual young ready above ever red list though feel talk bird soon body
dog family direct pose leave song measure door product black short numeral class
wind question happen complete ship area half rock order fire south problem piece
told knew pass since top whole king space heard best hour better true during
hundred five remember step early hold west ground interest reach fast verb sing
listen six table travel less morning ten simple several vowel toward war lay
against pattern slow center love person money serve appear road map rain rule
govern pull cold notice voice unit power town fine certain fly fall lead cry dark
machine note wait plan figure star box noun field rest correct able pound done
beauty drive stood contain front teach week final gave green oh quick develop
ocean warm free minute strong special mind behind clear tail produce fact street
inch multiply nothing course stay wheel full force blue object decide surface deep
moon island foot system busy test record boat common gold possible plane stead dry
wonder laugh thousand ago ran check game shape equate hot miss brought heat snow
tire bring yes distant fill east paint language among grand ball yet wave drop
heart am present heavy dance engine position arm wide sail material size vary
settle speak weight general ice matter circle pair include divide syllable felt
perhaps pick sudden count square reason length represent art subject region energy
hunt probable bed brother egg ride cell believe fraction forest sit race window
store summer train sleep prove lone leg exercise wall catch mount wish sky board
joy winter sat written wild instrument kept glass grass cow job edge sign visit
past soft fun bright gas weather month million bear finish happy hope flower
clothe strange gone jump baby eight village meet root buy raise solve metal
whether push seven paragraph third shall held hair describe cook floor either
result burn hill safe cat century consider type law bit coast copy phrase silent
tall sand soil roll temperature finger industry value fight lie beat excite
natural view sense ear else quite broke case middle kill son lake moment scale loud
spring observe child straight consonant nation dictionary milk speed method organ
pay age section dress cloud surprise quiet stone tiny climb cool design poor lot
experiment bottom key iron single stick flat twenty skin smile crease hole trade
melody trip office receive row mouth exact symbol die least trouble shout except
wrote seed tone join suggest clean break lady yard rise bad blow oil blood touch
grew cent mix team wire cost lost brown wear garden equal sent choose fell fit flow
fair bank collect save control decimal gentle woman captain practice separate
difficult doctor please protect noon whose locate ring character insect caught
period indicate radio spoke atom human history effect electric expect crop modern
element hit student corner party supply bone rail imagine provide agree thus
capital chair danger fruit rich thick soldier process operate guess necessary
sharp wing create neighbor wash bat rather crowd corn compare poem string bell
depend meat rub tube famous dollar stream fear sight thin triangle planet hurry
chief colony clock mine tie enter major fresh search send yellow gun allow print
dead spot desert suit current lift rose continue block chart hat sell success
company subtract event particular deal swim term opposite wife shoe shoulder spread
arrange camp invent cotton born determine quart nine truck noise level chance
gather shop stretch throw shine property column molecule select wrong gray repeat
require broad prepare salt nose plural anger claim continent oxygen sugar death
pretty skill women season solution magnet silver thank branch match suffix
especially fig afraid huge sister steel discuss forward similar guide experience
score apple bought led pitch coat mass card band rope slip win dream evening
condition feed tool total basic smell valley nor double seat arrive master track
parent shore division sheet substance favor connect post spend chord fat glad
original share station dad bread charge proper bar offer segment slave duck
instant market degree populate chick dear enemy reply drink occur support speech
nature range steam motion path liquid log meant quotient teeth shell neck
document documents file files folder search index query answer answers citation
cite source sources evidence chunk passage text data model models embedding vector
install installation linux windows mac macos version update release error errors
password account user users settings configure configuration network server client
database backup restore license report reports policy policies invoice payment
meeting notes project projects budget schedule deadline contract customer customers
email phone address manual guide chapter section title summary introduction
conclusion appendix table figure reference references question questions result
results method methods analysis research paper papers study studies review
software hardware computer program code function language python golang rust java
privacy security offline local desktop application app download upload open close
`

// hangulJamo lists the conjoining jamo that NFD produces from Hangul
// syllables: the tokenizer decomposes syllables before WordPiece runs, so
// these (not precomposed syllables) are what Korean text tokenizes into.
func hangulJamo() []string {
	var out []string
	for _, r := range [][2]rune{{0x1100, 0x1112}, {0x1161, 0x1175}, {0x11A8, 0x11C2}} {
		for c := r[0]; c <= r[1]; c++ {
			out = append(out, string(c))
		}
	}
	return out
}

// vocabulary returns the ordered token list; a token's id is its index.
func vocabulary() []string {
	seen := map[string]bool{}
	var vocab []string
	add := func(tok string) {
		if tok == "" || seen[tok] {
			return
		}
		seen[tok] = true
		vocab = append(vocab, tok)
	}
	for _, t := range specialTokens {
		add(t)
	}
	var chars []string
	for c := byte('!'); c <= '~'; c++ {
		if c >= 'A' && c <= 'Z' {
			continue // the normaliser lowercases, so capitals never reach WordPiece
		}
		chars = append(chars, string(c))
	}
	chars = append(chars, hangulJamo()...)
	for _, c := range chars {
		add(c)
	}
	for _, c := range chars {
		if utf8.RuneCountInString(c) == 1 && isWordChar(c) {
			add("##" + c)
		}
	}
	for _, s := range suffixes {
		add("##" + s)
	}
	for _, w := range strings.Fields(commonWords) {
		add(w)
	}
	return vocab
}

// isWordChar reports whether a single-character token can continue a word;
// punctuation is always split off by the pre-tokenizer, so "##," is useless.
func isWordChar(c string) bool {
	r, _ := utf8.DecodeRuneInString(c)
	return r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 0x1100
}
