package ingest

import (
	"encoding/xml"
	"errors"
	"io"
	"net/url"
	"path"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// extractEPUB reads the chapters in spine order (container.xml → package
// document → spine) and extracts each chapter's XHTML like an HTML file. A
// chapter that does not open with a heading gets a section titled from the
// table of contents, so every chapter is its own section.
func extractEPUB(f io.ReaderAt, size int64, lim limits) (extracted, error) {
	z, err := openZip(f, size, lim, "EPUB")
	if err != nil {
		return extracted{}, err
	}
	missing := func(what string) error {
		return damaged("the EPUB file has no %s, so its chapters cannot be found; re-save it and scan again", what)
	}
	container, err := z.read("META-INF/container.xml")
	if errors.Is(err, errNoEntry) {
		return extracted{}, missing("META-INF/container.xml")
	}
	if err != nil {
		return extracted{}, err
	}
	opfPath := ""
	err = xmlTokens(container, lim.maxDepth, "META-INF/container.xml", func(tok xml.Token) error {
		if t, ok := tok.(xml.StartElement); ok && t.Name.Local == "rootfile" && opfPath == "" {
			opfPath = attr(t, "full-path")
		}
		return nil
	})
	if err != nil {
		return extracted{}, err
	}
	opfData, err := z.read(opfPath)
	if errors.Is(err, errNoEntry) {
		return extracted{}, missing("package document")
	}
	if err != nil {
		return extracted{}, err
	}
	pkg, err := parseOPF(opfData, lim)
	if err != nil {
		return extracted{}, err
	}
	base := path.Dir(opfPath)
	labels := epubTOC(z, pkg, base, lim)

	ex := extracted{title: pkg.title}
	out := textBuilder{limit: lim.maxText}
	firstH := ""
	for _, idref := range pkg.spine {
		item, ok := pkg.items[idref]
		if !ok || !strings.Contains(item.mediaType, "html") {
			continue
		}
		name := resolveHref(base, item.href)
		data, err := z.read(name)
		if errors.Is(err, errNoEntry) {
			continue // a dangling spine entry loses one chapter, not the book
		}
		if err != nil {
			return extracted{}, err
		}
		src, _, note := decodeHTML(data)
		if note != "" {
			ex.notes = append(ex.notes, name+": "+note)
		}
		page, err := extractHTML(src, lim.maxText-len(out.b), lim.maxDepth)
		if err != nil {
			return extracted{}, err
		}
		if len(out.b)+2+len(page.text) > lim.maxText {
			return extracted{}, textLimitError(lim.maxText)
		}
		if page.text == "" {
			continue
		}
		if len(out.b) > 0 {
			out.b = append(out.b, "\n\n"...)
		}
		at := len(out.b)
		if len(page.headings) == 0 || page.headings[0].start > 0 {
			title := labels[name]
			if title == "" && len(page.headings) > 0 {
				title = page.headings[0].title
			}
			if title == "" {
				title = fileStem(name)
			}
			ex.headings = append(ex.headings, heading{start: at, level: 1, title: title})
		}
		for _, h := range page.headings {
			h.start += at
			ex.headings = append(ex.headings, h)
			if firstH == "" && h.level == 1 {
				firstH = h.title
			}
		}
		out.b = append(out.b, page.text...)
	}
	ex.text = string(out.b)
	if ex.title == "" {
		ex.title = firstH
	}
	return ex, nil
}

type epubItem struct{ href, mediaType, properties string }

type epubPackage struct {
	title string
	items map[string]epubItem // by manifest id
	spine []string            // manifest ids in reading order
	toc   string              // EPUB 2 NCX manifest id
}

func parseOPF(data []byte, lim limits) (epubPackage, error) {
	pkg := epubPackage{items: map[string]epubItem{}}
	var title strings.Builder
	inTitle := false
	err := xmlTokens(data, lim.maxDepth, "the EPUB package document", func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "title":
				inTitle = pkg.title == "" && title.Len() == 0
			case "item":
				// Ids are XML IDs, whose spaces do not count (id=" c1").
				pkg.items[strings.TrimSpace(attr(t, "id"))] = epubItem{href: attr(t, "href"), mediaType: attr(t, "media-type"), properties: attr(t, "properties")}
			case "spine":
				pkg.toc = strings.TrimSpace(attr(t, "toc"))
			case "itemref":
				pkg.spine = append(pkg.spine, strings.TrimSpace(attr(t, "idref")))
			}
		case xml.EndElement:
			if t.Name.Local == "title" && inTitle {
				inTitle = false
				pkg.title = cleanTitle(title.String())
			}
		case xml.CharData:
			if inTitle {
				title.Write(t)
			}
		}
		return nil
	})
	return pkg, err
}

// resolveHref turns an href relative to the package document into a zip
// entry name (hrefs are URL-encoded and may carry a fragment).
func resolveHref(base, href string) string {
	if i := strings.IndexByte(href, '#'); i >= 0 {
		href = href[:i]
	}
	if u, err := url.PathUnescape(href); err == nil {
		href = u
	}
	return strings.TrimPrefix(path.Clean(path.Join(base, href)), "/")
}

// epubTOC maps chapter entry names to their table-of-contents labels, from
// the EPUB 3 navigation document or the EPUB 2 NCX. A missing or broken
// table of contents only costs chapter titles, so errors are ignored.
func epubTOC(z *safeZip, pkg epubPackage, base string, lim limits) map[string]string {
	labels := map[string]string{}
	add := func(dir, href, label string) {
		label = cleanTitle(label)
		if href == "" || label == "" {
			return
		}
		name := resolveHref(dir, href)
		if _, ok := labels[name]; !ok {
			labels[name] = label
		}
	}
	for _, item := range pkg.items {
		if !strings.Contains(" "+item.properties+" ", " nav ") {
			continue
		}
		name := resolveHref(base, item.href)
		data, err := z.read(name)
		if err != nil {
			break
		}
		src, _, _ := decodeHTML(data)
		navLinks(src, lim.maxDepth, func(href, label string) { add(path.Dir(name), href, label) })
		break
	}
	if item, ok := pkg.items[pkg.toc]; ok && len(labels) == 0 {
		name := resolveHref(base, item.href)
		data, err := z.read(name)
		if err != nil {
			return labels
		}
		var label strings.Builder
		inText := false
		_ = xmlTokens(data, lim.maxDepth, name, func(tok xml.Token) error {
			switch t := tok.(type) {
			case xml.StartElement:
				switch t.Name.Local {
				case "navPoint":
					label.Reset()
				case "text":
					inText = true
				case "content":
					add(path.Dir(name), attr(t, "src"), label.String())
				}
			case xml.EndElement:
				inText = false
			case xml.CharData:
				if inText {
					label.Write(t)
				}
			}
			return nil
		})
	}
	return labels
}

// navLinks calls fn for every link inside <nav> elements of a navigation
// document, with the link's text.
func navLinks(src string, maxDepth int, fn func(href, label string)) {
	z := html.NewTokenizer(strings.NewReader(src))
	navDepth, depth := 0, 0
	href := ""
	var label strings.Builder
	inLink := false
	for {
		switch z.Next() {
		case html.ErrorToken:
			return
		case html.StartTagToken:
			t := z.Token()
			depth++
			if depth > maxDepth {
				return
			}
			switch t.DataAtom {
			case atom.Nav:
				navDepth++
			case atom.A:
				if navDepth > 0 {
					inLink, href = true, ""
					label.Reset()
					for _, a := range t.Attr {
						if a.Key == "href" {
							href = a.Val
						}
					}
				}
			}
		case html.EndTagToken:
			t := z.Token()
			depth--
			switch t.DataAtom {
			case atom.Nav:
				navDepth = max(navDepth-1, 0)
			case atom.A:
				if inLink {
					fn(href, label.String())
					inLink = false
				}
			}
		case html.TextToken:
			if inLink {
				label.Write(z.Text())
			}
		}
	}
}
