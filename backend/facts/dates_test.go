package facts

import "testing"

func TestDates(t *testing.T) {
	cases := []struct {
		text string
		want []string // keys
	}{
		{"On December 20, 2018, Tom Perez announced it.", []string{"2018-12-20"}},
		{"It shipped 28 June 2019 and again on the 3rd of July.", []string{"2019-06-28", "07-03"}},
		{"Friday, June 28 was the day.", []string{"06-28"}},
		{"set to begin in June 2019", []string{"2019-06"}},
		{"Published 2016-08-24", []string{"2016-08-24"}},
		{"Posted 19.08.2019 09:06", []string{"2019-08-19"}},
		{"Due 6/28/2019.", []string{"2019-06-28"}},
		{"Jul 19 at noon", []string{"07-19"}},
		{"You may go. In March 2019 it may rain.", []string{"2019-03"}},
		{"released in 1982", nil},
		{"Closed on Sunday.", []string{"sun"}},
	}
	for _, c := range cases {
		got := Dates(c.text)
		var keys []string
		for _, d := range got {
			keys = append(keys, d.Key())
		}
		if len(keys) != len(c.want) {
			t.Errorf("%q: dates %v, want %v", c.text, keys, c.want)
			continue
		}
		for i := range keys {
			if keys[i] != c.want[i] {
				t.Errorf("%q: dates %v, want %v", c.text, keys, c.want)
				break
			}
		}
	}
}

func TestDateWithin(t *testing.T) {
	d := func(s string) Date { return Dates(s)[0] }
	if !d("28 June 2019").Within(d("Friday June 28"), []int{2019}) {
		t.Error("28 June 2019 should be within Friday June 28 under a 2019 dateline")
	}
	if d("28 June 2019").Within(d("Friday June 28"), []int{2018}) {
		t.Error("28 June 2019 is not within June 28 under a 2018 dateline")
	}
	if !d("June 2019").Within(d("June 28, 2019"), nil) {
		t.Error("June 2019 is within June 28, 2019")
	}
	if d("June 29, 2019").Within(d("June 28, 2019"), nil) {
		t.Error("another day")
	}
	if !d("Friday, June 28, 2019").Within(d("2019-06-28"), nil) {
		t.Error("a weekday the passage does not state is not held against the claim")
	}
}
