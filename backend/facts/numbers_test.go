package facts

import (
	"math"
	"testing"
)

func values(qs []Quantity) []float64 {
	out := make([]float64, len(qs))
	for i, q := range qs {
		out[i] = math.Round(q.Value*1000) / 1000
	}
	return out
}

func TestQuantities(t *testing.T) {
	cases := []struct {
		text  string
		want  []float64
		units []string
		kinds []Kind
	}{
		{"It needs about 200 MB of disk space.", []float64{200}, []string{"mb"}, nil},
		{"A 14-year-old boy", []float64{14}, []string{"year"}, nil},
		{"He was 14 years old", []float64{14}, []string{"year"}, nil},
		{"The court ruled 5-4.", []float64{5, 4}, []string{"", ""}, nil},
		{"a 5-to-4 vote", []float64{5, 4}, nil, nil},
		{"Denver won 24–10", []float64{24, 10}, nil, nil},
		{"aged 12 to 18", []float64{12, 18}, nil, nil},
		{"aged 12-18", []float64{12, 18}, nil, nil},
		{"two thirds of the vote", []float64{0.667}, nil, nil},
		{"2/3 of the vote", []float64{0.667}, nil, nil},
		{"one third of the size", []float64{0.333}, nil, nil},
		{"a third of the size", []float64{0.333}, nil, nil},
		{"renewed for a fifth season; a fifth, of course, and a tenth. of", []float64{5, 0.2, 0.1}, nil, []Kind{Ordinal, Cardinal, Cardinal}},
		{"the band's third album", []float64{3}, nil, []Kind{Ordinal}},
		{"their 3rd album", []float64{3}, nil, []Kind{Ordinal}},
		{"2½ sacks", []float64{2.5}, nil, nil},
		{"twenty-one guns and twenty one flags", []float64{21, 21}, nil, nil},
		{"two hundred people", []float64{200}, nil, nil},
		{"$2 million in fees", []float64{2e6}, []string{"$"}, nil},
		{"3,000,000 people and 3 million people", []float64{3e6, 3e6}, nil, nil},
		{"13% and 13 percent", []float64{13, 13}, []string{"%", "%"}, nil},
		{"released in 1982", []float64{1982}, nil, []Kind{Year}},
		{"in the 1980s", []float64{1980}, nil, []Kind{Decade}},
		{"the 2018–19 season and the 2018-2019 season", []float64{2018, 2019, 2018, 2019}, nil, []Kind{Year, Year, Year, Year}},
		{"from 1999–00", []float64{1999, 2000}, nil, []Kind{Year, Year}},
		{"a 30-second commercial", []float64{30}, []string{"s"}, nil},
		{"at most 1800 tokens, an 1800-token budget", []float64{1800, 1800}, []string{"token", "token"}, nil},
		{"Run llama3.2:3b on port 11434 with v2 and E-4012", []float64{11434}, nil, nil},
		{"약 200MB의 공간과 6개의 파일", []float64{200, 6}, []string{"mb", "개"}, nil},
		{"choose one of them", nil, nil, nil},
		{"one page at a time, one hundred pages", []float64{100}, []string{"page"}, nil},
		{"water twice a week, not three times", []float64{2, 3}, []string{"x", "x"}, nil},
		{"색인은 텍스트 크기의 약 3분의 1을 차지합니다", []float64{0.333}, nil, nil},
		{"색인은 텍스트 크기의 약 절반을 차지합니다", []float64{0.5}, nil, nil},
	}
	for _, c := range cases {
		got := Quantities(c.text)
		if v := values(got); !equalFloats(v, c.want) {
			t.Errorf("%q: values %v, want %v (%+v)", c.text, v, c.want, got)
			continue
		}
		for i, u := range c.units {
			if got[i].Unit != u {
				t.Errorf("%q: unit of %s is %q, want %q", c.text, got[i].Text, got[i].Unit, u)
			}
		}
		for i, k := range c.kinds {
			if got[i].Kind != k {
				t.Errorf("%q: kind of %s is %v, want %v", c.text, got[i].Text, got[i].Kind, k)
			}
		}
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestQuantitySame(t *testing.T) {
	q := func(s string) Quantity {
		qs := Quantities(s)
		if len(qs) != 1 {
			t.Fatalf("%q: %d quantities", s, len(qs))
		}
		return qs[0]
	}
	same := [][2]string{{"90 minutes", "1.5 hours"}, {"14-year-old", "14 years"}, {"2½", "2.5"}, {"3 million", "3,000,000"},
		{"13%", "13 percent"}, {"200 MB", "200"}, {"two thirds", "2/3"}}
	for _, p := range same {
		if !q(p[0]).Same(q(p[1])) {
			t.Errorf("%s and %s should be the same", p[0], p[1])
		}
	}
	differ := [][2]string{{"200 MB", "200 GB"}, {"200 MB", "20 MB"}, {"1980s", "1980"}, {"5 years", "5 days"}}
	for _, p := range differ {
		if q(p[0]).Same(q(p[1])) {
			t.Errorf("%s and %s should differ", p[0], p[1])
		}
	}
}
