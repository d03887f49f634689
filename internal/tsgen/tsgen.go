// Package tsgen writes TypeScript declarations for Go types as encoding/json
// marshals them: the shapes that cross the boundary between the Go side of
// the desktop app and its web UI. It reads the types by reflection, so the
// TypeScript cannot drift from the Go types it is generated from.
package tsgen

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"
	"unicode"
)

// Method is a bound method: its name, parameter types and its result (nil
// when it returns only an error or nothing).
type Method struct {
	Name   string
	Params []reflect.Type
	Result reflect.Type
}

// Event is an event the Go side emits, with a value of its payload type.
type Event struct {
	Name    string
	TSName  string // interface name for the payload when its Go type has none worth keeping
	Payload reflect.Type
}

// Methods lists the exported methods of t (a pointer to the bound struct)
// as a JavaScript caller sees them: the error result becomes the promise's
// rejection.
func Methods(t reflect.Type) []Method {
	errType := reflect.TypeFor[error]()
	var out []Method
	for i := range t.NumMethod() {
		m := t.Method(i)
		mt := m.Type
		bm := Method{Name: m.Name}
		for j := 1; j < mt.NumIn(); j++ { // skip the receiver
			bm.Params = append(bm.Params, mt.In(j))
		}
		for j := range mt.NumOut() {
			if mt.Out(j) != errType {
				bm.Result = mt.Out(j)
			}
		}
		out = append(out, bm)
	}
	return out
}

type generator struct {
	names map[reflect.Type]string // named struct → TypeScript interface name
	taken map[string]reflect.Type
	decls map[string]string
	queue []reflect.Type
}

var (
	timeType      = reflect.TypeFor[time.Time]()
	rawType       = reflect.TypeFor[json.RawMessage]()
	marshalerType = reflect.TypeFor[json.Marshaler]()
	textType      = reflect.TypeFor[encoding.TextMarshaler]()
)

// Generate returns the TypeScript module: an interface per struct reached
// from the methods and events, AppBindings with the methods, and EventMap
// from event name to payload.
func Generate(header string, methods []Method, events []Event) (string, error) {
	g := &generator{names: map[reflect.Type]string{}, taken: map[string]reflect.Type{}, decls: map[string]string{}}
	for _, e := range events {
		if e.TSName != "" && e.Payload.Kind() == reflect.Struct {
			g.name(e.Payload, e.TSName)
		}
	}
	var b bytes.Buffer
	b.WriteString(header)
	var bindings, eventMap strings.Builder
	bindings.WriteString("\n/** Methods bound from the Go struct app.App; each returns a Promise. */\nexport interface AppBindings {\n")
	for _, m := range methods {
		params := make([]string, len(m.Params))
		for i, p := range m.Params {
			ts, err := g.ts(p)
			if err != nil {
				return "", fmt.Errorf("method %s parameter %d: %w", m.Name, i+1, err)
			}
			params[i] = fmt.Sprintf("arg%d: %s", i+1, ts)
		}
		result := "void"
		if m.Result != nil {
			ts, err := g.ts(m.Result)
			if err != nil {
				return "", fmt.Errorf("method %s result: %w", m.Name, err)
			}
			result = ts
		}
		fmt.Fprintf(&bindings, "  %s(%s): Promise<%s>;\n", m.Name, strings.Join(params, ", "), result)
	}
	bindings.WriteString("}\n")
	eventMap.WriteString("\n/** Event name → payload, for typed subscriptions. */\nexport interface EventMap {\n")
	for _, e := range events {
		ts, err := g.ts(e.Payload)
		if err != nil {
			return "", fmt.Errorf("event %s: %w", e.Name, err)
		}
		fmt.Fprintf(&eventMap, "  '%s': %s;\n", e.Name, ts)
	}
	eventMap.WriteString("}\n")
	for len(g.queue) > 0 {
		t := g.queue[0]
		g.queue = g.queue[1:]
		if err := g.declare(t); err != nil {
			return "", err
		}
	}
	names := make([]string, 0, len(g.decls))
	for n := range g.decls {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		b.WriteString("\n")
		b.WriteString(g.decls[n])
	}
	b.WriteString(bindings.String())
	b.WriteString(eventMap.String())
	return b.String(), nil
}

// name gives a named struct its interface name: its Go name, or package
// and name when two packages use the same one.
func (g *generator) name(t reflect.Type, preferred string) string {
	if n, ok := g.names[t]; ok {
		return n
	}
	n := preferred
	if n == "" {
		n = t.Name()
	}
	if other, ok := g.taken[n]; ok && other != t {
		pkg := t.PkgPath()
		pkg = pkg[strings.LastIndex(pkg, "/")+1:]
		n = string(unicode.ToUpper(rune(pkg[0]))) + pkg[1:] + n
	}
	g.names[t], g.taken[n] = n, t
	g.queue = append(g.queue, t)
	return n
}

func (g *generator) ts(t reflect.Type) (string, error) {
	if t.Kind() == reflect.Pointer {
		inner, err := g.ts(t.Elem())
		return inner + " | null", err
	}
	switch {
	case t == timeType:
		return "string", nil // RFC 3339
	case t == rawType:
		return "unknown", nil
	case t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType):
		return "", fmt.Errorf("%s marshals itself to JSON; give tsgen its shape", t)
	case t.Kind() != reflect.Struct && (t.Implements(textType) || reflect.PointerTo(t).Implements(textType)):
		return "string", nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean", nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "number", nil
	case reflect.String:
		return "string", nil
	case reflect.Interface:
		return "unknown", nil
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "string", nil // base64
		}
		inner, err := g.ts(t.Elem())
		if strings.Contains(inner, " ") {
			inner = "(" + inner + ")"
		}
		if t.Kind() == reflect.Array {
			return inner + "[]", err
		}
		return inner + "[] | null", err
	case reflect.Map:
		inner, err := g.ts(t.Elem())
		return "Record<string, " + inner + "> | null", err
	case reflect.Struct:
		if t.Name() == "" {
			fields, _, err := g.fields(t)
			return "{ " + strings.Join(fields, " ") + " }", err
		}
		return g.name(t, ""), nil
	}
	return "", fmt.Errorf("%s (%s) has no JSON form", t, t.Kind())
}

// declare writes the interface of a named struct.
func (g *generator) declare(t reflect.Type) error {
	fields, extends, err := g.fields(t)
	if err != nil {
		return fmt.Errorf("%s: %w", t, err)
	}
	name := g.names[t]
	var b strings.Builder
	fmt.Fprintf(&b, "/** Go: %s.%s */\nexport interface %s", t.PkgPath()[strings.LastIndex(t.PkgPath(), "/")+1:], t.Name(), name)
	if len(extends) > 0 {
		b.WriteString(" extends " + strings.Join(extends, ", "))
	}
	b.WriteString(" {\n")
	for _, f := range fields {
		b.WriteString("  " + f + "\n")
	}
	b.WriteString("}\n")
	g.decls[name] = b.String()
	return nil
}

// fields lists a struct's JSON fields as TypeScript members; embedded
// structs without a JSON name become extends.
func (g *generator) fields(t reflect.Type) (fields, extends []string, err error) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				base, err := g.ts(ft)
				if err != nil {
					return nil, nil, err
				}
				extends = append(extends, base)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		ts, err := g.ts(f.Type)
		if err != nil {
			return nil, nil, fmt.Errorf("field %s: %w", f.Name, err)
		}
		optional := ""
		if strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,") {
			optional = "?"
		}
		fields = append(fields, fmt.Sprintf("%s%s: %s;", name, optional, ts))
	}
	return fields, extends, nil
}
