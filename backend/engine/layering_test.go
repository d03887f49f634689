package engine

// The dependency rule, checked on the real import graph from `go list`:
//
//	main, app, cmd/footnote  →  backend/engine (+ the plain types)
//	backend/engine           →  capability packages → store/corpus
//
// The plain types are backend/config (settings values and how they are
// loaded; an entry point needs them to build an engine), backend/corpus
// (documents, sections, chunks and their ids) and backend/version (the
// build's version string, stamped at link time). Everything else crossing the
// engine's door is re-exported by the engine as an alias (types.go).
// The bottom layer (store, corpus, atomicfile, clock, version, the leaf
// retrieval packages lexical and vecindex that store calls, and facts, the
// text facts toolkit beside lexical) imports only itself;
// no backend package imports the engine (but itself), app or a command;
// test tools (other commands, bench, sample generation) may use capability
// packages but no entry point. Only non-test imports count: tests may use
// fakes from anywhere.

import (
	"fmt"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
)

const modulePath = "github.com/footnote-app/footnote"

// layer names where a module package sits in the rule.
type layer int

const (
	layerEntry      layer = iota // the desktop app's main, app, the CLI
	layerTool                    // test tools, benchmarks, generators
	layerEngine                  // backend/engine
	layerPlain                   // plain types an entry point may use
	layerCapability              // every other backend package
	layerBottom                  // store and what it stands on
)

var (
	plainTypes = []string{"backend/config", "backend/corpus", "backend/version"}
	bottom     = []string{"backend/store", "backend/corpus", "backend/atomicfile", "backend/clock", "backend/version", "backend/lexical", "backend/vecindex", "backend/facts"}
)

func layerOf(pkg string) layer {
	switch {
	case pkg == "" || pkg == "app" || pkg == "cmd/footnote":
		return layerEntry
	case strings.HasPrefix(pkg, "cmd/"), strings.HasPrefix(pkg, "bench/"), strings.HasPrefix(pkg, "sample/"):
		return layerTool
	case pkg == "backend/engine":
		return layerEngine
	case slices.Contains(bottom, pkg):
		return layerBottom
	case slices.Contains(plainTypes, pkg):
		return layerPlain
	default:
		return layerCapability
	}
}

// layerViolation says why from may not import to, or "" when it may.
func layerViolation(from, to string) string {
	name := func(p string) string {
		if p == "" {
			return "the desktop app's main package"
		}
		return p
	}
	lt := layerOf(to)
	switch layerOf(from) {
	case layerEntry:
		if lt == layerEngine || slices.Contains(plainTypes, to) || (from == "" && to == "app") {
			return ""
		}
		return fmt.Sprintf("%s imports %s: app and the CLI reach the backend only through backend/engine and the plain types %s; "+
			"give the engine the method (or an alias of the type) instead", name(from), to, strings.Join(plainTypes, ", "))
	case layerTool:
		if lt == layerEntry {
			return fmt.Sprintf("%s imports %s: tools may not depend on an entry point", from, name(to))
		}
	case layerEngine, layerCapability, layerPlain:
		switch {
		case lt == layerEntry || lt == layerTool:
			return fmt.Sprintf("%s imports %s: backend packages never import app or a command", from, name(to))
		case lt == layerEngine:
			return fmt.Sprintf("%s imports backend/engine: capabilities sit below the engine, which wires them", from)
		case layerOf(from) == layerPlain && lt != layerBottom:
			return fmt.Sprintf("%s imports %s: the plain types may stand only on %s", from, to, strings.Join(bottom, ", "))
		}
	case layerBottom:
		if lt != layerBottom {
			return fmt.Sprintf("%s imports %s: the bottom layer (%s) imports only itself", from, name(to), strings.Join(bottom, ", "))
		}
	}
	return ""
}

// layerViolations checks every import of graph (module-relative package →
// module-relative imports) and looks for cycles.
func layerViolations(graph map[string][]string) []string {
	var out []string
	pkgs := make([]string, 0, len(graph))
	for p := range graph {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		for _, imp := range graph[p] {
			if v := layerViolation(p, imp); v != "" {
				out = append(out, v)
			}
		}
	}
	return append(out, cycles(graph, pkgs)...)
}

// cycles reports each import cycle once, as the path that closes it.
func cycles(graph map[string][]string, pkgs []string) []string {
	const (
		unseen = iota
		open
		done
	)
	state := map[string]int{}
	var stack, out []string
	var visit func(p string)
	visit = func(p string) {
		state[p] = open
		stack = append(stack, p)
		for _, q := range graph[p] {
			switch state[q] {
			case open:
				i := slices.Index(stack, q)
				out = append(out, "import cycle: "+strings.Join(append(slices.Clone(stack[i:]), q), " → "))
			case unseen:
				visit(q)
			}
		}
		stack = stack[:len(stack)-1]
		state[p] = done
	}
	for _, p := range pkgs {
		if state[p] == unseen {
			visit(p)
		}
	}
	return out
}

// moduleGraph reads the module's non-test import graph with `go list`.
func moduleGraph(t *testing.T) map[string][]string {
	t.Helper()
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	cmd := exec.Command("go", "list", "-tags", "sqlite_fts5", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...")
	cmd.Dir = strings.TrimSpace(string(root))
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	rel := func(p string) (string, bool) {
		if p == modulePath {
			return "", true
		}
		r, ok := strings.CutPrefix(p, modulePath+"/")
		return r, ok
	}
	graph := map[string][]string{}
	for line := range strings.Lines(string(raw)) {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		from, ok := rel(fields[0])
		if !ok {
			continue
		}
		graph[from] = []string{}
		for _, imp := range fields[1:] {
			if to, ok := rel(imp); ok {
				graph[from] = append(graph[from], to)
			}
		}
	}
	return graph
}

func TestDependenciesPointOneWay(t *testing.T) {
	graph := moduleGraph(t)
	for _, must := range []string{"", "app", "cmd/footnote", "backend/engine", "backend/store"} {
		if _, ok := graph[must]; !ok {
			t.Fatalf("go list did not report %q; the graph read is incomplete: %v", must, graph)
		}
	}
	for _, v := range layerViolations(graph) {
		t.Error(v)
	}
}

// The checker itself: the graph app and the CLI had before the engine
// became their one door, a backend package importing the app, the store
// importing a capability, and a cycle are all reported, naming the import.
func TestLayerCheckerReportsOffendingImports(t *testing.T) {
	before := map[string][]string{
		"app": {"backend/config", "backend/embed", "backend/engine", "backend/eval", "backend/ingest",
			"backend/llm", "backend/rag", "backend/search", "backend/store"},
		"cmd/footnote": {"backend/config", "backend/embed", "backend/engine", "backend/eval", "backend/llm",
			"backend/provenance", "backend/rag", "backend/search", "backend/verify"},
		"backend/search":  {"app", "backend/store"},
		"backend/store":   {"backend/corpus", "backend/search"},
		"backend/verify":  {"backend/engine"},
		"backend/engine":  {"backend/store"},
		"backend/corpus":  {},
		"cmd/fake-ollama": {"backend/llm"},
	}
	got := layerViolations(before)
	want := []string{
		"app imports backend/embed:", "app imports backend/store:", "app imports backend/ingest:",
		"cmd/footnote imports backend/verify:", "cmd/footnote imports backend/provenance:",
		"backend/search imports app: backend packages never import app",
		"backend/store imports backend/search: the bottom layer",
		"backend/verify imports backend/engine:",
		"import cycle: backend/store → backend/search → backend/store",
	}
	for _, w := range want {
		if !slices.ContainsFunc(got, func(v string) bool { return strings.Contains(v, w) }) {
			t.Errorf("no violation %q reported; got:\n%s", w, strings.Join(got, "\n"))
		}
	}
	for _, allowed := range []string{"app imports backend/config", "app imports backend/engine", "cmd/fake-ollama"} {
		if slices.ContainsFunc(got, func(v string) bool { return strings.HasPrefix(v, allowed) }) {
			t.Errorf("%q reported though the rule allows it:\n%s", allowed, strings.Join(got, "\n"))
		}
	}
}
