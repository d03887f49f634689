package cache

import (
	"strings"
	"testing"
)

// Each case names the kind of anchor SameAsk must catch, and the word its
// explanation must contain.
func TestSameAskNamesWhatDiffers(t *testing.T) {
	cases := []struct{ a, b, reason string }{
		{"Which cartridge does model A-100 use?", "What does error 52 mean on model A-100?", "number"},
		{"What does FOO_MAX control?", "What does FOO_MIN control?", "identifier"},
		{`What does "sync now" do?`, `What does "sync later" do?`, "quoted phrase"},
		{"What does the manual say about Berlin?", "What does the manual say about Munich?", "name"},
		{"Which ports are open?", "Which ports aren't open?", "negation"},
		{"How long is the cable in metres?", "How long is the cable in inches?", "unit"},
		{"Is the 5 kg bag enough?", "Is the 5 g bag enough?", "unit"},
		{"Which plan is cheaper?", "Which plan is cheapest?", "comparative"},
		{"What happened on 2024-03-01?", "What happened on 2024-03-02?", "date or time"},
		{"What did we sign in May?", "What did we sign in June?", "date or time"},
		{"Should I clean the filter?", "Must I clean the filter?", "modal"},
		{"Who signed the lease?", "When was the lease signed?", "question word"},
		{"How do I back up my notes?", "How do I back up all my notes?", "scope"},
		{"How do I convert PDF to Word?", "How do I convert Word to PDF?", "direction"},
		{"How do I install Footnote?", "How do I uninstall Footnote?", "word"},
		{"리눅스에 Footnote를 어떻게 설치하나요?", "리눅스에 Footnote를 어떻게 삭제하나요?", "word"},
		{"오류 52는 무슨 뜻인가요?", "오류 53은 무슨 뜻인가요?", "number"},
		{"어떤 파일이 색인되었나요?", "어떤 파일이 색인되지 않았나요?", "negation"},
		{"10분 후에 어떻게 되나요?", "10초 후에 어떻게 되나요?", "unit"},
		{"서울에서 부산까지 얼마나 걸리나요?", "부산에서 서울까지 얼마나 걸리나요?", "direction"},
		{"지난달 매출은 얼마였나요?", "이번 달 매출은 얼마였나요?", "date or time"},
	}
	for _, c := range cases {
		m := SameAsk(c.a, c.b)
		if m.Same {
			t.Errorf("%q and %q judged the same", c.a, c.b)
			continue
		}
		if !strings.Contains(strings.Join(m.Differences, "; "), c.reason) {
			t.Errorf("%q vs %q: want a %s difference, got %v", c.a, c.b, c.reason, m.Differences)
		}
	}
}

func TestSameAskNormalises(t *testing.T) {
	cases := []struct{ a, b string }{
		{"WHAT IS THE DEFAULT PORT?!", "what is the default port"},
		{"Which cartridge does model A-100 use?", "Which cartridge does model A100 use?"},
		{"How many pages does the manual have?", "What is the number of pages in the manual?"},
		{"Where are backups stored?", "Where is the backup stored?"},
		{"What is the fee for three users?", "What is the fee for 3 users?"},
		{"What happened on 3 May?", "What happened on May 3?"},
		{"Which files weren't indexed?", "Which files were not indexed?"},
		{"How do I turn off sync?", "How do I disable sync?"},
		{"Please tell me how to install Footnote.", "How do I install Footnote?"},
		{"How do I install Footnote on Linux?", "How do I instal Footnote on Linux?"},
		// Korean particles and endings attach to the stem.
		{"카트리지를 어디에서 사나요?", "카트리지는 어디에서 사나요?"},
		{"백업을 어떻게 시작하나요?", "백업은 어떻게 시작할 수 있나요?"},
		{"설정은 어디에 저장되나요?", "설정이 어디에 저장되는지 알려주세요."},
		{"Ｅｒｒｏｒ ５２ meaning?", "Error 52 meaning?"}, // full-width forms (NFKC)
	}
	for _, c := range cases {
		if m := SameAsk(c.a, c.b); !m.Same {
			t.Errorf("%q and %q should ask the same: %v", c.a, c.b, m.Differences)
		}
	}
}

func TestSameAskSharesItsAnchors(t *testing.T) {
	m := SameAsk("What does error 52 mean on model A-100?", "On model A-100, what does error 52 mean?")
	if !m.Same || strings.Join(m.Shared, ", ") != "identifier A-100, number 52" {
		t.Fatalf("%+v", m)
	}
}

func TestTypoOf(t *testing.T) {
	yes := [][2]string{{"cartridge", "cartrige"}, {"period", "peroid"}, {"password", "pasword"}, {"budget", "budegt"}, {"export", "exprot"}}
	no := [][2]string{{"export", "expert"}, {"install", "uninstall"}, {"cost", "cast"}, {"plane", "planet"}, {"policy", "polcy"}, {"same", "same"}}
	for _, p := range yes {
		if !typoOf(p[0], p[1]) {
			t.Errorf("%s/%s should count as a typo", p[0], p[1])
		}
	}
	for _, p := range no {
		if typoOf(p[0], p[1]) {
			t.Errorf("%s/%s must not count as a typo", p[0], p[1])
		}
	}
}

// FuzzSameAsk: any text parses, and a question always asks the same thing
// as itself.
func FuzzSameAsk(f *testing.F) {
	for _, s := range []string{"What does error 52 mean?", "A-100이 A-200보다 더 시끄럽나요?", "--verbose 5kg 3rd 2024-01-02 \"x\"", "'", "°", "ー"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if m := SameAsk(s, s); !m.Same {
			t.Fatalf("%q differs from itself: %v", s, m.Differences)
		}
	})
}
