package claims

import (
	"regexp"
	"sort"
	"strings"

	"github.com/footnote-app/footnote/backend/verify"
)

// Report is what one run over one set measured.
type Report struct {
	Set  string         `json:"set"`
	Rows int            `json:"rows"`
	Gold map[string]int `json:"gold"` // rows per label
	// Confusion counts verdicts per gold label: Confusion[label][verdict].
	Confusion map[string]map[string]int `json:"confusion"`
	// FalseAlarm is the share of supported claims the verifier calls
	// unsupported: under strict verification each turns a correct answer
	// into "Not answered".
	FalseAlarm float64 `json:"false_alarm"`
	// FalseAlarmStrict is the share of supported claims that do not hold
	// (verify.Result.Holds): under strict verification each makes its
	// answer "Not answered"; under warn each is marked.
	FalseAlarmStrict float64 `json:"false_alarm_strict"`
	// FalsePass is the share of not-supported claims called supported;
	// FalsePassStrict of those that hold (keep an answer grounded under
	// strict verification: verify.Result.Holds).
	FalsePass       float64 `json:"false_pass"`
	FalsePassStrict float64 `json:"false_pass_strict"`
	// PartialSupported is the share of supported claims called partial
	// (shown, marked as partly supported).
	PartialSupported float64 `json:"partial_supported"`
	// AUC of the verifier's score and of the baseline's: supported against
	// partial and not supported together, and against not supported alone.
	AUC         AUCs `json:"auc"`
	BaselineAUC AUCs `json:"baseline_auc"`
	// ByLength is the false-alarm rate by claim length in words.
	ByLength []LengthBucket `json:"by_length"`
}

// AUCs are ROC AUCs for the two ways of splitting the labels.
type AUCs struct {
	SupportedVsRest float64 `json:"supported_vs_rest"`
	SupportedVsNot  float64 `json:"supported_vs_not"`
}

// LengthBucket is the false-alarm rate of supported claims of a length.
type LengthBucket struct {
	Words      string  `json:"words"` // "≤ 15", "16–25", "> 25"
	Supported  int     `json:"supported"`
	FalseAlarm float64 `json:"false_alarm"`
	// FalseAlarmStrict is the share of supported claims that do not hold
	// (verify.Result.Holds): under strict verification each makes its
	// answer "Not answered"; under warn each is marked.
	FalseAlarmStrict float64 `json:"false_alarm_strict"`
}

// Measure folds a run's outcomes into a Report.
func Measure(set string, outs []Outcome) Report {
	r := Report{Set: set, Rows: len(outs), Gold: map[string]int{}, Confusion: map[string]map[string]int{}}
	for _, l := range []string{Supported, Partial, NotSupported} {
		r.Confusion[l] = map[string]int{verify.Supported: 0, verify.Partial: 0, verify.Unsupported: 0}
	}
	var sup, rest, not, bSup, bRest, bNot []float64
	var alarms, strictAlarms, passes, strict, partial int
	buckets := []LengthBucket{{Words: "≤ 15"}, {Words: "16–25"}, {Words: "> 25"}}
	bucketAlarms := make([]int, len(buckets))
	for _, o := range outs {
		r.Gold[o.Label]++
		r.Confusion[o.Label][o.Verdict]++
		switch o.Label {
		case Supported:
			sup, bSup = append(sup, o.Score), append(bSup, o.Baseline)
			b := lengthBucket(o.Claim)
			buckets[b].Supported++
			if o.Verdict == verify.Unsupported {
				alarms++
				bucketAlarms[b]++
			}
			if o.Verdict == verify.Partial {
				partial++
			}
			if !o.Holds {
				strictAlarms++
			}
		case Partial:
			rest, bRest = append(rest, o.Score), append(bRest, o.Baseline)
		case NotSupported:
			rest, bRest = append(rest, o.Score), append(bRest, o.Baseline)
			not, bNot = append(not, o.Score), append(bNot, o.Baseline)
			if o.Verdict == verify.Supported {
				passes++
			}
			if o.Holds {
				strict++
			}
		}
	}
	r.FalseAlarm = share(alarms, len(sup))
	r.FalseAlarmStrict = share(strictAlarms, len(sup))
	r.PartialSupported = share(partial, len(sup))
	r.FalsePass = share(passes, len(not))
	r.FalsePassStrict = share(strict, len(not))
	r.AUC = AUCs{AUC(sup, rest), AUC(sup, not)}
	r.BaselineAUC = AUCs{AUC(bSup, bRest), AUC(bSup, bNot)}
	for i := range buckets {
		buckets[i].FalseAlarm = share(bucketAlarms[i], buckets[i].Supported)
	}
	r.ByLength = buckets
	return r
}

func lengthBucket(claim string) int {
	switch n := len(strings.Fields(claim)); {
	case n <= 15:
		return 0
	case n <= 25:
		return 1
	}
	return 2
}

func share(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// AUC is the probability that a random positive scores above a random
// negative, ties counting half (the Mann–Whitney statistic); 0.5 when a
// side is empty.
func AUC(pos, neg []float64) float64 {
	if len(pos) == 0 || len(neg) == 0 {
		return 0.5
	}
	type scored struct {
		v   float64
		pos bool
	}
	all := make([]scored, 0, len(pos)+len(neg))
	for _, v := range pos {
		all = append(all, scored{v, true})
	}
	for _, v := range neg {
		all = append(all, scored{v, false})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v < all[j].v })
	var rankSum float64
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		mid := float64(i+j+1) / 2 // mean 1-based rank of the tie group
		for k := i; k < j; k++ {
			if all[k].pos {
				rankSum += mid
			}
		}
		i = j
	}
	np, nn := float64(len(pos)), float64(len(neg))
	return (rankSum - np*(np+1)/2) / (np * nn)
}

// overlapWordRe splits words the plain way a baseline would.
var overlapWordRe = regexp.MustCompile(`[\p{L}\p{N}]+`)

// overlapStop are English function words the baseline ignores.
var overlapStop = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but if then so as of at by for from in into on onto to up with
		within without over under about above below after before between through during than too very is are was
		were be been being am do does did have has had will would shall should can could may might must i me my we
		our us you your he him his she her it its they them their this that these those there here what which who
		whom whose when where why how all any both each every few more most other some such only own same just also
		not no s t`) {
		m[w] = true
	}
	return m
}()

// Overlap is the baseline: the share of the claim's distinct content words
// (lower-cased, English function words left out, no stemming) that occur
// in the passage.
func Overlap(claim, passage string) float64 { return overlapOf(contentWords(claim), wordSet(passage)) }

// wordSet is the set of a passage's words as Overlap reads them.
func wordSet(passage string) map[string]bool {
	have := map[string]bool{}
	for _, w := range overlapWordRe.FindAllString(strings.ToLower(passage), -1) {
		have[w] = true
	}
	return have
}

// contentWords are a claim's distinct words as Overlap counts them.
func contentWords(claim string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range overlapWordRe.FindAllString(strings.ToLower(claim), -1) {
		if !overlapStop[w] && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// overlapOf is the share of words in a passage's wordSet; 1 when there
// are none.
func overlapOf(words []string, have map[string]bool) float64 {
	if len(words) == 0 {
		return 1
	}
	found := 0
	for _, w := range words {
		if have[w] {
			found++
		}
	}
	return float64(found) / float64(len(words))
}
