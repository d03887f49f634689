package facts

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Date is a calendar date as a text states it; a field the text leaves out
// is 0 ("June 2019": no day; "Jul 19": no year; "Friday": a weekday alone).
type Date struct {
	Year, Month, Day int
	Weekday          int // 1 = Monday … 7 = Sunday
	Text             string
	Start, End       int // byte offsets in the text
}

func (d Date) String() string { return d.Text }

// Key is the date's fields in a fixed form, e.g. "2019-06-28", "2019-06",
// "06-28", "fri".
func (d Date) Key() string {
	var parts []string
	if d.Year > 0 {
		parts = append(parts, strconv.Itoa(d.Year))
	}
	if d.Month > 0 {
		parts = append(parts, fmt.Sprintf("%02d", d.Month))
	}
	if d.Day > 0 {
		parts = append(parts, fmt.Sprintf("%02d", d.Day))
	}
	if len(parts) == 0 && d.Weekday > 0 {
		return weekdayNames[d.Weekday-1][:3]
	}
	return strings.Join(parts, "-")
}

// Within reports whether every field d states is stated alike by o, or,
// for the year only, by one of years (the passage's dateline: "Jul 19"
// under a 2019 dateline states 19 July 2019). A weekday is compared only
// when both state one.
func (d Date) Within(o Date, years []int) bool {
	switch {
	case d.Month > 0 && d.Month != o.Month,
		d.Day > 0 && d.Day != o.Day,
		d.Weekday > 0 && o.Weekday > 0 && d.Weekday != o.Weekday,
		d.Weekday > 0 && d.Month == 0 && d.Day == 0 && d.Weekday != o.Weekday:
		return false
	case d.Year > 0 && o.Year > 0:
		return d.Year == o.Year
	case d.Year > 0:
		for _, y := range years {
			if y == d.Year {
				return true
			}
		}
		return false
	}
	return true
}

var monthNames = []string{"january", "february", "march", "april", "may", "june", "july", "august",
	"september", "october", "november", "december"}

var weekdayNames = []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}

// months maps month names and abbreviations to 1–12. "may" and "mar" are
// months only next to a day or year ("May 5", "Mar. 2019").
var months = func() map[string]int {
	m := map[string]int{}
	for i, mo := range monthNames {
		m[mo], m[mo[:3]] = i+1, i+1
	}
	m["sept"] = 9
	return m
}()

var weekdays = func() map[string]int {
	m := map[string]int{}
	for i, d := range weekdayNames {
		m[d], m[d[:3]] = i+1, i+1
	}
	m["tues"], m["thurs"] = 2, 4
	return m
}()

// MonthName returns the month a word names (1–12), "may" included.
func MonthName(lower string) (int, bool) {
	mo, ok := months[strings.TrimSuffix(lower, ".")]
	return mo, ok
}

// WeekdayName returns the weekday a word names (1 = Monday).
func WeekdayName(lower string) (int, bool) {
	d, ok := weekdays[strings.TrimSuffix(lower, ".")]
	return d, ok
}

var (
	isoDateRe   = regexp.MustCompile(`^(\d{4})-(\d{1,2})-(\d{1,2})(?:T.*)?$`)
	slashDateRe = regexp.MustCompile(`^(\d{1,2})/(\d{1,2})/(\d{2}|\d{4})$`)
	dotDateRe   = regexp.MustCompile(`^(\d{1,2})\.(\d{1,2})\.(\d{4})$`)
	dayRe       = regexp.MustCompile(`^(\d{1,2})(?:st|nd|rd|th)?$`)
	yearRe      = regexp.MustCompile(`^(\d{4})$`)
)

// Dates finds the dates of a text: "June 28, 2019", "28 June 2019",
// "Friday, June 28", "June 2019", "Jul 19", "2019-06-28", "28.06.2019",
// "6/28/2019", and weekday names alone. A year standing alone is not a
// date (Quantities reads it, of Kind Year).
func Dates(s string) []Date { return datesIn(s, Tokens(s)) }

func datesIn(s string, toks []Token) []Date {
	var out []Date
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.InCode {
			continue
		}
		if d, ok := numericDate(t.Text); ok {
			d.Start, d.End = t.Start, t.End()
			out = append(out, d)
			continue
		}
		d, n := wordDate(toks, i)
		if n == 0 {
			continue
		}
		d.Start, d.End = t.Start, toks[i+n-1].End()
		d.Text = s[d.Start:d.End]
		out = append(out, d)
		i += n - 1
	}
	return out
}

func numericDate(tok string) (Date, bool) {
	if len(tok) < 6 || tok[0] < '0' || tok[0] > '9' {
		return Date{}, false
	}
	if m := isoDateRe.FindStringSubmatch(tok); m != nil {
		return validDate(atoi(m[1]), atoi(m[2]), atoi(m[3]), tok)
	}
	if m := dotDateRe.FindStringSubmatch(tok); m != nil {
		return validDate(atoi(m[3]), atoi(m[2]), atoi(m[1]), tok)
	}
	if m := slashDateRe.FindStringSubmatch(tok); m != nil {
		y := atoi(m[3])
		if y < 100 {
			y += 2000
		}
		return validDate(y, atoi(m[1]), atoi(m[2]), tok) // US order, as most English text writes it
	}
	return Date{}, false
}

func validDate(y, mo, d int, text string) (Date, bool) {
	if mo < 1 || mo > 12 || d < 1 || d > 31 {
		return Date{}, false
	}
	return Date{Year: y, Month: mo, Day: d, Text: text}, true
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// wordDate reads a date written with a month or weekday name starting at
// toks[i]; n is how many tokens it took (0: none).
func wordDate(toks []Token, i int) (d Date, n int) {
	word := func(k int) string {
		if k >= len(toks) || toks[k].InCode {
			return ""
		}
		return strings.ToLower(strings.TrimSuffix(toks[k].Text, "."))
	}
	day := func(k int) int {
		if m := dayRe.FindStringSubmatch(word(k)); m != nil {
			if v := atoi(m[1]); v >= 1 && v <= 31 {
				return v
			}
		}
		return 0
	}
	year := func(k int) int {
		if m := yearRe.FindStringSubmatch(word(k)); m != nil {
			if v := atoi(m[1]); v >= 1000 && v < 3000 {
				return v
			}
		}
		return 0
	}
	k := i
	if wd, ok := weekdays[word(k)]; ok && (len(word(k)) > 3 || isCapital(toks[k].Text)) {
		d.Weekday = wd
		k++
	}
	// Day Month [Year]: "28 June 2019", "the 28th of June".
	if dd := day(k); dd > 0 {
		mk := k + 1
		if word(mk) == "of" {
			mk++
		}
		if mo, ok := months[word(mk)]; ok && monthWord(toks, mk) {
			d.Day, d.Month = dd, mo
			k = mk + 1
			if y := year(k); y > 0 {
				d.Year = y
				k++
			}
			return d, k - i
		}
	}
	// Month [Day][,] [Year]: "June 28, 2019", "June 2019", "Jul 19".
	if mo, ok := months[word(k)]; ok && monthWord(toks, k) {
		d.Month = mo
		k++
		if dd := day(k); dd > 0 {
			d.Day = dd
			k++
		}
		if y := year(k); y > 0 {
			d.Year = y
			k++
		}
		if d.Day == 0 && d.Year == 0 && (word(i) == "may" || word(i) == "mar" || !isCapital(toks[i].Text) && d.Weekday == 0) {
			return Date{}, 0
		}
		return d, k - i
	}
	if d.Weekday > 0 {
		return d, k - i
	}
	return Date{}, 0
}

// monthWord tells a month name from the same word used otherwise: "may"
// and "march" must be capitalised, abbreviations too ("Jan", not "jan").
func monthWord(toks []Token, k int) bool {
	w := strings.ToLower(strings.TrimSuffix(toks[k].Text, "."))
	if len(w) <= 4 || w == "may" || w == "march" {
		return isCapital(toks[k].Text)
	}
	return true
}

func isCapital(s string) bool { return s != "" && s[0] >= 'A' && s[0] <= 'Z' }
