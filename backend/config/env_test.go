package config

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// readmeVars reads the README's variable table: name, meaning and default
// of every row, in order.
func readmeVars(t *testing.T) [][3]string {
	t.Helper()
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var rows [][3]string
	in := false
	for _, line := range strings.Split(string(raw), "\n") {
		switch {
		case strings.HasPrefix(line, "| variable | meaning | default |"):
			in = true
		case in && strings.HasPrefix(line, "|---"):
		case in && strings.HasPrefix(line, "| "):
			cells := strings.Split(strings.Trim(line, "| "), " | ")
			if len(cells) != 3 {
				t.Fatalf("README variable row %q has %d cells, want 3", line, len(cells))
			}
			rows = append(rows, [3]string{strings.Trim(cells[0], "`"), cells[1], strings.Trim(cells[2], "`")})
		case in:
			return rows
		}
	}
	return rows
}

func TestREADMEListsEveryVariable(t *testing.T) {
	rows := readmeVars(t)
	if len(rows) == 0 {
		t.Fatal("README has no variable table")
	}
	var readme, table []string
	for _, r := range rows {
		readme = append(readme, r[0])
	}
	for _, v := range Vars {
		table = append(table, v.Name)
	}
	if !slices.Equal(readme, table) {
		t.Fatalf("README lists %v, the config table %v", readme, table)
	}
	for i, v := range Vars {
		if rows[i][2] != v.Default {
			t.Errorf("%s: README default %q, config table %q", v.Name, rows[i][2], v.Default)
		}
		if rows[i][1] != v.Help {
			t.Errorf("%s: README meaning\n  %q\nconfig table help\n  %q", v.Name, rows[i][1], v.Help)
		}
	}
}

// TestEnvironmentOverridesFromTable: every variable that names a setting
// changes that setting and shows in Overridden; a number that does not parse
// is ignored.
func TestEnvironmentOverridesFromTable(t *testing.T) {
	for _, v := range Vars {
		t.Setenv(v.Name, "")
	}
	if got := Overridden(); len(got) != 0 {
		t.Fatalf("nothing set, Overridden = %v", got)
	}
	t.Setenv(EnvTopK, "7")
	t.Setenv(EnvVerification, "warn")
	t.Setenv(EnvRerankModel, "/models/rerank")
	t.Setenv(EnvMaxAnswerTokens, "lots")
	t.Setenv(EnvAllowRemote, "1")
	t.Setenv(EnvOpenAIKey, "k")
	s := Defaults()
	applyEnv(&s)
	if s.TopK != 7 || s.Verification != "warn" || s.RerankModelDir != "/models/rerank" || !s.AllowRemote || s.OpenAIAPIKey != "k" {
		t.Errorf("settings after the environment: %+v", s)
	}
	if s.MaxAnswerTokens != DefaultMaxAnswerTokens {
		t.Errorf("unparsable FOOTNOTE_MAX_ANSWER_TOKENS changed max_answer_tokens to %d", s.MaxAnswerTokens)
	}
	// max_answer_tokens is named by a set variable, so it counts as overridden
	// even though the value was ignored (as before: the app disables the field).
	want := []string{"top_k", "rerank_model_dir", "verification", "max_answer_tokens"}
	if got := Overridden(); !slices.Equal(got, want) {
		t.Errorf("Overridden = %v, want %v", got, want)
	}
	usage := EnvUsage()
	for _, v := range Vars {
		if !strings.Contains(usage, v.Name) {
			t.Errorf("usage text lacks %s", v.Name)
		}
	}
	if !strings.Contains(usage, "(default: "+DefaultLLMModel+")") || strings.Contains(usage, "`") {
		t.Errorf("usage text:\n%s", usage)
	}
}
